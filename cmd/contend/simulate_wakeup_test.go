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
		{[]string{"simulate", "wakeup", "-cpus", "4", "-duration", "50ms"},
			[]string{"4 virtual cpus", "~27K", "~2K", "llcstats", "basic", "migrations/5s", "sis early %", "llcstats/stats=live", "has no sd_llc_shared"}},
		{[]string{"simulate", "wakeup", "-cpus", "8", "-llc", "4", "-duration", "300ms", "-policies", "llcstats,llcstats/stats=live"},
			[]string{"8 virtual cpus, 4 per LLC", "first at 128ms, then every 256ms", "llcstats/stats=live"}},
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
	out, _, err := runContend("simulate", "wakeup", "-cpus", "2", "-duration", "10ms", "-policies", "prev", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["Policy"] != "prev" {
		t.Errorf("simulate wakeup -json = %v, %v; want one row for prev:\n%s", rows, err, out)
	}
}

func TestSimulateWakeupAndIdleMaskBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "wakeup", "-cpus", "1"}, "cpus 1 out of range"},
		{[]string{"simulate", "wakeup", "-cpus", "0"}, "-cpus 0: want a positive value"},
		{[]string{"simulate", "wakeup", "-llc", "9"}, "llc 9 out of range"},
		{[]string{"simulate", "wakeup", "-mig", "2.345"}, "not a per cent"},
		{[]string{"simulate", "wakeup", "-sync", "101"}, "-sync 101"},
		{[]string{"simulate", "wakeup", "-policies", "fancy"}, `wake="fancy": unknown value`},
		{[]string{"simulate", "wakeup", "-policies", "basic/stats=live"}, "stats=live is read only by wake=llcstats"},
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
