package idlemask

import (
	"strings"
	"testing"
	"time"
)

// The simulation at a small size: every row runs, the before row writes no
// mask, the exact mask writes most, v5's filter keeps laststate within two
// writes a cpu a tick, and the text names the seed's figures.
func TestSimulate(t *testing.T) {
	tab, err := Simulate(SimConfig{CPUs: 32, LLC: 16, Duration: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Tick != 889 {
		t.Errorf("tick = %d, want 889 (80 entries at 9%% of events)", tab.Tick)
	}
	rows := map[string]SimRow{}
	for _, r := range tab.Rows {
		rows[imRowName(r.Variant)] = r
		if r.Wakeups == 0 || r.Events == 0 {
			t.Errorf("%s: %d events, %d wakeups", r.Variant, r.Events, r.Wakeups)
		}
	}
	none, last, tick, always := rows["update=none/scan=all"], rows["update=laststate/scan=mask"], rows["update=tick/scan=mask"], rows["update=always/scan=mask"]
	if none.Writes != 0 || last.WritesPerCPUTick > 2 || tick.Writes <= 10*last.Writes || always.Writes < tick.Writes {
		t.Errorf("mask writes: none %d, laststate %.2f a cpu a tick (%d), tick %d, always %d; want 0, ≤ 2, ≥ 10× laststate, the most",
			none.Writes, last.WritesPerCPUTick, last.Writes, tick.Writes, always.Writes)
	}
	var b strings.Builder
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"192 cpus, 4 sockets", "80 times between two ticks", "v5 + Vincent", "probes/wakeup", "found idle %"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	t.Logf("\n%s", b.String())
}

func TestSimulateBadConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg  SimConfig
		want string
	}{
		{SimConfig{CPUs: 100000}, "cpus 100000 out of range"},
		{SimConfig{CPUs: 192, LLC: 50}, "llc 50: want a divisor of cpus 192"},
		{SimConfig{Busy: 101}, "busy 101"},
		{SimConfig{Busy: 100}, "no idle entries"},
		{SimConfig{HZ: 300}, "hz 300"},
		{SimConfig{Probe: -time.Second}, "probe -1s out of range"},
		{SimConfig{Duration: time.Hour}, "duration 1h0m0s out of range"},
		{SimConfig{Entries: 100000}, "entries 100000"},
	} {
		_, err := Simulate(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "simulate idlemask: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Simulate(%+v) error = %v, want one line containing %q", tt.cfg, err, tt.want)
		}
	}
}
