package main

import (
	"strings"
	"testing"
)

// The wakeup model's flags and table are bench/wakeup's (SimFlags, tested
// there); this checks that simulate reaches it by name, as the usage says.
func TestSimulateWakeup(t *testing.T) {
	out, _, err := runContend("simulate", "wakeup", "-cpus", "4", "-threads", "2", "-duration", "20ms", "-warmup", "0")
	if err != nil || !strings.Contains(out, "wakeup simulation: s390 guest") {
		t.Errorf("contend simulate wakeup = %v; want its table in:\n%s", err, out)
	}
	out, _, _ = runContend("simulate", "wakeup", "-h")
	if !strings.Contains(out, "Usage: contend simulate wakeup [-cpus 4,8,16,32]") {
		t.Errorf("contend simulate wakeup -h printed:\n%s", out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "wakeup", "extra"}, `simulate wakeup: unexpected argument "extra" (usage: contend simulate wakeup [-cpus 4,8,16,32]`},
		{[]string{"simulate", "wakeup", "-mig", "1.2"}, "simulate: flag provided but not defined: -mig"},
		{[]string{"simulate", "wakeup", "-cpus", "1"}, "simulate wakeup: cpus 1 out of range"},
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
