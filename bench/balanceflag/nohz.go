package balanceflag

import (
	"fmt"

	"github.com/contend/contend/bench"
)

// NohzWrites counts nohz=counter|weight's locked writes.
var NohzWrites = bench.Unit{Name: "nohz-writes/op", Better: bench.Lower,
	Doc: "locked writes to nohz.idle_cpus_mask and nohz.nr_cpus as ticks stop and restart, per tick (nohz=counter|weight)"}

// The values of nohz=, in its key's order.
const (
	nohzNone    = iota // no nohz bookkeeping (the model before the key)
	nohzCounter        // before 5d86d542f68f: the mask and nohz.nr_cpus
	nohzWeight         // after it: the mask alone, its emptiness read
)

// nohzTick is this tick's nohz bookkeeping (nohz=counter|weight, bench.Nohz).
// An idle tick has stopped its tick (the package comment): the first after a
// busy one is nohz_balance_enter_idle(); a busy tick is nohz_balancer_kick():
// nohz exit if the tick was stopped, the test for a tickless cpu, the read of
// nohz.next_balance. The worker still balances itself from its idle ticks (no
// nohz balancer here): nohz= adds the nohz struct's words, every worker's.
func (w *worker) nohzTick(idle bool) {
	switch {
	case idle && !w.nohzStopped:
		w.nohzWrites += w.nohz.Enter(w.cpu)
		w.nohzStopped = true
	case !idle:
		if w.nohzStopped {
			w.nohzWrites += w.nohz.Exit(w.cpu)
			w.nohzStopped = false
		}
		w.sink += uint64(w.nohz.Kick())
	}
}

// checkNohz verifies the nohz struct against the stopped ticks, workers done.
func (s *balanceFlag) checkNohz() error {
	if s.nohzState == nil {
		return nil
	}
	stopped := make([]bool, s.cpus)
	for _, w := range s.workers {
		stopped[w.cpu] = w.nohzStopped
	}
	if err := s.nohzState.Check(s.cpus, func(c int) bool { return stopped[c] }); err != nil {
		return fmt.Errorf("balanceflag: %w", err)
	}
	return nil
}
