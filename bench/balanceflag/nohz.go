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

// nohzTick is the nohz bookkeeping of this tick (nohz=counter|weight; see
// bench.Nohz). A CPU idle in a tick has stopped its tick, as the package
// comment has it: its first idle tick after a busy one is
// nohz_balance_enter_idle(); a busy tick runs nohz_balancer_kick(), which
// first exits nohz if the tick was stopped, then tests for a tickless cpu
// and reads nohz.next_balance. The worker still balances itself from its
// idle ticks (there is no nohz balancer here): what nohz= adds is the
// nohz struct's words, written and read by every worker.
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

// checkNohz verifies the nohz struct against the workers' stopped ticks
// once every worker has stopped.
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
