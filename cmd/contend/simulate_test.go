package main

import (
	"strings"
	"testing"
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
		{[]string{"simulate"}, "want the scenario to simulate, loadavg, wakeup, idlemask or balanceflag"},
		{[]string{"simulate", "nodemask"}, "want the scenario to simulate, loadavg, wakeup, idlemask or balanceflag"},
		{[]string{"simulate", "loadavg", "extra"}, "want the scenario to simulate"},
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
