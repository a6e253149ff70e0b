package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
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

// TestCompareFailOn: -fail-on exits non-zero exactly when a metric got worse
// by more than the threshold, printing only those metrics.
func TestCompareFailOn(t *testing.T) {
	// new.txt is faster than old.txt: read backwards, ns/op got worse by
	// 42-45% at the global store.
	out, _, err := runContend("compare", "-fail-on", "10", "-unit", "ns/op", "new="+res("new.txt"), "old="+res("old.txt"))
	if err == nil || !strings.Contains(err.Error(), "3 metrics got worse by more than 10%") || strings.Contains(err.Error(), "\n") {
		t.Errorf("compare -fail-on 10 of a regression: error %v, want a one-line count of 3", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Errorf("compare -fail-on printed %d lines, want the 3 regressions:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !strings.Contains(l, "store=global") || !strings.Contains(l, "ns/op") {
			t.Errorf("unexpected regression line %q", l)
		}
	}
	if _, _, err := runContend("compare", "-fail-on", "50", "-unit", "ns/op", "new="+res("new.txt"), "old="+res("old.txt")); err != nil {
		t.Errorf("compare -fail-on 50: %v, want success (no regression over 50%%)", err)
	}
	// The improvement is no regression however low the threshold.
	if _, _, err := runContend("compare", "-fail-on", "0", "old="+res("old.txt"), "new="+res("new.txt")); err != nil {
		t.Errorf("compare -fail-on 0 of an improvement: %v", err)
	}
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
