package idlemask

import (
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
)

// The CPU side of the idlemask scenario: the shared mask and runqueue lines,
// each simulated CPU's own state on the kernel clock, and the hooks that go
// idle, leave idle and tick.

// avgIdleMax is both sched_init's rq->avg_idle
// (2*sysctl_sched_migration_cost, ksim.MigrationCost) and the cap
// ttwu_do_wakeup puts on it (2*rq->max_idle_balance_cost, which starts at
// sysctl_sched_migration_cost and stays there: it only grows when a
// newidle balance costs more, and the model has none).
const avgIdleMax = 2 * ksim.MigrationCost

// The states of a runqueue as a remote wakeup sees it.
const (
	rqBusy  = 0 // running a task
	rqIdle  = 1 // running its idle task: available_idle_cpu() says yes
	rqWoken = 2 // a waker has queued a task here that has not run yet: nr_running > 0, so not idle
	// rqPlacing: under update=always, a waker holds this runqueue, as
	// try_to_wake_up() holds the remote rq's lock, from its claim of the
	// idle CPU until its clear of the CPU's mask bit has landed; then it
	// stores rqWoken. The owner waits it out before it switches tasks, as
	// __schedule() waits for rq->lock (see takeRQ). Not idle to a probe.
	rqPlacing = 3
)

// A sharedLLC is one simulated last-level cache: its idle mask, the runqueue of
// each of its CPUs, and its span.
type sharedLLC struct {
	// mask is sds_idle_cpus(sd->shared): the middle of a buffer with
	// bench.LinePad bytes of unused words on each side.
	mask []atomic.Uint64
	buf  []atomic.Uint64 // mask and its padding
	// rqs is cpu_rq(cpu) for each CPU, filled in by the CPU's owner.
	rqs   []*runqueue
	width int
	// idleCores is sd_llc_shared->has_idle_cores (smt=2).
	idleCores *hasIdleCores
}

func newSharedLLC(width int) *sharedLLC {
	nw := (width + 63) / 64
	pad := bench.LinePad / 8
	buf := make([]atomic.Uint64, pad+nw+pad)
	return &sharedLLC{mask: buf[pad : pad+nw : pad+nw], buf: buf, rqs: make([]*runqueue, width), width: width, idleCores: new(hasIdleCores)}
}

// A runqueue is the part of one simulated CPU's runqueue that remote CPUs
// touch, on lines of its own: wakeups read state (available_idle_cpu()) and
// write it when they queue a task there (ttwu within an LLC takes the
// remote rq's lock and enqueues directly); everything else is the owner's.
type runqueue struct {
	_ [bench.LinePad]byte
	// state is rqBusy, rqIdle, rqWoken or rqPlacing. The owner stores it
	// only when the state changes, as the kernel writes rq->curr only at a
	// context switch; a waker moves it from rqIdle to rqWoken with a CAS
	// (under update=always through rqPlacing, see place).
	state atomic.Uint32
	// last is rq->last_idle_state (update=laststate and tickstop), the
	// mask bit as this CPU last wrote it. sched_init() starts it at 1;
	// here it starts equal to the initial bit. Owner only.
	last uint32
	// queued counts the woken tasks a waker on another worker queued here
	// behind a running task (the CPU it found idle was busy again when the
	// task got there); the owner takes them into its own count of stacked
	// tasks at its next event (see cpuLocal.stacked).
	queued atomic.Uint32
	_      [bench.LinePad - 12]byte
}

// A cpuLocal is what only a simulated CPU itself reads and writes, kept in
// its owner's memory: its clock and the averages the kernel keeps in its rq
// and its sched_domain.
type cpuLocal struct {
	clock     ksim.Clock // this CPU's clock, ns of kernel time: gap per event
	nextTick  int64      // when its next scheduler tick is due
	idleSince int64      // rq->idle_stamp: when it last went idle
	// avgIdle is rq->avg_idle: update_avg() of the idle periods a wakeup
	// ended, capped at avgIdleMax (ttwu_do_wakeup).
	avgIdle int64
	// avgScanCost is this CPU's sd_llc->avg_scan_cost: update_avg() of
	// the time select_idle_cpu() took, when it did not stop on budget.
	avgScanCost int64
	// gov is the cpuidle governor (ksim.Governor: menu), learning from
	// this CPU's idle sleeps; sleepFrom is when the current one began
	// (its last idle entry), tickWoke that a kept tick has ended it
	// (menu_reflect()'s tick_nohz_idle_got_tick()).
	gov       ksim.Governor
	sleepFrom int64
	tickWoke  bool
	// stacked is the woken tasks queued on this CPU behind its running
	// task, and stackedAt the sum of their enqueue times on its clock:
	// they run when that task blocks (the CPU's next switch to idle), and
	// each waited from its enqueue until then. See wait.
	stacked, stackedAt int64
	idling             bool // in an idle period (state rqIdle, or rqWoken not yet run)
	tickStopped        bool // this idle period stopped the tick (update=tickstop)
	nohzStopped        bool // rq->nohz_tick_stopped: in nohz.idle_cpus_mask (nohz.go)
}

// A worker owns CPUs [lo, hi) of one simulated LLC. Everything here is
// written only by its own thread and padded from its neighbours; the shared
// state is what mask and rqs point to.
type worker struct {
	_ [bench.LinePad]byte
	counts
	rng   uint64
	cur   int        // the CPU of the next event
	local []cpuLocal // each owned CPU's own state, indexed c-lo
	timer uint32     // counts wakeups to pick the timed scans

	mask                   []atomic.Uint64
	rqs                    []*runqueue
	span, allowed, scratch []uint64
	lo, hi                 int
	width                  int64 // sd->span_weight of the LLC domain
	busyT, wakeT, kthreadT uint64
	tickNs, gap            int64 // TICK_NSEC; kernel time per event of one CPU
	auditEvery             int64
	scanNs                 int64         // probe=: kernel ns per cpu probed, or 0 (probe=auto): timed
	early                  bool          // early=on: select_idle_sibling()'s shortcuts before the scan
	hist                   *history      // prev=history: the worker's tasks; nil with prev=draw
	smt                    bool          // smt=2: select_idle_core() and select_idle_smt(), has_idle_cores
	idleCores              *hasIdleCores // the LLC's has_idle_cores
	earlyCounts
	timedNs, timedProbes int64 // probe=auto: the timed scans' wall time and probes
	// placeHook and heldHook, when a test sets them, run in place
	// between the waker's claim of a CPU and its clear of the bit, and in
	// takeRQ when the owner finds a waker holding the runqueue: a test
	// stops one worker there to force an interleaving. Nil in runs.
	placeHook func(cpu int)
	heldHook  func()
	update    updatePolicy
	scanMask  bool
	sisProp   bool
	// nohz= (nohz.go): the mode, the machine's nohz struct, this LLC's
	// first bit in its mask, the locked writes made and the kick's reads.
	nohzMode   int
	nohz       *bench.Nohz
	nohzBase   int
	nohzWrites int64
	nohzSink   int64
	nohzLines  *bench.NohzLines // simulate -nohz only: the nohz lines' accesses (simnohz.go)
	_          [bench.LinePad]byte
}

// next is xorshift64*: cheap, deterministic per worker, good enough to
// schedule events.
func (w *worker) next() uint64 { return bench.XorShift(&w.rng) }

func (w *worker) Run(n int) { idleMaskEvents(w, n) }

// idleMaskEvents is the hot loop: n events, each on the next of the worker's
// CPUs, each moving that CPU's clock by one event's kernel time. perf
// annotate finds the shared-word writes (LOCK OR/AND) here and the scan in
// ksim.SelectIdleCPU.
//
//go:noinline
func idleMaskEvents(w *worker, n int) {
	for range n {
		c := w.cur
		if w.cur++; w.cur == w.hi {
			w.cur = w.lo
		}
		loc := &w.local[c-w.lo]
		rq := w.rqs[c]
		if rq.queued.Load() != 0 {
			// Tasks queued here by another worker's wakers, since
			// this CPU's last event at the earliest: they wait for
			// its running task, or, if it has gone idle since, run
			// at once.
			if n := int64(rq.queued.Swap(0)); !loc.idling {
				loc.stack(n)
			}
		}
		loc.clock.Advance(w.gap)
		r := w.next()
		if loc.idling && rq.state.Load() == rqWoken {
			// A waker queued a task here: it runs now.
			w.idleExit(c, rq, loc)
		}
		switch {
		case r>>32 < w.wakeT:
			w.wakeup(c, loc)
		case uint64(uint32(r)) >= w.busyT:
			w.idleEntry(c, rq, loc)
		case loc.idling:
			w.idleExit(c, rq, loc)
		}
		if loc.clock.Now() >= loc.nextTick {
			loc.nextTick += w.tickNs
			w.schedulerTick(c, rq)
		}
	}
	w.events += int64(n)
}

// setBit is cpumask_set_cpu() on the shared mask: a locked OR, which takes the
// line exclusive whether or not the bit changes.
func (w *worker) setBit(c int) {
	w.mask[c/64].Or(1 << (c % 64))
	w.writes++
}

// clearBit is cpumask_clear_cpu(): a locked AND.
func (w *worker) clearBit(c int) {
	w.mask[c/64].And(^(uint64(1) << (c % 64)))
	w.writes++
}

// idleEntry is the CPU switching to (or staying in) its idle task and
// cpuidle_idle_call() running update_idle_cpumask(this_rq(), true): on
// every entry, or, in v5 as posted, only
//
//	if (stop_tick || tick_nohz_tick_stopped()) {
//		update_idle_cpumask(this_rq(), true);
//		tick_nohz_idle_stop_tick();
//	}
//
// where the governor stops the tick when it expects the CPU to stay idle at
// least a tick (menu: predicted_ns >= TICK_NSEC; ksim.Governor, told of
// each sleep that ended, by a task, an interrupt or the kept tick).
func (w *worker) idleEntry(c int, rq *runqueue, loc *cpuLocal) {
	switched := !loc.idling
	if switched {
		// The switch to the idle task; newidle balancing (not
		// modelled) stamps rq->idle_stamp.
		rq.state.Store(rqIdle)
		loc.idling = true
		loc.idleSince = loc.clock.Now()
		loc.tickStopped = false
		// The running task blocked: the tasks stacked behind it run.
		w.waitNs += loc.waited(loc.clock.Now())
		loc.stacked, loc.stackedAt = 0, 0
	}
	if switched && w.smt {
		// set_next_task_idle() calls update_idle_core(rq).
		w.updateIdleCore(c)
	}
	switch w.update {
	case updateAlways, updateTick:
		w.setBit(c)
	case updateLastState:
		w.setIdle(c, rq)
	case updateTickStop:
		now := loc.clock.Now()
		if !switched {
			// A re-entry: the sleep before it ended without a task
			// to run (an interrupt, or the kept tick).
			loc.gov.Woke(now-loc.sleepFrom, loc.tickWoke)
		}
		loc.sleepFrom, loc.tickWoke = now, false
		if loc.gov.Select(w.tickNs, ksim.WatchdogSleep(now, c, int(w.width)), loc.tickStopped) {
			// nohz_balance_enter_idle() runs on the tick's
			// transition to stopped only (tick-sched.c: "if
			// (!was_stopped && ts->tick_stopped)"); an entry that
			// finds it stopped updates the mask alone.
			first := !loc.tickStopped
			loc.tickStopped = true
			w.setIdle(c, rq)
			if first && w.nohzMode != nohzNone {
				w.nohzIdle(c, loc)
			}
		}
	}
}

// setIdle is update_idle_cpumask(rq, true) with its filter:
//
//	idle_state = set_idle || sched_idle_cpu(cpu);
//	if (rq->last_idle_state == idle_state)
//		return;
func (w *worker) setIdle(c int, rq *runqueue) {
	if rq.last != 1 {
		w.setBit(c)
		rq.last = 1
	}
}

// idleExit is the CPU picking a task after idle: the one a remote waker
// queued (state rqWoken), or one of its own. ttwu_do_wakeup() folds the idle
// period into rq->avg_idle; the governor learns it too. Only the exact mask
// hears of the exit; the patch leaves the bit set until the tick.
func (w *worker) idleExit(c int, rq *runqueue, loc *cpuLocal) {
	old := w.takeRQ(rq)
	idle := loc.clock.Now() - loc.idleSince
	ksim.UpdateAvg(&loc.avgIdle, idle)
	loc.avgIdle = min(loc.avgIdle, avgIdleMax)
	if w.update == updateTickStop {
		loc.gov.Woke(loc.clock.Now()-loc.sleepFrom, false)
	}
	loc.idling = false
	loc.tickStopped = false
	// Under update=always a waker that placed a task here (rqWoken)
	// has already cleared the bit (takeRQ waited for it), unless this
	// CPU's own idle re-entry or tick set it again between the waker's
	// claim and its clear (a race the kernel has too); the exit clears
	// what is left.
	if w.update == updateAlways && (old == rqIdle || w.mask[c/64].Load()>>(c%64)&1 != 0) {
		w.clearBit(c)
	}
}

// takeRQ is the owner switching its CPU to a task (the one a waker queued,
// or its own): it marks the runqueue busy and returns the state it left.
// While a waker holds the runqueue (rqPlacing) it waits, as __schedule()
// spins on the rq->lock that try_to_wake_up() holds; the waker is inside
// one event, between two writes, so the wait is short and always ends.
// Without it, under update=always, the owner could run the woken task and
// go idle again (setting its bit) before the waker's clear landed, leaving
// an idle CPU out of the exact mask until its next idle entry or tick.
func (w *worker) takeRQ(rq *runqueue) uint32 {
	held := false
	for {
		old := rq.state.Load()
		if old != rqPlacing {
			if rq.state.CompareAndSwap(old, rqBusy) {
				return old
			}
			continue // a waker claimed it since the load
		}
		if !held && w.heldHook != nil {
			w.heldHook()
		}
		held = true
	}
}

// schedulerTick is scheduler_tick() calling update_idle_cpumask(rq, false):
//
//	/*
//	 * If called from scheduler tick, only update
//	 * idle cpumask if the CPU is busy, as idle
//	 * cpumask is also updated on idle entry.
//	 */
//	if (!set_idle && idle_cpu(cpu))
//		return;
//
// update=always rewrites the bit either way. A CPU with a woken task queued
// is not idle_cpu().
func (w *worker) schedulerTick(c int, rq *runqueue) {
	idle := rq.state.Load() == rqIdle
	if idle && !w.local[c-w.lo].tickStopped {
		// The kept tick wakes the idle CPU: menu learns it as such at
		// the next selection.
		w.local[c-w.lo].tickWoke = true
	}
	if !idle && w.nohzMode != nohzNone {
		w.nohzKick(c, &w.local[c-w.lo])
	}
	switch w.update {
	case updateAlways:
		if idle {
			w.setBit(c)
		} else {
			w.clearBit(c)
		}
	case updateLastState, updateTickStop:
		if idle || rq.last == 0 {
			return
		}
		w.clearBit(c)
		rq.last = 0
	case updateTick:
		if !idle {
			w.clearBit(c)
		}
	}
}

// stack queues n woken tasks on this CPU behind its running task, now.
func (loc *cpuLocal) stack(n int64) {
	loc.stacked += n
	loc.stackedAt += n * loc.clock.Now()
}

// waited is the kernel time the tasks stacked on this CPU have waited by
// now, summed.
func (loc *cpuLocal) waited(now int64) int64 { return loc.stacked*now - loc.stackedAt }
