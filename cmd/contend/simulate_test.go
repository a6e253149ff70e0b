package main

import (
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

func TestSimulate(t *testing.T) {
	out, _, err := runContend("simulate", "loadavg", "-cpus", "8", "-duration", "20ms", "-variants", "base,rate")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"8 cpus", "2 levels below the root", "base", "rate", "sum", "updates/5s", "tg_weight err %", "range over the cells"} {
		if !strings.Contains(out, want) {
			t.Errorf("simulate output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runContend("simulate", "loadavg", "-cpus", "8", "-levels", "1", "-duration", "20ms", "-variants", "base", "-sensitivity=false")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "8 cfs_rqs of one task group") || strings.Contains(out, "range over the cells") {
		t.Errorf("simulate -levels 1 -sensitivity=false: want the one-level table alone:\n%s", out)
	}
	out, _, err = runContend("simulate", "loadavg", "-cpus", "4", "-duration", "10ms", "-variants", "base", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["Name"] != "base" {
		t.Errorf("simulate -json = %v, %v; want one row named base:\n%s", rows, err, out)
	}
}

func TestSimulateBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate"}, "want the scenario to simulate, balanceflag, idlemask, loadavg or wakeup"},
		{[]string{"simulate", "nodemask"}, "want the scenario to simulate, balanceflag, idlemask, loadavg or wakeup"},
		{[]string{"simulate", "nosuch"}, "want the scenario to simulate, balanceflag, idlemask, loadavg or wakeup"},
		{[]string{"simulate", "-cpus", "8", "loadavg"}, "want the scenario to simulate"},
		{[]string{"simulate", "loadavg", "extra"}, `simulate loadavg: unexpected argument "extra"`},
		{[]string{"simulate", "idlemask", "-llc", "0"}, "simulate idlemask: -llc 0: want a positive value"},
		{[]string{"simulate", "loadavg", "-cpus", "0"}, "-cpus 0: want a positive value"},
		{[]string{"simulate", "loadavg", "-levels", "0"}, "-levels 0: want a positive value"},
		{[]string{"simulate", "loadavg", "-levels", "4"}, "levels 4 out of range [1, 3]"},
		{[]string{"simulate", "loadavg", "-cpus", "100000"}, "cpus 100000 out of range"},
		{[]string{"simulate", "loadavg", "-gap", "0s"}, "-gap 0: want a positive value"},
		{[]string{"simulate", "loadavg", "-mig", "101"}, `invalid value "101" for flag -mig: mig "101": want a percentage in [0, 100]`},
		{[]string{"simulate", "loadavg", "-mig", "-1"}, `invalid value "-1" for flag -mig`},
		{[]string{"simulate", "loadavg", "-hz", "300"}, "hz 300"},
		{[]string{"simulate", "loadavg", "-variants", "nosuch"}, "nosuch"},
		{[]string{"simulate", "loadavg", "-duration", "2h"}, "duration"},
	} {
		stdout, _, err := runContend(tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("contend %v: error = %v, want one line containing %q", tt.args, err, tt.want)
		}
		if stdout != "" {
			t.Errorf("contend %v printed on stdout: %q", tt.args, stdout)
		}
	}
}

// -mig hands the library its own value: no -mig is the seed's 79%, 0 is
// none (the command no longer turns 0 into -1), a count is that share.
func TestSimulateMig(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "mig=79%"},
		{[]string{"-mig", "0"}, "mig=0%"},
		{[]string{"-mig", "50"}, "mig=50%"},
		{[]string{"-mig", "79"}, "mig=79%"},
	} {
		args := append([]string{"simulate", "loadavg", "-cpus", "4", "-duration", "10ms", "-variants", "base"}, tt.args...)
		out, _, err := runContend(args...)
		if err != nil || !strings.Contains(out, tt.want) {
			t.Errorf("contend %v: %v; want %q in:\n%s", args, err, tt.want, out)
		}
		if tt.want == "mig=0%" && !strings.Contains(out, "migrations (0%)") {
			t.Errorf("contend %v: want no migrations:\n%s", args, out)
		}
	}
}

// TestSimulateRegistry: contend simulate NAME runs what the registry
// declares, and nothing else. A simulation whose flags are still the
// command's (Flags nil) has its function in simulators; every entry there
// is such a simulation, so one that moves into its package drops out.
func TestSimulateRegistry(t *testing.T) {
	for _, s := range bench.Specs() {
		_, inCmd := simulators[s.Name]
		switch {
		case s.Simulate == nil && inCmd:
			t.Errorf("scenario %s declares no simulation (NoSimulate: %q), but the command has one", s.Name, s.NoSimulate)
		case s.Simulate != nil && s.Simulate.Flags == nil && !inCmd:
			t.Errorf("scenario %s declares a simulation with nil Flags, and the command has none for it", s.Name)
		case s.Simulate != nil && s.Simulate.Flags != nil && inCmd:
			t.Errorf("scenario %s declares its simulation's flags; drop its entry in simulators", s.Name)
		case s.Simulate != nil && s.Simulate.Flags != nil && !strings.HasPrefix(s.Simulate.Usage, s.Name+" "):
			t.Errorf("scenario %s: simulation usage %q does not start with its name", s.Name, s.Simulate.Usage)
		}
	}
	for name := range simulators {
		if _, err := bench.Lookup(name); err != nil {
			t.Errorf("simulators[%q]: %v", name, err)
		}
	}
	// -h of a registry simulation prints its flags under its usage.
	for _, name := range []string{"loadavg", "idlemask"} {
		out, _, err := runContend("simulate", name, "-h")
		if !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(out, "Usage: contend simulate "+name+" [-cpus") || !strings.Contains(out, "-duration") {
			t.Errorf("contend simulate %s -h: %v\n%s", name, err, out)
		}
	}
}
