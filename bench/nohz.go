package bench

import (
	"fmt"
	"math/bits"
	"sync/atomic"
)

// Nohz is kernel/sched/fair.c's machine-wide nohz struct as the tick-stop
// paths write it, for scenarios with a nohz= key (idlemask, balanceflag):
// idle_cpus_mask (a cpumask_var_t, so its bits are an allocation of their
// own, padded here from their neighbours) and, on the struct's
// ____cacheline_aligned line, nr_cpus beside next_balance, which
// nohz_balancer_kick() reads on every busy tick. With Counter it is the
// struct before Shrikanth Hegde's 5d86d542f68f ("Remove nohz.nr_cpus and
// use weight of cpumask instead", merged 2026-01); without, after it.
type Nohz struct {
	mask []atomic.Uint64
	_    [LinePad]byte
	nr   atomic.Int64 // nohz.nr_cpus (Counter)
	next atomic.Int64 // nohz.next_balance
	_    [LinePad - 16]byte
	// Counter keeps nohz.nr_cpus.
	Counter bool
}

// NewNohz returns the struct for cpus cpus, numbered from 0.
func NewNohz(cpus int, counter bool) *Nohz {
	const pad = LinePad / 8
	nw := (cpus + 63) / 64
	return &Nohz{mask: make([]atomic.Uint64, nw+2*pad)[pad : pad+nw], Counter: counter}
}

// Enter is nohz_balance_enter_idle() for a cpu whose tick just stopped
// (the caller keeps rq->nohz_tick_stopped and calls it once per stop):
//
//	cpumask_set_cpu(cpu, nohz.idle_cpus_mask);
//	atomic_inc(&nohz.nr_cpus);	/* removed by 5d86d542f68f */
//
// It returns the locked writes it made.
func (n *Nohz) Enter(cpu int) int64 {
	n.mask[cpu/64].Or(1 << (cpu % 64))
	if n.Counter {
		n.nr.Add(1)
		return 2
	}
	return 1
}

// Exit is nohz_balance_exit_idle(), from the first busy tick's
// nohz_balancer_kick() after a stop:
//
//	cpumask_clear_cpu(rq->cpu, nohz.idle_cpus_mask);
//	atomic_dec(&nohz.nr_cpus);	/* removed */
//
// It returns the locked writes it made.
func (n *Nohz) Exit(cpu int) int64 {
	n.mask[cpu/64].And(^(uint64(1) << (cpu % 64)))
	if n.Counter {
		n.nr.Add(-1)
		return 2
	}
	return 1
}

// Kick is the rest of nohz_balancer_kick() as far as these words go: "no
// cpu is tickless" returns, by !atomic_read(&nohz.nr_cpus) before the
// commit and cpumask_empty(nohz.idle_cpus_mask) after; otherwise it reads
// nohz.next_balance, which it returns (0 when it returned early).
func (n *Nohz) Kick() int64 {
	if n.Counter {
		if n.nr.Load() == 0 {
			return 0
		}
		return n.next.Load() | 1
	}
	for i := range n.mask {
		if n.mask[i].Load() != 0 {
			return n.next.Load() | 1
		}
	}
	return 0
}

// Check verifies the struct once every writer has stopped: cpu c is in the
// mask exactly when stopped(c), and nr_cpus counts the mask's cpus.
func (n *Nohz) Check(cpus int, stopped func(cpu int) bool) error {
	set := 0
	for i := range n.mask {
		set += bits.OnesCount64(n.mask[i].Load())
	}
	for c := range cpus {
		if bit := n.mask[c/64].Load()>>(c%64)&1 != 0; bit != stopped(c) {
			return fmt.Errorf("nohz: cpu %d: idle_cpus_mask bit %v, nohz_tick_stopped %v after the run", c, bit, stopped(c))
		}
	}
	if n.Counter && n.nr.Load() != int64(set) {
		return fmt.Errorf("nohz: nohz.nr_cpus is %d with %d cpus in nohz.idle_cpus_mask", n.nr.Load(), set)
	}
	return nil
}
