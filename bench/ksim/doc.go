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
//     and the "interval -= 1" for a busy CPU, both Vincent Guittot's),
//     Linux511 (seed 003's wakeup path), Linux61 (the lab's 6.1: v5.16's
//     newidle costs and 6.1's wakeup path) and Mainline (6.1's rules, and
//     should_we_balance()'s preference for an idle core, IdleCore), and
//     Next20170926 (seed 004's patched kernel); the balance walks'
//     differences (where SD_SERIALIZE's flag is taken, the newidle gate
//     and decay) and the wakeup path's are fields too. Kernel.BalanceInterval is
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
//     degenerates). Kernel.ShouldWeBalance is should_we_balance() of a
//     version, is_core_idle() with it: which CPU of a local group runs a
//     periodic pass (Domains.ShouldWeBalance asks it of a built domain).
//
//   - The balance walks (balance.go), each over a scenario's Balancer
//     hooks (its domains' state, SD_SERIALIZE's flag, the pass and its
//     task moves, the clock): Kernel.BalanceDomains is
//     sched_balance_domains() (rebalance_domains()) with its busy
//     factor, next_balance, need_decay and the flag in each version's
//     place (SerializeOrder); Kernel.NewidleBalance is
//     sched_balance_newidle() (newidle_balance(), idle_balance()) with
//     its avg_idle gate and cutoff; Kernel.BalanceRQ is
//     sched_balance_rq()'s frame (schedstat's lb_count at entry,
//     Balance.LBCount; should_we_balance(), the flag after 3324b2180c17,
//     out_balanced: Kernel.OutBalanced);
//     Kernel.UpdateNewidleCost is update_newidle_cost(); RQBalance is
//     rq->next_balance, avg_idle and max_idle_balance_cost, with
//     ttwu_do_activate()'s avg_idle update (WokeUp).
//
//   - A pass's decision (busiest.go): find_busiest_group() with
//     calculate_imbalance() (Kernel.FindBusiestGroup: 4.13's, and from
//     the v5.5 rework, Kernel.GroupTypes, group types and migrate_task) on
//     the groups' statistics a scenario gathers (GroupStats, struct
//     sg_lb_stats' read part), giving an Imbalance; find_busiest_queue()
//     and the task moves stay the scenario's (bench/wakeup's runqueues).
//
//   - The newidle dice (newidle.go): v6.19's NI_RANDOM and 7.1's NI_RATE
//     (Kernel.NewidleRandom, NewidleRate), the die sched_balance_newidle()
//     throws per domain (Kernel.NewidleDice) and update_newidle_stats();
//     beside them the models' draws (Uniform, Mix, OtherCPU).
//
//   - PELT (pelt.go): struct sched_avg's load half (SchedAvg) with
//     decay_load() (DecayLoad), accumulate_sum(), ___update_load_sum()
//     (SchedAvg.UpdateLoadSum; SchedAvg.Crossed, whether an update now
//     would decay), ___update_load_avg() (UpdateLoadAvg) and
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
//     its RQBalance (avg_idle, rq->next_balance); tasks run (Curr), wait (Enqueue behind
//     Curr), block (Block: the next waiting one runs) and wake (Enqueue),
//     without allocating once the queue has grown; a model whose idle CPU
//     notices a wakeup late takes __schedule()'s steps one by one
//     (Activate, Deactivate, PickNext, and PutPrev for a yield or a
//     stopped task). bench/loadavg's pairs workload and bench/wakeup run
//     their tasks on them. UpdateAvg is update_avg() of
//     kernel/sched/sched.h. Fair is a cfs_rq's EEVDF virtual time (v6.6+):
//     avg_vruntime(), entity_eligible(), update_entity_lag() and
//     place_entity()'s lag, which 6.12's delayed dequeue asks, and
//     requeue_delayed_entity()'s DELAY_ZERO (Fair.RequeueDelayed);
//     BaseSlice is sysctl_sched_base_slice.
//
//   - Wakeup preemption (preempt.go): check_preempt_wakeup() of v6.1
//     (wakeup_preempt_entity() against the wakeup granularity) and
//     check_preempt_wakeup_fair() of v6.12 (pick_eevdf(), RUN_TO_PARITY),
//     Kernel.WakeupPreempt by Kernel.EEVDF; the virtual time they read,
//     by version: update_curr() (UpdateCurr, with update_deadline() or
//     update_min_vruntime()), enqueue's placement of a wakee (PlaceWakee:
//     6.1's GENTLE_FAIR_SLEEPERS credit and migration renormalization,
//     EEVDF's lag and deadline) and dequeue's (DequeueEntity,
//     DequeueSleeper). RQ.Preempt is the switch that follows, the
//     preempted task left queued, RQ.NextBuddy set_next_buddy(). For a
//     model whose RQ is its one cfs_rq (no task groups: bench/wakeup),
//     the same steps on RQ.CFS where the kernel takes them, each with its
//     update_curr(): UpdateCurrRQ, SetNextRQ (set_next_entity()), WakeRQ
//     (a wakee's enqueue_entity()), SleepRQ (dequeue with DEQUEUE_SLEEP),
//     MoveRQ (a balance's detach_task()/attach_task()) and PreemptRQ
//     (check_preempt_curr()); bench/loadavg's pairs keep a group cfs_rq
//     apart from the RQ and call the steps themselves.
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
//   - CPU walks (walk.go): for_each_cpu_wrap() (WrapFrom).
//
//   - The tick and the tick-stop decision (tick.go): when each CPU's tick
//     fires, with skew_tick=1's offset (HZ.TickStart,
//     tick_setup_sched_timer()); the menu cpuidle governor (Governor:
//     get_typical_interval() over the last eight idles, the correction
//     factors by bucket, menu_update() with its tick-wakeup rule, and
//     menu_select()'s "predicted_ns < TICK_NSEC" keeping the tick, with
//     tick_nohz_next_event()'s event within a tick; Governor.Select,
//     Governor.Woke); the softlockup watchdog's hrtimer as the timer
//     tick_nohz_get_sleep_length() sees (WatchdogSleep).
//
//   - The idle loop's tick rule (idleloop.go): IdleTickRule, with a
//     cpuidle driver the governor's (IdleTickGovernor), without one
//     tick_nohz_idle_stop_tick() at every iteration (IdleTickStop) or,
//     from f4c31b07b136, after the idle's first tick (IdleTickAfterTick);
//     IdleLoop is one CPU's do_idle() under a rule (Enter, Ticked, Woke),
//     IdleTickRule.StopsAtEntry the rule for models of whole idle ticks,
//     ParseIdleTickRule its flag's names, IdleCPU a loop with the time its
//     idle began, IdleCPUs a machine's loops with their ticks' state and a
//     measured stop share where a scenario has one (Enter, Exit); used by
//     bench/balanceflag, bench/wakeup and bench/loadavg's pairs.
//
//   - The whole-tick idle pattern (tickpattern.go): TickPattern, for a
//     model whose CPUs are idle or busy for whole ticks (bench/balanceflag):
//     the draw per CPU and tick (TickIdle), when each tick fires and its
//     work runs, a busy tick's short idles and the moment a CPU goes idle,
//     which idle ticks fire (Fires) and where the idle loop's rule stops
//     the tick (TickStop: nohz_balance_enter_idle()), fresh idles (Fresh:
//     idles shorter than a tick, each wakeup restarting the tick in
//     tick_nohz_idle_exit()), the share whose work pulls a task (Pull)
//     and the share that finds a task already queued, so that sched_tick()'s
//     rq->idle_balance = idle_cpu() is 0 (Queued, FindsQueued), runs of
//     busy and idle ticks (Corr, TickIdleRuns), the share of busy ticks
//     that hold short idles (ShortShare), and nohz.idle_cpus_mask at a
//     tick's kicks (InMask).
//
//   - One CPU's lowest domain alone as a Balancer (lowest.go:
//     LowestDomain), for a scenario that needs the walks' cadence only,
//     and Softirqs, every CPU's balance softirq on it:
//     trigger_load_balance()'s test, the softirq's
//     update_blocked_averages() (the scenario's) and rebalance_domains(),
//     newidle_balance() (bench/loadavg's pairs).
//
//   - The nohz idle balancer (nohz.go): its state, Nohz —
//     nohz.idle_cpus_mask and rq->nohz_tick_stopped, nohz.nr_cpus (the
//     mask's weight after 5d86d542f68f), each LLC's
//     nr_busy_cpus and sd->nohz_idle, nohz.next_balance —;
//     nohz_balance_enter_idle() with set_cpu_sd_state_idle()
//     (Nohz.EnterIdle), nohz_balance_exit_idle() with
//     set_cpu_sd_state_busy() (Nohz.ExitIdle); nohz_balancer_kick()'s
//     reasons in the kernel's order (Nohz.BalancerKick, KickReasonOf);
//     find_new_ilb() (FindNewILB) and _nohz_idle_balance()'s walk
//     (NohzIdleBalance); one tick's kicks in a model of whole idle ticks
//     (Nohz.TickKicks); rebalance_domains()'s nohz.next_balance tail up
//     to v5.8 (Nohz.Walked). A NohzObserver hears each path's accesses, for
//     the scenario that prices the nohz lines (bench.NohzLines).
//
//   - The wakeup path. select_task_rq_fair() (fair.go: SelectTaskRqFair):
//     record_wakee() (RecordWakee), wake_wide() (WakeWide), and each
//     version's wake_affine() (WakeAffine: 4.13's wake_affine_llc() on the
//     sd_llc_shared statistics, the seed 004 patch's "utter basics", and
//     wake_affine_idle() then wake_affine_weight() from v4.14), then
//     select_idle_sibling() (SelectIdleSibling). Its shortcuts (sis.go:
//     SISShortcut: an idle target, an idle cache-affine prev, the per-cpu
//     kthread's stack on prev, p->recent_used_cpu, each from the version
//     that brought it) and select_idle_cpu()'s loop over a candidate mask
//     within its budget (SelectIdleCPU; ScanStart; SISPropNr,
//     SISUtilNr and update_idle_cpu_scan(), UpdateIdleCPUScan, with
//     cpu_util_cfs() as CPUUtil and a machine's LLCs' nr_idle_scan as
//     LLCScans, for a scenario without domains of its own), and on SMT
//     machines v5.11's select_idle_core() and select_idle_smt()
//     (SelectIdleCore, SelectIdleSMT). A scenario
//     answers what they read through an interface (Idler, SISView,
//     SMTView, FairView): bench/idlemask from its runqueue lines and its idle mask,
//     bench/wakeup from its runqueues. SelectIdleCPU allocates nothing
//     and stays a function of its own (idlemask's pinned hot loop).
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
