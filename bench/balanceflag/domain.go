package balanceflag

import (
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
)

// The balance softirq of one CPU: its ticks on the kernel clock, its
// sched_domain hierarchy, and the walk of sched_balance_domains() up to the
// serialized domain.

// Kernel constants the intervals are built from (mainline kernel source,
// not the seed: kernel/sched/topology.c sd_init() and kernel/sched/fair.c).
const (
	// bfBusyFactor is sd_init's ".busy_factor = 16": a busy CPU balances
	// sixteen times less often than an idle one.
	bfBusyFactor = 16
)

// bfMsecsToJiffies is msecs_to_jiffies() for an HZ that divides 1000:
// rounded up, "(m + (MSEC_PER_SEC / HZ) - 1) / (MSEC_PER_SEC / HZ)".
func bfMsecsToJiffies(ms int64, hz int) int64 {
	per := int64(1000 / hz)
	return (ms + per - 1) / per
}

// bfMaxLoadBalanceInterval is max_load_balance_interval after
// update_max_interval(): "max_load_balance_interval = HZ*num_online_cpus()/10",
// the seed's "Scale the max sched_balance_rq interval with the number of CPUs
// in the system. This trades load-balance latency on larger machines for less
// cross talk."
func bfMaxLoadBalanceInterval(cpus, hz int) int64 { return int64(hz * cpus / 10) }

// bfBalanceInterval is get_sd_balance_interval(sd, cpu_busy) for a domain
// whose sd->balance_interval is balanceMs, on a machine of cpus CPUs:
//
//	unsigned long interval = sd->balance_interval;
//	if (cpu_busy)
//		interval *= sd->busy_factor;
//	interval = msecs_to_jiffies(interval);
//	if (cpu_busy)
//		interval -= 1;
//	interval = clamp(interval, 1UL, max_load_balance_interval);
//
// The "-= 1" (Vincent Guittot, v5.10) keeps busy intervals of nested domains
// from being multiples of each other.
func bfBalanceInterval(balanceMs int64, busy bool, cpus, hz int) int64 {
	interval := balanceMs
	if busy {
		interval *= bfBusyFactor
	}
	interval = bfMsecsToJiffies(interval, hz)
	if busy {
		interval--
	}
	return min(max(interval, 1), bfMaxLoadBalanceInterval(cpus, hz))
}

// A bfLevel is one sched_domain of a CPU, as that CPU's own copy of it
// holds it (sched domains are per CPU; only sd->shared is shared).
type bfLevel struct {
	weight int // sd->span_weight
	// designated is should_we_balance()'s answer for a busy CPU:
	// "return group_balance_cpu(sg) == env->dst_cpu", this CPU is the
	// first of its local group at this level.
	designated  bool
	serialize   bool  // SD_SERIALIZE: the NUMA domain, behind sched_balance_running
	lastBalance int64 // sd->last_balance, jiffies
	balanceMs   int64 // sd->balance_interval, ms
	interval    int64 // get_sd_balance_interval(sd, busy) as last computed
}

// The cpu_idle_type values sched_balance_rq() is called with here.
type bfIdle int

const (
	bfNotIdle   bfIdle = iota // CPU_NOT_IDLE: the periodic pass of a busy CPU
	bfNewlyIdle               // CPU_NEWLY_IDLE: about to go idle
)

// bfHoldSlack is what a timed hold may exceed the pass it holds the flag for
// by before it is clipped: a user thread can be preempted holding the flag (a
// softirq cannot), and one such hold would outweigh a thousand ordinary ones.
const bfHoldSlack = 20_000 // ns

// bfFlagEvery: in stress mode one cmpxchg attempt in this many (a power of
// two) is timed, with the hold and the release that follow it, for flag-%
// and hold-sec/op (and scaled up). Paced, every one is: a tick is a
// millisecond there, and four clock reads are nothing against it.
const bfFlagEvery = 8

// A bfWorker is one CPU: its jiffies, its sched_domains' balance state and
// its counters, written only by its own thread, padded so no other worker's
// line and neither shared word sits next to them. Counters are summed in
// Finish, after the runner has stopped every worker.
type bfWorker struct {
	_ [bench.LinePad]byte

	jiffies     int64 // this CPU's ticks: one per operation
	nextBalance int64 // rq->next_balance
	idleIn      int64 // ticks until this CPU next goes newly idle
	newidle     int64 // newidle period in ticks (0: never)
	sink        uint64
	levels      []bfLevel // lowest first; the last is the serialized domain

	softirqs        int64 // balance softirqs run
	stops           int64 // walks stopped below the serialized domain
	cas             int64 // cmpxchg attempts
	casFails        int64 // attempts that found the flag taken
	takes           int64 // attempts that got it
	balances        int64 // periodic passes of the serialized domain that did the work
	newidleBalances int64 // newidle passes that did it
	overlaps        int64 // critical sections that found another inside

	// Timing: one cmpxchg attempt in every, drawn from rng, and the hold
	// and release that follow it (see takeFlag).
	rng       uint64
	every     int64 // bfFlagEvery stressed, 1 paced
	timeShift uint  // an attempt is timed when its draw >> timeShift is 0: one in every
	holdTimed bool  // the current hold is timed
	holdStart int64 // ktime.Wall() when a timed hold began
	holdSum   int64 // ns the flag was held, estimated: timed holds, each clipped at holdCap, times every
	holdCap   int64 // four times the serialized pass, plus bfHoldSlack
	clockCost int64
	share     ktime.Share // the timed flag operations' time, and every batch's

	// Pacing (pacer.On): tick k (jiffies k) ends at t0 + k*tickNs of wall
	// time.
	tickNs int64
	t0     int64
	pacer  ktime.Pacer

	running    *int32 // &sched_balance_running
	s          *balanceFlag
	cpu        int // the simulated CPU this worker is
	work       int
	release    int
	serialIdle bool // newidle passes go through the flag (522fb20fbdbe)

	_ [bench.LinePad]byte
}

func (w *bfWorker) Run(n int) { balanceTicks(w, n) }

// balanceTicks is n ticks of this CPU: the task's work, then
// sched_balance_trigger()'s test,
//
//	if (time_after_eq(jiffies, rq->next_balance))
//		raise_softirq(SCHED_SOFTIRQ);
//
// and the softirq, sched_balance_domains(), when it is raised. Paced, each
// tick then waits for its end on the wall clock.
//
//go:noinline
func balanceTicks(w *bfWorker, n int) {
	start := ktime.Wall()
	if w.pacer.On && w.t0 == 0 {
		// The first tick starts on the next tick boundary of the
		// shared wall clock, so every worker's ticks line up as the
		// kernel's do (skew_tick=0, the default).
		w.t0 = (start/w.tickNs + 1) * w.tickNs
		w.pacer.Wait(w.t0, 0)
	}
	for range n {
		w.jiffies++
		w.sink = bfTickWork(w.sink, w.work)
		if w.jiffies-w.nextBalance >= 0 {
			balanceDomains(w)
		}
		if w.newidle != 0 {
			w.newidleTick()
		}
		if w.pacer.On {
			w.pacer.Wait(w.t0+(w.jiffies-1)*w.tickNs, w.tickNs)
		}
	}
	w.share.Add(0, ktime.Wall()-start)
}

// bfTickWork is the rest of a tick: the running task's work and
// sched_tick()'s. It stays out of line so that a profile charges it to
// itself, as the kernel's profile charges the tick's work to the tick's own
// functions.
//
//go:noinline
func bfTickWork(x uint64, steps int) uint64 { return bench.LocalWork(x, steps) }

// balanceDomains is sched_balance_domains() for a busy CPU:
//
//	for_each_domain(cpu, sd) {
//		...
//		if (!continue_balancing) {
//			if (need_decay)
//				continue;
//			break;
//		}
//		interval = get_sd_balance_interval(sd, busy);
//		[before 3324b2180c17: if (need_serialize) cmpxchg or goto out]
//		if (time_after_eq(jiffies, sd->last_balance + interval)) {
//			sched_balance_rq(cpu, rq, sd, idle, &continue_balancing);
//			sd->last_balance = jiffies;
//			interval = get_sd_balance_interval(sd, busy);
//		}
//		[before 3324b2180c17: if (need_serialize) release]
//	out:
//		if (time_after(next_balance, sd->last_balance + interval)) {
//			next_balance = sd->last_balance + interval;
//			update_next_balance = 1;
//		}
//	}
//
// A domain above one whose should_we_balance() failed is not visited, not
// even to take its next_balance (need_decay, once a second per domain,
// continues instead but balances nothing; it is left out).
//
//go:noinline
func balanceDomains(w *bfWorker) {
	w.softirqs++
	continueBalancing := true
	// Earliest time when we have to do rebalance again
	nextBalance := w.jiffies + 60*int64(w.s.hz)
	update := false
	for i := range w.levels {
		l := &w.levels[i]
		if !continueBalancing {
			w.stops++
			break
		}
		if l.serialize && w.s.order == bfCmpxchgFirst {
			// need_serialize = sd->flags & SD_SERIALIZE;
			// if (need_serialize) {
			//	if (atomic_cmpxchg_acquire(&sched_balance_running, 0, 1))
			//		goto out;
			// }
			//
			// A failed cmpxchg leaves sd->last_balance alone, so a due
			// domain keeps next_balance in the past and the softirq
			// runs again next tick: the pass is retried, not lost.
			if w.takeFlag() {
				w.serializedHeld(l, &continueBalancing)
			}
		} else if w.due(l) {
			w.balanceRQ(l, bfNotIdle, false, &continueBalancing)
			l.lastBalance = w.jiffies
			l.interval = w.sdInterval(l)
		}
		if next := l.lastBalance + l.interval; nextBalance-next > 0 {
			nextBalance = next
			update = true
		}
	}
	if update {
		w.nextBalance = nextBalance
	}
}

// serializedHeld is the serialized domain in the old order, entered holding
// the flag and leaving it released, also when the balancing pass panics (the
// deferred release is the "if (need_serialize) atomic_set_release(...)"
// that follows the due branch).
func (w *bfWorker) serializedHeld(l *bfLevel, continueBalancing *bool) {
	defer w.releaseFlag()
	if w.due(l) {
		w.balanceRQ(l, bfNotIdle, true, continueBalancing)
		l.lastBalance = w.jiffies
		l.interval = w.sdInterval(l)
	}
}

// due is time_after_eq(jiffies, sd->last_balance + interval).
func (w *bfWorker) due(l *bfLevel) bool { return w.jiffies-(l.lastBalance+l.interval) >= 0 }

// sdInterval is get_sd_balance_interval(sd, busy) of this CPU's domain l,
// busy because the worker runs its task, or the fixed interval= of the
// serialized domain.
func (w *bfWorker) sdInterval(l *bfLevel) int64 {
	if l.serialize && w.s.interval > 0 {
		return int64(w.s.interval)
	}
	return bfBalanceInterval(l.balanceMs, true, w.s.cpus, w.s.hz)
}

// newidleTick counts down to this CPU's next newidle balance.
func (w *bfWorker) newidleTick() {
	if w.idleIn--; w.idleIn == 0 {
		w.idleIn = w.newidle
		// sched_balance_newidle(): no interval check, only a cost
		// estimate (not modelled) decides whether a domain is tried;
		// here the serialized one, alone.
		var continueBalancing bool
		w.balanceRQ(&w.levels[len(w.levels)-1], bfNewlyIdle, false, &continueBalancing)
	}
}

// balanceRQ is sched_balance_rq() on domain l. held says the caller already
// holds the flag (the old order). The flag, when this pass takes it, is
// released on every way out, panics included:
//
//	out:
//		if (need_unlock)
//			atomic_set_release(&sched_balance_running, 0);
func (w *bfWorker) balanceRQ(l *bfLevel, idle bfIdle, held bool, continueBalancing *bool) {
	// redo:
	//	if (!should_we_balance(&env)) {
	//		*continue_balancing = 0;
	//		goto out_balanced;
	//	}
	if !w.shouldWeBalance(l, idle) {
		*continueBalancing = false
		w.outBalanced(l, idle)
		return
	}
	serialized := held
	// if (!need_unlock && (sd->flags & SD_SERIALIZE) && idle != CPU_NEWLY_IDLE) {
	//	int zero = 0;
	//	if (!atomic_try_cmpxchg_acquire(&sched_balance_running, &zero, 1))
	//		goto out_balanced;
	//	need_unlock = true;
	// }
	// (522fb20fbdbe drops "&& idle != CPU_NEWLY_IDLE". Before
	// 3324b2180c17 newidle passes never touched the flag at all.)
	if !held && l.serialize && (idle != bfNewlyIdle || w.serialIdle) && w.s.order != bfCmpxchgFirst {
		if !w.takeFlag() {
			// "load-balancing passes triggered while another one is
			// executing are skipped and not re-tried"
			w.outBalanced(l, idle)
			return
		}
		defer w.releaseFlag()
		serialized = true
	}
	w.criticalSection(l, serialized)
	if l.serialize {
		if idle == bfNewlyIdle {
			w.newidleBalances++
		} else {
			w.balances++
		}
	}
	w.outBalanced(l, idle)
}

// shouldWeBalance is should_we_balance() for CPUs that are all busy:
//
//	if (env->idle == CPU_NEWLY_IDLE) { ... return 1; }
//	...
//	/* Are we the first CPU of this group ? */
//	return group_balance_cpu(sg) == env->dst_cpu;
//
// (Its scan of the local group for an idle CPU finds none here; its cost, a
// read of each group CPU's rq, is left out.)
func (w *bfWorker) shouldWeBalance(l *bfLevel, idle bfIdle) bool {
	return idle == bfNewlyIdle || l.designated
}

// outBalanced is the tail of sched_balance_rq() when nothing was moved, which
// in this model is always:
//
//	if (env.idle == CPU_NEWLY_IDLE || ...)
//		goto out;
//	/* tune up the balancing interval */
//	if (... || sd->balance_interval < sd->max_interval)
//		sd->balance_interval *= 2;
//
// with sd_init's ".max_interval = 2*sd_weight".
func (w *bfWorker) outBalanced(l *bfLevel, idle bfIdle) {
	if idle == bfNewlyIdle {
		return
	}
	if l.balanceMs < 2*int64(l.weight) {
		l.balanceMs *= 2
	}
}

// criticalSection is the balancing pass itself: update_sd_lb_stats() and
// sched_balance_find_src_group() over the domain's span, which read every
// CPU's runqueue, as cs= per CPU of wall time spent spinning. A serialized
// pass checks that it is alone, and leaves the checker balanced even if it
// panics.
func (w *bfWorker) criticalSection(l *bfLevel, serialized bool) {
	if serialized {
		if atomic.AddInt32(&w.s.inCS.v, 1) != 1 {
			w.overlaps++
		}
		defer atomic.AddInt32(&w.s.inCS.v, -1)
	}
	if w.s.csHook != nil {
		w.s.csHook()
	}
	if d := int64(l.weight) * int64(w.s.cs); d > 0 {
		for start := ktime.Wall(); ktime.Wall()-start < d; {
			w.sink = bench.LocalWork(w.sink, 16)
		}
	}
}
