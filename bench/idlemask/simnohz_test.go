package idlemask

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSimulateNohz: -nohz follows the same events under both variants (one
// seed): the same stops, calls and restarts; the counter's locked writes
// on the struct's line are exactly one per stop and restart, the weight's
// none; the mask's locked writes and the struct's stores (needs_update at
// a stop, has_blocked_load at every call) the same in both; and the main
// rows are the same with -nohz and without, since the nohz bookkeeping
// decides nothing.
func TestSimulateNohz(t *testing.T) {
	cfg := SimConfig{CPUs: 32, LLC: 16, Entries: 1, Busy: 50, Duration: 200 * time.Millisecond}
	plain, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Nohz = true
	tab, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain.Rows, tab.Rows) {
		t.Errorf("-nohz changed the main rows")
	}
	if len(tab.Nohz) != 2 || tab.Nohz[0].Variant != "counter" || tab.Nohz[1].Variant != "weight" {
		t.Fatalf("nohz rows %+v, want counter then weight", tab.Nohz)
	}
	c, w := tab.Nohz[0], tab.Nohz[1]
	near := func(a, b float64) bool { return a-b < 1e-6*b+1e-9 && b-a < 1e-6*b+1e-9 }
	switch {
	case c.StopsPerSec == 0 || c.RestartsPerSec == 0:
		t.Errorf("no tick stopped at one idle entry a tick, busy 50%%: %+v", c)
	case c.StopsPerSec != w.StopsPerSec || c.CallsPerSec != w.CallsPerSec || c.RestartsPerSec != w.RestartsPerSec:
		t.Errorf("the variants saw different events: %+v, %+v", c, w)
	case c.CallsPerSec < c.StopsPerSec || c.RestartsPerSec > c.StopsPerSec:
		t.Errorf("calls %.0f, stops %.0f, restarts %.0f: want calls ≥ stops ≥ restarts", c.CallsPerSec, c.StopsPerSec, c.RestartsPerSec)
	case !near(c.Struct.Locked, c.StopsPerSec+c.RestartsPerSec) || w.Struct.Locked != 0:
		t.Errorf("struct line locked writes: counter %.0f (want stops+restarts %.0f), weight %.0f (want 0)", c.Struct.Locked, c.StopsPerSec+c.RestartsPerSec, w.Struct.Locked)
	case !near(c.Mask.Locked, c.StopsPerSec+c.RestartsPerSec) || c.Mask.Locked != w.Mask.Locked:
		t.Errorf("mask locked writes: counter %.0f, weight %.0f, want stops+restarts %.0f in both", c.Mask.Locked, w.Mask.Locked, c.StopsPerSec+c.RestartsPerSec)
	case !near(c.Struct.Stores, c.StopsPerSec+c.CallsPerSec) || c.Struct.Stores != w.Struct.Stores:
		t.Errorf("struct line stores: counter %.0f, weight %.0f, want stops+calls %.0f in both", c.Struct.Stores, w.Struct.Stores, c.StopsPerSec+c.CallsPerSec)
	case c.Mask.Reads != 0 || w.Mask.Reads == 0 || w.Mask.Reads > c.Struct.Reads:
		t.Errorf("reads: the counter read the mask %.0f times (want 0), the weight %.0f (want every busy tick, ≤ the counter's struct reads %.0f)", c.Mask.Reads, w.Mask.Reads, c.Struct.Reads)
	}
	var b strings.Builder
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"nohz lines on v5's tick-stop path", "5d86d542f68f", "counter", "weight", "moves: idle"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	t.Logf("\n%s", b.String())
}

// At seed 003's own workload (80 idle entries a tick) no idle period is
// predicted to last a tick: no tick stops, and the table says so.
func TestSimulateNohzNoStops(t *testing.T) {
	tab, err := Simulate(SimConfig{CPUs: 32, LLC: 16, Duration: 5 * time.Millisecond, Nohz: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tab.Nohz {
		if r.CallsPerSec != 0 || r.Struct.Locked+r.Mask.Locked != 0 {
			t.Errorf("%s: %+v, want no tick stopped", r.Variant, r)
		}
	}
	var b strings.Builder
	tab.WriteText(&b)
	if !strings.Contains(b.String(), "so no tick stopped") {
		t.Errorf("the table does not say no tick stopped:\n%s", b.String())
	}
}
