package ksim

// A Kernel is one kernel version's rules for what this package models where
// versions differ. A scenario names the version its seed ran (Linux413 for
// seed 004's guest, Mainline for the others) and every rule below follows;
// a new difference is a new field, set in each version, with the commit
// that made it.
type Kernel struct {
	// Name is the release, as a seed names it ("4.13", "5.10").
	Name string
	// BusyFactor is sd_init()'s ".busy_factor": a busy CPU balances a
	// domain this many times less often than an idle one. 32 up to v5.9
	// (kernel/sched/topology.c); 16 from v5.10, 6e7499135db7
	// ("sched/fair: Reduce busy load balance interval").
	BusyFactor int64
	// BusyLess is get_sd_balance_interval()'s "if (cpu_busy) interval -=
	// 1;" after the jiffies conversion, from v5.10, e4d32e4d5444
	// ("sched/fair: Minimize concurrent LBs between domain level"): "the
	// interval of larger domain will not be a multiple of smaller ones
	// anymore".
	BusyLess bool
	// IdleCore is should_we_balance()'s preference, in mainline, for an
	// idle CPU of an idle core over an idle SMT sibling of a busy one
	// ("Don't balance to idle SMT in busy core right away when balancing
	// cores, but remember the first idle SMT CPU for later consideration
	// in case no idle core is found"); 4.13 and 5.10 take the group's
	// first idle CPU, whatever its core (Domains.ShouldWeBalance).
	IdleCore bool

	// GroupTypes is find_busiest_group() after the v5.5 rework,
	// 0b0695f2b34a ("sched/fair: Rework load_balance()"): group types and
	// migrate_task (busiest.go); 4.13's before it.
	GroupTypes bool

	// The balance walks' differences (balance.go).
	//
	// Serialize is where SD_SERIALIZE's flag is taken: SerializeFirst in
	// every release modelled (4.13 and 6.1 with spin_trylock(&balancing),
	// 6.12 with the cmpxchg on sched_balance_running); the later orders
	// are the seeds' patches, which a scenario sets.
	Serialize SerializeOrder
	// NewidleKeepsInterval is out_balanced's "if (env.idle ==
	// CPU_NEWLY_IDLE) goto out;": a newidle pass leaves
	// sd->balance_interval alone. Valentin Schneider's "sched/fair: Don't
	// increase sd->balance_interval on newidle balance" (2019, in 5.10
	// and backported to 4.19-stable; 4.13.0 lacks it).
	NewidleKeepsInterval bool
	// DecayWaits is update_newidle_cost() of v5.16, e60b56e46b38
	// ("sched/fair: Wait before decaying max_newidle_lb_cost"): a new
	// maximum restarts the second before the 253/256 decay, and the
	// newidle walk decays too.
	DecayWaits bool
	// NewidleRandom is sched_feat(NI_RANDOM), v6.19's 33cf66d88306
	// ("sched/fair: Proportional newidle balance", in Debian's 6.18.15 as
	// 6.18.5-stable's backport): each domain's newidle pass runs only when
	// a 1024-sided die comes up within 1 + sd->newidle_ratio, the pass's
	// weighted success rate (Kernel.NewidleDice). NewidleRate is
	// sched_feat(NI_RATE), 9fe89f022c05 ("sched/fair: More complex
	// proportional newidle balance", in Debian's 7.2 and 7.3, not 7.0):
	// the ratio adds the time 512 calls took, so a domain walked seldom
	// keeps walking. kernel sites names both where the kernel's
	// sched_feat_names hold them; the seeds' mainline (v6.18) has neither.
	NewidleRandom, NewidleRate bool
	// NewidleGateMaxCost is the newidle walk's gate of v5.16,
	// 9d783c8dd112 ("sched/fair: Skip update_blocked_averages if we are
	// defering load balance"): avg_idle against the lowest domain's
	// max_newidle_lb_cost, not sysctl_sched_migration_cost, and each
	// domain's next balance taken before its cutoff test.
	NewidleGateMaxCost bool
	// NohzNextInWalk is rebalance_domains()'s tail up to v5.8, "if
	// ((idle == CPU_IDLE) && time_after(nohz.next_balance,
	// rq->next_balance)) nohz.next_balance = rq->next_balance;": the
	// caller of BalanceDomains pulls nohz.next_balance in after an idle
	// walk (Walk.Idle). Vincent Guittot's "sched/fair: Fix NOHZ next idle
	// balance" (v5.9, backported to 4.19- and 5.4-stable) moved it to
	// nohz_balance_enter_idle().
	NohzNextInWalk bool
	// SDStateEveryIdle is nr_busy_cpus before 00357f5ec5d6
	// ("sched/nohz: Clean up nohz enter/exit", Peter Zijlstra, v4.17):
	// tick_nohz_idle_enter() calls set_cpu_sd_state_idle() at every idle
	// entry, the tick stopped or not, and nohz_kick_needed()
	// set_cpu_sd_state_busy() at every busy tick ("At the first busy tick
	// after returning from idle, we will update the busy stats"). From it
	// both follow the tick stops, in nohz_balance_enter_idle() and
	// nohz_balance_exit_idle() (Nohz.IdleEntry, Nohz.ForKernel).
	SDStateEveryIdle bool

	// The wakeup path (fair.go, sis.go).

	// Affine is the version's wake_affine() (WakeAffineKind, Kernel.WakeAffine).
	Affine WakeAffineKind
	// WakeAffineIdlePrev is wake_affine_idle()'s last test, from v5.11,
	// d8fcb81f1acf ("sched/fair: Check for idle core in wake_affine",
	// Julia Lawall): "if (available_idle_cpu(prev_cpu)) return
	// prev_cpu;" after the sync test, so that an idle prev in another LLC
	// is kept rather than left to wake_affine_weight(), whose cpu_load()
	// counts blocked load since v5.5 (11f10e5420f6, which it fixes).
	WakeAffineIdlePrev bool
	// SISUtil is select_idle_cpu()'s budget from v6.0, 70fb5ccf2ebb
	// ("sched/fair: Introduce SIS_UTIL to search idle CPU based on sum of
	// util_avg", Chen Yu), which also turned SIS_PROP off by default:
	// nr_idle_scan, which update_idle_cpu_scan() writes at each periodic
	// balance of the LLC level (SISUtilNr, UpdateIdleCPUScan).
	SISUtil bool
	// KthreadStack is select_idle_sibling()'s per-cpu-kthread shortcut,
	// from v5.6, 52262ee567ad ("sched/fair: Allow a per-CPU kthread
	// waking a task to stack on the same CPU, to fix XFS performance
	// regression").
	KthreadStack bool
	// RecentUsed is what select_idle_sibling() does with
	// p->recent_used_cpu (RecentUsedRule).
	RecentUsed RecentUsedRule
	// ScanFromNext is select_idle_cpu()'s "for_each_cpu_wrap(cpu, cpus,
	// target + 1)", from v5.15, 56498cfb045d ("sched/fair: Avoid a
	// second scan of target in select_idle_cpu"): before it the scan
	// starts at the target, which the shortcuts found busy, and spends a
	// unit of the budget on it again.
	ScanFromNext bool

	// Wakeup preemption (preempt.go).

	// EEVDF is the fair class from v6.6, 147f3efaa241 ("sched/fair:
	// Implement an EEVDF-like scheduling policy"): a wakeup preempts
	// when pick_eevdf() picks the wakee (check_preempt_wakeup_fair());
	// before it, when the running task's vruntime leads the wakee's by
	// more than the wakeup granularity (check_preempt_wakeup(),
	// wakeup_preempt_entity()), the wakee placed with place_entity()'s
	// sleeper credit.
	EEVDF bool
	// RunToParity is pick_eevdf()'s "if (sched_feat(RUN_TO_PARITY) &&
	// curr && curr->vlag == curr->deadline) return curr;", from v6.6,
	// 63304558ba5d ("sched/eevdf: Curb wakeup-preemption"): an eligible
	// running task keeps the CPU until its deadline moves.
	RunToParity bool
}

// The versions the seeds run.
var (
	// Linux413 is v4.13 (seed 004's guest: 4.13.0 with 90001d67be2f and
	// a731ebe6f17b).
	Linux413 = Kernel{Name: "4.13", BusyFactor: 32, NohzNextInWalk: true, SDStateEveryIdle: true, Affine: WakeAffineLLC}
	// Next20170926 is seed 004's patched kernel: 4.13's rules, and
	// PeterZ's "utter basics" wake_affine() that the seed posts.
	Next20170926 = Kernel{Name: "next-20170926", BusyFactor: 32, NohzNextInWalk: true, SDStateEveryIdle: true, Affine: WakeAffineBasic}
	// Linux510 is v5.10, whose balance-interval rules mainline still has.
	Linux510 = Kernel{Name: "5.10", BusyFactor: 16, GroupTypes: true, BusyLess: true, NewidleKeepsInterval: true,
		Affine: WakeAffineIdleWeight, KthreadStack: true, RecentUsed: RecentOnHit}
	// Linux511 is v5.11 (seed 003's kernel, bench/idlemask): 5.10's
	// rules, and wake_affine_idle()'s idle prev.
	Linux511 = Kernel{Name: "5.11", BusyFactor: 16, GroupTypes: true, BusyLess: true, NewidleKeepsInterval: true,
		Affine: WakeAffineIdleWeight, WakeAffineIdlePrev: true, KthreadStack: true, RecentUsed: RecentOnHit}
	// Linux61 is v6.1 (the lab's Debian kernel, bench/wakeup's v6.1
	// policy): 5.10's intervals and v5.16's newidle costs
	// (should_we_balance()'s idle-core preference came in v6.6,
	// b1bfeab9b002), and the wakeup path of 6.1.
	Linux61 = Kernel{Name: "6.1", BusyFactor: 16, GroupTypes: true, BusyLess: true, NewidleKeepsInterval: true, DecayWaits: true, NewidleGateMaxCost: true,
		Affine: WakeAffineIdleWeight, WakeAffineIdlePrev: true, KthreadStack: true, RecentUsed: RecentAlways, ScanFromNext: true,
		SISUtil: true}
	// Mainline is the kernel the other seeds patch: 6.1's rules, and
	// should_we_balance()'s idle-core preference.
	Mainline = Kernel{Name: "mainline", BusyFactor: 16, GroupTypes: true, BusyLess: true, IdleCore: true, NewidleKeepsInterval: true, DecayWaits: true, NewidleGateMaxCost: true,
		Affine: WakeAffineIdleWeight, WakeAffineIdlePrev: true, KthreadStack: true, RecentUsed: RecentAlways, ScanFromNext: true,
		SISUtil: true}
	// Linux612 is v6.12 (the lab's Debian 12 backports kernel): Mainline's
	// balance and wakeup-path rules, and EEVDF's wakeup preemption.
	Linux612 = Kernel{Name: "6.12", BusyFactor: 16, GroupTypes: true, BusyLess: true, IdleCore: true, NewidleKeepsInterval: true, DecayWaits: true, NewidleGateMaxCost: true,
		Affine: WakeAffineIdleWeight, WakeAffineIdlePrev: true, KthreadStack: true, RecentUsed: RecentAlways, ScanFromNext: true,
		SISUtil: true, EEVDF: true, RunToParity: true}
)

// MaxLoadBalanceInterval is max_load_balance_interval as
// update_max_interval() sets it, the same in every version modelled:
// "max_load_balance_interval = HZ*num_online_cpus()/10;" ("Scale the max
// load_balance interval with the number of CPUs in the system. This trades
// load-balance latency on larger machines for less cross talk.").
func MaxLoadBalanceInterval(hz HZ, onlineCPUs int) int64 { return int64(hz) * int64(onlineCPUs) / 10 }

// BalanceInterval is get_sd_balance_interval(sd, cpu_busy) of version k, in
// jiffies, for a domain whose sd->balance_interval is balanceMs, with
// maxInterval the machine's max_load_balance_interval:
//
//	unsigned long interval = sd->balance_interval;
//	if (cpu_busy)
//		interval *= sd->busy_factor;
//	/* scale ms to jiffies */
//	interval = msecs_to_jiffies(interval);
//	if (cpu_busy)			// v5.10 on (BusyLess)
//		interval -= 1;
//	interval = clamp(interval, 1UL, max_load_balance_interval);
//
// (clamp(v, lo, hi) is min(max(v, lo), hi).)
func (k Kernel) BalanceInterval(balanceMs int64, busy bool, hz HZ, maxInterval int64) int64 {
	interval := balanceMs
	if busy {
		interval *= k.BusyFactor
	}
	interval = hz.MsecsToJiffies(interval)
	if busy && k.BusyLess {
		interval--
	}
	return min(max(interval, 1), maxInterval)
}
