package ksim

import (
	"math"
	"slices"
)

// A TickPattern is the idle pattern of a model whose CPUs are idle or busy
// for whole ticks (balanceflag's simulation): a draw per CPU and tick, when
// each tick fires (skew_tick) and its work runs (the softirq's jitter), the
// short idle periods of a busy tick, the moment a CPU that will be idle
// next tick goes idle, and where the idle loop stops the tick (its
// IdleTickRule) and so when a CPU is in nohz.idle_cpus_mask. Every draw is
// a hash of the seed, the CPU and the tick, so a pattern is the same
// whatever asks it, in whatever order.
type TickPattern struct {
	Seed uint64
	Busy int // per cent of CPUs busy at a tick, 1..100
	HZ   HZ
	CPUs int
	Skew bool  // skew_tick=1 (HZ.TickStart)
	Jit  int64 // each tick's work delayed by a draw in [0, Jit) ns
	// A busy CPU has PerTick short idles in one tick of Newidle (0: none).
	Newidle, PerTick int
	Rule             IdleTickRule
	// Fresh has each idle tick fall in an idle begun since the CPU's last
	// tick, as idles much shorter than a tick do. After the idle's first
	// tick (IdleTickAfterTick), each wakeup restarting the tick
	// (tick_nohz_idle_exit()), every idle tick then fires, and the idle
	// loop's next iteration stops the tick (got_tick) at each. (A model
	// places the idle entries of such a tick's span itself.)
	Fresh bool
	// Pull is the share of fresh idle ticks (after the idle's first tick)
	// whose work pulls a task to the cpu (its CPU_IDLE pass:
	// sched_balance_rq()'s detach and attach, which set need_resched()):
	// the idle ends before the loop's next iteration, and the tick fires
	// but does not stop. 0: no pass pulls. A share of all fresh idle
	// ticks: drawn among those that find no task queued (Queued).
	Pull float64
	// Queued is the share of fresh idle ticks (after the idle's first
	// tick) that find a task already queued, or a wakeup pending, while
	// the idle task still runs: idle_cpu() is false, so sched_tick() sets
	// rq->idle_balance = 0. The tick counts as idle (task_tick_idle()),
	// its walk, if due, balances CPU_NOT_IDLE (the busy interval), and
	// the idle ends after it without a stop. 0: none.
	Queued float64
	// Corr is the correlation of a CPU's busy or idle state at successive
	// ticks (TickIdleRuns): 0, each tick drawn on its own.
	Corr float64
	// ShortShare is the share of busy ticks that hold short idles, drawn
	// per CPU and tick (kernel model: the tick trace's busy ticks followed
	// by an idle entry before the next); 0: one busy tick in Newidle.
	ShortShare float64
	// WalkIdle is the share of the CPUs in nohz.idle_cpus_mask idle
	// when a walk reaches them (IdleAtWalk; kernel model: the kick
	// records'); 0: unmeasured.
	WalkIdle float64
}

// TickIdle is the draw of CPU cpu in tick j: idle with chance 100-busy per
// cent, a hash of (seed, cpu, j), so that a CPU's state is a fact every
// pinned worker and the simulation compute alike without sharing a line,
// and changes from one tick to the next as an OLTP server's CPUs do.
func TickIdle(seed uint64, busy int, cpu int, j int64) bool {
	if busy >= 100 {
		return false
	}
	return Mix(seed^uint64(cpu)<<40^uint64(j))%100 >= uint64(busy)
}

// TickIdleRuns is TickIdle with runs: with chance corr CPU cpu's tick j
// keeps the state of its tick j-1, otherwise it is drawn afresh as
// TickIdle draws it. Busy stays the share of busy ticks, and corr is the
// correlation of a CPU's state at successive ticks, as a guest's tick
// trace measures it (kernel model: tick-busy-corr); corr 0 is TickIdle.
// Still a pure function of its arguments: it walks back to the tick
// whose state was drawn.
func TickIdleRuns(seed uint64, busy int, corr float64, cpu int, j int64) bool {
	k := j
	for corr > 0 && k > j-maskLookBack && Uniform(Mix(Mix(seed^uint64(cpu)<<40^uint64(k))^0x4e5e)) < corr {
		k--
	}
	return TickIdle(seed, busy, cpu, k)
}

// Idle says whether CPU cpu is idle in tick j.
func (p *TickPattern) Idle(cpu int, j int64) bool {
	return TickIdleRuns(p.Seed, p.Busy, p.Corr, cpu, j)
}

// IdleAtWalk says whether CPU cpu, idle in tick j, is still idle when
// another CPU's nohz walk reaches it within that tick
// (_nohz_idle_balance()'s "if (!idle_cpu(balance_cpu)) continue;"). A
// CPU enters nohz.idle_cpus_mask when its tick stops in idle and leaves
// it only at its next busy tick, so with idles far shorter than a tick
// the mask holds CPUs running again by the walk. The kernel count's kick
// records measure it: of the CPUs in the mask at a kick, the share idle
// (14-89 % on the 15:00 recount's counts; WalkIdle, 0 where unmeasured).
// Where it is unmeasured and idles are fresh (Fresh), the CPU's state at
// the walk has come loose from its tick's, so it is idle with the idle
// share, 1 - Busy (the stop-form guests, whose CPUs enter the mask at
// every idle entry, come close: 37 % and 42 % at 49 % and 40 % idle);
// otherwise it stays idle through the tick. The draw is a hash of (cpu,
// j), so walks within one tick agree.
func (p *TickPattern) IdleAtWalk(cpu int, j int64) bool {
	if !p.Idle(cpu, j) {
		return false
	}
	u := Uniform(Mix(p.Hash(cpu, j) ^ 0x3a1c))
	switch {
	case p.WalkIdle > 0:
		return u < p.WalkIdle
	case p.Fresh:
		return u >= float64(p.Busy)/100
	}
	return true
}

// TickStart is when CPU cpu's tick j fires.
func (p *TickPattern) TickStart(cpu int, j int64) int64 {
	return p.HZ.TickStart(j, cpu, p.CPUs, p.Skew)
}

// Jitter is CPU cpu's delay of tick j's work, uniform in [0, Jit), from a
// hash of its own (the idle draws are left as they are).
func (p *TickPattern) Jitter(cpu int, j int64) int64 {
	if p.Jit <= 0 {
		return 0
	}
	return int64(Mix(p.Seed^uint64(cpu)<<40^uint64(j)^0x5eed7117) % uint64(p.Jit))
}

// ShortIdleTick says whether busy CPU cpu's tick j has short idle periods:
// a draw of ShortShare, or one tick in Newidle.
func (p *TickPattern) ShortIdleTick(cpu int, j int64) bool {
	if p.ShortShare > 0 {
		return Uniform(Mix(p.Hash(cpu, j)^0x5407)) < p.ShortShare
	}
	return p.everyNewidle(cpu, j)
}

// everyNewidle is one tick in Newidle.
func (p *TickPattern) everyNewidle(cpu int, j int64) bool {
	n := int64(p.Newidle)
	return n > 0 && (j+int64(cpu))%n == 0
}

// HasShortIdles says whether CPU cpu's tick j holds short idle periods
// (ShortIdles): a busy tick as ShortIdleTick draws it, and with fresh
// idles an idle tick's span one in Newidle.
func (p *TickPattern) HasShortIdles(cpu int, j int64) bool {
	if p.Idle(cpu, j) {
		return p.Fresh && p.everyNewidle(cpu, j)
	}
	return p.ShortIdleTick(cpu, j)
}

// Hash is CPU cpu's draw for tick j, which places its short idles and the
// moment it goes idle.
func (p *TickPattern) Hash(cpu int, j int64) uint64 {
	return Mix(p.Seed ^ uint64(cpu)<<40 ^ uint64(j) ^ 0xdecade)
}

// ShortIdles are the offsets into a tick of a busy CPU's short idle
// periods, from the tick's hash h: PerTick of them (at least one) in its
// first half, ascending (the first is h's own draw, as with one a tick).
func (p *TickPattern) ShortIdles(h uint64) []int64 {
	half := uint64(p.HZ.TickNs() / 2)
	offs := []int64{int64(h % half)}
	for k := 1; k < p.PerTick; k++ {
		offs = append(offs, int64(Mix(h^uint64(k)*0x9e3779b97f4a7c15)%half))
	}
	slices.Sort(offs)
	return offs
}

// GoIdleAt is the moment in tick j's second half that CPU cpu goes idle,
// when it is idle in j+1.
func (p *TickPattern) GoIdleAt(cpu int, j int64) int64 {
	t := p.HZ.TickNs()
	return p.TickStart(cpu, j) + t/2 + int64((p.Hash(cpu, j)>>32)%uint64(t/2))
}

// TickStop is when CPU cpu's tick stops in tick j (nohz_balance_enter_idle()),
// and whether it does, by the rule (IdleTickRule.StopsAtEntry): at idle
// entry, busy in j and idle in j+1, as it goes idle (GoIdleAt); after the
// idle's first tick, idle in j after busy in j-1 (or at every idle tick,
// Fresh), once j's work is done (its start and jitter, after the busy
// CPUs' kicks).
func (p *TickPattern) TickStop(cpu int, j int64) (int64, bool) {
	if p.Rule.StopsAtEntry() {
		return p.GoIdleAt(cpu, j), !p.Idle(cpu, j) && p.Idle(cpu, j+1)
	}
	return p.TickStart(cpu, j) + p.Jitter(cpu, j), p.Fires(cpu, j) && !p.FindsQueued(cpu, j) && !p.pulled(cpu, j)
}

// Fires says whether CPU cpu's tick j fires while it is idle (a kept
// tick, whose work runs the cpu's own pass: CPU_IDLE, or CPU_NOT_IDLE
// where it finds a task queued, FindsQueued): after the idle's
// first tick, an idle run's first tick, or every idle tick of fresh
// idles; at idle entry, none.
func (p *TickPattern) Fires(cpu int, j int64) bool {
	return !p.Rule.StopsAtEntry() && p.Idle(cpu, j) && (p.Fresh || !p.Idle(cpu, j-1))
}

// FindsQueued says whether fresh idle tick j of CPU cpu finds a task
// queued (Queued), so that its walk balances CPU_NOT_IDLE, from a draw
// of its own.
func (p *TickPattern) FindsQueued(cpu int, j int64) bool {
	return p.Fresh && p.Queued > 0 && Uniform(Mix(p.Hash(cpu, j)^0x9eed)) < p.Queued
}

// pulled says whether fresh idle tick j's work pulls a task to CPU cpu
// (Pull), from a draw of its own, among the ticks that find none queued:
// Pull/(1-Queued) of them, so that Pull stays a share of all.
func (p *TickPattern) pulled(cpu int, j int64) bool {
	if !p.Fresh || p.Pull <= 0 || p.FindsQueued(cpu, j) {
		return false
	}
	return Uniform(Mix(p.Hash(cpu, j)^0x9a11ed)) < p.Pull/math.Max(1-p.Queued, 1e-9)
}

// maskLookBack bounds InMask's walk back over an idle run: at any busy
// share a run this long is vanishingly rare.
const maskLookBack = 256

// InMask says whether CPU cpu is in nohz.idle_cpus_mask at tick j's kicks:
// idle, its tick stopped before (at the idle's entry, or at an idle tick
// before this one of the same idle run, no busy tick since to take it
// out).
func (p *TickPattern) InMask(cpu int, j int64) bool {
	if !p.Idle(cpu, j) {
		return false
	}
	if p.Rule.StopsAtEntry() {
		return true
	}
	for k := j - 1; k >= 0 && k > j-maskLookBack && p.Idle(cpu, k); k-- {
		if _, stops := p.TickStop(cpu, k); stops {
			return true
		}
	}
	return false
}
