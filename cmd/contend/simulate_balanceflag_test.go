package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSimulateBalanceFlag(t *testing.T) {
	out, _, err := runContend("simulate", "balanceflag", "-cpus", "64", "-snc", "2", "-cas", "150ns", "-duration", "20ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cmpxchg handoff 150ns: given with -cas", "64 cpus: 2 sockets × 2 nodes of 16 cpus",
		"socket 32 (SD_SERIALIZE)", "all 64 (SD_SERIALIZE)", "cmpxchg-first", "check-first+newidle", "flag % of cycles", "Assumptions"} {
		if !strings.Contains(out, want) {
			t.Errorf("simulate balanceflag output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runContend("simulate", "balanceflag", "-cpus", "16", "-snc", "1", "-cas", "100ns", "-duration", "10ms", "-orders", "check-first", "-json")
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
		len(tab.Rows[0].Levels) != 1 || tab.Rows[0].Levels[0].Level != "all" || len(tab.Assumptions) == 0 {
		t.Errorf("simulate balanceflag -json = %+v, %v; want one check-first row of one level, all, with assumptions:\n%s", tab, err, out)
	}
}

// Without -cas the handoff is this machine's, measured, and the output
// says so.
func TestSimulateBalanceFlagMeasuresHandoff(t *testing.T) {
	out, _, err := runContend("simulate", "balanceflag", "-cpus", "16", "-snc", "1", "-duration", "10ms", "-orders", "cmpxchg-first")
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

func TestSimulateBalanceFlagBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-cpus", "0"}, "-cpus 0: want a positive value"},
		{[]string{"-cpus", "100000"}, "cpus 100000 out of range"},
		{[]string{"-snc", "3"}, "is not 2 sockets × 3 nodes"},
		{[]string{"-busy", "101"}, "busy 101"},
		{[]string{"-newidle", "-1"}, "-newidle -1"},
		{[]string{"-hz", "300"}, "hz 300"},
		{[]string{"-cas", "0s"}, "-cas 0s: want a positive duration"},
		{[]string{"-cs", "0s"}, "-cs 0s: want a positive duration"},
		{[]string{"-duration", "2h"}, "duration 2h0m0s out of range"},
		{[]string{"-orders", "nosuch"}, `unknown order "nosuch"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		args := append([]string{"simulate", "balanceflag", "-cas", "100ns"}, tt.args...)
		if tt.args[0] == "-cas" {
			args = append([]string{"simulate", "balanceflag"}, tt.args...)
		}
		stdout, _, err := runContend(args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("contend %v: error = %v, want one line containing %q", args, err, tt.want)
		}
		if stdout != "" {
			t.Errorf("contend %v printed on stdout: %q", args, stdout)
		}
	}
}
