package idlemask

import (
	"math"
	"math/bits"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/ktime"
)

// The wakeup side of the idlemask scenario: select_idle_cpu() of the seed's
// kernel (v5.11) searching the idle mask, or every CPU of the LLC as it did
// before the mask, within the SIS_PROP budget, and the woken task placed on
// the CPU found.

// imTimeEvery: one wakeup search in this many is timed with the wall clock
// for avg_scan_cost. The kernel times every one with cpu_clock(); two clock
// reads (tens of ns under KVM) on every wakeup would add more to ns/op than
// a short scan costs, and the average moves an eighth per sample either way.
const imTimeEvery = 8

// sisNr is the SIS_PROP scan budget of select_idle_cpu() in the seed's
// kernel (v5.11, SIS_PROP on, SIS_AVG_CPU off by default):
//
//	avg_idle = this_rq()->avg_idle / 512;
//	avg_cost = this_sd->avg_scan_cost + 1;
//	...
//	if (sched_feat(SIS_PROP)) {
//		u64 span_avg = sd->span_weight * avg_idle;
//		if (span_avg > 4*avg_cost)
//			nr = div_u64(span_avg, avg_cost);
//		else
//			nr = 4;
//	}
//
// avgIdle is the waking CPU's rq->avg_idle and avgScanCost its sd_llc's
// avg_scan_cost, both in ns; span is the LLC's weight. The loop then stops
// at "if (!--nr) return -1;", so at most nr-1 CPUs are probed: 3 when busy.
func sisNr(span, avgIdle, avgScanCost int64) int {
	avgIdle /= 512
	avgCost := avgScanCost + 1
	spanAvg := span * avgIdle
	if spanAvg > 4*avgCost {
		return int(min(spanAvg/avgCost, math.MaxInt32))
	}
	return 4
}

// wakeup is select_idle_sibling() for a task woken on CPU target (the
// waking CPU): with early=on its shortcuts first (shortcut), then
// select_idle_cpu(): take the budget, build the candidate mask, scan it from
// the target, place the task on the CPU found, and keep the score. With
// early=off only the scan runs, the target left out of it: the model before
// the shortcuts, kept so that its figures stay reachable.
func (w *imWorker) wakeup(target int, loc *imLocal) {
	w.wakeups++
	h := w.hist
	if h == nil {
		w.selectIdleSibling(target, loc)
		return
	}
	h.begin(w.next())
	h.end(w.lo, w.hi, target, w.selectIdleSibling(target, loc))
}

// selectIdleSibling is wakeup's search and placement; it returns the cpu
// the task landed on.
func (w *imWorker) selectIdleSibling(target int, loc *imLocal) int {
	if w.early {
		switch cpu := w.shortcut(target, loc); {
		case cpu == imStackOnPrev:
			w.stack(target)
			return target
		case cpu >= 0:
			w.found++
			w.land(cpu)
			return cpu
		}
	}
	if w.smt {
		cpu, probes := w.selectIdleCore(target)
		w.probes += int64(probes)
		if cpu >= 0 {
			w.found++
			w.coreFound++
			w.land(cpu)
			return cpu
		}
	}
	nr := math.MaxInt
	if w.sisProp {
		nr = sisNr(w.width, loc.avgIdle, loc.avgScanCost)
	}
	var t0 int64
	w.timer++
	timed := w.scanNs == 0 && w.timer%imTimeEvery == 0
	if timed {
		t0 = ktime.Wall()
	}
	// cpumask_and(cpus, sds_idle_cpus(sd->shared), p->cpus_ptr);
	// or, before the patch,
	// cpumask_and(cpus, sched_domain_span(sd), p->cpus_ptr);
	if w.scanMask {
		for i := range w.scratch {
			w.scratch[i] = w.mask[i].Load() & w.allowed[i]
		}
	} else {
		for i := range w.scratch {
			w.scratch[i] = w.span[i] & w.allowed[i]
		}
	}
	if !w.early {
		w.scratch[target/64] &^= 1 << (target % 64)
	}
	// With early=on the target stays a candidate, as in the kernel:
	// for_each_cpu_wrap() starts at it, so it is probed again (busy, or
	// the shortcut would have taken it) and spends one unit of nr.
	cpu, probes, out := selectIdleCPU(w.scratch, w.rqs, target, nr)
	w.probes += int64(probes)
	if timed {
		w.timedNs += ktime.Wall() - t0
		w.timedProbes += int64(max(probes, 1))
	}
	if out {
		// "if (!--nr) return -1;" returns before update_avg().
		w.budgetOut++
	} else {
		// time = cpu_clock(this) - time;
		// update_avg(&this_sd->avg_scan_cost, time);
		// on the kernel clock, as avg_idle is: the probes times
		// what one costs (probe=).
		ksim.UpdateAvg(&loc.avgScanCost, w.scanCost(probes))
	}
	landed := target
	if cpu >= 0 {
		w.found++
		w.land(cpu)
		landed = cpu
	} else if s := w.smtSibling(target); s >= 0 {
		w.found++
		w.land(s)
		landed = s
	} else {
		w.fallback(target)
	}
	if !w.scanMask {
		return landed
	}
	if cpu < 0 {
		w.fails++
		if probes > 0 {
			w.staleWakeups++ // every candidate it offered was busy
		}
		if w.fails%w.auditEvery == 0 {
			w.audits++
			if probes == 0 && w.missedIdle(target) {
				w.missed++
			}
		}
		return landed
	}
	if probes > 1 {
		w.staleWakeups++ // the mask offered busy CPUs before this one
	}
	return landed
}

// scanCost is the kernel time a select_idle_cpu() of probes probes took:
// probes (at least one: the mask and the loop's set-up cost something)
// times the cost of one, probe= ns, or with probe=auto what this worker's
// timed scans took per probe so far (0 before the first: avg_scan_cost
// starts at 0 too).
func (w *imWorker) scanCost(probes int) int64 {
	n := int64(max(probes, 1))
	if w.scanNs > 0 {
		return n * w.scanNs
	}
	if w.timedProbes == 0 {
		return 0
	}
	return n * w.timedNs / w.timedProbes
}

// imStackOnPrev is shortcut's answer for the per-cpu-kthread case: the
// wakee stacks on prev, the busy target.
const imStackOnPrev = -2

// shortcut is select_idle_sibling()'s early returns before it calls
// select_idle_cpu() (v5.11; the capacity tests of asymmetric machines are
// not modelled; the per-cpu-kthread case, below, with kthread=):
//
//	if (available_idle_cpu(target) || sched_idle_cpu(target)) return target;
//	if (prev != target && cpus_share_cache(prev, target) &&
//	    (available_idle_cpu(prev) || sched_idle_cpu(prev))) return prev;
//	recent_used_cpu = p->recent_used_cpu;
//	if (recent_used_cpu != prev && recent_used_cpu != target &&
//	    cpus_share_cache(recent_used_cpu, target) &&
//	    (available_idle_cpu(recent_used_cpu) || ...) &&
//	    cpumask_test_cpu(p->recent_used_cpu, p->cpus_ptr)) return recent_used_cpu;
//
// With prev=draw, the default, the woken task's prev_cpu and
// recent_used_cpu are drawn uniformly from the LLC (one draw for both): its
// last cpu and the cpu it last woke another task from, anywhere in the LLC
// the workload spreads over; with prev=history they are the task's own
// (tasks.go). Every simulated CPU shares the target's LLC.
// Each test reads that CPU's runqueue line; it returns -1 when none is
// idle, imStackOnPrev when the per-cpu kthread case stacks the wakee.
func (w *imWorker) shortcut(target int, loc *imLocal) int {
	if w.rqs[target].state.Load() == imIdle {
		w.sisTarget++
		return target
	}
	var prev, recent int
	if w.hist != nil {
		prev, recent = w.hist.prevRecent()
	} else {
		prev, recent = imPrevRecent(w.next(), w.width)
	}
	if prev != target && w.rqs[prev].state.Load() == imIdle {
		w.sisPrev++
		return prev
	}
	// if (is_per_cpu_kthread(current) && prev == smp_processor_id() &&
	//     this_rq()->nr_running <= 1)
	//	return prev;
	// The kthread is the target's only task when nothing is stacked
	// there; the wakee then waits behind it (the kthread is taken to
	// run on as the cpu's duty cycle says: priced like any stacked task).
	if w.kthreadT > 0 && prev == target && loc.stacked == 0 && uint64(uint32(w.next())) < w.kthreadT {
		w.sisKthread++
		return imStackOnPrev
	}
	if recent != prev && recent != target && w.allowed[recent/64]>>(recent%64)&1 != 0 &&
		w.rqs[recent].state.Load() == imIdle {
		w.sisRecent++
		if w.hist != nil {
			// p->recent_used_cpu = prev;
			w.hist.tasks[w.hist.wakee].recent = int32(prev)
		}
		return recent
	}
	return -1
}

// land puts the woken task on cpu, the one select_idle_sibling() found
// idle: it runs there (place) unless the cpu stopped being idle between the
// probe and the enqueue, when it is stacked there instead.
func (w *imWorker) land(cpu int) {
	if !w.place(cpu) {
		w.stack(cpu)
	}
}

// fallback is select_idle_sibling()'s "return target" when nothing idle was
// found: the task is stacked on the target, busy. A target left idle
// (early=off, which took it out of the scan) is not placed on, as before
// the wait was modelled: nothing waits there.
func (w *imWorker) fallback(target int) {
	if w.rqs[target].state.Load() != imIdle {
		w.stack(target)
	}
}

// stack queues a woken task on cpu behind its running task, where it waits
// until that task blocks (the cpu's next switch to idle, see idleEntry).
// The wait is kept on the cpu's own clock: by its owner, which for the
// target is this worker, or, for a cpu of another worker (only a lost race
// for an idle cpu lands there), counted in its runqueue line's queued and
// taken in at its next event.
func (w *imWorker) stack(cpu int) {
	w.stacked++
	if cpu >= w.lo && cpu < w.hi {
		w.local[cpu-w.lo].stack(1)
		return
	}
	w.rqs[cpu].queued.Add(1)
}

// place queues the woken task on cpu, which the search found idle: the
// waker writes the remote runqueue (try_to_wake_up() within an LLC takes
// its lock and enqueues), so from now on a probe finds it busy, while its
// mask bit stays as it was until the CPU's own exit or tick clears it:
// under the patch, until the tick. If the CPU stopped being idle between
// the probe and now, place reports false: the task lands on a busy CPU, as
// it would in the kernel, and land stacks it there.
//
// update=always, the exact mask, clears the bit here, inside the rq lock:
// the claim moves the runqueue to imPlacing, and only after the clear does
// the waker publish imWoken, which the owner waits for (takeRQ) before it
// runs the task. A claim straight to imWoken would let the owner run the
// task and go idle again, setting its bit, before this clear landed: an
// idle CPU out of the mask, which the post-run check caught once in ~400
// sweep runs (issue 28).
func (w *imWorker) place(cpu int) bool {
	rq := w.rqs[cpu]
	if w.update != imAlways {
		if rq.state.CompareAndSwap(imIdle, imWoken) {
			w.placed++
			return true
		}
		return false
	}
	if !rq.state.CompareAndSwap(imIdle, imPlacing) {
		return false
	}
	w.placed++
	if w.placeHook != nil {
		w.placeHook(cpu)
	}
	w.clearBit(cpu)
	rq.state.Store(imWoken)
	return true
}

// missedIdle is the audit of a mask search that offered no candidate, outside
// the search's probe count: is an allowed CPU other than target idle while
// its mask bit is clear? Reading the bit again, rather than trusting the
// search's snapshot, keeps a CPU that went idle (and set its bit) after the
// search from counting as the mask's mistake.
func (w *imWorker) missedIdle(target int) bool {
	for c, rq := range w.rqs {
		if c == target || w.allowed[c/64]>>(c%64)&1 == 0 || rq.state.Load() != imIdle {
			continue
		}
		if w.mask[c/64].Load()>>(c%64)&1 == 0 {
			return true
		}
	}
	return false
}

// selectIdleCPU is the loop of select_idle_cpu(),
//
//	for_each_cpu_wrap(cpu, cpus, target) {
//		if (!--nr)
//			return -1;
//		if (available_idle_cpu(cpu) || sched_idle_cpu(cpu))
//			break;
//	}
//
// over the candidate words cpus: the set bits from target up, then from 0 up
// to target, word at a time. It returns the first candidate whose runqueue is
// idle, or -1; how many runqueues it probed; and whether the budget nr ran
// out first (math.MaxInt for no budget).
//
//go:noinline
func selectIdleCPU(cpus []uint64, rqs []*imCPU, target, nr int) (cpu, probes int, out bool) {
	tw, tb := target/64, uint(target%64)
	for i := tw; i < len(cpus); i++ {
		word := cpus[i]
		if i == tw {
			word &= ^uint64(0) << tb
		}
		for ; word != 0; word &= word - 1 {
			if nr--; nr == 0 {
				return -1, probes, true
			}
			c := i*64 + bits.TrailingZeros64(word)
			probes++
			if rqs[c].state.Load() == imIdle {
				return c, probes, false
			}
		}
	}
	for i := 0; i <= tw && i < len(cpus); i++ {
		word := cpus[i]
		if i == tw {
			word &= 1<<tb - 1
		}
		for ; word != 0; word &= word - 1 {
			if nr--; nr == 0 {
				return -1, probes, true
			}
			c := i*64 + bits.TrailingZeros64(word)
			probes++
			if rqs[c].state.Load() == imIdle {
				return c, probes, false
			}
		}
	}
	return -1, probes, false
}

// imPrevRecent maps one draw r to a woken task's prev_cpu and
// recent_used_cpu in an LLC of width CPUs: the low and high halves of r as
// fractions of width.
func imPrevRecent(r uint64, width int64) (prev, recent int) {
	return int(uint64(uint32(r)) * uint64(width) >> 32), int((r >> 32) * uint64(width) >> 32)
}

// imEarly counts the wakeups select_idle_sibling()'s shortcuts answered, by
// which one.
type imEarly struct {
	sisTarget, sisPrev, sisRecent int64
	sisKthread                    int64 // stacked on prev by the per-cpu-kthread case (kthread=)
}

func (e *imEarly) add(o *imEarly) {
	e.sisTarget += o.sisTarget
	e.sisPrev += o.sisPrev
	e.sisRecent += o.sisRecent
	e.sisKthread += o.sisKthread
}

func (e *imEarly) total() int64 { return e.sisTarget + e.sisPrev + e.sisRecent + e.sisKthread }
