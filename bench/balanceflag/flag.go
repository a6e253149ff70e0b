package balanceflag

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/contend/contend/bench/ktime"
)

// The flag itself: sched_balance_running taken with the kernel's LOCK
// CMPXCHG, released with release=, and timed: every hold, and one operation
// in flagEvery for the share of time spent on it.

// takeFlag is atomic_cmpxchg_acquire(&sched_balance_running, 0, 1) of the
// old order and atomic_try_cmpxchg_acquire(..., &zero, 1) of the new: the
// same LOCK CMPXCHG, which perf annotate finds here. A taken flag starts a
// timed hold.
//
//go:noinline
func (w *bfWorker) takeFlag() bool {
	w.cas++
	var ok bool
	if w.flagOps++; w.flagOps >= w.flagEvery {
		w.flagOps = 0
		t := ktime.Wall()
		ok = atomic.CompareAndSwapInt32(w.running, 0, 1)
		w.holdStart = ktime.Wall()
		w.share.Add(w.flagTime(w.holdStart-t), 0)
	} else {
		ok = atomic.CompareAndSwapInt32(w.running, 0, 1)
		if ok {
			w.holdStart = ktime.Wall()
		}
	}
	if !ok {
		w.casFails++
		return false
	}
	w.takes++
	return true
}

// releaseFlag is atomic_set_release(&sched_balance_running, 0), with the
// instruction release= names, and the end of the timed hold.
//
//go:noinline
func (w *bfWorker) releaseFlag() {
	t := ktime.Wall()
	w.holdSum += min(max(t-w.holdStart-w.clockCost, 0), w.holdCap)
	if w.flagOps++; w.flagOps >= w.flagEvery {
		w.flagOps = 0
		bfStore(w.running, w.release)
		w.share.Add(w.flagTime(ktime.Wall()-t), 0)
		return
	}
	bfStore(w.running, w.release)
}

// flagTime is the time one timed flag operation stands for: its clock
// interval less the clock read inside it, clipped at bfHoldSlack (a
// preemption between the reads is the machine's, not the flag's; even a
// cmpxchg queued behind every other worker takes microseconds), times the
// operations it samples.
func (w *bfWorker) flagTime(d int64) int64 {
	return min(max(d-w.clockCost, 0), bfHoldSlack) * w.flagEvery
}

// bfAdd is an atomic add on a flag-like word.
func bfAdd(p *int32, d int32) int32 { return atomic.AddInt32(p, d) }

// bfClockCost is what one clock read costs here: the least gap between two
// back-to-back reads. A timed interval spans one read beyond what it times,
// so each sample has it taken off.
var bfClockCost = sync.OnceValue(func() int64 {
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
