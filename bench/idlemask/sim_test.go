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
		rows[rowName(r.Variant)] = r
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

// Where the woken tasks land, at a small size with and without SMT: on one
// thread there are no races, so every wakeup either found an idle cpu
// (placed) or was stacked; a stacked task waits for the running task's
// block, which the duty cycle makes 1/Entries of a tick on average; and the
// SMT search adds select_idle_core()'s probes and idle cores to every row.
func TestSimulateLanding(t *testing.T) {
	tabs := map[int]*SimTable{}
	for _, smt := range []int{1, 2} {
		tab, err := Simulate(SimConfig{CPUs: 32, LLC: 16, Duration: 20 * time.Millisecond, SMT: smt})
		if err != nil {
			t.Fatal(err)
		}
		tabs[smt] = tab
		for _, r := range tab.Rows {
			if d := r.Stacked + r.FoundIdle - 100; d > 0.01 || d < -0.01 {
				t.Errorf("smt %d, %s: stacked %.2f%% + found idle %.2f%%, want 100%%", smt, r.Label, r.Stacked, r.FoundIdle)
			}
			// 1 ms / 80 entries = 12.5 µs a stacked task.
			perStacked := float64(r.Wait) / (r.Stacked / 100)
			if perStacked < 0.9*12500 || perStacked > 1.1*12500 {
				t.Errorf("smt %d, %s: a stacked task waits %.0f ns, want 12500 ± 10%% (1 ms over 80 idle entries)", smt, r.Label, perStacked)
			}
			if (smt == 2) != (r.CoreWritesPerSec > 0) {
				t.Errorf("smt %d, %s: has_idle_cores writes %.3g/s", smt, r.Label, r.CoreWritesPerSec)
			}
		}
	}
	for i := range tabs[1].Rows {
		one, two := tabs[1].Rows[i], tabs[2].Rows[i]
		if two.ProbesPerWakeup <= one.ProbesPerWakeup || two.IdleCore <= 0 || one.IdleCore != 0 {
			t.Errorf("%s: probes/wakeup %.2f without SMT, %.2f with; idle core %% %.1f, %.1f: want more probes and some idle cores with SMT only",
				one.Label, one.ProbesPerWakeup, two.ProbesPerWakeup, one.IdleCore, two.IdleCore)
		}
	}
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
		{SimConfig{SMT: 3}, "smt 3: want 1 or 2"},
		{SimConfig{CPUs: 9, LLC: 3}, "smt 2: llc 3 is odd"},
		{SimConfig{Prev: "last"}, `prev "last": want draw or history`},
	} {
		_, err := Simulate(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "simulate idlemask: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Simulate(%+v) error = %v, want one line containing %q", tt.cfg, err, tt.want)
		}
	}
}
