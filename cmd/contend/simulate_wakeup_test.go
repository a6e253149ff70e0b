package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSimulateWakeupAndIdleMask(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"simulate", "wakeup", "-cpus", "4", "-threads", "4", "-duration", "50ms", "-warmup", "0"},
			[]string{"s390 guest, HZ 100", "~27K", "~2K", "llcstats", "basic", "v6.1", "migrations/5s", "wake_affine", "newidle", "nohz", "active", "4 cpus: migrations llcstats/basic"}},
		{[]string{"simulate", "wakeup", "-cpus", "8", "-topo", "llc4", "-threads", "8", "-duration", "100ms", "-warmup", "100ms", "-io", "200us", "-irq", "local"},
			[]string{"llc4 guest, HZ 250", "commit flush 200µs (irq local)", "select_idle_sibling"}},
		{[]string{"simulate", "idlemask", "-cpus", "32", "-llc", "16", "-duration", "2ms"},
			[]string{"32 virtual cpus in 2 LLCs", "80 times between two ticks", "v5 + Vincent", "mask writes/s", "probes/wakeup"}},
	} {
		out, _, err := runContend(tt.args...)
		if err != nil {
			t.Fatalf("contend %v: %v", tt.args, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("contend %v lacks %q:\n%s", tt.args, w, out)
			}
		}
	}
	out, _, err := runContend("simulate", "wakeup", "-cpus", "2", "-duration", "10ms", "-warmup", "0", "-policies", "basic", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["Policy"] != "basic" {
		t.Errorf("simulate wakeup -json = %v, %v; want one row for basic:\n%s", rows, err, out)
	}
}

func TestSimulateWakeupAndIdleMaskBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "wakeup", "-cpus", "1"}, "cpus 1 out of range"},
		{[]string{"simulate", "wakeup", "-cpus", "0"}, "cpus 0 out of range"},
		{[]string{"simulate", "wakeup", "-cpus", "8,x"}, `"x" is not a whole number`},
		{[]string{"simulate", "wakeup", "-topo", "llc3", "-cpus", "8"}, "do not nest"},
		{[]string{"simulate", "wakeup", "-topo", "numa"}, `topology "numa"`},
		{[]string{"simulate", "wakeup", "-threads", "0"}, "-threads 0: want a positive value"},
		{[]string{"simulate", "wakeup", "-hz", "200"}, "hz 200"},
		{[]string{"simulate", "wakeup", "-think", "0s"}, "-think 0s: want a positive duration"},
		{[]string{"simulate", "wakeup", "-io", "-1ms"}, "-io -1ms"},
		{[]string{"simulate", "wakeup", "-warmup", "-1s"}, "-warmup -1s"},
		{[]string{"simulate", "wakeup", "-irq", "msi"}, `irq "msi"`},
		{[]string{"simulate", "wakeup", "-mig", "2.345"}, "flag provided but not defined: -mig"},
		{[]string{"simulate", "wakeup", "-policies", "fancy"}, `policy "fancy"`},
		{[]string{"simulate", "wakeup", "-duration", "-1s"}, "-duration -1s"},
		{[]string{"simulate", "wakeup", "extra"}, `unexpected argument "extra"`},
		{[]string{"simulate", "idlemask", "-llc", "50"}, "llc 50: want a divisor"},
		{[]string{"simulate", "idlemask", "-busy", "-1"}, "-busy -1"},
		{[]string{"simulate", "idlemask", "-busy", "100"}, "no idle entries"},
		{[]string{"simulate", "idlemask", "-hz", "300"}, "hz 300"},
		{[]string{"simulate", "idlemask", "-probe", "0s"}, "want positive durations"},
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
