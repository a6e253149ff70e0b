package main

import (
	"bytes"
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden testdata/*.stdout files of compare and table")

// The results fixtures in testdata/results are small and synthetic (made to
// have known differences: store=global is 30% faster in new.txt, pernode is
// unchanged) except gotest.txt, which is go test -bench output from the
// 2-vCPU development VM.

// golden runs contend with args and checks its stdout against
// testdata/<name>.stdout.
func golden(t *testing.T, name string, args []string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(&stdout, &stderr, args); err != nil {
		t.Fatalf("contend %s: %v", strings.Join(args, " "), err)
	}
	goldenFile(t, filepath.Join("testdata", name+".stdout"), stdout.Bytes())
}

func res(name string) string { return filepath.Join("testdata", "results", name) }

func TestCompareGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"compare-default", []string{"compare", res("old.txt"), res("new.txt")}},
		{"compare-three", []string{"compare", "-unit", "ns/op", res("old.txt"), res("new.txt"), res("fake2.txt")}},
		{"compare-labels", []string{"compare", "-unit", "sec/op,cas/op", "old=" + res("old.txt"), "new=" + res("new.txt")}},
		{"compare-filter", []string{"compare", "-filter", "/store:global /threads:(2 OR 4)", "-unit", "ns/op", res("old.txt"), res("new.txt")}},
		{"compare-within", []string{"compare", "-col", "/store", "-row", "/threads", "-unit", "ns/op", res("old.txt")}},
		{"compare-alpha", []string{"compare", "-alpha", "0.001", "-unit", "ns/op", res("old.txt"), res("new.txt")}},
		{"compare-gotest", []string{"compare", "-row", ".name,/line,/work", "-col", "/threads", "-unit", "ns/op", res("gotest.txt")}},
		{"compare-json", []string{"compare", "-json", "-row", "/line", "-col", "/threads", "-unit", "p99-sec", res("disturbed.txt")}},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args) })
	}
}

// badRun checks that contend with args fails with a one-line error that
// contains each of want.
func badRun(t *testing.T, args []string, want ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, args)
	if err == nil {
		t.Fatalf("contend %s: no error, want one containing %q", strings.Join(args, " "), want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("contend %s: error is not one line: %q", strings.Join(args, " "), msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("contend %s: error %q does not contain %q", strings.Join(args, " "), msg, w)
		}
	}
}

func TestCompareErrors(t *testing.T) {
	old, new := res("old.txt"), res("new.txt")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no files", []string{"compare"}, []string{"compare: want results files"}},
		{"one file", []string{"compare", old}, []string{"at least two results files", "one file of contend ab"}},
		{"missing file", []string{"compare", old, res("nope.txt")}, []string{"compare: open testdata/results/nope.txt: no such file"}},
		{"bad iteration count", []string{"compare", old, res("bad-iters.txt")}, []string{"testdata/results/bad-iters.txt:4: parsing iteration count"}},
		{"missing measurements", []string{"compare", res("bad-missing.txt"), old}, []string{"testdata/results/bad-missing.txt:3: missing measurements"}},
		{"no results", []string{"compare", old, res("empty.txt")}, []string{"compare: testdata/results/empty.txt: no benchmark results"}},
		{"empty file", []string{"compare", res("zero.txt"), old}, []string{"testdata/results/zero.txt: no benchmark results"}},
		{"NaN", []string{"compare", old, res("nan.txt")}, []string{"testdata/results/nan.txt:2: ns/op measurement is NaN"}},
		{"contradicting units", []string{"compare", old, res("conflict.txt")}, []string{"testdata/results/conflict.txt:1: metadata better of unit cas/op already set to lower"}},
		{"unknown row key", []string{"compare", "-row", "/thread", old, new}, []string{"compare: -row: no result has key /thread", "name keys: /store /write /threads /place /gomaxprocs"}},
		{"unknown col key", []string{"compare", "-col", "machine", old, new}, []string{"-col: no result has key machine", "config keys: goos goarch cpu"}},
		{"bad row syntax", []string{"compare", "-row", "/threads@bogus", old, new}, []string{"-row \"/threads@bogus\"", "unknown order"}},
		{"bad filter", []string{"compare", "-filter", "/store:(global", old, new}, []string{"compare: -filter \"/store:(global\""}},
		{"filter matches nothing", []string{"compare", "-filter", "/store:none", old, new}, []string{"no results match -filter \"/store:none\""}},
		{"unknown unit", []string{"compare", "-unit", "B/op", old, new}, []string{"-unit B/op: no result measures it", "units: ns/op shared-writes/op cas/op worker-cv-%"}},
		{"alpha", []string{"compare", "-alpha", "2", old, new}, []string{"-alpha 2: want a level between 0 and 1"}},
		{"confidence", []string{"compare", "-confidence", "0", old, new}, []string{"-confidence 0: want a level between 0 and 1"}},
		{"unknown flag", []string{"compare", "-rows", ".name", old, new}, []string{"compare: flag provided but not defined: -rows"}},
	} {
		t.Run(tc.name, func(t *testing.T) { badRun(t, tc.args, tc.want...) })
	}
}

// TestCompareFailOnValues: -fail-on takes a percentage as CI scripts write
// one, with or without its %, through the real flag parsing; anything else
// is a one-line error that says what form is wanted.
func TestCompareFailOnValues(t *testing.T) {
	files := []string{"-unit", "ns/op", res("ab-aa.txt")}
	for _, tt := range []struct {
		value, want string // want: the threshold compare reports
	}{
		{"5", "5%"}, {"5%", "5%"}, {"2.5%", "2.5%"}, {"0", "0%"}, {"0%", "0%"}, {" 5 %", "5%"}, {"1e2%", "100%"},
	} {
		for _, args := range [][]string{{"-fail-on", tt.value}, {"-fail-on=" + tt.value}} {
			out, _, err := runContend(append(append([]string{"compare"}, args...), files...)...)
			if want := "no metric got worse by more than " + tt.want + " "; err != nil || !strings.Contains(out, want) {
				t.Errorf("compare %q: %v, printed %q; want %q", args, err, out, want)
			}
		}
	}
	for _, bad := range []string{"5x", "five", "-3", "-0.5%", "%", "", "5%%", "%5", "NaN", "Inf", "1e400"} {
		badRun(t, append([]string{"compare", "-fail-on", bad}, files...),
			`invalid value "`+bad+`" for flag -fail-on`, "want a percentage of 0 or more, such as 5 or 5%")
	}
}

// FuzzPercentFlag: any text either sets a finite percentage of 0 or more,
// which its String sets again to the same value, or is refused with the
// one error that says what form is wanted. Seeds: testdata/fuzz.
func FuzzPercentFlag(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		var p percentFlag
		if err := p.Set(s); err != nil {
			if err.Error() != "want a percentage of 0 or more, such as 5 or 5%" {
				t.Errorf("Set(%q): %v", s, err)
			}
			return
		}
		if v := float64(p); !(v >= 0) || math.IsInf(v, 0) || math.Signbit(v) {
			t.Errorf("Set(%q) = %v, want a finite percentage of 0 or more", s, v)
		}
		var again percentFlag
		if err := again.Set(p.String()); err != nil || again != p {
			t.Errorf("Set(%q) = %v, whose String %q sets %v, %v", s, p, p.String(), again, err)
		}
	})
}

// A results file cut mid-line is read without its half line, and table,
// compare and plot each say so in one line naming the file and line.
func TestCutResultsFile(t *testing.T) {
	cut := res("cut.txt")
	for _, args := range [][]string{
		{"table", cut},
		{"compare", res("new.txt"), cut},
		{"plot", "-o", filepath.Join(t.TempDir(), "cut.svg"), cut},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(&stdout, &stderr, args); err != nil {
			t.Fatalf("contend %s: %v", strings.Join(args, " "), err)
		}
		want := args[0] + ": " + cut + ":54: the last line is cut short"
		if got := lineWith(stderr.String(), "cut short"); !strings.HasPrefix(got, want) {
			t.Errorf("contend %s: stderr %q, want a line starting %q", strings.Join(args, " "), stderr.String(), want)
		}
	}
	// The half line is no sample: the cut file's last cell has 5 of 6.
	var stdout, stderr bytes.Buffer
	if err := run(&stdout, &stderr, []string{"table", "-json", "-unit", "ns/op", "-row", ".fullname", "-col", ".file", cut}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "store=pernode/write=ratelimit/threads=4") || !strings.Contains(last, `"n":5`) {
		t.Errorf("last cell %s: want store=pernode threads=4 with 5 samples", last)
	}
}

// lineWith returns the first line of s holding sub ("" if none).
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
