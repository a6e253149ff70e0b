package main

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

// Each model's flags and tables are its package's (SimFlags, tested
// there); these check that simulate reaches each by name, as the usage
// says.
func TestSimulate(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "loadavg", "-cpus", "4", "-duration", "10ms", "-variants", "base", "-sensitivity=false"}, "loadavg simulation: 4 cpus"},
		// loadavg, the first model, also takes its flags before its name.
		{[]string{"simulate", "-cpus", "4", "-duration", "10ms", "-variants", "base", "-sensitivity=false", "loadavg"}, "loadavg simulation: 4 cpus"},
		{[]string{"simulate", "balanceflag", "-cpus", "16", "-snc", "1", "-cas", "100ns", "-duration", "10ms"}, "sched_balance_running on 16 cpus"},
		{[]string{"simulate", "idlemask", "-cpus", "8", "-llc", "4", "-duration", "2ms"}, "8 virtual cpus in 2 LLCs"},
		{[]string{"simulate", "-h"}, "Usage: contend simulate loadavg [-cpus 224]"},
		{[]string{"help", "simulate"}, "Usage: contend simulate loadavg [-cpus 224]"},
		{[]string{"simulate", "balanceflag", "-h"}, "Usage: contend simulate balanceflag [-cpus 512]"},
		{[]string{"simulate", "idlemask", "-h"}, "Usage: contend simulate idlemask [-cpus 192]"},
	} {
		out, _, err := runContend(tt.args...)
		if (err != nil && !strings.HasSuffix(tt.args[len(tt.args)-1], "-h")) || !strings.Contains(out, tt.want) {
			t.Errorf("contend %v = %v; want %q in:\n%s", tt.args, err, tt.want, out)
		}
	}
}

func TestSimulateBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		// The list is the registry's, in its order.
		{[]string{"simulate"}, "want the scenario to simulate, balanceflag, idlemask, loadavg or wakeup"},
		{[]string{"simulate", "nodemask"}, "want the scenario to simulate, balanceflag, idlemask, loadavg or wakeup"},
		{[]string{"simulate", "-cpus", "4", "extra"}, "want the scenario to simulate"},
		{[]string{"simulate", "loadavg", "extra"}, `simulate loadavg: unexpected argument "extra" (usage: contend simulate loadavg [-cpus 224]`},
		{[]string{"simulate", "loadavg", "-bogus"}, "simulate: flag provided but not defined: -bogus"},
		{[]string{"simulate", "loadavg", "-cpus", "0"}, "simulate: -cpus 0: want a positive value"},
		{[]string{"simulate", "balanceflag", "-cas", "1ns", "extra"}, `simulate balanceflag: unexpected argument "extra" (usage: contend simulate balanceflag [-cpus 512]`},
		{[]string{"simulate", "balanceflag", "-cpus", "0"}, "simulate balanceflag: -cpus 0: want a positive value"},
		{[]string{"simulate", "idlemask", "extra"}, `simulate idlemask: unexpected argument "extra" (usage: contend simulate idlemask [-cpus 192]`},
		{[]string{"simulate", "idlemask", "-bogus"}, "simulate: flag provided but not defined: -bogus"},
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

// TestSimulateRegistry: contend simulate NAME runs what the registry
// declares, and nothing else: every declared simulation brings its flags
// (the command holds none of its own), and its usage starts with its name.
func TestSimulateRegistry(t *testing.T) {
	for _, s := range bench.Specs() {
		switch {
		case s.Simulate != nil && s.Simulate.Flags == nil:
			t.Errorf("scenario %s declares a simulation with nil Flags", s.Name)
		case s.Simulate != nil && !strings.HasPrefix(s.Simulate.Usage, s.Name+" "):
			t.Errorf("scenario %s: simulation usage %q does not start with its name", s.Name, s.Simulate.Usage)
		}
		if s.Simulate == nil {
			if _, _, err := runContend("simulate", s.Name); err == nil {
				t.Errorf("contend simulate %s: no error for a scenario without a simulation", s.Name)
			}
		}
	}
	// -h of each simulation prints its usage.
	for _, name := range simulations() {
		out, _, err := runContend("simulate", name, "-h")
		if !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(out, "Usage: contend simulate "+name+" [") {
			t.Errorf("contend simulate %s -h: %v\n%.200s", name, err, out)
		}
	}
}
