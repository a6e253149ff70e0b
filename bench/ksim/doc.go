// Package ksim is the kernel-time model of the Linux scheduler that every
// scenario's simulation shares: the parts of the scheduler that are the same
// kernel code whichever contended line a scenario measures. A scenario keeps
// its own shared lines and its own kernel version's decisions; what it takes
// from here is the machinery around them, so that two models of the same
// kernel function cannot drift apart.
//
// It sits below the scenarios (bench/loadavg, bench/idlemask,
// bench/balanceflag, bench/wakeup, ...) and above affinity: it imports
// affinity and the standard library only, never bench or internal/, so the
// pinned runner and the simulations can both use it.
//
// # What it holds
//
//   - Time (clock.go). A Clock is one CPU's clock in nanoseconds of kernel
//     time (bench/ktime's Clock is this type). HZ is CONFIG_HZ: TickNs is
//     TICK_NSEC, Jiffies turns kernel time into jiffies, MsecsToJiffies is
//     the kernel's msecs_to_jiffies(), rounded up. PerSecond turns a count
//     over a kernel-time span into a rate.
//
//   - Kernel versions (kernel.go). A Kernel names the rules that differ
//     between the versions the seeds run: Linux413 (seed 004's guest:
//     sd_init's busy_factor 32, no busy "-1"), Linux510 (busy_factor 16
//     and the "interval -= 1" for a busy CPU, both Vincent Guittot's) and
//     Mainline (5.10's intervals, and should_we_balance()'s preference
//     for an idle core, IdleCore). Kernel.BalanceInterval is
//     get_sd_balance_interval() of that version, with the jiffies
//     conversion and the clamp to max_load_balance_interval
//     (MaxLoadBalanceInterval). A scenario picks its version by name; the
//     difference lives here and only here.
//
//   - Sched domains (domain.go). A Machine is what the kernel builds its
//     domains from: every CPU's core, LLC, package and node, and the SLIT
//     distances. FromTopology reads one from an affinity.Topology (the
//     host, a sysfs fixture, a fake split); Grid makes a regular one of any
//     size (cpus in cores of SMT threads, LLCs, nodes, sockets). Machine.Build
//     returns every CPU's hierarchy, lowest level first, as sd_init() and
//     sched_init_numa() leave it and the degenerate levels dropped
//     (sd_degenerate, sd_parent_degenerate): SMT, MC, PKG, NODE and one NUMA
//     level per distance, each a Domain with its span, its groups, its flags
//     (SDShareCPUCapacity, SDShareLLC — SD_SHARE_PKG_RESOURCES before
//     v6.10 —, SDSerialize on NUMA levels, SDWakeAffine where the distance
//     is within RECLAIM_DISTANCE, ...) and sd_init's balance state
//     (Balance: balance_interval = weight ms, between weight and 2·weight,
//     last_balance). Domains.LLC is sd_llc, sd_llc_size, sd_llc_id and which
//     sd_llc_shared a CPU shares (none for an LLC of one CPU, whose domain
//     degenerates). Domains.ShouldWeBalance is should_we_balance() of a
//     version: which CPU of a local group runs a periodic pass.
//
//   - PELT (pelt.go): struct sched_avg's load half (SchedAvg) with
//     decay_load() (DecayLoad), accumulate_sum(), ___update_load_sum()
//     (SchedAvg.UpdateLoadSum), ___update_load_avg() (UpdateLoadAvg) and
//     get_pelt_divider() (Divider) of kernel/sched/pelt.c, in the kernel's
//     integer arithmetic, which package counter's cfs_rqs run on; the
//     scheduler's load units, NICE_0_LOAD (Nice0Load), scale_load() and
//     scale_load_down(), LOAD_AVG_MAX and PELT_MIN_DIVIDER; and the same
//     decay in continuous time (Decay, PeltSet) for the float models.
//     LOAD_AVG_PERIOD is walk.go's LoadAvgPeriod, beside the nohz cadence
//     it also sets.
//
//   - Runqueues and tasks (rq.go): an RQ with its current Task and the
//     FIFO of Tasks waiting for it, nr_running, the CPU's idle stamp and
//     avg_idle, rq->next_balance; tasks run (Curr), wait (Enqueue behind
//     Curr), block (Block: the next waiting one runs) and wake (Enqueue),
//     without allocating once the queue has grown. bench/loadavg's pairs
//     workload runs its tasks on them. UpdateAvg is update_avg() of
//     kernel/sched/sched.h.
//
//   - The driver (driver.go). Queue is the event queue: events in
//     kernel-time order, ties by CPU, then by the order they were pushed. A
//     Driver runs one coroutine per CPU (iter.Pull): a CPU's body runs its
//     ticks, softirqs, wakeups and idle entries as the kernel's control
//     flow, and yields at every event that must wait for a time or touch
//     something another CPU touches; the driver serves those requests in
//     kernel-time order through the scenario's Serve function, which prices
//     the contended line. Nothing is timed: the same seed replays the same
//     events.
//
//   - CPU walks (walk.go): for_each_cpu_wrap() (WrapFrom), and the nohz
//     balancer's choice, find_new_ilb()'s first idle CPU (FirstIdle).
//
// # What it does not hold
//
// The contended lines (tg->load_avg, sds->idle_cpus, sched_balance_running,
// sd_llc_shared's statistics) and what each version does with them: those
// are the scenarios', beside the kernel source they model. A model that
// wants a rule this package has for one version only adds the version
// here, named after the release that changed it, with the commit and the
// quoted source.
package ksim
