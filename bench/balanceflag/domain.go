package balanceflag

import "github.com/contend/contend/bench/ksim"

// The balance softirq of one CPU: its sched_domain hierarchy on the kernel
// clock and the walks that reach sched_balance_running: the periodic one,
// sched_balance_domains(), for a busy or an idle CPU, and the newidle one,
// sched_balance_newidle(). The walks are the kernel's control flow; what a
// flag operation or a balancing pass costs is the bfOps a caller passes: the
// real LOCK CMPXCHG and a real spin on pinned workers (bfWorker), or a
// cache-line queue on kernel time in the simulation (bfSim).

// The intervals are mainline's (ksim.Mainline: busy_factor 16 and the busy
// "-1" of v5.10, the jiffies conversion and the clamp to
// max_load_balance_interval), the kernel the seed patches.
var bfKernel = ksim.Mainline

// A bfLevel is one sched_domain of a CPU, as that CPU's own copy of it
// holds it (sched domains are per CPU; only sd->shared is shared), with
// what happened at it.
type bfLevel struct {
	bfShape
	// designated is should_we_balance()'s answer when every CPU is
	// busy: this CPU is the first of its local group at this level.
	designated bool
	// bal is sd->balance_interval (ms) and sd->last_balance (jiffies),
	// as sd_init() starts them.
	bal      ksim.Balance
	interval int64 // get_sd_balance_interval(sd, busy) as last computed

	cas, casFails int64 // cmpxchg attempts on the flag for this domain, and those that found it taken
	passes        int64 // periodic balancing passes done
	newidlePasses int64 // newidle passes done
	flagNs        int64 // time on the flag for this domain (cmpxchg and release), ns

	// maxNewidleCost is sd->max_newidle_lb_cost (ns): the costliest
	// newidle pass of this domain, decayed by 253/256 once a second
	// (update_newidle_cost()); lastDecay is sd->last_decay_max_lb_cost
	// (jiffies). sd_init() starts both at 0.
	maxNewidleCost int64
	lastDecay      int64
}

// The cpu_idle_type values sched_balance_rq() is called with.
type bfIdle int

const (
	bfNotIdle   bfIdle = iota // CPU_NOT_IDLE: the periodic pass of a busy CPU
	bfIdleCPU                 // CPU_IDLE: the periodic pass of an idle CPU
	bfNewlyIdle               // CPU_NEWLY_IDLE: about to go idle
)

// A bfModel is what every CPU of one run shares, read only: the machine,
// where the flag is taken, and the kernel's clock.
type bfModel struct {
	topo     bfTopo
	order    bfOrder
	hz       int
	interval int    // the serialized domains' fixed interval in jiffies; 0: the kernel's
	busy     int    // per cent of CPUs busy in a tick (bfIdleAt)
	seed     uint64 // of bfIdleAt
}

// A bfCPU is one simulated CPU's balancing state and counts. Only the walks
// below write it, on one thread at a time: the CPU's own, or the nohz
// balancer's in the simulation.
type bfCPU struct {
	m           *bfModel
	cpu         int
	jiffies     int64 // the tick this CPU is in
	nextBalance int64 // rq->next_balance
	levels      []bfLevel
	wasIdle     bool // idle in the tick before

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

	// rq->avg_idle and rq->max_idle_balance_cost (ns), and rq->idle_stamp
	// (ns, 0: not idle), kept only where the walks are timed (bfTimed):
	// the simulation. sched_init() starts avg_idle at
	// 2*sysctl_sched_migration_cost and max_idle_balance_cost at
	// sysctl_sched_migration_cost.
	avgIdle            int64
	maxIdleBalanceCost int64
	idleStamp          int64
}

// sysctl_sched_migration_cost: 500 µs (kernel/sched/fair.c,
// "sysctl_sched_migration_cost = 500000UL").
const bfMigrationCost = 500_000

// bfTimed is what a bfOps that keeps the walking CPU's kernel time adds:
// sched_clock_cpu(), which sched_balance_newidle() reads around every
// pass to price it. The pinned workers' ops do not implement it (their
// newidle walks are not cut); the simulation's do.
type bfTimed interface{ now() int64 }

// initIdle starts the CPU's idle statistics as sched_init() does.
func (c *bfCPU) initIdle() {
	c.avgIdle = 2 * bfMigrationCost
	c.maxIdleBalanceCost = bfMigrationCost
}

// wokeUp is ttwu_do_activate()'s update of rq->avg_idle when a task wakes
// the idle CPU at time t:
//
//	if (rq->idle_stamp) {
//		u64 delta = rq_clock(rq) - rq->idle_stamp;
//		u64 max = 2*rq->max_idle_balance_cost;
//		update_avg(&rq->avg_idle, delta);
//		if (rq->avg_idle > max)
//			rq->avg_idle = max;
//		rq->idle_stamp = 0;
//	}
//
// with update_avg()'s "*avg += (sample - *avg) / 8".
func (c *bfCPU) wokeUp(t int64) {
	if c.idleStamp == 0 {
		return
	}
	c.avgIdle += (t - c.idleStamp - c.avgIdle) / 8
	c.avgIdle = min(c.avgIdle, 2*c.maxIdleBalanceCost)
	c.idleStamp = 0
}

// updateNewidleCost is update_newidle_cost(sd, cost) (v5.16 to v6.18):
//
//	if (cost > sd->max_newidle_lb_cost) {
//		sd->max_newidle_lb_cost = cost;
//		sd->last_decay_max_lb_cost = jiffies;
//	} else if (time_after(jiffies, sd->last_decay_max_lb_cost + HZ)) {
//		sd->max_newidle_lb_cost = (sd->max_newidle_lb_cost * 253) / 256;
//		sd->last_decay_max_lb_cost = jiffies;
//		return true;
//	}
//	return false;
func (c *bfCPU) updateNewidleCost(l *bfLevel, cost int64) bool {
	if cost > l.maxNewidleCost {
		l.maxNewidleCost = cost
		l.lastDecay = c.jiffies
		return false
	}
	if c.jiffies-(l.lastDecay+int64(c.m.hz)) > 0 {
		l.maxNewidleCost = l.maxNewidleCost * 253 / 256
		l.lastDecay = c.jiffies
		return true
	}
	return false
}

// bfOps is what a flag operation and a balancing pass cost, on the CPU that
// runs the walk (for the nohz balancer, not the CPU walked).
type bfOps interface {
	// takeFlag is the cmpxchg on sched_balance_running for level l.
	takeFlag(l *bfLevel) bool
	// releaseFlag is atomic_set_release(&sched_balance_running, 0).
	releaseFlag(l *bfLevel)
	// pass is update_sd_lb_stats() and sched_balance_find_src_group()
	// over l's span; serialized says it holds the flag.
	pass(l *bfLevel, serialized bool)
}

// tryFlag counts a cmpxchg attempt at l and makes it.
func (c *bfCPU) tryFlag(ops bfOps, l *bfLevel) bool {
	c.cas++
	l.cas++
	if !ops.takeFlag(l) {
		c.casFails++
		l.casFails++
		return false
	}
	c.takes++
	return true
}

// balanceDomains is sched_balance_domains(rq, idle) for a busy CPU
// (bfNotIdle, run from its own tick) or an idle one (bfIdleCPU: from its
// tick, or from _nohz_idle_balance() on the nohz balancer):
//
//	int busy = idle != CPU_IDLE && !sched_idle_cpu(cpu);
//	for_each_domain(cpu, sd) {
//		need_decay = update_newidle_cost(sd, 0);
//		max_cost += sd->max_newidle_lb_cost;
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
//	if (need_decay)
//		rq->max_idle_balance_cost = max(sysctl_sched_migration_cost, max_cost);
//
// A domain above one whose should_we_balance() failed is not visited, not
// even to take its next_balance, unless it is due its once-a-second decay
// (need_decay): then the walk goes on to it and to the next, decaying
// max_newidle_lb_cost, balancing nothing and taking no flag (in the old
// order the cmpxchg comes after the continue).
//
//go:noinline
func balanceDomains(c *bfCPU, ops bfOps, idle bfIdle) {
	c.softirqs++
	busy := idle != bfIdleCPU
	continueBalancing := true
	// Earliest time when we have to do rebalance again
	nextBalance := c.jiffies + 60*int64(c.m.hz)
	update, stopped, needDecay := false, false, false
	var maxCost int64
	for i := range c.levels {
		l := &c.levels[i]
		needDecay = c.updateNewidleCost(l, 0)
		maxCost += l.maxNewidleCost
		if !continueBalancing {
			if !stopped {
				c.stops++
				stopped = true
			}
			if needDecay {
				c.decayVisits++
				continue
			}
			break
		}
		l.interval = c.sdInterval(l, busy)
		if l.serialize && c.m.order == bfCmpxchgFirst {
			// need_serialize = sd->flags & SD_SERIALIZE;
			// if (need_serialize) {
			//	if (atomic_cmpxchg_acquire(&sched_balance_running, 0, 1))
			//		goto out;
			// }
			//
			// A failed cmpxchg leaves sd->last_balance alone, so a due
			// domain keeps next_balance in the past and the softirq
			// runs again next tick: the pass is retried, not lost.
			if c.tryFlag(ops, l) {
				c.serializedHeld(ops, l, idle, busy, &continueBalancing)
			}
		} else if c.due(l) {
			c.balanceRQ(ops, l, idle, false, &continueBalancing)
			l.bal.LastBalance = c.jiffies
			l.interval = c.sdInterval(l, busy)
		}
		if next := l.bal.LastBalance + l.interval; nextBalance-next > 0 {
			nextBalance = next
			update = true
		}
	}
	if needDecay {
		c.maxIdleBalanceCost = max(bfMigrationCost, maxCost)
	}
	if update {
		c.nextBalance = nextBalance
	}
}

// serializedHeld is a serialized domain in the old order, entered holding
// the flag and leaving it released, also when the balancing pass panics (the
// deferred release is the "if (need_serialize) atomic_set_release(...)"
// that follows the due branch).
func (c *bfCPU) serializedHeld(ops bfOps, l *bfLevel, idle bfIdle, busy bool, continueBalancing *bool) {
	defer ops.releaseFlag(l)
	if c.due(l) {
		c.balanceRQ(ops, l, idle, true, continueBalancing)
		l.bal.LastBalance = c.jiffies
		l.interval = c.sdInterval(l, busy)
	}
}

// due is time_after_eq(jiffies, sd->last_balance + interval).
func (c *bfCPU) due(l *bfLevel) bool { return l.bal.Due(c.jiffies, l.interval) }

// sdInterval is get_sd_balance_interval(sd, busy) of this CPU's domain l,
// or the fixed interval= of a serialized domain.
func (c *bfCPU) sdInterval(l *bfLevel, busy bool) int64 {
	if l.serialize && c.m.interval > 0 {
		return int64(c.m.interval)
	}
	hz := ksim.HZ(c.m.hz)
	return bfKernel.BalanceInterval(l.bal.Interval, busy, hz, ksim.MaxLoadBalanceInterval(hz, c.m.topo.cpus))
}

// newidleBalance is sched_balance_newidle(): every domain, lowest first,
// with no interval check, each pulling rq->next_balance in to its idle
// interval, until the avg_idle cutoff:
//
//	sd = rcu_dereference_check_sched_domain(this_rq->sd);
//	if (!get_rd_overloaded(this_rq->rd) ||
//	    (sd && this_rq->avg_idle < sd->max_newidle_lb_cost)) {
//		if (sd)
//			update_next_balance(sd, &next_balance);
//		goto out;
//	}
//	t0 = sched_clock_cpu(this_cpu);
//	...
//	for_each_domain(this_cpu, sd) {
//		update_next_balance(sd, &next_balance);
//		if (this_rq->avg_idle < curr_cost + sd->max_newidle_lb_cost)
//			break;
//		if (sd->flags & SD_BALANCE_NEWIDLE) {
//			pulled_task = sched_balance_rq(this_cpu, this_rq,
//						   sd, CPU_NEWLY_IDLE,
//						   &continue_balancing);
//			t1 = sched_clock_cpu(this_cpu);
//			domain_cost = t1 - t0;
//			update_newidle_cost(sd, domain_cost);
//			curr_cost += domain_cost;
//			t0 = t1;
//		}
//		if (pulled_task || !continue_balancing)
//			break;
//	}
//	...
//	if (curr_cost > this_rq->max_idle_balance_cost)
//		this_rq->max_idle_balance_cost = curr_cost;
//	out:
//	if (time_after(this_rq->next_balance, next_balance))
//		this_rq->next_balance = next_balance;
//
// (update_next_balance() uses get_sd_balance_interval(sd, 0).) The root
// domain is taken as always overloaded (some CPU has a task waiting: the
// model has no nr_running), and nothing is ever pulled. The cutoff needs
// the walk's time, so only a timed walk (bfTimed: the simulation) has it;
// the pinned workers' walks always reach the top, as one of an idle period
// longer than the domains' newidle cost does. Going newly idle brings the
// next periodic softirq to within an idle interval, a few jiffies, cut or
// not (the lowest domain's next_balance is taken before any cutoff): on a
// server whose CPUs go idle many times a second, most ticks run it.
//
//go:noinline
func newidleBalance(c *bfCPU, ops bfOps) {
	c.newidleWalks++
	nextBalance := c.jiffies + int64(c.m.hz)
	continueBalancing := true
	tm, timed := ops.(bfTimed)
	pullIn := func(l *bfLevel) {
		if next := l.bal.LastBalance + c.sdInterval(l, false); nextBalance-next > 0 {
			nextBalance = next
		}
	}
	if timed && len(c.levels) > 0 && c.avgIdle < c.levels[0].maxNewidleCost {
		pullIn(&c.levels[0])
		c.newidleCut++
	} else {
		var t0, curr int64
		if timed {
			t0 = tm.now()
		}
		for i := range c.levels {
			l := &c.levels[i]
			pullIn(l)
			if timed && c.avgIdle < curr+l.maxNewidleCost {
				c.newidleCut++
				break
			}
			c.balanceRQ(ops, l, bfNewlyIdle, false, &continueBalancing)
			if timed {
				t1 := tm.now()
				c.updateNewidleCost(l, t1-t0)
				curr += t1 - t0
				t0 = t1
			}
			if !continueBalancing {
				break
			}
		}
		c.maxIdleBalanceCost = max(c.maxIdleBalanceCost, curr)
	}
	if c.nextBalance-nextBalance > 0 {
		c.nextBalance = nextBalance
	}
}

// balanceRQ is sched_balance_rq() on domain l. held says the caller already
// holds the flag (the old order). The flag, when this pass takes it, is
// released on every way out, panics included:
//
//	out:
//		if (need_unlock)
//			atomic_set_release(&sched_balance_running, 0);
func (c *bfCPU) balanceRQ(ops bfOps, l *bfLevel, idle bfIdle, held bool, continueBalancing *bool) {
	// redo:
	//	if (!should_we_balance(&env)) {
	//		*continue_balancing = 0;
	//		goto out_balanced;
	//	}
	if !c.shouldWeBalance(l, idle) {
		*continueBalancing = false
		c.outBalanced(l, idle)
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
	if !held && l.serialize && c.m.order != bfCmpxchgFirst && (idle != bfNewlyIdle || c.m.order == bfCheckFirstIdle) {
		if !c.tryFlag(ops, l) {
			// "load-balancing passes triggered while another one is
			// executing are skipped and not re-tried"
			c.outBalanced(l, idle)
			return
		}
		defer ops.releaseFlag(l)
		serialized = true
	}
	ops.pass(l, serialized)
	if idle == bfNewlyIdle {
		l.newidlePasses++
	} else {
		l.passes++
	}
	if l.serialize {
		if idle == bfNewlyIdle {
			c.newidleBalances++
		} else {
			c.balances++
		}
	}
	c.outBalanced(l, idle)
}

// shouldWeBalance is should_we_balance(): a newidle pass always balances
// (this CPU has nothing to run: "return 1"); a periodic one only on the CPU
// the group designates (bfShouldWeBalance). Its cost, a read of each group
// CPU's rq when some are idle, is left out.
func (c *bfCPU) shouldWeBalance(l *bfLevel, idle bfIdle) bool {
	if idle == bfNewlyIdle {
		return true
	}
	if c.m.busy >= 100 {
		return l.designated // nobody idle: the group's first CPU, read from no one
	}
	return bfShouldWeBalance(c.m.topo, bfHashIdle{c.m.seed, c.m.busy, c.jiffies}, c.cpu, l)
}

// outBalanced is the tail of sched_balance_rq() when nothing was moved, which
// in this model is always: a newly idle pass leaves the interval alone
// ("if (env.idle == CPU_NEWLY_IDLE || ...) goto out;"), a periodic one tunes
// it up (ksim.Balance.OutBalanced: doubled while below sd_init's
// ".max_interval = 2*sd_weight").
func (c *bfCPU) outBalanced(l *bfLevel, idle bfIdle) {
	if idle == bfNewlyIdle {
		return
	}
	l.bal.OutBalanced()
}

// spreadPhase starts CPU i of n a share i/n of each interval early: sd_init()
// sets every CPU's last_balance to the same jiffies, but idle periods,
// newidle passes and lost flags soon put CPUs out of step, and CPUs in step
// are all due in the same tick.
func (c *bfCPU) spreadPhase(i, n int) {
	for k := range c.levels {
		l := &c.levels[k]
		l.bal.LastBalance = -int64(i) * l.interval / int64(n)
	}
}

// initIntervals sets each level's interval as a busy CPU first computes it.
func (c *bfCPU) initIntervals() {
	for k := range c.levels {
		l := &c.levels[k]
		l.interval = c.sdInterval(l, true)
	}
}
