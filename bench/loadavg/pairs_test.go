package loadavg

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// pairsConfig is a pipe count's shape: 2 pairs on 4 cpus, 2 levels, HZ 250,
// the measured shares of 6.1's pipe run (kernel-6.1-6.12.txt).
func pairsConfig(gap time.Duration, mig SimMig) SimConfig {
	return SimConfig{CPUs: 4, Nodes: 1, Levels: 2, Duration: time.Second, Gap: gap, Mig: mig,
		Pairs: 2, Run: .354, Runnable: .530, HZ: 250, Seed: 1, Variants: []string{"base"}}
}

// TestPairsRealiseFedWakeups: the pairs workload wakes each task once per
// cycle, so the wakeups it realises are those it was fed (one per 2·gap
// per cpu), within the few per cent that two pairs stacked on one cpu
// cost; a lone pair, which nothing delays, realises them to the unit. The
// run share is the one fed.
func TestPairsRealiseFedWakeups(t *testing.T) {
	for _, tc := range []struct {
		pairs, cpus int
		tol         float64
	}{{1, 2, 0.01}, {2, 4, 0.06}} {
		for _, gap := range []time.Duration{370 * time.Microsecond, 2647 * time.Microsecond} {
			cfg := pairsConfig(gap, NoMig)
			cfg.Pairs, cfg.CPUs = tc.pairs, tc.cpus
			tab, err := Simulate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := tab.Rows[0]
			fed := float64(cfg.CPUs) * cfg.Duration.Seconds() / (2 * gap.Seconds())
			if got := float64(r.Wakeups); math.Abs(got/fed-1) > tc.tol {
				t.Errorf("%d pairs on %d cpus, gap %v: %v wakeups realised, %.0f fed", tc.pairs, tc.cpus, gap, got, fed)
			}
			if math.Abs(r.RunPct/(100*cfg.Run)-1) > 0.05 || r.RunnablePct < r.RunPct { // 5 %: a second holds only a few hundred runs
				t.Errorf("%d pairs, gap %v: run %.1f %%, runnable %.1f %%; fed run %.1f %% (%d wakeups, %.0f fed)", tc.pairs, gap, r.RunPct, r.RunnablePct, 100*cfg.Run, r.Wakeups, fed)
			}
			if r.Migrations != 0 {
				t.Errorf("mig=0: %d migrations", r.Migrations)
			}
		}
	}
}

// TestPairsMigrations: the share of wakeups that land on another cpu is
// the one fed, and the run is a deterministic replay of its seed.
func TestPairsMigrations(t *testing.T) {
	cfg := pairsConfig(370*time.Microsecond, 15)
	a, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := a.Rows[0]
	if share := float64(r.Migrations) / float64(r.Wakeups); math.Abs(share-0.15) > 0.02 {
		t.Errorf("mig=15: %d migrations of %d wakeups (%.3f)", r.Migrations, r.Wakeups, share)
	}
	b, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Rows, b.Rows) {
		t.Error("the same config and seed gave two different rows")
	}
}

// TestPairsValidate: the shares must be a run share within the runnable
// one, both within the task's time.
func TestPairsValidate(t *testing.T) {
	for _, tc := range []struct{ run, runnable float64 }{{0, .5}, {.6, .5}, {.3, 1.2}, {-.1, .2}} {
		cfg := pairsConfig(370*time.Microsecond, NoMig)
		cfg.Run, cfg.Runnable = tc.run, tc.runnable
		if _, err := Simulate(cfg); err == nil || !strings.Contains(err.Error(), "runnable share") {
			t.Errorf("run %g, runnable %g: err %v, want a shares error", tc.run, tc.runnable, err)
		}
	}
	cfg := pairsConfig(370*time.Microsecond, NoMig)
	cfg.Pairs = -1
	if _, err := Simulate(cfg); err == nil || !strings.Contains(err.Error(), "pairs -1") {
		t.Errorf("pairs -1: err %v", err)
	}
}
