package balanceflag

import (
	"time"

	"github.com/contend/contend/bench/ksim"
)

// The balance softirq of one CPU: its sched_domains on the kernel clock and
// the walks that reach sched_balance_running, sched_balance_domains() (busy
// or idle) and sched_balance_newidle(). The walks are bench/ksim's
// (Kernel.BalanceDomains and NewidleBalance, the flag where SerializeOrder
// takes it); what a flag operation or a pass costs is the walkOps hooked in
// through walk: the real LOCK CMPXCHG and a real spin on pinned workers
// (worker), or a cache-line queue on kernel time in the simulation (sim).

// The intervals are mainline's (ksim.Mainline: busy_factor 16 and the busy
// "-1" of v5.10, the jiffies conversion and the clamp to
// max_load_balance_interval), the kernel the seed patches.
var mainline = ksim.Mainline

// A level is one sched_domain of a CPU, as that CPU's own copy of it
// holds it (sched domains are per CPU; only sd->shared is shared), with
// what happened at it.
type level struct {
	shape
	// designated is should_we_balance()'s answer when every CPU is
	// busy: this CPU is the first of its local group at this level.
	designated bool
	// bal is the domain's balance state (balance_interval,
	// last_balance, max_newidle_lb_cost, ...), as sd_init() starts it.
	bal      ksim.Balance
	interval int64 // get_sd_balance_interval(sd, busy) as last computed

	cas, casFails int64 // cmpxchg attempts on the flag for this domain, and those that found it taken
	passes        int64 // periodic balancing passes done
	newidlePasses int64 // newidle passes done
	flagNs        int64 // time on the flag for this domain (cmpxchg and release), ns
	// group is the local group's CPUs (group_balance_mask(sg)), a run
	// of the machine's CPU list that should_we_balance() walks.
	group []int
}

// The cpu_idle_type values sched_balance_rq() is called with.
type idleType = ksim.IdleType

const (
	notIdle   = ksim.CPUNotIdle   // CPU_NOT_IDLE: the periodic pass of a busy CPU
	idleCPU   = ksim.CPUIdle      // CPU_IDLE: the periodic pass of an idle CPU
	newlyIdle = ksim.CPUNewlyIdle // CPU_NEWLY_IDLE: about to go idle
)

// A model is what every CPU of one run shares, read only: the machine,
// where the flag is taken, and the kernel's clock.
type model struct {
	topo             topology
	order            ksim.SerializeOrder
	hz               int
	interval         int     // the serialized domains' fixed interval in jiffies; 0: the kernel's
	busy             int     // per cent of CPUs busy in a tick (ksim.TickIdleRuns)
	corr             float64 // successive ticks' correlation (ksim.TickIdleRuns)
	seed             uint64  // of ksim.TickIdleRuns
	niRandom, niRate bool    // ksim.Kernel's NewidleRandom and NewidleRate (SimConfig's)
}

// A cpuState is one simulated CPU's balancing state and counts. Only the walks
// below write it, on one thread at a time: the CPU's own, or the nohz
// balancer's in the simulation.
type cpuState struct {
	m       *model
	cpu     int
	jiffies int64 // the tick this CPU is in
	levels  []level
	wasIdle bool // idle in the tick before

	softirqs        int64 // sched_balance_domains() walks
	stops           int64 // walks stopped below the top domain
	cas             int64 // cmpxchg attempts, every level
	casFails        int64 // attempts that found the flag taken
	takes           int64 // attempts that got it
	balances        int64 // periodic passes of a serialized domain done
	newidleBalances int64 // newidle passes of a serialized domain done
	newidleWalks    int64 // sched_balance_newidle() walks
	newidleCut      int64 // newidle walks the avg_idle cutoff stopped below the top domain
	decayVisits     int64 // domains a stopped walk visited only to decay (need_decay)
	keptTicks       int64 // ticks an idle CPU kept (SimConfig.IdleTick), each a CPU_IDLE pass of its own when due

	// rq is rq->next_balance, and rq->avg_idle and
	// rq->max_idle_balance_cost (ns), which only timed walks (clocked:
	// the simulation) read; idleStamp is rq->idle_stamp (ns, 0: not
	// idle), kept by the simulation.
	rq        ksim.RQBalance
	idleStamp int64
}

// clocked is what a walkOps that keeps the walking CPU's kernel time adds:
// sched_clock_cpu(), which sched_balance_newidle() reads around every
// pass to price it. The pinned workers' ops do not implement it (their
// newidle walks are not cut); the simulation's do.
type clocked interface{ now() int64 }

// wokeUp is ttwu_do_activate()'s update of rq->avg_idle when a task wakes
// the idle CPU at time t (ksim.RQBalance.WokeUp).
func (c *cpuState) wokeUp(t int64) {
	c.rq.WokeUp(t, c.idleStamp)
	c.idleStamp = 0
}

// walkOps is what a flag operation and a balancing pass cost, on the CPU that
// runs the walk (for the nohz balancer, not the CPU walked).
type walkOps interface {
	// takeFlag is the cmpxchg on sched_balance_running for level l.
	takeFlag(l *level) bool
	// releaseFlag is atomic_set_release(&sched_balance_running, 0).
	releaseFlag(l *level)
	// pass is update_sd_lb_stats() and sched_balance_find_src_group()
	// over l's span; serialized says it holds the flag.
	pass(l *level, serialized bool)
	// walker is the ops' own walk (walkOwner).
	walker() *walk
}

// kernel is mainline with the flag where the order takes it.
func (m *model) kernel() ksim.Kernel {
	k := mainline
	k.Serialize, k.NewidleRandom, k.NewidleRate = m.order, m.niRandom, m.niRate
	return k
}

// A walk is one walk of CPU c's domains as ksim's walks see them
// (ksim.Balancer): the flag and the passes are ops', the clock tm's (nil:
// untimed), no task ever moves and the root domain is always overloaded
// (some CPU has a task waiting: the model has no nr_running). Each walker
// (a worker, a simulated CPU's coroutine, a test's ops) owns one
// (walkOwner), on the heap already, and runs one walk at a time: handing it
// to ksim (an interface, whose calls Go's escape analysis cannot see
// through) allocates nothing, and two walkers walking the same CPU (the
// nohz balancer and the CPU itself, a tick apart) each keep their own.
type walk struct {
	c        *cpuState
	ops      walkOps
	tm       clocked
	periodic bool // the periodic walk, whose intervals the levels keep (level.interval)
}

// A walkOwner is what a walkOps embeds to own its walk.
type walkOwner struct{ w walk }

func (x *walkOwner) walker() *walk { return &x.w }

func (w *walk) Levels() int                { return len(w.c.levels) }
func (w *walk) Domain(i int) *ksim.Balance { return &w.c.levels[i].bal }
func (w *walk) Serialized(i int) bool      { return w.c.levels[i].serialize }
func (w *walk) Idle() bool                 { return false }
func (w *walk) Overloaded() bool           { return true }
func (w *walk) Runnable() bool             { return false }

func (w *walk) Interval(i int, busy bool) int64 {
	l := &w.c.levels[i]
	v := w.c.sdInterval(l, busy)
	if w.periodic {
		l.interval = v
	}
	return v
}

func (w *walk) ShouldWeBalance(i int, idle ksim.IdleType) bool {
	return w.c.shouldWeBalance(&w.c.levels[i], idle)
}

// TakeFlag counts a cmpxchg attempt at level i and makes it.
func (w *walk) TakeFlag(i int) bool {
	c, l := w.c, &w.c.levels[i]
	c.cas++
	l.cas++
	if !w.ops.takeFlag(l) {
		c.casFails++
		l.casFails++
		return false
	}
	c.takes++
	return true
}

func (w *walk) ReleaseFlag(i int) { w.ops.releaseFlag(&w.c.levels[i]) }

// Pass is the pass itself, counted; it never moves a task, so the domain
// is always found balanced.
func (w *walk) Pass(i int, idle ksim.IdleType, serialized bool) (moved, balanced bool) {
	c, l := w.c, &w.c.levels[i]
	w.ops.pass(l, serialized)
	if idle == newlyIdle {
		l.newidlePasses++
	} else {
		l.passes++
	}
	if l.serialize {
		if idle == newlyIdle {
			c.newidleBalances++
		} else {
			c.balances++
		}
	}
	return false, true
}

func (w *walk) Clock() (int64, bool) {
	if w.tm == nil {
		return 0, false
	}
	return w.tm.now(), true
}

// start readies ops' walk of c.
func startWalk(c *cpuState, ops walkOps, periodic bool) *walk {
	w := ops.walker()
	*w = walk{c: c, ops: ops, periodic: periodic}
	if !periodic {
		if tm, ok := ops.(clocked); ok {
			w.tm = tm
		}
	}
	return w
}

// balanceDomains is sched_balance_domains(rq, idle) (ksim's
// Kernel.BalanceDomains) for a busy CPU (notIdle, run from its own tick)
// or an idle one (idleCPU: from its tick, or from _nohz_idle_balance()
// on the nohz balancer), with its counts.
//
//go:noinline
func balanceDomains(c *cpuState, ops walkOps, idle idleType) {
	c.softirqs++
	r := c.m.kernel().BalanceDomains(startWalk(c, ops, true), &c.rq, c.jiffies, ksim.HZ(c.m.hz), idle)
	if r.Stopped {
		c.stops++
	}
	c.decayVisits += int64(r.DecayVisits)
}

// sdInterval is get_sd_balance_interval(sd, busy) of this CPU's domain l,
// or the fixed interval= of a serialized domain.
func (c *cpuState) sdInterval(l *level, busy bool) int64 {
	if l.serialize && c.m.interval > 0 {
		return int64(c.m.interval)
	}
	hz := ksim.HZ(c.m.hz)
	return mainline.BalanceInterval(l.bal.Interval, busy, hz, ksim.MaxLoadBalanceInterval(hz, c.m.topo.cpus))
}

// newidleBalance is sched_balance_newidle() (ksim's
// Kernel.NewidleBalance), with its counts. Nothing is ever pulled. The
// cutoff needs the walk's time, so only a timed walk (clocked: the
// simulation) has it; the pinned workers' walks always reach the top, as
// one of an idle period longer than the domains' newidle cost does. Going
// newly idle brings the next periodic softirq to within an idle interval,
// a few jiffies, cut or not (the lowest domain's next_balance is taken
// before any cutoff): on a server whose CPUs go idle many times a second,
// most ticks run it.
//
//go:noinline
func newidleBalance(c *cpuState, ops walkOps) {
	c.newidleWalks++
	if r := c.m.kernel().NewidleBalance(startWalk(c, ops, false), &c.rq, c.jiffies, ksim.HZ(c.m.hz)); r.Cut {
		c.newidleCut++
	}
}

// shouldWeBalance is should_we_balance(): a newidle pass always balances
// (this CPU has nothing to run: "return 1"); a periodic one only on the CPU
// the group designates (ksim's Kernel.ShouldWeBalance over the hashed idle
// pattern of this tick). Its cost, a read of each group CPU's rq when some
// are idle, is left out.
func (c *cpuState) shouldWeBalance(l *level, idle idleType) bool {
	if idle == newlyIdle {
		return true
	}
	if c.m.busy >= 100 {
		return l.designated // nobody idle: the group's first CPU, read from no one
	}
	m, j := c.m, c.jiffies
	return shouldWeBalanceOver(m.topo, func(cpu int) bool { return ksim.TickIdleRuns(m.seed, m.busy, m.corr, cpu, j) }, c.cpu, l)
}

// spreadPhase starts CPU i of n a share i/n of each interval early: sd_init()
// sets every CPU's last_balance to the same jiffies, but idle periods,
// newidle passes and lost flags soon put CPUs out of step, and CPUs in step
// are all due in the same tick.
func (c *cpuState) spreadPhase(i, n int) {
	for k := range c.levels {
		l := &c.levels[k]
		l.bal.LastBalance = -int64(i) * l.interval / int64(n)
	}
}

// initIntervals sets each level's interval as a busy CPU first computes it,
// and its max_newidle_lb_cost the one given (SimConfig.NewidleCost).
func (c *cpuState) initIntervals(costs []time.Duration) {
	for k := range c.levels {
		l := &c.levels[k]
		l.interval = c.sdInterval(l, true)
		if n := len(costs); n > 0 {
			l.bal.MaxNewidleLBCost = int64(costs[min(k, n-1)])
		}
	}
}
