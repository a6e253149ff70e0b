package ksim

// The nohz idle balancer's state and decisions (kernel/sched/fair.c,
// CONFIG_NO_HZ_COMMON), the same in every version modelled but for when
// nr_busy_cpus changes (Kernel.SDStateEveryIdle): which CPUs stopped their tick (nohz.idle_cpus_mask,
// rq->nohz_tick_stopped), each LLC's count of CPUs whose tick runs
// (sd_llc_shared->nr_busy_cpus, sd->nohz_idle), nohz.next_balance, and
// nohz_balancer_kick()'s reasons in its order. The scenarios keep the
// lines these words sit on: a NohzObserver hears each access as the kernel
// makes it. 5d86d542f68f ("sched/fair: Remove nohz.nr_cpus and use weight
// of cpumask instead", merged 2026-01) changes which line "is any cpu
// tickless" reads, not its answer: that is the observer's
// (bench.NohzLines.Counter).

// A NohzObserver hears the nohz struct's accesses, to price their lines
// (bench.NohzLines). Each method is one kernel path's accesses.
type NohzObserver interface {
	// Enter is nohz_balance_enter_idle() on a CPU whose
	// rq->nohz_tick_stopped was unset: cpumask_set_cpu() on the mask,
	// atomic_inc(&nohz.nr_cpus) (before 5d86d542f68f),
	// WRITE_ONCE(nohz.needs_update, 1).
	Enter(cpu int)
	// Blocked is every nohz_balance_enter_idle() call's
	// WRITE_ONCE(nohz.has_blocked_load, 1) (nohz.has_blocked in 6.1).
	Blocked(cpu int)
	// Exit is nohz_balance_exit_idle() on a CPU whose tick was stopped:
	// cpumask_clear_cpu(), atomic_dec(&nohz.nr_cpus) (before).
	Exit(cpu int)
	// Kick is nohz_balancer_kick()'s "is any cpu tickless" read
	// (nohz.nr_cpus before, the mask's weight after) and, when one is,
	// its reads of the struct's line.
	Kick(cpu int, tickless bool)
}

// Nohz is the machine's nohz state. NewNohz makes one; the zero value is
// not usable.
type Nohz struct {
	// NextBalance is nohz.next_balance, in jiffies.
	NextBalance int64
	// KickIPIs counts TickKicks' kick_ilb() IPIs (nohz_csd_func() on the
	// balancer): the balance kicks, and the NOHZ_STATS_KICK and
	// NOHZ_NEXT_KICK ones whose walks run no pass.
	KickIPIs int64
	// hasBlocked, nextBlocked and needsUpdate are nohz.has_blocked (set at
	// each tick stop: "we assume that it has blocked load"; the model's
	// idle CPUs keep some), nohz.next_blocked in jiffies, and
	// nohz.needs_update (set as a CPU enters the mask).
	hasBlocked, needsUpdate bool
	nextBlocked             int64
	// Obs, when set, hears every access (nil: none priced).
	Obs NohzObserver

	everyIdle bool   // Kernel.SDStateEveryIdle (ForKernel)
	stopped   []bool // rq->nohz_tick_stopped: the CPU is in nohz.idle_cpus_mask
	nrCPUs    int    // nohz.nr_cpus (the mask's weight after 5d86d542f68f)
	sdIdle    []bool // sd_llc->nohz_idle
	llc       []int  // the CPU's sd_llc_shared, -1 where it has none
	nrBusy    []int  // each sd_llc_shared's nr_busy_cpus
}

// NewNohz is the state at boot for cpus CPUs, llc[c] being CPU c's
// sd_llc_shared (-1: none, an LLC of one CPU, whose domain degenerates):
// no tick stopped, every CPU busy in its LLC (sd_init(): "atomic_set(
// &sd->shared->nr_busy_cpus, sd_weight);").
func NewNohz(cpus int, llc []int) *Nohz {
	n := &Nohz{stopped: make([]bool, cpus), sdIdle: make([]bool, cpus), llc: llc}
	for _, l := range llc {
		if l >= len(n.nrBusy) {
			n.nrBusy = append(n.nrBusy, make([]int, l+1-len(n.nrBusy))...)
		}
		if l >= 0 {
			n.nrBusy[l]++
		}
	}
	return n
}

// ForKernel makes n follow version k's nr_busy_cpus rule
// (Kernel.SDStateEveryIdle), and returns it.
func (n *Nohz) ForKernel(k Kernel) *Nohz {
	n.everyIdle = k.SDStateEveryIdle
	return n
}

// IdleEntry is cpu entering the idle loop, before the governor decides on
// the tick: tick_nohz_idle_enter()'s set_cpu_sd_state_idle() where the
// version has it (Kernel.SDStateEveryIdle); nothing after 00357f5ec5d6.
func (n *Nohz) IdleEntry(cpu int) {
	if n.everyIdle {
		n.setSDIdle(cpu, true)
	}
}

// Stopped is rq->nohz_tick_stopped of cpu: it is in nohz.idle_cpus_mask.
func (n *Nohz) Stopped(cpu int) bool { return n.stopped[cpu] }

// Tickless is nohz_balancer_kick()'s "no cpu is in tickless mode" test,
// negated: atomic_read(&nohz.nr_cpus), or the mask's weight after
// 5d86d542f68f.
func (n *Nohz) Tickless() bool { return n.nrCPUs > 0 }

// NrBusy is the nr_busy_cpus of cpu's sd_llc_shared, and whether it has
// one.
func (n *Nohz) NrBusy(cpu int) (int, bool) {
	if l := n.llc[cpu]; l >= 0 {
		return n.nrBusy[l], true
	}
	return 0, false
}

// EnterIdle is nohz_balance_enter_idle(cpu), which
// __tick_nohz_idle_stop_tick() calls only on the tick's transition to
// stopped ("if (!was_stopped && ts->tick_stopped)
// nohz_balance_enter_idle(cpu);"):
//
//	rq->has_blocked_load = 1;
//	if (rq->nohz_tick_stopped)
//		goto out;
//	rq->nohz_tick_stopped = 1;
//	cpumask_set_cpu(cpu, nohz.idle_cpus_mask);
//	atomic_inc(&nohz.nr_cpus);
//	set_cpu_sd_state_idle(cpu);
//	WRITE_ONCE(nohz.needs_update, 1);
//	out:
//	WRITE_ONCE(nohz.has_blocked_load, 1);
//
// It reports whether the CPU entered the mask.
func (n *Nohz) EnterIdle(cpu int) bool {
	first := !n.stopped[cpu]
	n.hasBlocked = true
	if first {
		n.stopped[cpu] = true
		n.needsUpdate = true
		n.nrCPUs++
		n.setSDIdle(cpu, true)
		if n.Obs != nil {
			n.Obs.Enter(cpu)
		}
	}
	if n.Obs != nil {
		n.Obs.Blocked(cpu)
	}
	return first
}

// ExitIdle is nohz_balance_exit_idle(rq), the first thing
// nohz_balancer_kick() does on a busy tick:
//
//	if (likely(!rq->nohz_tick_stopped))
//		return;
//	rq->nohz_tick_stopped = 0;
//	cpumask_clear_cpu(rq->cpu, nohz.idle_cpus_mask);
//	atomic_dec(&nohz.nr_cpus);
//	set_cpu_sd_state_busy(rq->cpu);
//
// It reports whether the CPU left the mask.
func (n *Nohz) ExitIdle(cpu int) bool {
	if !n.stopped[cpu] {
		return false
	}
	n.stopped[cpu] = false
	n.nrCPUs--
	n.setSDIdle(cpu, false)
	if n.Obs != nil {
		n.Obs.Exit(cpu)
	}
	return true
}

// setSDIdle is set_cpu_sd_state_idle() (idle) or set_cpu_sd_state_busy():
//
//	sd = rcu_dereference(per_cpu(sd_llc, cpu));
//	if (!sd || sd->nohz_idle)	/* !sd->nohz_idle when busy */
//		goto unlock;
//	sd->nohz_idle = 1;		/* 0 */
//	atomic_dec(&sd->shared->nr_busy_cpus);	/* atomic_inc */
func (n *Nohz) setSDIdle(cpu int, idle bool) {
	l := n.llc[cpu]
	if l < 0 || n.sdIdle[cpu] == idle {
		return
	}
	n.sdIdle[cpu] = idle
	if idle {
		n.nrBusy[l]--
	} else {
		n.nrBusy[l]++
	}
}

// Walked is rebalance_domains()'s nohz tail up to v5.8
// (Kernel.NohzNextInWalk) after walk w of the CPU whose runqueue is rq,
// read after the walk; w.Idle is the walk's idle type at its end:
//
//	if ((idle == CPU_IDLE) && time_after(nohz.next_balance, rq->next_balance))
//		nohz.next_balance = rq->next_balance;
//
// Later versions do it in nohz_balance_enter_idle(), and Walked nothing.
func (n *Nohz) Walked(k Kernel, rq *RQBalance, w Walk) {
	if k.NohzNextInWalk && w.Idle == CPUIdle {
		n.NextBalance = min(n.NextBalance, rq.NextBalance)
	}
}

// KickFlags are nohz_balancer_kick()'s flags for kick_ilb().
type KickFlags uint8

// The flags (kernel/sched/sched.h).
const (
	NohzBalanceKick KickFlags = 1 << iota // NOHZ_BALANCE_KICK: balance the idle CPUs
	NohzStatsKick                         // NOHZ_STATS_KICK: update their blocked load
	NohzNextKick                          // NOHZ_NEXT_KICK: update nohz.next_balance
)

// A KickReason is why nohz_balancer_kick() kicks for a balance, in the
// kernel's order of tests.
type KickReason uint8

// The reasons, in nohz_balancer_kick()'s order.
const (
	KickNone        KickReason = iota
	KickNrRunning              // rq->nr_running >= 2
	KickCapacity               // a CFS task on a CPU of reduced capacity (check_cpu_capacity())
	KickAsymPacking            // sd_asym_packing: a preferred idle CPU
	KickMisfit                 // sd_asym_cpucapacity: a misfit task, or a bigger idle CPU
	KickLLCBusy                // sd_llc_shared's nr_busy_cpus > 1
)

// A KickRQ is what nohz_balancer_kick() reads of the kicking CPU's own
// runqueue and domains; a model without a fact leaves it zero and says so.
type KickRQ struct {
	NrRunning int // rq->nr_running
	// ReducedCapacity is "rq->cfs.h_nr_running >= 1 &&
	// check_cpu_capacity(rq, sd)": a CFS task on a CPU whose capacity
	// RT, IRQ or thermal pressure reduced by more than sd->imbalance_pct.
	ReducedCapacity bool
	// AsymPacking and Misfit are the asym-packing and asym-capacity
	// domains' reasons, for machines that have those domains.
	AsymPacking, Misfit bool
}

// BalancerKick is nohz_balancer_kick(rq) on a busy tick of cpu at jiffy
// now (6.1 and 6.12 alike):
//
//	nohz_balance_exit_idle(rq);
//	if (likely(!atomic_read(&nohz.nr_cpus)))	/* cpumask_empty() after 5d86d542f68f */
//		return;
//	if (READ_ONCE(nohz.has_blocked) && time_after(now, READ_ONCE(nohz.next_blocked)))
//		flags = NOHZ_STATS_KICK;
//	if (time_before(now, nohz.next_balance))
//		goto out;
//	if (rq->nr_running >= 2) { flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK; goto out; }
//	... check_cpu_capacity(), sd_asym_packing, sd_asym_cpucapacity ...
//	sds = rcu_dereference(per_cpu(sd_llc_shared, cpu));
//	if (sds) {
//		nr_busy = atomic_read(&sds->nr_busy_cpus);
//		if (nr_busy > 1) { flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK; goto unlock; }
//	}
//	out:
//	if (READ_ONCE(nohz.needs_update))
//		flags |= NOHZ_NEXT_KICK;
//
// Before 00357f5ec5d6 (Kernel.SDStateEveryIdle, ForKernel) it was
// nohz_kick_needed(), which first set the CPU busy in its LLC
// (set_cpu_sd_state_busy()) whether its tick had stopped or not.
//
// It returns the reason for a balance kick, KickNone for none. Not
// modelled: the blocked-load and next_balance kicks (NOHZ_STATS_KICK
// alone, NOHZ_NEXT_KICK), whose walks run no balancing pass; the caller
// keeps NextBalance as the walk of such a kick would leave it.
func (n *Nohz) BalancerKick(cpu int, now int64, rq KickRQ) KickReason {
	if n.everyIdle {
		n.setSDIdle(cpu, false) // nohz_kick_needed()'s set_cpu_sd_state_busy()
	}
	n.ExitIdle(cpu)
	tickless := n.Tickless()
	if n.Obs != nil {
		n.Obs.Kick(cpu, tickless)
	}
	if !tickless || now < n.NextBalance {
		return KickNone
	}
	nrBusy, llc := n.NrBusy(cpu)
	return KickReasonOf(rq, nrBusy, llc)
}

// KickReasonOf is nohz_balancer_kick()'s tests once nohz.next_balance is
// due, in its order: rq's own reasons, then nrBusy, the nr_busy_cpus of
// the kicker's sd_llc_shared, where it has one (llc).
func KickReasonOf(rq KickRQ, nrBusy int, llc bool) KickReason {
	switch {
	case rq.NrRunning >= 2:
		return KickNrRunning
	case rq.ReducedCapacity:
		return KickCapacity
	case rq.AsymPacking:
		return KickAsymPacking
	case rq.Misfit:
		return KickMisfit
	case llc && nrBusy > 1:
		return KickLLCBusy
	}
	return KickNone
}

// FindNewILB is find_new_ilb() on CPU self: the first CPU of
// nohz.idle_cpus_mask (and the housekeeping mask, all CPUs here) other
// than self that is idle (idle_cpu()), -1 when none is:
//
//	for_each_cpu_and(ilb_cpu, nohz.idle_cpus_mask, hk_mask) {
//		if (ilb_cpu == smp_processor_id())
//			continue;
//		if (idle_cpu(ilb_cpu))
//			return ilb_cpu;
//	}
func (n *Nohz) FindNewILB(self int, idle func(cpu int) bool) int {
	return FindNewILB(len(n.stopped), self, func(c int) bool { return n.stopped[c] && idle(c) })
}

// FindNewILB is find_new_ilb() on CPU self of cpus CPUs, for a model that
// keeps its own mask: idleInMask says a CPU is in nohz.idle_cpus_mask and
// idle.
func FindNewILB(cpus, self int, idleInMask func(cpu int) bool) int {
	for c := range cpus {
		if c != self && idleInMask(c) {
			return c
		}
	}
	return -1
}

// TickKicks is the nohz side of tick now of a model whose CPUs are idle
// or busy for whole ticks and tick at one instant, and returns the
// balancer kicked, -1 for none. The mask is as the tick's
// nohz_balancer_kick()s find it: inMask says which CPUs have stopped their
// tick by then (EnterIdle), the others have not or have restarted it
// (ExitIdle); nohz.next_balance is the earliest rq->next_balance
// (nextBalance) of the mask's CPUs, as the NOHZ_NEXT_KICK walks that every
// tick stop asks for (needs_update) leave it. Then each CPU's
// nohz_balancer_kick() in CPU order (BalancerKick with rq(cpu), nil for
// none of the rq's own reasons), an idle one
// returning at once ("if (unlikely(rq->idle_balance)) return;": a kept
// tick of an idle CPU kicks nothing): the first with a reason kicks the
// balancer find_new_ilb() picks among the idle CPUs (idle), and kick_ilb()'s
// "nohz.next_balance = jiffies+1" stops any other CPU of the tick kicking.
//
// A busy CPU's kick carries NOHZ_STATS_KICK where nohz.has_blocked is set
// and nohz.next_blocked has passed, and NOHZ_NEXT_KICK where
// nohz.needs_update is set, whether or not it has a reason to balance:
// kick_ilb() sends the balancer one IPI a tick (later kicks find its flags
// pending), counted in KickIPIs, and that walk clears needs_update and
// moves next_blocked on LOAD_AVG_PERIOD.
func (n *Nohz) TickKicks(now int64, hz HZ, idle, inMask func(cpu int) bool, nextBalance func(cpu int) int64, rq func(cpu int) KickRQ) int {
	next := now + 60*int64(hz)
	for c := range n.stopped {
		if inMask(c) {
			n.EnterIdle(c)
			next = min(next, nextBalance(c))
		} else {
			n.ExitIdle(c)
		}
	}
	n.NextBalance = next
	stats := n.hasBlocked && now > n.nextBlocked
	kicker := -1
	for c := range n.stopped {
		var r KickRQ
		if rq != nil && !idle(c) {
			r = rq(c)
		}
		if !idle(c) && n.BalancerKick(c, now, r) != KickNone {
			n.NextBalance = now + 1
			ilb := n.FindNewILB(c, idle)
			n.kickIPI(ilb, now, hz, true)
			return ilb
		}
		if kicker < 0 && !idle(c) && n.Tickless() && (stats || n.needsUpdate) {
			kicker = c
		}
	}
	if kicker >= 0 {
		n.kickIPI(n.FindNewILB(kicker, idle), now, hz, stats)
	}
	return -1
}

// kickIPI is kick_ilb()'s IPI to ilb (none where there is no idle CPU to
// kick) and the walk's bookkeeping: needs_update cleared, and with
// NOHZ_STATS_KICK (every balance kick carries it) next_blocked moved on.
func (n *Nohz) kickIPI(ilb int, now int64, hz HZ, stats bool) {
	if ilb < 0 {
		return
	}
	n.KickIPIs++
	n.needsUpdate = false
	if stats {
		n.nextBlocked = now + hz.MsecsToJiffies(LoadAvgPeriod)
	}
}

// IdleBalance is _nohz_idle_balance()'s walk on the balancer ilb, of a
// BALANCE kick at jiffy now (NohzIdleBalance over this mask), leaving
// NextBalance as the walk does. It returns the passes run.
func (n *Nohz) IdleBalance(ilb int, now int64, hz HZ, idle func(cpu int) bool,
	nextBalance func(cpu int) int64, balance func(cpu int)) int {
	passes, next, update := NohzIdleBalance(len(n.stopped), ilb, now, hz,
		func(c int) bool { return n.stopped[c] && idle(c) }, nextBalance, balance)
	if update {
		n.NextBalance = next
	}
	return passes
}

// NohzIdleBalance is _nohz_idle_balance()'s walk on the balancer ilb of
// cpus CPUs, of a BALANCE kick at jiffy now: every CPU of
// nohz.idle_cpus_mask still idle (idleInMask) from ilb+1 round to ilb
// itself (for_each_cpu_wrap(); 4.13's walk skipped ilb and balanced it
// after the others, the same order where ilb is find_new_ilb()'s first
// idle CPU), balancing (balance, rebalance_domains(rq, CPU_IDLE)) those
// whose rq->next_balance has come, and returning nohz.next_balance's new
// value, the earliest next_balance (read after the CPU's pass) of those
// walked, and whether there was one:
//
//	for_each_cpu_wrap(balance_cpu, nohz.idle_cpus_mask, this_cpu+1) {
//		if (!idle_cpu(balance_cpu))
//			continue;
//		...
//		if (time_after_eq(jiffies, rq->next_balance)) {
//			...
//			if (flags & NOHZ_BALANCE_KICK)
//				rebalance_domains(rq, CPU_IDLE);
//		}
//		if (time_after(next_balance, rq->next_balance)) {
//			next_balance = rq->next_balance;
//			update_next_balance = 1;
//		}
//	}
//	if (likely(update_next_balance))
//		nohz.next_balance = next_balance;
//
// next_balance starts at "now + 60*HZ" (hz). It also returns the passes
// run, and allocates nothing itself.
func NohzIdleBalance(cpus, ilb int, now int64, hz HZ, idleInMask func(cpu int) bool,
	nextBalance func(cpu int) int64, balance func(cpu int)) (passes int, next int64, update bool) {
	next = now + 60*int64(hz)
	for k := 1; k <= cpus; k++ {
		b := (ilb + k) % cpus
		if !idleInMask(b) {
			continue
		}
		if now >= nextBalance(b) {
			balance(b)
			passes++
		}
		if nb := nextBalance(b); nb < next {
			next, update = nb, true
		}
	}
	return passes, next, update
}
