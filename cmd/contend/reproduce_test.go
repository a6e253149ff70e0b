package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contend/contend/internal/reproduce"
)

// The one real run: a tiny reproduce on fake nodes, whose first screen is
// the verdict table with every finding, -v's details have every criterion,
// and whose results file -from judges again to the same verdicts without
// running anything.
func TestReproduceTable(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two cpus")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.txt")
	// Two runs each keep it quick (every result is fsynced); too few for
	// the U test, so the findings say n/a: their verdicts are
	// internal/reproduce's tests, the wiring is this one's.
	// The simulations at the seeds' sizes run on a fiftieth of their
	// kernel time (internal/reproduce holds their verdicts).
	stdout, stderr, err := runContend("reproduce", "-count", "2", "-duration", "5ms", "-fake-nodes", "2", "-sim-share", "0.02", "-v", "-o", out)
	if err != nil {
		t.Fatalf("reproduce: %v\n%s", err, stderr)
	}
	// The first screen: the heading, the table's head, a row per finding
	// in order, the tally.
	table, _, _ := strings.Cut(stdout, "\n\n1. ")
	head, rows, ok := strings.Cut(table, "\n #  finding ")
	if !ok || strings.Count(head, "\n") > 3 {
		t.Fatalf("the verdict table does not open the output:\n%s", stdout)
	}
	at := 0
	for i := 1; i <= reproduce.NumFindings(); i++ {
		j := strings.Index(rows[at:], fmt.Sprintf("\n%2d  ", i))
		if j < 0 {
			t.Fatalf("verdict table lacks finding %d after finding %d:\n%s", i, i-1, table)
		}
		at += j + 1
	}
	if !strings.Contains(rows[at:], fmt.Sprintf("\n%d findings: ", reproduce.NumFindings())) {
		t.Errorf("verdict table has no tally after its rows:\n%s", table)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > reproduce.Width {
			t.Errorf("line of %d runes, wider than the table's %d: %q", n, reproduce.Width, l)
		}
	}
	for i := 1; i <= reproduce.NumFindings(); i++ {
		if !strings.Contains(stdout, "\n"+strconv.Itoa(i)+". ") {
			t.Errorf("-v lacks finding %d:\n%s", i, stdout)
		}
	}
	if n := strings.Count(stdout, "\n   criterion: yes if "); n != reproduce.NumFindings() {
		t.Errorf("-v has %d criteria, want one per finding:\n%s", n, stdout)
	}
	if !strings.Contains(strings.Join(strings.Fields(head), " "), "topology fake-2") {
		t.Errorf("a run on fake nodes must say so:\n%s", stdout)
	}
	// Finding 3 needs two nodes: on fake ones it runs.
	if strings.Contains(stdout, "one NUMA node here") {
		t.Errorf("finding 3 did not run on fake nodes:\n%s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(dir, "r.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(md), "\n| "); n != 2*(reproduce.NumFindings()+1) {
		t.Errorf("Markdown tables have %d rows, want %d (the verdicts, then each finding in full):\n%s", n, 2*(reproduce.NumFindings()+1), md)
	}
	readResultsT(t, out) // raw results parse as benchmark format

	// Judging the file again gives the same table below the heading (which
	// describes the machine from the file rather than from sysfs).
	md2 := filepath.Join(dir, "again.md")
	again, stderr, err := runContend("reproduce", "-from", out, "-md", md2, "-sim-share", "0.02", "-v")
	if err != nil {
		t.Fatalf("reproduce -from: %v\n%s", err, stderr)
	}
	body := func(s string) string { return s[strings.Index(s, "\n\n"):] }
	if body(again) != body(stdout) {
		t.Errorf("reproduce -from judged differently from the run:\nrun:\n%s\n-from:\n%s", stdout, again)
	}
	for _, want := range []string{"   mechanism: ", "   at the seed's size (simulated): ", "      assumes:   "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-v lacks %q:\n%s", want, stdout)
		}
	}
	heading := strings.Join(strings.Fields(again[:strings.Index(again, "\n\n")]), " ")
	if !strings.Contains(heading, "topology fake-2") || !strings.Contains(heading, "place=spread") {
		t.Errorf("-from heading does not describe the run's machine:\n%s", again)
	}
	if _, err := os.Stat(md2); err != nil {
		t.Errorf("-from -md wrote no table: %v", err)
	}
}

func TestReproduceBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", "-count", "0"}, "-count 0"},
		{[]string{"reproduce", "-duration", "2h"}, "reproduce: -duration 2h0m0s: want a duration above 0 and at most 1h"},
		{[]string{"reproduce", "-cpus", "0-3,x"}, `reproduce: -cpus "0-3,x"`},
		{[]string{"reproduce", "-cpus", "4000"}, "is not among the allowed cpus"},
		{[]string{"reproduce", "-quick", "-full"}, "exclude"},
		{[]string{"reproduce", "-fake-nodes", "0"}, "at least 1 node"},
		{[]string{"reproduce", "x"}, "unexpected argument"},
		{[]string{"reproduce", "-retry-failed"}, "-retry-failed needs -resume"},
		{[]string{"reproduce", "-from", "testdata/results/new.txt", "-count", "3"}, "-from judges a results file without running; -count only applies to a run"},
		{[]string{"reproduce", "-from", "testdata/results/new.txt", "-fake-nodes", "2", "-resume"}, "-fake-nodes, -resume only apply"},
		{[]string{"reproduce", "-from", "testdata/results/nonexistent.txt"}, "no such file"},
		{[]string{"reproduce", "-from", "testdata/results/c2c.txt"}, "none of reproduce's experiments"},
		{[]string{"reproduce", "-sim-share", "2"}, "reproduce: -sim-share 2: want a share"},
		{[]string{"reproduce", "-sim-share", "-0.5"}, "reproduce: -sim-share -0.5: want a share"},
		{[]string{"reproduce", "-sim-share", "x"}, "-sim-share"},
	} {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) { badRun(t, tt.args, tt.want) })
	}
}
