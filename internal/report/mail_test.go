package report

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/contend/contend/internal/results"
	"golang.org/x/perf/benchmath"
)

func compareReport(t *testing.T, full bool, files ...string) *Report {
	t.Helper()
	rs, err := results.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{Row: ".fullname", Col: ".file", Filter: "*", Ignore: "date",
		Alpha: 0.05, Confidence: 0.95, Compare: true, FullNames: full})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestFormatsGolden(t *testing.T) {
	rep := compareReport(t, false, "old=testdata/old.txt", "new=testdata/new.txt")
	for _, f := range Formats {
		var b strings.Builder
		if err := rep.WriteFormat(&b, f); err != nil {
			t.Fatal(err)
		}
		golden(t, "compare-"+string(f)+".golden", b.String())
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("html"); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("ParseFormat(html): %v, want a one-line error", err)
	}
}

// TestLKPAgainstBenchstat reads the numbers back from the lkp layout and
// holds them against benchstat's own summary of the same samples
// (benchmath, the package benchstat prints from): the medians to the four
// digits printed, the changes to the tenth of a per cent.
func TestLKPAgainstBenchstat(t *testing.T) {
	rep := compareReport(t, true, "old=testdata/old.txt", "new=testdata/new.txt")
	var b strings.Builder
	if err := rep.WriteFormat(&b, FormatLKP); err != nil {
		t.Fatal(err)
	}
	old, _ := results.Read([]string{"testdata/old.txt"})
	new, _ := results.Read([]string{"testdata/new.txt"})
	samples := func(rs *results.Set, name, unit string) []float64 {
		var xs []float64
		for _, r := range rs.Results {
			if string(r.Name.Full()) != name {
				continue
			}
			for _, v := range r.Values {
				if v.Unit == unit {
					xs = append(xs, v.Value)
				}
			}
		}
		return xs
	}
	median := func(xs []float64) float64 {
		s := benchmath.NewSample(xs, &benchmath.DefaultThresholds)
		return benchmath.AssumeNothing.Summary(s, 0.95).Center
	}
	close := func(printed string, want float64) bool {
		got, err := strconv.ParseFloat(printed, 64)
		if err != nil {
			return false
		}
		return math.Abs(got-want) <= 5e-4*math.Abs(want)+1e-12
	}
	rows := 0
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// Rows: base [± N%] change new [± N%] name unit.
		if len(f) < 5 || !strings.HasPrefix(f[len(f)-2], "LoadAvg/") {
			continue
		}
		name, unit := f[len(f)-2], f[len(f)-1]
		scale := 1.0
		if unit == "ns/op" {
			unit, scale = "sec/op", 1e-9
		}
		nums := []string{}
		change := ""
		for _, x := range f[:len(f)-2] {
			switch {
			case strings.HasPrefix(x, "±") || strings.HasSuffix(x, "%") && !strings.HasPrefix(x, "+") && !strings.HasPrefix(x, "-"):
			case x == "~" || strings.HasPrefix(x, "+") || strings.HasPrefix(x, "-"):
				change = x
			default:
				nums = append(nums, x)
			}
		}
		if len(nums) != 2 {
			t.Fatalf("row %q: want two figures, got %v", sc.Text(), nums)
		}
		mo, mn := median(samples(old, "LoadAvg/"+strings.TrimPrefix(name, "LoadAvg/"), unit)), median(samples(new, name, unit))
		if !close(nums[0], mo/scale) || !close(nums[1], mn/scale) {
			t.Errorf("%s %s: lkp prints %s → %s, benchstat's medians are %g → %g", name, unit, nums[0], nums[1], mo/scale, mn/scale)
		}
		if change != "~" && mo != 0 {
			pct, _ := strconv.ParseFloat(strings.TrimSuffix(change, "%"), 64)
			if want := (mn - mo) / mo * 100; math.Abs(pct-want) > 0.051 {
				t.Errorf("%s %s: lkp prints %s, benchstat's delta is %+.2f%%", name, unit, change, want)
			}
		}
		rows++
	}
	if rows == 0 {
		t.Fatalf("no rows read back from:\n%s", b.String())
	}
}

func TestRegressions(t *testing.T) {
	// new.txt is faster than old.txt, so read backwards it regresses.
	rep := compareReport(t, false, "new=testdata/new.txt", "old=testdata/old.txt")
	all := rep.Regressions(0)
	if len(all) == 0 {
		t.Fatal("new → old has no regression at 0%; the fixture has some")
	}
	if n := len(rep.Regressions(44)); n == 0 || n >= len(all) {
		t.Errorf("%d of %d regressions over 44%%: the threshold does not cut", n, len(all))
	}
	for _, r := range all {
		if r.P >= 0.05 {
			t.Errorf("%v: not significant, yet a regression", r)
		}
		if strings.Contains(r.String(), "\n") {
			t.Errorf("%q: not one line", r)
		}
	}
	if n := len(rep.Regressions(1e9)); n != 0 {
		t.Errorf("%d regressions over 1e9%%", n)
	}
	// Swapped, what got worse got better: no row regresses both ways.
	back := compareReport(t, false, "old=testdata/old.txt", "new=testdata/new.txt").Regressions(0)
	for _, a := range all {
		for _, b := range back {
			if a.Metric == b.Metric {
				t.Errorf("%s regresses both ways", a.Metric)
			}
		}
	}
}

func TestMailNumber(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {1234.5, "1234"}, {12.345, "12.35"}, {45678.9, "45679"},
		{9999.6, "10000"}, {-9999.6, "-10000"}, {0.0005, "0.0005"}, {2e9, "2e+09"},
	} {
		if got := mailNumber(tt.v); got != tt.want {
			t.Errorf("mailNumber(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestAssumeExact: under a unit's assume=exact (or normal) benchmath leaves
// a Comparison's Alpha at 0; significance is judged at the report's α, so a
// change is still a change, in mail, -fail-on and the summary.
func TestAssumeExact(t *testing.T) {
	file := func(ns float64) string {
		var b strings.Builder
		b.WriteString("Unit ns/op assume=exact better=lower\n")
		for _, th := range []int{1, 2} {
			fmt.Fprintf(&b, "BenchmarkA/x=fix/threads=%d 1 %g ns/op\n", th, ns)
			fmt.Fprintf(&b, "BenchmarkA/x=base/threads=%d 1 100 ns/op\n", th)
		}
		return b.String()
	}
	dir := t.TempDir()
	old, new := dir+"/old.txt", dir+"/new.txt"
	os.WriteFile(old, []byte(file(100)), 0o644)
	os.WriteFile(new, []byte(file(150)), 0o644)
	rep := compareReport(t, false, "old="+old, "new="+new)
	if regs := rep.Regressions(10); len(regs) != 2 {
		t.Errorf("assume=exact: %d regressions over 10%%, want the fix's 2 (threads 1 and 2): %v", len(regs), regs)
	}
	var b strings.Builder
	if err := rep.WriteFormat(&b, FormatLKP); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "+50.0%") || strings.Contains(b.String(), "p ≥ 0;") {
		t.Errorf("assume=exact lkp lacks the +50%% change or says p ≥ 0:\n%s", b.String())
	}
	rs, err := results.Read([]string{new})
	if err != nil {
		t.Fatal(err)
	}
	var sum strings.Builder
	if err := WriteSummary(&sum, rs, SummaryOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "1.50× faster") {
		t.Errorf("assume=exact summary does not compare base 150 → fix 100 as 1.50× faster:\n%s", sum.String())
	}
}
