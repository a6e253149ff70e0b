package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/internal/results"
)

// fakeBin writes a stand-in for a contend binary: a script that checks it
// was asked for one run of atomicadd on explicit cpus and prints one
// benchmark line of ns ns/op.
func fakeBin(t *testing.T, dir, name string, ns int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	script := fmt.Sprintf(`#!/bin/sh
case "$*" in
"run atomicadd -cpus "*" -count 1"*) ;;
*) echo "unexpected arguments: $*" >&2; exit 2 ;;
esac
printf 'goos: linux\n\nBenchmarkAtomicAdd/x-2 1000 %d ns/op\n'
`, ns)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// contend ab runs both binaries round by round into one file whose
// results carry the session and the side, compares the sides, and with
// -fail-on gates on them: a 30% slower new binary fails, the same binary
// twice passes.
func TestAB(t *testing.T) {
	dir := t.TempDir()
	old, slow := fakeBin(t, dir, "old", 100), fakeBin(t, dir, "slow", 130)
	args := func(newBin, out string, more ...string) []string {
		return append([]string{"ab", "-old", old, "-new", newBin, "-scenarios", "atomicadd", "-variant", "line=shared/work=0",
			"-threads", "1", "-count", "8", "-o", filepath.Join(dir, out)}, more...)
	}
	out, stderr, err := runContend(args(old, "aa.txt", "-fail-on", "5")...)
	if err != nil || !strings.Contains(out, "no metric got worse by more than 5% (paired by round in session") {
		t.Fatalf("ab A/A -fail-on 5: %v, stdout %q, stderr %q", err, out, stderr)
	}
	if !strings.Contains(stderr, "ab: 8 pairs in "+filepath.Join(dir, "aa.txt")) {
		t.Errorf("stderr %q: want the pairs and the file", stderr)
	}
	rs, err := results.Read([]string{filepath.Join(dir, "aa.txt")})
	if err != nil {
		t.Fatal(err)
	}
	sides := map[string]int{}
	for _, r := range rs.Results {
		sides[r.GetConfig(results.SideKey)]++
	}
	if sessions := rs.Sessions(); sides["old"] != 8 || sides["new"] != 8 || len(sessions) != 1 || sessions[0] == "" {
		t.Errorf("file has results by side %v and sessions %q, want 8 of each side in one session", sides, sessions)
	}
	out, _, err = runContend(args(slow, "slow.txt", "-fail-on", "5")...)
	if err == nil || !strings.Contains(err.Error(), "1 metrics got worse by more than 5%") || !strings.Contains(out, "+30.0%") {
		t.Errorf("ab of a 30%% slower binary -fail-on 5: %v, stdout %q", err, out)
	}
	// Without -fail-on: the comparison's tables.
	out, _, err = runContend(args(slow, "cmp.txt")...)
	if err != nil || !strings.Contains(out, "side=old") || !strings.Contains(out, "+30.00%") || !strings.Contains(out, "paired by round") {
		t.Errorf("ab without -fail-on: %v, stdout %q", err, out)
	}
	// The file's command is the ab run's (here the test binary's), not
	// each side's contend run; table lays its sides out as columns.
	for _, r := range rs.Results {
		if cmd := r.GetConfig("command"); cmd != rs.Results[0].GetConfig("command") || strings.Contains(cmd, "run atomicadd") {
			t.Fatalf("result's command %q, want the ab run's on every result", cmd)
		}
	}
	if out, _, err := runContend("table", filepath.Join(dir, "cmp.txt")); err != nil || !strings.Contains(out, "side=old") || !strings.Contains(out, "side=new") || strings.Contains(out, "results vary in") {
		t.Errorf("table of an ab file: %v, want a column per side:\n%s", err, out)
	}
	// compare reads the file alone, its sides as columns.
	if out, _, err := runContend("compare", "-fail-on", "5", filepath.Join(dir, "aa.txt")); err != nil || !strings.Contains(out, "no metric got worse") {
		t.Errorf("compare -fail-on 5 aa.txt: %v, %q", err, out)
	}
}

func TestABErrors(t *testing.T) {
	dir := t.TempDir()
	bin := fakeBin(t, dir, "bin", 100)
	notExec := filepath.Join(dir, "plain")
	os.WriteFile(notExec, []byte("x"), 0o644)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"ab", "-new", bin}, []string{"ab: want -old BIN"}},
		{[]string{"ab", "-old", bin}, []string{"ab: want -new BIN"}},
		{[]string{"ab", "-old", bin, "-new", notExec}, []string{"ab: -new " + notExec + ": not an executable file"}},
		{[]string{"ab", "-old", dir, "-new", bin}, []string{"ab: -old " + dir + ": not an executable file"}},
		{[]string{"ab", "-old", bin, "-new", bin, "-sysfs", dir}, []string{"ab: -sysfs describes another machine"}},
		{[]string{"ab", "-old", bin, "-new", bin, "-count", "0"}, []string{"-count 0"}},
		{[]string{"ab", "-old", bin, "-new", bin, "extra"}, []string{"unexpected argument \"extra\""}},
	} {
		badRun(t, tc.args, tc.want...)
	}
}
