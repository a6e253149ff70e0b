package balanceflag

import (
	"testing"

	"github.com/contend/contend/bench/benchtest"
)

// TestNohzWrites: the same ticks (idleness is drawn from the seed, per cpu
// and tick) stop and restart the same ticks under nohz=counter and
// nohz=weight, so the counter's locked writes are exactly twice the
// mask's alone; the nohz struct agrees with the workers' stopped ticks;
// and nohz=none touches nothing.
func TestNohzWrites(t *testing.T) {
	writes := map[string]int64{}
	for _, mode := range []string{"counter", "weight", "none"} {
		s := benchtest.StartUnpinned[*balanceFlag](t, "balanceflag", "busy=50/nohz="+mode, 3)
		for _, w := range s.workers {
			w.Run(2000)
		}
		if err := s.checkNohz(); err != nil {
			t.Fatalf("nohz=%s: %v", mode, err)
		}
		for _, w := range s.workers {
			writes[mode] += w.nohzWrites
		}
	}
	if writes["weight"] == 0 || writes["counter"] != 2*writes["weight"] || writes["none"] != 0 {
		t.Errorf("nohz writes: counter %d, weight %d, none %d; want twice as many, some, none", writes["counter"], writes["weight"], writes["none"])
	}

	s := benchtest.StartUnpinned[*balanceFlag](t, "balanceflag", "busy=50/nohz=counter", 2)
	s.workers[0].Run(100)
	s.workers[0].nohzStopped = !s.workers[0].nohzStopped
	if err := s.checkNohz(); err == nil {
		t.Error("checkNohz passed with a worker's nohz_tick_stopped flipped")
	}
}
