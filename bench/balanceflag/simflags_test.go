package balanceflag

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/bench/benchtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestSimFlags(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "64", "-snc", "2", "-cas", "150ns", "-duration", "20ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cmpxchg handoff 150ns: given with -cas", "64 cpus: 2 sockets × 2 nodes of 16 cpus",
		"socket 32 (SD_SERIALIZE)", "all 64 (SD_SERIALIZE)", "cmpxchg-first", "check-first+newidle", "flag % of cycles", "Assumptions"} {
		if !strings.Contains(out, want) {
			t.Errorf("simulate balanceflag output lacks %q:\n%s", want, out)
		}
	}
	out, err = benchtest.Simulate(SimFlags, "-cpus", "16", "-snc", "1", "-cas", "100ns", "-duration", "10ms", "-orders", "check-first", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var tab struct {
		Topology, CAS string
		Assumptions   []string
		Rows          []struct {
			Order  string
			Levels []struct{ Level string }
		}
	}
	if err := json.Unmarshal([]byte(out), &tab); err != nil || len(tab.Rows) != 1 || tab.Rows[0].Order != "check-first" ||
		len(tab.Rows[0].Levels) != 1 || tab.Rows[0].Levels[0].Level != "all" || len(tab.Assumptions) == 0 || tab.CAS != "given with -cas" {
		t.Errorf("simulate balanceflag -json = %+v, %v; want one check-first row of one level, all, with assumptions:\n%s", tab, err, out)
	}
}

// Without -cas the handoff is this machine's, measured, and the output
// says so.
func TestSimFlagsMeasuresHandoff(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "16", "-snc", "1", "-duration", "10ms", "-orders", "cmpxchg-first")
	if err != nil {
		if strings.Contains(err.Error(), "one usable cpu") {
			t.Skip("one usable cpu: no handoff to measure")
		}
		t.Fatal(err)
	}
	if !strings.Contains(out, "this machine's cas handoff floor") {
		t.Errorf("output does not say the handoff was measured:\n%s", out)
	}
}

func TestSimFlagsBadInput(t *testing.T) {
	var cases []benchtest.BadArgs
	for _, tc := range []benchtest.BadArgs{
		{Args: []string{"-cpus", "0"}, Want: "-cpus 0: want a positive value"},
		{Args: []string{"-cpus", "100000"}, Want: "cpus 100000 out of range"},
		{Args: []string{"-sockets", "0"}, Want: "-sockets 0: want a positive value"},
		{Args: []string{"-snc", "3"}, Want: "is not 2 sockets × 3 nodes"},
		{Args: []string{"-busy", "101"}, Want: "busy 101"},
		{Args: []string{"-newidle", "-1"}, Want: "-newidle -1"},
		{Args: []string{"-hz", "300"}, Want: "hz 300"},
		{Args: []string{"-local", "0s"}, Want: "-local 0s: want a positive duration"},
		{Args: []string{"-cs", "0s"}, Want: "-cs 0s: want a positive duration"},
		{Args: []string{"-duration", "2h"}, Want: "duration 2h0m0s out of range"},
		{Args: []string{"-orders", "nosuch"}, Want: `unknown order "nosuch"`},
		{Args: []string{"-seed", "x"}, Want: `invalid value "x" for flag -seed`},
		{Args: []string{"-idle-tick", "menu"}, Want: `-idle-tick: idle tick "menu": want governor, stop or after-tick`},
		{Args: []string{"-fresh-idle"}, Want: "fresh idles need a driver-less idle loop"},
		{Args: []string{"-idle-pull", "1.5", "-fresh-idle", "-idle-tick", "after-tick"}, Want: "idle pull 1.5, idle queued 0, tick corr 0, newidle share 0, walk idle 0: want a known rule, shares in [0, 1]"},
		{Args: []string{"-idle-pull", "0.2", "-idle-tick", "after-tick"}, Want: "idle-pull and idle-queued need fresh idles and after-tick"},
		{Args: []string{"-idle-pull", "0.2", "-fresh-idle", "-idle-tick", "stop"}, Want: "idle-pull and idle-queued need fresh idles and after-tick"},
		{Args: []string{"-tick-corr", "0.99"}, Want: "tick corr 0.99, newidle share 0, walk idle 0: want a known rule, shares in [0, 1] (pull and queued together too), corr in [0, 0.95]"},
		{Args: []string{"-newidle-share", "1.2"}, Want: "newidle share 1.2, walk idle 0: want a known rule, shares in [0, 1]"},
		{Args: []string{"-idle-queued", "-0.1", "-fresh-idle", "-idle-tick", "after-tick"}, Want: "idle queued -0.1, tick corr 0, newidle share 0, walk idle 0: want a known rule, shares in [0, 1]"},
		{Args: []string{"-idle-queued", "0.6", "-idle-pull", "0.5", "-fresh-idle", "-idle-tick", "after-tick"}, Want: "pull and queued together too"},
		{Args: []string{"-idle-queued", "0.2", "-idle-tick", "after-tick"}, Want: "idle-queued 0.2, idle tick after-tick: fresh idles need"},
	} {
		// A handoff given, so that no case measures this machine's.
		cases = append(cases, benchtest.BadArgs{Args: append([]string{"-cas", "100ns"}, tc.Args...), Want: tc.Want})
	}
	cases = append(cases, benchtest.BadArgs{Args: []string{"-cas", "0s"}, Want: "-cas 0s: want a positive duration"},
		benchtest.BadArgs{Args: []string{"-cas", "-1ns"}, Want: "-cas -1ns: want a positive duration"})
	benchtest.CheckBadArgs(t, SimFlags, cases)
}

// TestSimFlagsGolden holds contend simulate balanceflag's whole output,
// text and JSON, to files the command wrote before its flags moved here
// from cmd/contend; go test -run Golden -update rewrites them.
func TestSimFlagsGolden(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{"-cpus", "64", "-cas", "150ns", "-duration", "20ms"}, "simflags-64cpus.golden"},
		{[]string{"-cpus", "16", "-snc", "1", "-cas", "100ns", "-duration", "10ms", "-json"}, "simflags-16cpus-json.golden"},
		// Every refinement on, and the defaults' run that "what ... moves"
		// compares against.
		{[]string{"-cpus", "64", "-cas", "150ns", "-duration", "20ms", "-skew-tick", "-jitter", "5us", "-newidle-per-tick", "2",
			"-short-idle", "5us", "-cas-remote", "300ns"}, "simflags-64cpus-knobs.golden"},
		{[]string{"-cpus", "480", "-cas", "100ns", "-duration", "50ms", "-nohz"}, "simflags-480cpus-nohz.golden"},
		// No cpuidle driver, f4c31b07b136's idle loop: the idle's
		// first tick kept.
		{[]string{"-cpus", "64", "-cas", "150ns", "-duration", "20ms", "-idle-tick", "after-tick"}, "simflags-64cpus-aftertick.golden"},
		{[]string{"-cpus", "480", "-cas", "100ns", "-duration", "50ms", "-nohz", "-idle-tick", "after-tick"}, "simflags-480cpus-nohz-aftertick.golden"},
	} {
		out, err := benchtest.Simulate(SimFlags, tc.args...)
		if err != nil {
			t.Fatalf("simulate balanceflag %v: %v", tc.args, err)
		}
		benchtest.CheckGolden(t, filepath.Join("testdata", tc.golden), out, *update)
	}
}
