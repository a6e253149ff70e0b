package idlemask

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/contend/contend/bench"
)

// NohzWrites counts nohz=counter|weight's locked writes.
var NohzWrites = bench.Unit{Name: "nohz-writes/op", Better: bench.Lower,
	Doc: "locked writes to nohz.idle_cpus_mask and nohz.nr_cpus at tick-stop entry and exit, per event (nohz=counter|weight)"}

// The values of nohz=, in its key's order.
const (
	imNohzNone    = iota // no nohz bookkeeping (the model before the key)
	imNohzCounter        // before 5d86d542f68f: the mask and nohz.nr_cpus
	imNohzWeight         // after it: the mask alone, its emptiness read
)

// imNohz is fair.c's global nohz struct, one for the whole machine: its
// idle_cpus_mask (a cpumask_var_t, so the bits are an allocation of their
// own) and, on the struct's ____cacheline_aligned line, nr_cpus beside
// next_balance, which nohz_balancer_kick() reads on every busy tick.
type imNohz struct {
	mask []atomic.Uint64 // one bit per simulated cpu, llc*width + cpu
	_    [bench.LinePad]byte
	nr   atomic.Int64 // nohz.nr_cpus (nohz=counter)
	next atomic.Int64 // nohz.next_balance, read by the kick
	_    [bench.LinePad - 16]byte
}

func newIMNohz(cpus int) *imNohz {
	const pad = bench.LinePad / 8 // words padding the mask from its neighbours
	nw := (cpus + 63) / 64
	return &imNohz{mask: make([]atomic.Uint64, nw+2*pad)[pad : pad+nw]}
}

// nohzEnter is nohz_balance_enter_idle() on the cpu's first tick-stop of
// an idle period (rq->nohz_tick_stopped guards the rest):
//
//	cpumask_set_cpu(cpu, nohz.idle_cpus_mask);
//	atomic_inc(&nohz.nr_cpus);	/* removed by 5d86d542f68f */
func (w *imWorker) nohzEnter(c int, loc *imLocal) {
	g := w.nohzBase + c
	w.nohz.mask[g/64].Or(1 << (g % 64))
	w.nohzWrites++
	if w.nohzMode == imNohzCounter {
		w.nohz.nr.Add(1)
		w.nohzWrites++
	}
	loc.nohzStopped = true
}

// nohzKick is nohz_balancer_kick() on a busy tick: nohz_balance_exit_idle()
// first, if the tick was stopped since the last busy one,
//
//	rq->nohz_tick_stopped = 0;
//	cpumask_clear_cpu(rq->cpu, nohz.idle_cpus_mask);
//	atomic_dec(&nohz.nr_cpus);	/* removed */
//
// then "no cpu is tickless" (!atomic_read(&nohz.nr_cpus), after the
// commit cpumask_empty(nohz.idle_cpus_mask)) returns, and otherwise the
// kick reads nohz.next_balance (the balancer itself is not modelled).
func (w *imWorker) nohzKick(c int, loc *imLocal) {
	n := w.nohz
	if loc.nohzStopped {
		loc.nohzStopped = false
		g := w.nohzBase + c
		n.mask[g/64].And(^(uint64(1) << (g % 64)))
		w.nohzWrites++
		if w.nohzMode == imNohzCounter {
			n.nr.Add(-1)
			w.nohzWrites++
		}
	}
	empty := true
	if w.nohzMode == imNohzCounter {
		empty = n.nr.Load() == 0
	} else {
		for i := range n.mask {
			if n.mask[i].Load() != 0 {
				empty = false
				break
			}
		}
	}
	if !empty {
		w.nohzSink += n.next.Load()
	}
}

// checkNohz verifies the nohz state once every worker has stopped: a cpu
// is in nohz.idle_cpus_mask exactly when its rq->nohz_tick_stopped is set,
// and nohz.nr_cpus counts them.
func (s *idleMask) checkNohz() error {
	if s.nohz == imNohzNone {
		return nil
	}
	set := 0
	for i := range s.nohzState.mask {
		set += bits.OnesCount64(s.nohzState.mask[i].Load())
	}
	stopped := 0
	for li, llc := range s.llcs {
		for c, rq := range llc.rqs {
			if rq == nil {
				continue
			}
			g := li*s.width + c
			bit := s.nohzState.mask[g/64].Load()>>(g%64)&1 != 0
			loc := s.local(li, c)
			if bit != loc.nohzStopped {
				return fmt.Errorf("idlemask: nohz: llc %d cpu %d: idle_cpus_mask bit %v, nohz_tick_stopped %v after the run", li, c, bit, loc.nohzStopped)
			}
			if loc.nohzStopped {
				stopped++
			}
		}
	}
	if s.nohz == imNohzCounter && s.nohzState.nr.Load() != int64(set) {
		return fmt.Errorf("idlemask: nohz=counter: nohz.nr_cpus is %d with %d cpus in nohz.idle_cpus_mask", s.nohzState.nr.Load(), set)
	}
	if set != stopped {
		return fmt.Errorf("idlemask: nohz: %d cpus in nohz.idle_cpus_mask, %d with the tick stopped", set, stopped)
	}
	return nil
}
