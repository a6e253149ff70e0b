package report

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/internal/fixture"
	"github.com/contend/contend/internal/results"
	"golang.org/x/perf/benchfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with what the code prints now")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	fixture.Golden(t, filepath.Join("testdata", name), []byte(got), *update)
}

// testHeadlines are the scenarios' headline units, as bench/all's specs
// declare them.
var testHeadlines = map[string]string{
	"AtomicAdd": "shared-writes/op", "LoadAvg": "shared-writes/op", "BalanceFlag": "cas/op",
	"Nodemask": "words-scanned/op", "IdleMask": "cpus-scanned/op", "Wakeup": "migrations/5s",
}

func summarize(t *testing.T, files ...string) string {
	t.Helper()
	rs, err := results.Read(files)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	o := SummaryOptions{File: "out/sweep.txt", Headline: func(s string) string { return testHeadlines[s] }}
	if err := WriteSummary(&b, rs, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSummaryGolden(t *testing.T) {
	golden(t, "summary-quick.golden", summarize(t, "testdata/sweep-quick-stored.txt"))
	golden(t, "summary-old.golden", summarize(t, "testdata/old.txt"))
}

// TestSummaryFitsAScreen holds the quick sweep's stdout, rendered from a
// stored results file of a real quick sweep, to what a newcomer reads in one
// screen: at most 100 lines of at most 160 columns.
//
// sweep-quick-adaptive.txt is a real adaptive quick sweep, with its
// "# rounds:" lines and so its never-converged footnote.
func TestSummaryFitsAScreen(t *testing.T) {
	for _, f := range []string{"testdata/sweep-quick-stored.txt", "testdata/sweep-quick-adaptive.txt", "testdata/sweep-quick-busy.txt"} {
		out := summarize(t, f)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) > 100 {
			t.Errorf("%s: the quick sweep's summary is %d lines, over 100", f, len(lines))
		}
		for i, l := range lines {
			if w := width(l); w > 160 {
				t.Errorf("%s: line %d is %d columns, over 160: %s", f, i+1, w, l)
			}
		}
	}
}

func TestSummaryBaseline(t *testing.T) {
	out := summarize(t, "testdata/sweep-quick-stored.txt")
	// BalanceFlag's quick variants run each order paced and unpaced: the
	// paced check-first row compares with paced cmpxchg-first, not with
	// the unpaced baseline three orders of magnitude faster.
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  cmpxchg-first") || strings.HasPrefix(l, "  check-first") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 4 {
		t.Fatalf("want 4 BalanceFlag rows, got %d:\n%s", len(rows), out)
	}
	for _, i := range []int{0, 2} {
		if !strings.HasSuffix(rows[i], "base") {
			t.Errorf("row %q should be a baseline", rows[i])
		}
	}
	for _, i := range []int{1, 3} {
		if strings.HasSuffix(rows[i], "base") || regexp.MustCompile(`\d{3,}\.\d+×`).MatchString(rows[i]) {
			t.Errorf("row %q should compare with its own pace's baseline", rows[i])
		}
	}
}

func TestSummaryNoTimes(t *testing.T) {
	rs, err := results.Parse(strings.NewReader("BenchmarkX/a=1 1 5 cas/op\n"), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(new(strings.Builder), rs, SummaryOptions{}); err == nil {
		t.Error("a file without ns/op summarized without error")
	}
}

func TestElider(t *testing.T) {
	names := []string{
		"LoadAvg/preset=base/store=atomic/mig=79/place=compact-2",
		"LoadAvg/preset=rate/store=atomic/mig=79/place=compact-2",
		"Nodemask/iter=max/nodes=2-2",
		"Nodemask/iter=max/nodes=4-4",
		"Solo/x=1",
	}
	el := newElider(names)
	for _, c := range []struct{ in, label, common string }{
		{names[0], "LoadAvg/preset=base", "store=atomic mig=79 place=compact procs=2"},
		{names[2], "Nodemask/nodes=2-2", "iter=max"},
		{names[4], "Solo", "x=1"},
	} {
		base, _ := splitName(c.in)
		if got := el.label(c.in); got != c.label {
			t.Errorf("label(%q) = %q, want %q", c.in, got, c.label)
		}
		if got := strings.Join(el.common(base), " "); got != c.common {
			t.Errorf("common(%q) = %q, want %q", base, got, c.common)
		}
	}
	// A key that some names lack varies.
	el = newElider([]string{"A/x=1/y=2", "A/x=1"})
	if got := el.label("A/x=1"); got != "A" {
		t.Errorf("label = %q, want A", got)
	}
	if got := el.label("A/x=1/y=2"); got != "A/y=2" {
		t.Errorf("label = %q, want A/y=2", got)
	}
}

// TestBelowClock: a latency quantile below the clock's cost prints as
// "< clock" with a note, never as a bare 0 ± ?, and one above it as usual.
func TestBelowClock(t *testing.T) {
	var in strings.Builder
	in.WriteString("Unit p50-sec better=lower\nUnit clock-sec role=check\n")
	for i := range 6 {
		fmt.Fprintf(&in, "BenchmarkA/x=fast/threads=1 1000 2 ns/op 0 p50-sec %g clock-sec\n", 31e-9+float64(i)*1e-10)
		fmt.Fprintf(&in, "BenchmarkA/x=slow/threads=1 1000 300 ns/op %g p50-sec 31e-9 clock-sec\n", 240e-9+float64(i)*1e-9)
	}
	rs, err := results.Parse(strings.NewReader(in.String()), "lat.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{Row: ".fullname", Col: "/threads@num", Filter: "*", Ignore: "date", Units: "p50-sec", Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	var fast, slow string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "A/x=fast"):
			fast = l
		case strings.HasPrefix(l, "A/x=slow"):
			slow = l
		}
	}
	if !strings.Contains(fast, "< 31") || strings.Contains(fast, "±") || !strings.Contains(out, "below the clock") {
		t.Errorf("the fast row is not marked below the clock:\n%s", out)
	}
	if strings.Contains(slow, "<") || !strings.Contains(slow, "±") {
		t.Errorf("the slow row, above the clock, is marked:\n%s", out)
	}
	var js strings.Builder
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"below_clock":3.1`) {
		t.Errorf("JSON lacks below_clock:\n%s", js.String())
	}
}

func TestSecondsAndLatency(t *testing.T) {
	for _, tt := range []struct {
		sec, clock float64
		want       string
	}{
		{0, 0, "0s"}, {823.5e-9, 0, "823.5ns"}, {1.33e-6, 30e-9, "1.330µs"},
		{0, 31e-9, "< 31.00ns"}, {20e-9, 31e-9, "< 31.00ns"}, {240e-9, 31e-9, "240.0ns"},
	} {
		if got := Latency(tt.sec, tt.clock); got != tt.want {
			t.Errorf("Latency(%g, %g) = %q, want %q", tt.sec, tt.clock, got, tt.want)
		}
	}
}

func TestRatio(t *testing.T) {
	for _, tt := range []struct {
		base, new float64
		down, up  string
		want      string
	}{
		{100, 11, "faster", "slower", "9.09× faster"},
		{100, 130, "faster", "slower", "1.30× slower"},
		{150, 100, "faster", "slower", "1.50× faster"},
		{10, 200, "faster", "slower", "20.0× slower"},
		{1000, 1, "faster", "slower", "1000× faster"},
		{100, 100.4, "faster", "slower", "1.00× slower"}, // a rise, however small, is not "faster"
		{100.4, 100, "faster", "slower", "1.00× faster"},
		{36.6, 25, "lower", "higher", "1.46× lower"},
		{100, 100, "lower", "higher", "no change"},
		{5, 0, "lower", "higher", "down to 0"},
		{0, 5, "lower", "higher", "up from 0"},
	} {
		if got := Ratio(tt.base, tt.new, tt.down, tt.up).String(); got != tt.want {
			t.Errorf("Ratio(%g, %g, %q, %q) = %q, want %q", tt.base, tt.new, tt.down, tt.up, got, tt.want)
		}
	}
	if got, want := Speedup(100, 11), Ratio(100, 11, "faster", "slower"); got != want {
		t.Errorf("Speedup(100, 11) = %v, want %v", got, want)
	}
}

// TestSummaryBusy: when most cells (over half) include a disturbed run or
// never converged, the summary's first line says so and what to do; at
// half or fewer it leads with the machine as before, the footnotes under
// the tables marking the cells. On real sweeps: sweep-quick-stored.txt
// (a busy 2-vCPU guest) and sweep-quick-adaptive.txt (a quieter one), whole
// and by scenario, which puts blocks on both sides of the line by one cell;
// and sweep-quick-busy.txt, the case: contend sweep -quick on the
// shared 2-vCPU development VM at load average 19 (2026-12-02, while other
// engineers built and tested), every cell disturbed and never converged.
func TestSummaryBusy(t *testing.T) {
	const stored, adaptive = "testdata/sweep-quick-stored.txt", "testdata/sweep-quick-adaptive.txt"
	for _, tt := range []struct {
		file, bench string // bench: only the results whose names match it (a regexp); "" all
		want        string // the first line's start; "" for no busy line
		quiet       bool   // only the undisturbed runs
	}{
		{"testdata/sweep-quick-busy.txt", "", "BUSY MACHINE: 37 of 37 cells disturbed¹ or never converged²: rerun on a quiet machine; contend run atomicadd shows who took the cpus", false},
		{stored, "", "BUSY MACHINE: 22 of 37 cells disturbed¹: rerun on a quiet machine; contend run atomicadd shows who took the cpus", false},
		{stored, "IdleMask/", "BUSY MACHINE: 5 of 8 cells disturbed¹:", false},
		{stored, "BalanceFlag/", "", false}, // 4 of 8: half is not most
		{stored, "Nodemask/", "", false},    // 5 of 10
		{stored, "Wakeup/", "BUSY MACHINE: 2 of 3 cells disturbed¹:", false},
		{adaptive, "", "", false},          // 14 of 37
		{adaptive, "IdleMask/", "", false}, // 4 of 8 (1 disturbed, 3 never converged)
		{adaptive, "LoadAvg/", "", false},  // 2 of 4, each both
		{adaptive, "Wakeup/", "BUSY MACHINE: 2 of 3 cells disturbed¹ or never converged²:", false},
		// Without its disturbed runs, IdleMask's update=always and
		// tickstop rows have 3 of 4 cells that never converged, and no
		// disturbed one to blame; LoadAvg has 2 of 4.
		{file: adaptive, bench: "IdleMask/update=(always|tickstop)/", quiet: true,
			want: "NOISY MACHINE: 3 of 4 cells never converged², no run disturbed: rerun on a quieter machine, or with a larger -count or -ci"},
		{file: adaptive, bench: "LoadAvg/", quiet: true},
	} {
		rs, err := results.Read([]string{tt.file})
		if err != nil {
			t.Fatal(err)
		}
		keep := regexp.MustCompile("^" + tt.bench)
		rs.Results = slices.DeleteFunc(rs.Results, func(r *benchfmt.Result) bool {
			return !keep.Match(r.Name) || tt.quiet && results.Disturbed(r)
		})
		var b strings.Builder
		if err := WriteSummary(&b, rs, SummaryOptions{}); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(b.String(), "\n")
		switch {
		case tt.want == "" && strings.Contains(b.String(), " MACHINE: "):
			t.Errorf("%s %s: a busy line where most cells are fine:\n%s", tt.file, tt.bench, b.String())
		case tt.want != "" && !strings.HasPrefix(first, tt.want):
			t.Errorf("%s %s: first line %q, want %q…", tt.file, tt.bench, first, tt.want)
		}
	}
}

func TestBusy(t *testing.T) {
	for _, tt := range []struct {
		bad, cells int
		want       bool
	}{
		{0, 0, false}, {0, 1, false}, {1, 1, true}, {1, 2, false}, {2, 3, true},
		{18, 37, false}, {19, 37, true}, {37, 37, true}, {61, 122, false}, {62, 122, true},
	} {
		if got := busy(tt.bad, tt.cells); got != tt.want {
			t.Errorf("busy(%d, %d) = %v, want %v", tt.bad, tt.cells, got, tt.want)
		}
	}
}

// The machine line collapses the spaces CPUID pads a brand with and names
// the hypervisor once, with no space before the next comma.
func TestMachineLineBhyve(t *testing.T) {
	r := &benchfmt.Result{Name: benchfmt.Name("X")}
	for _, kv := range [][2]string{{"cpu", "Oxide Virtual Turin-like Processor              "}, {"cpu_family", "26"}, {"cpu_model", "2"},
		{"cpus", "0..1"}, {"nodes", "1"}, {"hypervisor", "bhyve bhyve "}, {"kernel", "6.12.0"}} {
		r.SetConfig(kv[0], kv[1])
	}
	got := machineLine([]*benchfmt.Result{r})
	want := "machine: Oxide Virtual Turin-like Processor (family 26 model 2), cpus 0..1, 1 node, under bhyve, kernel 6.12.0"
	if got != want {
		t.Errorf("machineLine = %q\nwant           %q", got, want)
	}
}
