package idlemask

import (
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/ktime"
)

// The wakeup side of the idlemask scenario: select_idle_sibling() of the
// seed's kernel (v5.11, ksim.Linux511: its shortcuts, ksim.SISShortcut)
// and select_idle_cpu() (ksim.SelectIdleCPU within ksim.SISPropNr's
// budget) searching the idle mask, or every CPU of the LLC as it did
// before the mask, and the woken task placed on the CPU found. The kernel
// functions are ksim's; what is here is the scenario's: the candidates
// (the mask, its contended line), the runqueue lines ksim reads through
// the worker (a ksim.SISView), and the scores.

// seedKernel is the seed's kernel: v5.11.
var seedKernel = ksim.Linux511

// timeEvery: one wakeup search in this many is timed with the wall clock
// for avg_scan_cost. The kernel times every one with cpu_clock(); two clock
// reads (tens of ns under KVM) on every wakeup would add more to ns/op than
// a short scan costs, and the average moves an eighth per sample either way.
const timeEvery = 8

// wakeup is select_idle_sibling() for a task woken on CPU target (the
// waking CPU): with early=on its shortcuts first (shortcut), then
// select_idle_cpu(): take the budget, build the candidate mask, scan it from
// the target, place the task on the CPU found, and keep the score. With
// early=off only the scan runs, the target left out of it: the model before
// the shortcuts, kept so that its figures stay reachable.
func (w *worker) wakeup(target int, loc *cpuLocal) {
	w.wakeups++
	h := w.hist
	if h == nil {
		w.placeWakee(target, loc)
		return
	}
	h.begin(w.next())
	h.end(w.lo, w.hi, target, w.placeWakee(target, loc))
}

// placeWakee is wakeup's search and placement, select_idle_sibling() on
// this scenario's lines; it returns the cpu the task landed on.
func (w *worker) placeWakee(target int, loc *cpuLocal) int {
	if w.early {
		cpu, s := seedKernel.SISShortcut(w, target, target)
		switch s {
		case ksim.ShortKthread:
			// The kthread is the target's only task when nothing is
			// stacked there; the wakee then waits behind it (the
			// kthread is taken to run on as the cpu's duty cycle
			// says: priced like any stacked task).
			w.sisKthread++
			w.stack(target)
			return target
		case ksim.ShortTarget, ksim.ShortPrev, ksim.ShortRecent:
			w.earlyCounts.count(s)
			w.found++
			w.land(cpu)
			return cpu
		}
	}
	if w.smt {
		cpu, probes := w.idleCore(target)
		w.probes += int64(probes)
		if cpu >= 0 {
			w.found++
			w.coreFound++
			w.land(cpu)
			return cpu
		}
	}
	nr := ksim.NoBudget
	if w.sisProp {
		nr = ksim.SISPropNr(w.width, loc.avgIdle, loc.avgScanCost)
	}
	var t0 int64
	w.timer++
	timed := w.scanNs == 0 && w.timer%timeEvery == 0
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
	cpu, probes, out := ksim.SelectIdleCPU(w.scratch, w, seedKernel.ScanStart(target), nr)
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
func (w *worker) scanCost(probes int) int64 {
	n := int64(max(probes, 1))
	if w.scanNs > 0 {
		return n * w.scanNs
	}
	if w.timedProbes == 0 {
		return 0
	}
	return n * w.timedNs / w.timedProbes
}

// The worker is the ksim.SISView of its LLC for the wakeup in progress:
// every simulated CPU shares the target's LLC, and each test reads that
// CPU's runqueue line.

// Idle is available_idle_cpu(): the runqueue runs its idle task.
func (w *worker) Idle(cpu int) bool { return w.rqs[cpu].state.Load() == rqIdle }

// SharesCache: the simulation is one LLC.
func (w *worker) SharesCache(a, b int) bool { return true }

// Allowed is the task's allowed CPUs (allowed=).
func (w *worker) Allowed(cpu int) bool { return w.allowed[cpu/64]>>(cpu%64)&1 != 0 }

// PrevRecent is the woken task's prev_cpu and recent_used_cpu: with
// prev=draw, the default, drawn uniformly from the LLC (one draw for both):
// its last cpu and the cpu it last woke another task from, anywhere in the
// LLC the workload spreads over; with prev=history the task's own
// (tasks.go).
func (w *worker) PrevRecent() (prev, recent int) {
	if w.hist != nil {
		return w.hist.prevRecent()
	}
	return drawPrevRecent(w.next(), w.width)
}

// SetRecent is "p->recent_used_cpu = prev;" (prev=history; a drawn task
// keeps nothing).
func (w *worker) SetRecent(prev int) {
	if w.hist != nil {
		w.hist.tasks[w.hist.wakee].recent = int32(prev)
	}
}

// NrRunning is rq->nr_running of one of this worker's CPUs: its running
// task and those stacked behind it (the target is the only CPU asked).
func (w *worker) NrRunning(cpu int) int {
	n := int(w.local[cpu-w.lo].stacked)
	if w.rqs[cpu].state.Load() != rqIdle {
		n++
	}
	return n
}

// PerCPUKthread is is_per_cpu_kthread(current), drawn: the waker is a
// per-cpu kthread on kthread= per cent of wakeups (0: never, no draw).
func (w *worker) PerCPUKthread() bool {
	return w.kthreadT > 0 && uint64(uint32(w.next())) < w.kthreadT
}

// land puts the woken task on cpu, the one select_idle_sibling() found
// idle: it runs there (place) unless the cpu stopped being idle between the
// probe and the enqueue, when it is stacked there instead.
func (w *worker) land(cpu int) {
	if !w.place(cpu) {
		w.stack(cpu)
	}
}

// fallback is select_idle_sibling()'s "return target" when nothing idle was
// found: the task is stacked on the target, busy. A target left idle
// (early=off, which took it out of the scan) is not placed on, as before
// the wait was modelled: nothing waits there.
func (w *worker) fallback(target int) {
	if w.rqs[target].state.Load() != rqIdle {
		w.stack(target)
	}
}

// stack queues a woken task on cpu behind its running task, where it waits
// until that task blocks (the cpu's next switch to idle, see idleEntry).
// The wait is kept on the cpu's own clock: by its owner, which for the
// target is this worker, or, for a cpu of another worker (only a lost race
// for an idle cpu lands there), counted in its runqueue line's queued and
// taken in at its next event.
func (w *worker) stack(cpu int) {
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
// the claim moves the runqueue to rqPlacing, and only after the clear does
// the waker publish rqWoken, which the owner waits for (takeRQ) before it
// runs the task. A claim straight to rqWoken would let the owner run the
// task and go idle again, setting its bit, before this clear landed: an
// idle CPU out of the mask, which the post-run check caught once in ~400
// sweep runs (issue 28).
func (w *worker) place(cpu int) bool {
	rq := w.rqs[cpu]
	if w.update != updateAlways {
		if rq.state.CompareAndSwap(rqIdle, rqWoken) {
			w.placed++
			return true
		}
		return false
	}
	if !rq.state.CompareAndSwap(rqIdle, rqPlacing) {
		return false
	}
	w.placed++
	if w.placeHook != nil {
		w.placeHook(cpu)
	}
	w.clearBit(cpu)
	rq.state.Store(rqWoken)
	return true
}

// missedIdle is the audit of a mask search that offered no candidate, outside
// the search's probe count: is an allowed CPU other than target idle while
// its mask bit is clear? Reading the bit again, rather than trusting the
// search's snapshot, keeps a CPU that went idle (and set its bit) after the
// search from counting as the mask's mistake.
func (w *worker) missedIdle(target int) bool {
	for c, rq := range w.rqs {
		if c == target || w.allowed[c/64]>>(c%64)&1 == 0 || rq.state.Load() != rqIdle {
			continue
		}
		if w.mask[c/64].Load()>>(c%64)&1 == 0 {
			return true
		}
	}
	return false
}

// drawPrevRecent maps one draw r to a woken task's prev_cpu and
// recent_used_cpu in an LLC of width CPUs: the low and high halves of r as
// fractions of width.
func drawPrevRecent(r uint64, width int64) (prev, recent int) {
	return int(uint64(uint32(r)) * uint64(width) >> 32), int((r >> 32) * uint64(width) >> 32)
}

// earlyCounts counts the wakeups select_idle_sibling()'s shortcuts answered, by
// which one.
type earlyCounts struct {
	sisTarget, sisPrev, sisRecent int64
	sisKthread                    int64 // stacked on prev by the per-cpu-kthread case (kthread=)
}

func (e *earlyCounts) add(o *earlyCounts) {
	e.sisTarget += o.sisTarget
	e.sisPrev += o.sisPrev
	e.sisRecent += o.sisRecent
	e.sisKthread += o.sisKthread
}

// count counts a wakeup shortcut s placed on an idle cpu.
func (e *earlyCounts) count(s ksim.Shortcut) {
	switch s {
	case ksim.ShortTarget:
		e.sisTarget++
	case ksim.ShortPrev:
		e.sisPrev++
	case ksim.ShortRecent:
		e.sisRecent++
	}
}

func (e *earlyCounts) total() int64 { return e.sisTarget + e.sisPrev + e.sisRecent + e.sisKthread }
