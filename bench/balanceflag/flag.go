package balanceflag

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
)

// The flag itself: sched_balance_running taken with the kernel's LOCK
// CMPXCHG, released with release=, and timed for one attempt in every,
// drawn at random: the attempt's cmpxchg and, when it takes the flag, the
// hold and the release, each scaled up by every. Untimed attempts read no
// clock. A clock read costs tens of nanoseconds here (about 40 under KVM),
// more than the old order's short holds: timing every hold would put two
// reads inside each one, lengthening what the other workers' cmpxchg
// collides with, and add them to every softirq of the old order and to few
// of the new. The draw is random, not every n-th attempt, because attempts
// come in patterns (take, release; a due pass every k-th softirq) that a
// fixed period can keep hitting or keep missing.

// takeFlag is atomic_cmpxchg_acquire(&sched_balance_running, 0, 1) of the
// old order and atomic_try_cmpxchg_acquire(..., &zero, 1) of the new: the
// same LOCK CMPXCHG, which perf annotate finds here, for domain l (the
// caller counts the attempt). A timed attempt that takes the flag starts a
// timed hold.
//
//go:noinline
func (w *worker) takeFlag(l *level) bool {
	var ok bool
	if w.holdTimed = bench.XorShift(&w.rng)>>w.timeShift == 0; w.holdTimed {
		t := ktime.Wall()
		ok = atomic.CompareAndSwapInt32(w.running, 0, 1)
		w.holdStart = ktime.Wall()
		d := w.flagTime(w.holdStart - t)
		w.share.Add(d, 0)
		l.flagNs += d
	} else {
		ok = atomic.CompareAndSwapInt32(w.running, 0, 1)
	}
	return ok
}

// releaseFlag is atomic_set_release(&sched_balance_running, 0), with the
// instruction release= names, and the end of the hold if it was timed.
//
//go:noinline
func (w *worker) releaseFlag(l *level) {
	if !w.holdTimed {
		storeRelease(w.running, w.release)
		return
	}
	t := ktime.Wall()
	w.holdSum += min(max(t-w.holdStart-w.clockCost, 0), w.holdCap) * w.every
	storeRelease(w.running, w.release)
	d := w.flagTime(ktime.Wall() - t)
	w.share.Add(d, 0)
	l.flagNs += d
}

// flagTime is the time one timed flag operation stands for: its clock
// interval less the clock read inside it, clipped at holdSlack (a
// preemption between the reads is the machine's, not the flag's; even a
// cmpxchg queued behind every other worker takes microseconds), times the
// operations it samples.
func (w *worker) flagTime(d int64) int64 {
	return min(max(d-w.clockCost, 0), holdSlack) * w.every
}

// clockReadCost is what one clock read costs here: the least gap between two
// back-to-back reads. A timed interval spans one read beyond what it times,
// so each sample has it taken off.
var clockReadCost = sync.OnceValue(func() int64 {
	best := int64(math.MaxInt64)
	prev := ktime.Wall()
	for range 1000 {
		now := ktime.Wall()
		if d := now - prev; d > 0 && d < best {
			best = d
		}
		prev = now
	}
	if best == math.MaxInt64 {
		return 0 // the clock never moved between reads: nothing to take off
	}
	return best
})
