package balanceflag

import (
	"math"
	"testing"
	"time"
)

// The nohz counts follow from the idle pattern: every tick stop is one
// locked write to the mask, and to nr_cpus where it is kept, and one
// has_blocked_load store; every restart the same less the store; every
// busy tick reads nr_cpus, or the mask, once. The commit's variant makes
// no locked write to the struct's line, and its idle path moves fewer
// lines than the counter's: one fewer per restart, nearly always.
func TestSimulateNohzCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  SimConfig
	}{
		{"480 cpus, busy 90", SimConfig{CPUs: 480, CAS: 100 * time.Nanosecond, Duration: 50 * time.Millisecond}},
		{"64 cpus, busy 50, HZ 250", SimConfig{CPUs: 64, Busy: 50, HZ: 250, CAS: 100 * time.Nanosecond, Duration: 200 * time.Millisecond}},
		{"64 cpus, jitter and skew", SimConfig{CPUs: 64, CAS: 100 * time.Nanosecond, Duration: 50 * time.Millisecond, SkewTick: true, Jitter: 10 * time.Microsecond}},
	} {
		tab, err := SimulateNohz(tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c, w := tab.Row("counter"), tab.Row("weight")
		if c == nil || w == nil {
			t.Fatalf("%s: rows %+v, want counter and weight", tc.name, tab.Rows)
		}
		cfg := tab.Config
		sec := cfg.Duration.Seconds()
		busyPerSec := 0.0
		for cpu := range cfg.CPUs {
			for j := int64(1); j <= int64(sec*float64(cfg.HZ)); j++ {
				if !idleAt(cfg.Seed, cfg.Busy, cpu, j) {
					busyPerSec++
				}
			}
		}
		busyPerSec /= sec
		eq := func(what string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 1e-6*max(1, want) {
				t.Errorf("%s: %s = %g, want %g", tc.name, what, got, want)
			}
		}
		if c.StopsPerSec == 0 || math.Abs(c.StopsPerSec-c.RestartsPerSec)*sec > float64(cfg.CPUs) {
			t.Errorf("%s: %g stops and %g restarts a second: want some, within a stop per cpu of each other", tc.name, c.StopsPerSec, c.RestartsPerSec)
		}
		for _, r := range []*NohzRow{c, w} {
			eq(r.Variant+" stops", r.StopsPerSec, c.StopsPerSec)
			eq(r.Variant+" mask's locked writes", r.Mask.Locked, r.StopsPerSec+r.RestartsPerSec)
			eq(r.Variant+" calls", r.CallsPerSec, r.StopsPerSec)
			eq(r.Variant+" needs_update and has_blocked_load stores", r.Struct.Stores, r.StopsPerSec+r.CallsPerSec)
			eq(r.Variant+" moves by path", r.IdleTransfers+r.TickTransfers, r.Struct.Transfers+r.Mask.Transfers)
		}
		eq("counter's locked writes to nr_cpus", c.Struct.Locked, c.StopsPerSec+c.RestartsPerSec)
		eq("weight's locked writes to the struct's line", w.Struct.Locked, 0)
		eq("counter's reads of the mask in the tick", c.Mask.Reads, 0)
		eq("weight's cpumask_empty() reads", w.Mask.Reads, busyPerSec)
		// A restart's atomic_dec() moves the struct's line unless the
		// restarting cpu still holds it (its own stop the line's last
		// access): rare at any size with more than a few cpus.
		if saved := c.IdleTransfers - w.IdleTransfers; saved > c.RestartsPerSec || saved < 0.95*c.RestartsPerSec {
			t.Errorf("%s: the counter's idle path moves %g more lines a second than the mask's; want one per restart (%g) at most, 95%% of them at least", tc.name, saved, c.RestartsPerSec)
		}
	}
}

// No cpu ever idle: no tick stops, nothing written, and each line moves
// once per cpu that reads it, at its first read.
func TestSimulateNohzAllBusy(t *testing.T) {
	tab, err := SimulateNohz(SimConfig{CPUs: 16, SNC: 1, Busy: 100, CAS: 100 * time.Nanosecond, Duration: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tab.Rows {
		if r.StopsPerSec != 0 || r.Struct.Locked+r.Struct.Stores+r.Mask.Locked != 0 || r.IdleTransfers != 0 || r.TickTransfers != 16/0.01 {
			t.Errorf("%s all busy: %+v; want no stops, no writes, 16 first reads", r.Variant, r)
		}
	}
}
