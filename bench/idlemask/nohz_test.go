package idlemask

import (
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

// TestNohzCounterWrites: the same events (one seed) under nohz=counter and
// nohz=weight stop and restart the same ticks, so the counter's locked
// writes are exactly twice the mask's alone, and Finish finds the mask,
// the cpus' nohz_tick_stopped and nohz.nr_cpus in agreement.
func TestNohzCounterWrites(t *testing.T) {
	const v = "update=tickstop/busy=50/wake=10/llc=8/tick=4/nohz="
	writes := map[string]int64{}
	for _, mode := range []string{"counter", "weight"} {
		s, ws := setup(t, v+mode, 2)
		for _, w := range ws {
			w.Run(20000)
		}
		res := &bench.Result{Ops: 40000}
		if err := s.Finish(res); err != nil {
			t.Fatalf("nohz=%s: %v", mode, err)
		}
		for _, w := range ws {
			writes[mode] += w.nohzWrites
		}
		if got, _ := res.Metric(NohzWrites.Name); got != float64(writes[mode])/40000 {
			t.Errorf("nohz=%s: nohz-writes/op = %v, want %v", mode, got, float64(writes[mode])/40000)
		}
	}
	if writes["weight"] == 0 || writes["counter"] != 2*writes["weight"] {
		t.Errorf("nohz writes: counter %d, weight %d; want twice as many, and some", writes["counter"], writes["weight"])
	}
}

// TestNohzCheck: Finish catches a bit without its cpu's
// nohz_tick_stopped (bench's TestNohz checks the counter's drift).
func TestNohzCheck(t *testing.T) {
	s, ws := setup(t, "update=tickstop/busy=50/llc=8/tick=4/nohz=counter", 1)
	ws[0].Run(5000)
	if err := s.Finish(&bench.Result{Ops: 5000}); err != nil {
		t.Fatal(err)
	}
	for c := range ws[0].local {
		if !ws[0].local[c].nohzStopped {
			s.nohzState.Enter(c) // a stray bit, and nr_cpus with it
			break
		}
	}
	if err := s.Finish(&bench.Result{Ops: 5000}); err == nil || !strings.Contains(err.Error(), "idle_cpus_mask bit") {
		t.Errorf("Finish with a stray mask bit = %v, want an error naming it", err)
	}
}
