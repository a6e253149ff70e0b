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
}

// The versions the seeds run.
var (
	// Linux413 is v4.13 (seed 004's guest: 4.13.0 with 90001d67be2f and
	// a731ebe6f17b).
	Linux413 = Kernel{Name: "4.13", BusyFactor: 32, Affine: WakeAffineLLC}
	// Next20170926 is seed 004's patched kernel: 4.13's rules, and
	// PeterZ's "utter basics" wake_affine() that the seed posts.
	Next20170926 = Kernel{Name: "next-20170926", BusyFactor: 32, Affine: WakeAffineBasic}
	// Linux510 is v5.10, whose balance-interval rules mainline still has.
	Linux510 = Kernel{Name: "5.10", BusyFactor: 16, BusyLess: true,
		Affine: WakeAffineIdleWeight, KthreadStack: true, RecentUsed: RecentOnHit}
	// Linux511 is v5.11 (seed 003's kernel, bench/idlemask): 5.10's
	// rules, and wake_affine_idle()'s idle prev.
	Linux511 = Kernel{Name: "5.11", BusyFactor: 16, BusyLess: true,
		Affine: WakeAffineIdleWeight, WakeAffineIdlePrev: true, KthreadStack: true, RecentUsed: RecentOnHit}
	// Linux61 is v6.1 (the lab's Debian kernel, bench/wakeup's v6.1
	// policy): 5.10's balance intervals (should_we_balance()'s idle-core
	// preference came later), and the wakeup path of 6.1.
	Linux61 = Kernel{Name: "6.1", BusyFactor: 16, BusyLess: true,
		Affine: WakeAffineIdleWeight, WakeAffineIdlePrev: true, KthreadStack: true, RecentUsed: RecentAlways, ScanFromNext: true,
		SISUtil: true}
	// Mainline is the kernel the other seeds patch: 5.10's balance
	// intervals, and should_we_balance()'s idle-core preference.
	Mainline = Kernel{Name: "mainline", BusyFactor: 16, BusyLess: true, IdleCore: true,
		Affine: WakeAffineIdleWeight, WakeAffineIdlePrev: true, KthreadStack: true, RecentUsed: RecentAlways, ScanFromNext: true,
		SISUtil: true}
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
