package ksim

// The load balancer's walks, written once for every scenario: the periodic
// one, sched_balance_domains() (rebalance_domains() before v6.10), and the
// newidle one, sched_balance_newidle() (newidle_balance() from v5.13,
// idle_balance() before), with should_we_balance()'s choice of the CPU that
// balances a group. A walk is the kernel's control flow over one CPU's
// domains; what a pass finds and moves (find_busiest_group() and the task
// moves of sched_balance_rq()), what taking SD_SERIALIZE's flag costs, and
// the CPU's clock are the scenario's, hooked in through a Balancer: the
// balanceflag scenario prices its contended flag there, the wakeup
// scenario moves its tasks. The version differences are Kernel's.

// IdleType is enum cpu_idle_type, numbered as 4.13 and 6.1 number it
// (6.12's __CPU_NOT_IDLE comes first; nothing here depends on the values).
type IdleType int8

const (
	CPUIdle      IdleType = iota // CPU_IDLE: the periodic pass of an idle CPU
	CPUNotIdle                   // CPU_NOT_IDLE: the periodic pass of a busy CPU
	CPUNewlyIdle                 // CPU_NEWLY_IDLE: a CPU about to go idle
)

// MigrationCost is sysctl_sched_migration_cost, 500 µs in every version
// modelled (kernel/sched/fair.c, "sysctl_sched_migration_cost = 500000UL").
const MigrationCost = 500_000

// SerializeOrder is where a version takes SD_SERIALIZE's flag
// (kernel/sched/fair.c's "balancing" spinlock up to v6.9,
// sched_balance_running after Ingo Molnar's "sched/balancing: Change
// 'balancing' spinlock into atomic flag", v6.10, "No change in
// functionality intended").
//
// The walk's control flow is the same for the lock and the flag; what one
// attempt does to the word differs, and is the scenario's to price
// (Balancer.TakeFlag): 6.1's spin_trylock() is queued_spin_trylock(),
//
//	int val = atomic_read(&lock->val);
//	if (unlikely(val))
//		return 0;
//	return likely(atomic_try_cmpxchg_acquire(&lock->val, &val, _Q_LOCKED_VAL));
//
// a read, and a locked cmpxchg only when the lock looked free, where 6.12's
// atomic_cmpxchg_acquire() is a locked cmpxchg every time. A kprobe on
// _raw_spin_trylock or on the cmpxchg's site counts attempts alike.
type SerializeOrder int8

const (
	// SerializeFirst takes the flag before the interval check, for every
	// visit of a serialized domain, due or not, and lets it go after:
	// 6.1's "if (!spin_trylock(&balancing)) goto out;" and 6.12's
	// "if (atomic_cmpxchg_acquire(&sched_balance_running, 0, 1)) goto
	// out;" in the walk, "spin_unlock(&balancing)" or
	// "atomic_set_release(&sched_balance_running, 0)" after the due
	// branch.
	SerializeFirst SerializeOrder = iota
	// SerializeInRQ takes it in sched_balance_rq(), after the interval
	// check and should_we_balance(), for periodic passes only:
	// 3324b2180c17 ("sched/fair: Only try cmpxchg in sched_balance_rq()
	// when needed"), "if (!need_unlock && (sd->flags & SD_SERIALIZE) &&
	// idle != CPU_NEWLY_IDLE)", released at "out:".
	SerializeInRQ
	// SerializeInRQNewidle is SerializeInRQ for newidle passes too:
	// 522fb20fbdbe drops "&& idle != CPU_NEWLY_IDLE".
	SerializeInRQNewidle
)

// RQBalance is the part of struct rq the walks read and write. Init starts
// it as sched_init() does.
type RQBalance struct {
	// NextBalance is rq->next_balance, jiffies.
	NextBalance int64
	// AvgIdle is rq->avg_idle (ns): update_avg() of the idle periods a
	// wakeup ended, capped at 2*MaxIdleBalanceCost (ttwu_do_activate()).
	AvgIdle int64
	// MaxIdleBalanceCost is rq->max_idle_balance_cost (ns): the costliest
	// newidle walk, floored at sysctl_sched_migration_cost when the
	// periodic walk decays it.
	MaxIdleBalanceCost int64
	// Rand is the CPU's sched_rnd_state, the newidle dice's
	// (Kernel.NewidleDice): the caller seeds it per CPU, as
	// prandom_init_once() does; any value is a valid state.
	Rand uint64
}

// Init is sched_init()'s "rq->avg_idle = 2*sysctl_sched_migration_cost;
// rq->max_idle_balance_cost = sysctl_sched_migration_cost;".
func (r *RQBalance) Init() {
	r.AvgIdle = 2 * MigrationCost
	r.MaxIdleBalanceCost = MigrationCost
}

// WokeUp is ttwu_do_activate()'s update of rq->avg_idle when a task wakes
// the CPU at time t after it went idle at idleStamp (rq->idle_stamp; 0:
// it was not idle, and nothing changes):
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
// The caller clears its idle stamp.
func (r *RQBalance) WokeUp(t, idleStamp int64) {
	if idleStamp == 0 {
		return
	}
	UpdateAvg(&r.AvgIdle, t-idleStamp)
	r.AvgIdle = min(r.AvgIdle, 2*r.MaxIdleBalanceCost)
}

// A Balancer is one CPU's domains as a scenario holds them, and the hooks
// the walks call where the kernel does work the scenario models its own
// way. A walk runs on one thread; the hooks may price what they do on the
// walking CPU's clock.
type Balancer interface {
	// Levels is how many domains the CPU has, and Domain(i) the balance
	// state of its domain i (lowest first); Serialized(i) whether that
	// domain has SD_SERIALIZE.
	Levels() int
	Domain(i int) *Balance
	Serialized(i int) bool
	// Interval is get_sd_balance_interval(sd, busy) of domain i, in
	// jiffies (Kernel.BalanceInterval, or a scenario's fixed interval).
	Interval(i int, busy bool) int64
	// ShouldWeBalance is should_we_balance() for a pass at domain i of
	// type idle (Kernel.ShouldWeBalance for a periodic pass; a newly
	// idle one balances unless a task came meanwhile). It is asked once
	// per sched_balance_rq() call, where schedstat counts lb_count.
	ShouldWeBalance(i int, idle IdleType) bool
	// TakeFlag is the attempt on SD_SERIALIZE's flag for domain i
	// (spin_trylock(&balancing) or the cmpxchg on
	// sched_balance_running), and ReleaseFlag its release.
	TakeFlag(i int) bool
	ReleaseFlag(i int)
	// Pass is the rest of sched_balance_rq() at domain i:
	// find_busiest_group() on, the task moves and the tail that
	// follows them. serialized says it holds the flag. It returns
	// whether tasks moved (ld_moved), and whether it found the domain
	// balanced: the walk then runs out_balanced (Kernel.OutBalanced);
	// otherwise Pass ran its own tail.
	Pass(i int, idle IdleType, serialized bool) (moved, balanced bool)
	// Idle is idle_cpu() of the walking CPU, asked after tasks moved.
	Idle() bool
	// Clock is sched_clock_cpu(), which the newidle walk reads around
	// each pass to price it; ok false: the scenario keeps no time, and
	// its newidle walks are neither priced nor cut.
	Clock() (ns int64, ok bool)
	// Overloaded is rd->overload (rd->overloaded from v6.10): some CPU
	// of the root domain has a task waiting.
	Overloaded() bool
	// Runnable is this_rq->nr_running > 0, asked after a newidle pass.
	Runnable() bool
}

// A Walk is what one walk did, for the scenario's counts.
type Walk struct {
	// Idle is the walk's idle type at its end: a periodic walk that
	// moved tasks asks idle_cpu() again.
	Idle IdleType
	// Stopped says should_we_balance() stopped the walk below its top
	// domain; DecayVisits counts the domains above it visited only to
	// decay max_newidle_lb_cost (need_decay).
	Stopped     bool
	DecayVisits int
	// Cut says the newidle walk's avg_idle test stopped it below its
	// top domain (or before its first), Pulled that it pulled a task.
	Cut, Pulled bool
}

// UpdateNewidleCost is update_newidle_cost(sd, cost) of version k at
// jiffies j: from v5.16 (k.DecayWaits, e60b56e46b38 "sched/fair: Wait
// before decaying max_newidle_lb_cost"),
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
//
// and before it the same two halves apart: the newidle walk's "if
// (domain_cost > sd->max_newidle_lb_cost) sd->max_newidle_lb_cost =
// domain_cost;" (no wait) and the periodic walk's decay "if
// (time_after(jiffies, sd->next_decay_max_lb_cost))" with next_decay =
// jiffies + HZ, which LastDecay holds less HZ.
func (k Kernel) UpdateNewidleCost(b *Balance, cost, j int64, hz HZ) bool {
	if cost > b.MaxNewidleLBCost {
		b.MaxNewidleLBCost = cost
		if k.DecayWaits {
			b.LastDecay = j
		}
		return false
	}
	if (k.DecayWaits || cost == 0) && j-(b.LastDecay+int64(hz)) > 0 {
		b.MaxNewidleLBCost = b.MaxNewidleLBCost * 253 / 256
		b.LastDecay = j
		return true
	}
	return false
}

// OutBalanced is sched_balance_rq()'s out_balanced tail of version k for a
// pass of type idle:
//
//	sd->nr_balance_failed = 0;
//	out_one_pinned:
//	if (env.idle == CPU_NEWLY_IDLE)		// k.NewidleKeepsInterval
//		goto out;
//	/* tune up the balancing interval */
//	if (... || sd->balance_interval < sd->max_interval)
//		sd->balance_interval *= 2;
func (k Kernel) OutBalanced(b *Balance, idle IdleType) {
	b.NrBalanceFailed = 0
	if idle == CPUNewlyIdle && k.NewidleKeepsInterval {
		return
	}
	b.OutBalanced()
}

// BalanceRQ is the frame of sched_balance_rq() (load_balance() before
// v6.10) of version k at domain i around the scenario's Pass: should_we_balance(),
// the flag where k takes it there, out_balanced. held says the walk holds
// the flag already (SerializeFirst). It returns whether tasks moved, and
// continue_balancing. The flag, when this frame takes it, is released on
// every way out, panics included ("out: if (need_unlock)
// atomic_set_release(&sched_balance_running, 0);").
func (k Kernel) BalanceRQ(h Balancer, i int, idle IdleType, held bool) (moved, cont bool) {
	// schedstat_inc(sd->lb_count[idle]);
	h.Domain(i).LBCount[idle]++
	// redo:
	//	if (!should_we_balance(&env)) {
	//		*continue_balancing = 0;
	//		goto out_balanced;
	//	}
	if !h.ShouldWeBalance(i, idle) {
		k.OutBalanced(h.Domain(i), idle)
		return false, false
	}
	serialized := held
	if !held && h.Serialized(i) && (k.Serialize == SerializeInRQ && idle != CPUNewlyIdle || k.Serialize == SerializeInRQNewidle) {
		if !h.TakeFlag(i) {
			// "load-balancing passes triggered while another one
			// is executing are skipped and not re-tried"
			k.OutBalanced(h.Domain(i), idle)
			return false, true
		}
		defer h.ReleaseFlag(i)
		serialized = true
	}
	moved, balanced := h.Pass(i, idle, serialized)
	if balanced {
		k.OutBalanced(h.Domain(i), idle)
	}
	return moved, true
}

// BalanceDomains is sched_balance_domains(rq, idle) (rebalance_domains()
// before v6.10) of version k at jiffies j, for a busy CPU (CPUNotIdle,
// from its own tick) or an idle one (CPUIdle: from its tick, or from
// _nohz_idle_balance() on the nohz balancer), rq being the walked CPU's:
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
//		[SerializeFirst: if (need_serialize) trylock or goto out]
//		if (time_after_eq(jiffies, sd->last_balance + interval)) {
//			if (sched_balance_rq(cpu, rq, sd, idle, &continue_balancing)) {
//				idle = idle_cpu(cpu);
//				busy = !idle && !sched_idle_cpu(cpu);
//			}
//			sd->last_balance = jiffies;
//			interval = get_sd_balance_interval(sd, busy);
//		}
//		[SerializeFirst: if (need_serialize) unlock]
//	out:
//		if (time_after(next_balance, sd->last_balance + interval)) {
//			next_balance = sd->last_balance + interval;
//			update_next_balance = 1;
//		}
//	}
//	if (need_decay)
//		rq->max_idle_balance_cost = max(sysctl_sched_migration_cost, max_cost);
//	if (likely(update_next_balance))
//		rq->next_balance = next_balance;
//
// A domain above one whose should_we_balance() failed is not visited, not
// even to take its next_balance, unless it is due its once-a-second decay
// (need_decay): then the walk goes on to it and to the next, decaying
// max_newidle_lb_cost, balancing nothing and taking no flag (the trylock
// comes after the continue). A failed trylock leaves sd->last_balance
// alone, so a due domain keeps next_balance in the past and the softirq
// runs again next tick: the pass is retried, not lost. No task is
// SCHED_IDLE here (sched_idle_cpu() is false). 4.13's "if (!(sd->flags &
// SD_LOAD_BALANCE)) continue;" passes every domain built here.
func (k Kernel) BalanceDomains(h Balancer, rq *RQBalance, j int64, hz HZ, idle IdleType) Walk {
	w := Walk{Idle: idle}
	busy := idle != CPUIdle
	cont := true
	// Earliest time when we have to do rebalance again
	next := j + 60*int64(hz)
	update, needDecay := false, false
	var maxCost int64
	for i := range h.Levels() {
		b := h.Domain(i)
		needDecay = k.UpdateNewidleCost(b, 0, j, hz)
		maxCost += b.MaxNewidleLBCost
		if !cont {
			w.Stopped = true
			if needDecay {
				w.DecayVisits++
				continue
			}
			break
		}
		interval := h.Interval(i, busy)
		if h.Serialized(i) && k.Serialize == SerializeFirst {
			if h.TakeFlag(i) {
				interval = k.serializedHeld(h, i, j, &w, &busy, &cont, interval)
			}
		} else if b.Due(j, interval) {
			interval = k.due(h, i, j, &w, &busy, &cont, false)
		}
		if n := b.LastBalance + interval; next-n > 0 {
			next = n
			update = true
		}
	}
	if needDecay {
		// Ensure the rq-wide value also decays but keep it at a
		// reasonable floor to avoid funnies with rq->avg_idle.
		rq.MaxIdleBalanceCost = max(MigrationCost, maxCost)
	}
	if update {
		rq.NextBalance = next
	}
	return w
}

// serializedHeld is a serialized domain in the SerializeFirst order,
// entered holding the flag and leaving it released, also when the pass
// panics (the deferred release is the unlock after the due branch). It
// returns the domain's interval.
func (k Kernel) serializedHeld(h Balancer, i int, j int64, w *Walk, busy, cont *bool, interval int64) int64 {
	defer h.ReleaseFlag(i)
	if h.Domain(i).Due(j, interval) {
		return k.due(h, i, j, w, busy, cont, true)
	}
	return interval
}

// due is the due branch of the periodic walk at domain i: the pass, then
// last_balance and the interval again. It returns the interval.
func (k Kernel) due(h Balancer, i int, j int64, w *Walk, busy, cont *bool, held bool) int64 {
	moved, c := k.BalanceRQ(h, i, w.Idle, held)
	*cont = c
	if moved {
		// The LBF_DST_PINNED logic could have changed env->dst_cpu,
		// so we can't know our idle state even if we migrated tasks.
		w.Idle = CPUNotIdle
		if h.Idle() {
			w.Idle = CPUIdle
		}
		*busy = w.Idle != CPUIdle
	}
	h.Domain(i).LastBalance = j
	return h.Interval(i, *busy)
}

// NewidleBalance is sched_balance_newidle() (newidle_balance() from v5.13,
// idle_balance() before) of version k at jiffies j: every domain, lowest
// first, with no interval check, each pulling rq->next_balance in to its
// idle interval, until the avg_idle cutoff or a pull. From v5.16
// (k.NewidleGateMaxCost, 9d783c8dd112 "sched/fair: Skip
// update_blocked_averages if we are defering load balance"), as 6.1 and
// 6.12 have it:
//
//	if (!rd->overload ||
//	    (sd && this_rq->avg_idle < sd->max_newidle_lb_cost)) {
//		if (sd)
//			update_next_balance(sd, &next_balance);
//		goto out;
//	}
//	t0 = sched_clock_cpu(this_cpu);
//	for_each_domain(this_cpu, sd) {
//		update_next_balance(sd, &next_balance);
//		if (this_rq->avg_idle < curr_cost + sd->max_newidle_lb_cost)
//			break;
//		if (sd->flags & SD_BALANCE_NEWIDLE) {
//			pulled_task = sched_balance_rq(this_cpu, this_rq, sd,
//						       CPU_NEWLY_IDLE, &continue_balancing);
//			t1 = sched_clock_cpu(this_cpu);
//			domain_cost = t1 - t0;
//			update_newidle_cost(sd, domain_cost);
//			curr_cost += domain_cost;
//			t0 = t1;
//		}
//		if (pulled_task || !continue_balancing)	// 6.1: || this_rq->nr_running > 0
//			break;
//	}
//	if (curr_cost > this_rq->max_idle_balance_cost)
//		this_rq->max_idle_balance_cost = curr_cost;
//	out:
//	if (time_after(this_rq->next_balance, next_balance))
//		this_rq->next_balance = next_balance;
//
// 4.13's idle_balance() gates on "this_rq->avg_idle <
// sysctl_sched_migration_cost || !this_rq->rd->overload", and takes each
// domain's next balance after its pass ("update_next_balance(sd,
// &next_balance)" follows the pass, and at the cut). update_next_balance()
// uses get_sd_balance_interval(sd, 0). An untimed scenario (Clock's ok
// false) is never cut, its passes not priced.
func (k Kernel) NewidleBalance(h Balancer, rq *RQBalance, j int64, hz HZ) Walk {
	w := Walk{Idle: CPUNewlyIdle}
	next := j + int64(hz)
	n := h.Levels()
	t0, timed := h.Clock()
	gate := int64(MigrationCost)
	if k.NewidleGateMaxCost && n > 0 {
		gate = h.Domain(0).MaxNewidleLBCost
	}
	if n > 0 && (timed && rq.AvgIdle < gate || !h.Overloaded()) {
		next = k.pullIn(h, 0, next)
		w.Cut = true
	} else {
		var curr int64
		for i := range n {
			if k.NewidleGateMaxCost {
				next = k.pullIn(h, i, next)
			}
			if timed && rq.AvgIdle < curr+h.Domain(i).MaxNewidleLBCost {
				if !k.NewidleGateMaxCost {
					next = k.pullIn(h, i, next)
				}
				w.Cut = true
				break
			}
			weight, run := k.NewidleDice(h.Domain(i), rq, j, hz)
			if !run {
				continue
			}
			moved, cont := k.BalanceRQ(h, i, CPUNewlyIdle, false)
			if timed {
				t1, _ := h.Clock()
				k.UpdateNewidleCost(h.Domain(i), t1-t0, j, hz)
				curr += t1 - t0
				t0 = t1
			}
			if k.NewidleRandom {
				// update_newidle_cost(sd, domain_cost, weight *
				// !!pulled_task): a pass's cost is never 0 here.
				k.newidleStats(h.Domain(i), weight*b2i(moved), j, hz)
			}
			if !k.NewidleGateMaxCost {
				next = k.pullIn(h, i, next)
			}
			if moved || !cont || h.Runnable() {
				w.Pulled = moved
				break
			}
		}
		rq.MaxIdleBalanceCost = max(rq.MaxIdleBalanceCost, curr)
	}
	if rq.NextBalance-next > 0 {
		rq.NextBalance = next
	}
	return w
}

// pullIn is update_next_balance(sd, &next_balance) of domain i:
// next_balance brought in to sd->last_balance + get_sd_balance_interval(sd, 0).
func (k Kernel) pullIn(h Balancer, i int, next int64) int64 {
	if n := h.Domain(i).LastBalance + h.Interval(i, false); next-n > 0 {
		return n
	}
	return next
}
