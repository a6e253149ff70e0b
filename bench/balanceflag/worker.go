package balanceflag

import (
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/ktime"
)

// A pinned worker: one CPU of the simulated machine on one real CPU, its
// ticks on the kernel clock, taking the real flag.

// holdSlack is what a timed hold may exceed the pass it holds the flag for
// by before it is clipped: a user thread can be preempted holding the flag (a
// softirq cannot), and one such hold would outweigh a thousand ordinary ones.
const holdSlack = 20_000 // ns

// flagEvery: in stress mode one cmpxchg attempt in this many (a power of
// two) is timed, with the hold and the release that follow it, for flag-%
// and hold-sec/op (and scaled up). Paced, every one is: a tick is a
// millisecond there, and four clock reads are nothing against it.
const flagEvery = 8

// A worker is one CPU: its balancing state (cpuState) and its timing, written
// only by its own thread, padded so no other worker's line and neither
// shared word sits next to them. Counters are summed in Finish, after the
// runner has stopped every worker.
type worker struct {
	_ [bench.LinePad]byte

	cpuState
	walkOwner
	idleIn    int64 // ticks until this CPU next goes newly idle while busy
	newidle   int64 // that period in ticks (0: never)
	sink      uint64
	overlaps  int64 // critical sections that found another inside
	idleTicks int64 // ticks this CPU was idle (busy= below 100)

	// nohz= (nohz.go): the machine's nohz struct (nil: none), this CPU's
	// rq->nohz_tick_stopped, and the locked writes it made.
	nohz        *bench.Nohz
	nohzStopped bool
	nohzWrites  int64

	// Timing: one cmpxchg attempt in every, drawn from rng, and the hold
	// and release that follow it (see takeFlag).
	rng       uint64
	every     int64 // flagEvery stressed, 1 paced
	timeShift uint  // an attempt is timed when its draw >> timeShift is 0: one in every
	holdTimed bool  // the current hold is timed
	holdStart int64 // ktime.Wall() when a timed hold began
	holdSum   int64 // ns the flag was held, estimated: timed holds, each clipped at holdCap, times every
	holdCap   int64 // four times the serialized pass, plus holdSlack
	clockCost int64
	share     ktime.Share // the timed flag operations' time, and every batch's
	wallNs    int64       // every batch's time, the per-level flag shares' whole

	// Pacing (pacer.On): tick k (jiffies k) ends at t0 + k*tickNs of wall
	// time.
	tickNs int64
	t0     int64
	pacer  ktime.Pacer

	running *int32 // &sched_balance_running
	s       *balanceFlag
	work    int
	release int

	_ [bench.LinePad]byte
}

func (w *worker) Run(n int) { balanceTicks(w, n) }

// balanceTicks is n ticks of this CPU. A CPU that went idle since its last
// tick first runs sched_balance_newidle(); then a busy CPU runs its task's
// work; then sched_balance_trigger()'s test,
//
//	if (time_after_eq(jiffies, rq->next_balance))
//		raise_softirq(SCHED_SOFTIRQ);
//
// and the softirq, sched_balance_domains(), when it is raised, as CPU_IDLE
// when the CPU is idle. (A worker has no nohz balancer to balance it while
// idle: it balances itself from its own tick, as an idle CPU whose tick was
// not stopped does.) Paced, each tick then waits for its end on the wall
// clock.
//
//go:noinline
func balanceTicks(w *worker, n int) {
	start := ktime.Wall()
	if w.pacer.On && w.t0 == 0 {
		// The first tick starts on the next tick boundary of the
		// shared wall clock, so every worker's ticks line up as the
		// kernel's do (skew_tick=0, the default).
		w.t0 = (start/w.tickNs + 1) * w.tickNs
		w.pacer.Wait(w.t0, 0)
	}
	m := w.m
	for range n {
		w.jiffies++
		idle := false
		if m.busy < 100 {
			idle = w.idleTick()
		}
		if w.nohz != nil {
			w.nohzTick(idle)
		}
		if !idle {
			w.sink = tickWork(w.sink, w.work)
		}
		if w.jiffies-w.rq.NextBalance >= 0 {
			if idle {
				balanceDomains(&w.cpuState, w, idleCPU)
			} else {
				balanceDomains(&w.cpuState, w, notIdle)
			}
		}
		if w.newidle != 0 && !idle {
			w.newidleTick()
		}
		if w.pacer.On {
			w.pacer.Wait(w.t0+(w.jiffies-1)*w.tickNs, w.tickNs)
		}
	}
	d := ktime.Wall() - start
	w.share.Add(0, d)
	w.wallNs += d
}

// idleTick says whether this CPU is idle in this tick, and runs the newidle
// walk of a CPU that went idle since the last one.
func (w *worker) idleTick() bool {
	idle := ksim.TickIdleRuns(w.m.seed, w.m.busy, w.m.corr, w.cpu, w.jiffies)
	if idle {
		w.idleTicks++
		if !w.wasIdle {
			newidleBalance(&w.cpuState, w)
		}
	}
	w.wasIdle = idle
	return idle
}

// tickWork is the rest of a tick: the running task's work and
// sched_tick()'s. It stays out of line so that a profile charges it to
// itself, as the kernel's profile charges the tick's work to the tick's own
// functions.
//
//go:noinline
func tickWork(x uint64, steps int) uint64 { return bench.LocalWork(x, steps) }

// newidleTick counts down to this busy CPU's next short idle period: every
// newidle= ticks it goes newly idle between two ticks and runs
// sched_balance_newidle().
func (w *worker) newidleTick() {
	if w.idleIn--; w.idleIn == 0 {
		w.idleIn = w.newidle
		newidleBalance(&w.cpuState, w)
	}
}

// pass is the balancing pass itself: update_sd_lb_stats() and
// sched_balance_find_src_group() over the domain's span, which read every
// CPU's runqueue, as cs= per CPU of wall time spent spinning. A serialized
// pass checks that it is alone, and leaves the checker balanced even if it
// panics.
func (w *worker) pass(l *level, serialized bool) {
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
