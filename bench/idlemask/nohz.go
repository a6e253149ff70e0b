package idlemask

import (
	"fmt"

	"github.com/contend/contend/bench"
)

// NohzWrites counts nohz=counter|weight's locked writes.
var NohzWrites = bench.Unit{Name: "nohz-writes/op", Better: bench.Lower,
	Doc: "locked writes to nohz.idle_cpus_mask and nohz.nr_cpus at tick-stop entry and exit, per event (nohz=counter|weight)"}

// The values of nohz=, in its key's order.
const (
	nohzNone    = iota // no nohz bookkeeping (the model before the key)
	nohzCounter        // before 5d86d542f68f: the mask and nohz.nr_cpus
	nohzWeight         // after it: the mask alone, its emptiness read
)

// nohzIdle is nohz_balance_enter_idle() on an idle entry that stops the
// tick, as __tick_nohz_idle_stop_tick() calls it (on the transition to
// stopped only): a CPU not in the mask yet (rq->nohz_tick_stopped unset;
// see bench.Nohz) enters it, and every call stores
// nohz.has_blocked_load, which only simulate -nohz's lines see
// (bench.NohzLines, the ksim.NohzObserver of ksim.Nohz's EnterIdle).
func (w *worker) nohzIdle(c int, loc *cpuLocal) {
	if !loc.nohzStopped {
		w.nohzWrites += w.nohz.Enter(w.nohzBase + c)
		loc.nohzStopped = true
		if l := w.nohzLines; l != nil {
			l.Enter(w.nohzBase + c)
		}
	}
	if l := w.nohzLines; l != nil {
		l.Blocked(w.nohzBase + c)
	}
}

// nohzKick is nohz_balancer_kick() on a busy tick: nohz_balance_exit_idle()
// first, if the tick was stopped since the last busy one, then the test
// for a tickless cpu and the read of nohz.next_balance (the balancer
// itself is not modelled).
func (w *worker) nohzKick(c int, loc *cpuLocal) {
	if loc.nohzStopped {
		loc.nohzStopped = false
		w.nohzWrites += w.nohz.Exit(w.nohzBase + c)
		if l := w.nohzLines; l != nil {
			l.Exit(w.nohzBase + c)
		}
	}
	next := w.nohz.Kick()
	w.nohzSink += next
	if l := w.nohzLines; l != nil {
		l.Kick(w.nohzBase+c, next != 0)
	}
}

// checkNohz verifies the nohz state once every worker has stopped: a cpu
// is in nohz.idle_cpus_mask exactly when its rq->nohz_tick_stopped is set,
// and nohz.nr_cpus counts them.
func (s *idleMask) checkNohz() error {
	if s.nohz == nohzNone {
		return nil
	}
	stopped := func(g int) bool {
		li, c := g/s.width, g%s.width
		return s.llcs[li].rqs[c] != nil && s.local(li, c).nohzStopped
	}
	if err := s.nohzState.Check(len(s.llcs)*s.width, stopped); err != nil {
		return fmt.Errorf("idlemask: %w", err)
	}
	return nil
}
