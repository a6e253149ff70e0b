package main

import (
	"encoding/json"
	"errors"
	"flag"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestErrorsAreOneLine: each of these is a mistake a user made; contend
// must answer with one line naming the command and the problem, exit
// non-zero (an error that is not flag.ErrHelp), and print nothing else on
// either stream — no usage on stdout, no temporary file names.
func TestErrorsAreOneLine(t *testing.T) {
	tooMany := strconv.Itoa(runtime.NumCPU() + 1)
	for _, tc := range []struct {
		args []string
		want string // the whole error, or its start when it ends in "…"
	}{
		{[]string{"help", "run", "-threads", "0"}, `help: want one command name, got extra arguments "-threads 0" (for run's flags: contend help run)`},
		{[]string{"help", "topo", "extra"}, `help: want one command name, got extra arguments "extra"…`},
		{[]string{"topo", "-fake-nodes", tooMany}, "topo: -fake-nodes " + tooMany + ": affinity: cannot split…"},
		{[]string{"topo", "-fake-nodes", "0"}, "topo: -fake-nodes 0: need at least 1 node"},
		{[]string{"topo", "-sysfs", "/nonexistent"}, `topo: affinity: reading sysfs root "/nonexistent": no such file or directory`},
		{[]string{"list", "-v"}, "list: flag provided but not defined: -v"},
		{[]string{"topo", "-bogus"}, "topo: flag provided but not defined: -bogus"},
		{[]string{"plot", "-o", "/nonexistent-dir/y.svg", res("new.txt")}, "plot: -o: writing /nonexistent-dir/y.svg: no such file or directory"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, err := runContend(tc.args...)
			if err == nil || errors.Is(err, flag.ErrHelp) {
				t.Fatalf("error = %v, want a failure (exit status 1)", err)
			}
			msg := err.Error()
			if prefix, ok := strings.CutSuffix(tc.want, "…"); ok && !strings.HasPrefix(msg, prefix) || !ok && msg != tc.want {
				t.Errorf("error:\n got %s\nwant %s", msg, tc.want)
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, ".tmp") {
				t.Errorf("error is not one clean line: %q", msg)
			}
			if stdout != "" || stderr != "" {
				t.Errorf("stray output: stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

// TestHelpFlag: -h still prints the command's usage, on stdout, and is
// not a failure; a bad flag no longer does.
func TestHelpFlag(t *testing.T) {
	for _, name := range []string{"topo", "list", "plot"} {
		stdout, stderr, err := runContend(name, "-h")
		if !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(stdout, "Usage: contend "+name) || stderr != "" {
			t.Errorf("contend %s -h: err %v, stdout %.40q, stderr %q; want the usage on stdout and ErrHelp", name, err, stdout, stderr)
		}
	}
}

// TestListJSON: list -json, as topo -json, for scripts.
func TestListJSON(t *testing.T) {
	out, _, err := runContend("list", "-json", "atomicadd")
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Name, Benchmark, Package string
		Quick                    []string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 || got[0].Name != "atomicadd" ||
		got[0].Benchmark != "BenchmarkAtomicAdd" || got[0].Package != "github.com/contend/contend/bench/atomicadd" || len(got[0].Quick) == 0 {
		t.Errorf("list -json atomicadd = %+v, %v\n%s", got, err, out)
	}
}
