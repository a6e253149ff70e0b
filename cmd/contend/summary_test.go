package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/results"
)

// TestCompareFormats: each mail layout is golden, the JSON and text ones
// are TestCompareGolden's, and whole names stay one flag away.
func TestCompareFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"compare-lkp", []string{"compare", "-format", "lkp", "-unit", "ns/op,shared-writes/op", "old=" + res("old.txt"), "new=" + res("new.txt")}},
		{"compare-seed", []string{"compare", "-format", "seed", "-unit", "ns/op", "old=" + res("old.txt"), "new=" + res("new.txt")}},
		{"compare-markdown", []string{"compare", "-format", "markdown", "-unit", "ns/op", "old=" + res("old.txt"), "new=" + res("new.txt")}},
		{"compare-full-names", []string{"compare", "-full-names", "-unit", "ns/op", res("old.txt"), res("new.txt")}},
		{"table-full-names", []string{"table", "-full-names", "-unit", "ns/op", res("new.txt")}},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args) })
	}
	badRun(t, []string{"compare", "-format", "html", res("old.txt"), res("new.txt")}, "-format", "html", "lkp")
	badRun(t, []string{"compare", "-fail-on", "-3", res("old.txt"), res("new.txt")}, "-fail-on", "-3")
}

// TestCompareFailOn: -fail-on exits non-zero exactly when a metric of one
// interleaved session (contend ab's file) got worse by more than the
// threshold round by round, printing only those metrics; an A/A session
// under drift passes at any threshold; two files from different sessions
// are not judged, in one line.
func TestCompareFailOn(t *testing.T) {
	// ab-slow.txt: new is 30% slower at store=global, under a drift that
	// triples every figure across the session (the unpaired U-test sees
	// nothing: p ≈ 0.1).
	out, _, err := runContend("compare", "-fail-on", "10", res("ab-slow.txt"))
	if err == nil || !strings.Contains(err.Error(), "2 metrics got worse by more than 10% (paired by round in session") || strings.Contains(err.Error(), "\n") {
		t.Errorf("compare -fail-on 10 of a regression: error %v, want a one-line count of 2", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Errorf("compare -fail-on printed %d lines, want the 2 regressions:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !strings.Contains(l, "store=global") || !strings.Contains(l, "ns/op") || !strings.Contains(l, "10 of 10 rounds worse") {
			t.Errorf("unexpected regression line %q", l)
		}
	}
	if _, _, err := runContend("compare", "-fail-on", "50", res("ab-slow.txt")); err != nil {
		t.Errorf("compare -fail-on 50: %v, want success (no regression over 50%%)", err)
	}
	// A/A: the same drift, no change: passes however low the threshold.
	for _, pct := range []string{"0", "5"} {
		if out, _, err := runContend("compare", "-fail-on", pct, res("ab-aa.txt")); err != nil || !strings.Contains(out, "no metric got worse") {
			t.Errorf("compare -fail-on %s of an A/A session: %v, printed %q", pct, err, out)
		}
	}
	// Two files of different sessions: 42-45% worse read backwards, and
	// still not judged: one line, success.
	for _, files := range [][]string{{"new=" + res("new.txt"), "old=" + res("old.txt")}, {res("ab-aa.txt"), res("ab-slow.txt")}} {
		out, stderr, err := runContend(append([]string{"compare", "-fail-on", "10", "-unit", "ns/op"}, files...)...)
		if err != nil || strings.Count(out, "\n") != 1 || !strings.Contains(out, "not measured in one session") || !strings.Contains(out, "drift") || stderr != "" {
			t.Errorf("compare -fail-on 10 %v: %v, printed %q, stderr %q; want one line that it cannot tell drift from change", files, err, out, stderr)
		}
	}
	// Too few rounds for the metrics gated at this α: an error saying how
	// many rounds it takes (10 rounds, 8 metrics, α 0.0001: 2⁻¹⁷ < 0.0001/8).
	badRun(t, []string{"compare", "-alpha", "0.0001", "-fail-on", "5", res("ab-aa.txt")}, "10 rounds", "8 metrics", "at least 17 rounds", "contend ab -count 17")
}

// TestRunCountSummary: several runs end with their summary on stderr.
func TestRunCountSummary(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	var stdout, stderr bytes.Buffer
	if err := run(&stdout, &stderr, []string{"run", "atomicadd", "-threads", "1", "-duration", "5ms", "-count", "3", "-o", out}); err != nil {
		t.Fatalf("run -count 3: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "median of 3 runs") || !strings.Contains(stderr.String(), "contend table "+out) {
		t.Errorf("run -count 3 ends without a summary:\n%s", stderr.String())
	}
	checkRatios(t, "run -count 3", stderr.String())
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

// TestRunCountKeepsCompletedRuns: a run -count that fails part way (a cpu
// unplugged, a broken invariant) keeps the runs that completed in
// FILE.partial and says so in its one-line error; FILE is left as it was.
func TestRunCountKeepsCompletedRuns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	calls := 0
	defer func() { benchRun = bench.Run }()
	benchRun = func(s bench.Scenario, cfg bench.Config) (*bench.Result, error) {
		if calls++; calls == 3 {
			return nil, errors.New("worker 1: found on cpu 0, pinned to cpu 1")
		}
		return bench.Run(s, cfg)
	}
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, []string{"run", "atomicadd", "-threads", "1", "-duration", "5ms", "-count", "4", "-o", out})
	if err == nil || !strings.Contains(err.Error(), "the 2 completed runs are kept in "+out+".partial") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("run -count 4 failing at run 3: error %v, want one line naming %s.partial", err, out)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written by a failed run: %v", out, err)
	}
	rs := readResultsT(t, out+".partial")
	if len(rs) != 2 {
		t.Errorf("%s.partial holds %d results, want the 2 completed", out, len(rs))
	}
}

// ratioRE finds a ratio in output: an optional ≥ (a threshold), a number
// with its ×, and the word after it.
var ratioRE = regexp.MustCompile(`(≥?)(\d+(?:\.\d+)?)×(?:\s+(\p{L}+))?`)

// kinRE finds a speed worded without the one function: a number or a
// percentage right before faster or slower, with no ×.
var kinRE = regexp.MustCompile(`\d%?\s+(faster|slower)\b`)

// checkRatios holds every ratio in out to report.Ratio's rule: a factor of
// at least 1, followed by the way the value went (faster, slower, lower,
// higher), or a threshold (≥N×).
func checkRatios(t *testing.T, what, out string) {
	t.Helper()
	for _, m := range ratioRE.FindAllStringSubmatch(out, -1) {
		f, err := strconv.ParseFloat(m[2], 64)
		if err != nil || f < 1 {
			t.Errorf("%s: %q: a factor below 1", what, m[0])
		}
		switch m[3] {
		case "faster", "slower", "lower", "higher":
		default:
			if m[1] == "" {
				t.Errorf("%s: %q: a factor without its direction", what, m[0])
			}
		}
	}
	for _, m := range kinRE.FindAllString(out, -1) {
		t.Errorf("%s: %q: a speed not worded as N× faster or slower", what, m)
	}
}

// TestRatioPhrases runs every command that words a ratio of medians (the
// sweep's summary, run -count's, compare in each format and -fail-on,
// reproduce) on results where the fix is faster and where it is slower,
// and on the stored real sweeps and reproduce runs, and holds every phrase
// to one rule: report.Ratio's.
func TestRatioPhrases(t *testing.T) {
	fix := res("speedup.txt")
	sum, runSum := summaries(t, fix)
	// The fixture's medians: base 100 ns, fast 11, slow 130, same 100.05.
	for what, out := range map[string]string{"summary": sum, "run -count's summary": runSum} {
		for _, want := range []string{"9.09× faster, p=0.002", "1.30× slower, p=0.002", "~ (1.00× slower, p="} {
			if !strings.Contains(out, want) {
				t.Errorf("%s of %s lacks %q:\n%s", what, fix, want, out)
			}
		}
		checkRatios(t, what, out)
	}

	stored, _ := filepath.Glob("../../benchdata/*sweep*.txt")
	stored = append(stored, "../../internal/report/testdata/sweep-quick-stored.txt", "../../internal/report/testdata/sweep-quick-adaptive.txt", "../../internal/report/testdata/sweep-quick-busy.txt")
	for _, f := range stored {
		var b strings.Builder
		if err := report.SummarizeFile(&b, f); err != nil {
			t.Fatalf("summary of %s: %v", f, err)
		}
		checkRatios(t, "summary of "+f, b.String())
	}

	for _, args := range [][]string{
		{"compare", "-col", "/fix", "-row", "/threads", fix},
		{"compare", "-col", "/fix", "-row", "/threads", "-format", "lkp", fix},
		{"compare", "-col", "/fix", "-row", "/threads", "-format", "seed", fix},
		{"compare", "-col", "/fix", "-row", "/threads", "-format", "markdown", fix},
		{"compare", res("old.txt"), res("new.txt")},
		{"compare", "-format", "lkp", res("old.txt"), res("new.txt")},
	} {
		out, _, err := runContend(args...)
		if err != nil {
			t.Fatalf("contend %v: %v", args, err)
		}
		checkRatios(t, fmt.Sprint(args), out)
	}
	// -fail-on prints the regressions as signed changes: the slow fix's,
	// in one session (the fixture's runs, given a session id).
	session := filepath.Join(t.TempDir(), "speedup.txt")
	if b, err := os.ReadFile(fix); err != nil || os.WriteFile(session, append([]byte("session: 20261204T230000Z-0001\n"), b...), 0o644) != nil {
		t.Fatal(err)
	}
	out, _, err := runContend("compare", "-col", "/fix", "-row", "/threads", "-unit", "ns/op", "-alpha", "0.05", "-fail-on", "10", session)
	if err == nil || !strings.Contains(out, "(+30.0%, p=0.002) in fix=slow") || strings.Contains(out, "fix=fast") {
		t.Errorf("compare -fail-on 10: %v, printed:\n%s\nwant the slow fix's +30.0%% alone", err, out)
	}
	checkRatios(t, "compare -fail-on", out)

	// The stored reproduce runs that today's findings still read (the
	// 11-29 files predate their experiments' names).
	for _, f := range []string{
		"../../benchdata/2026-11-30-epyc2-kvm-fake2-reproduce.txt",
		"../../benchdata/2026-11-30-epyc2-kvm-real-reproduce.txt",
		"../../benchdata/2026-12-01-xeon-kvm-real-reproduce.txt",
	} {
		// A fiftieth of each simulation's kernel time, as
		// TestReproduceTable (simulated once in the process), and -v:
		// every verdict's phrases, in seconds.
		out, _, err := runContend("reproduce", "-from", f, "-sim-share", "0.02", "-v")
		if err != nil {
			t.Fatalf("reproduce -from %s: %v", f, err)
		}
		checkRatios(t, "reproduce -from "+f, out)
	}
}

// TestRatioOneFunction: in the packages that word results for people
// (cmd/contend, internal/report, internal/reproduce, internal/figure), a
// number is formatted next to × or next to faster or slower only by
// report.Ratio (factorString and Speedup), so no command can print a ratio
// the other way round. Thresholds, "≥%s×", are a Claim's minimum, ≥ 1 by
// its contract, and pass. The one exception, by its literal, is
// reproduce's shortfall "1.199× lower, needs ≥1.2×", which has four
// figures so that a factor just short of its threshold does not round up
// to it, and is written only once the direction held (the factor is then
// ≥ 1).
func TestRatioOneFunction(t *testing.T) {
	// A formatted number with its × (not after ≥: a threshold, a
	// Claim's minimum, ≥ 1 by its contract), a percentage beside faster
	// or slower, or either word alone.
	formatted := regexp.MustCompile(`(^|[^≥])%[-+# 0-9.*]*[a-zA-Z]×([\s,;)]|$)|%%\s*(faster|slower)|^(faster|slower)$`)
	allowed := map[string]bool{ // file, function: literal
		`internal/report/summary.go factorString: "%.0f×"`:          true,
		`internal/report/summary.go factorString: "%.1f×"`:          true,
		`internal/report/summary.go factorString: "%.2f×"`:          true,
		`internal/report/summary.go Speedup: "faster"`:              true,
		`internal/report/summary.go Speedup: "slower"`:              true,
		`internal/reproduce/claim.go judge: "%.4g× %s, needs ≥%s×"`: true,
		`internal/reproduce/sim.go holds: "%s, needs ≥%s×"`:         true, // the simulated claim's threshold, ≥ 1 as a Claim's
	}
	for _, dir := range []string{".", "../../internal/report", "../../internal/reproduce", "../../internal/figure"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(path)), "../../")
			if dir == "." {
				name = "cmd/contend/" + name
			}
			for _, d := range f.Decls {
				fn := "(top level)"
				if fd, ok := d.(*ast.FuncDecl); ok {
					fn = fd.Name.Name
				}
				ast.Inspect(d, func(n ast.Node) bool {
					lit, ok := n.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return true
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil || !formatted.MatchString(s) || allowed[name+" "+fn+": "+lit.Value] {
						return true
					}
					t.Errorf("%s: %s words a ratio itself (%s): use report.Ratio or report.Speedup", fset.Position(lit.Pos()), fn, lit.Value)
					return true
				})
			}
		}
	}
}

// TestSummaryBusyHint: a busy sweep's summary sends the reader to contend
// run to see who took the cpus; run -count's, whose runs printed their
// WARNING lines already, sends them to those.
func TestSummaryBusyHint(t *testing.T) {
	const busy = "../../internal/report/testdata/sweep-quick-busy.txt"
	sweep, run := summaries(t, busy)
	for _, tt := range []struct{ what, out, want string }{
		{"sweep", sweep, "BUSY MACHINE: 37 of 37 cells disturbed¹ or never converged²: rerun on a quiet machine; contend run atomicadd shows who took the cpus\n"},
		// Records carry no "# rounds:" lines: disturbed only.
		{"run -count", run, "BUSY MACHINE: 37 of 37 cells disturbed¹: rerun on a quiet machine; the WARNING lines above say who took the cpus\n"},
	} {
		if !strings.HasPrefix(tt.out, tt.want) {
			first, _, _ := strings.Cut(tt.out, "\n")
			t.Errorf("%s's summary of %s begins %q, want %q", tt.what, busy, first, tt.want)
		}
	}
}

// summaries renders the results file path as a sweep's summary (from the
// file) and as run -count's (from its records in memory).
func summaries(t *testing.T, path string) (sweep, run string) {
	t.Helper()
	var sb, rb strings.Builder
	if err := report.SummarizeFile(&sb, path); err != nil {
		t.Fatal(err)
	}
	rs, err := results.Read([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if err := report.SummarizeRecords(&rb, rs.Results, "r.txt"); err != nil {
		t.Fatal(err)
	}
	return sb.String(), rb.String()
}
