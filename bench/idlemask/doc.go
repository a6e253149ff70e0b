// Package idlemask is the scenario "idlemask": the shared idle cpumask of seed
// 003 (Aubrey Li, "[RFC PATCH v5] sched/fair: select idle cpu from idle
// cpumask for task wakeup", and Vincent Guittot's change to it): one bitmap
// per last-level cache, in sd_llc_shared,
//
//	unsigned long	idle_cpus_span[];
//
// that CPUs write as they go idle and busy, and that select_idle_cpu() scans
// at wakeup in place of the whole LLC:
//
//	cpumask_and(cpus, sched_domain_span(sd), p->cpus_ptr);        /* before */
//	cpumask_and(cpus, sds_idle_cpus(sd->shared), p->cpus_ptr);   /* after */
//	for_each_cpu_wrap(cpu, cpus, target) {
//
// The argument in the thread is over the two sides of that trade: how often
// every CPU of the LLC writes the one shared line ("uperf enters and exits 80
// times between two ticks when utilizes 100% CPU"), and how much a scan saves
// when the mask is stale, since it is cleared only at the tick. The scenario
// measures both: the mask's writes, and what the wakeups' searches probe,
// find and cost the woken tasks.
//
// # What it models
//
// A simulated LLC of llc= CPUs, divided among the workers of one real LLC
// in contiguous shares: each simulated CPU has a runqueue line of its own
// (runqueue: its state as available_idle_cpu() reads it remotely, and
// rq->last_idle_state), and the LLC has one idle mask of real 64-bit words,
// set and cleared with LOCK OR and LOCK AND (set_bit/clear_bit) on a line of
// their own. Each CPU keeps a clock of kernel time (an event is 1/tick= of a
// tick at hz=), on which everything the kernel measures in time is measured.
// Its events, drawn per worker: a wakeup (wake=), or busy (busy=) or an idle
// entry, with its scheduler tick when its clock reaches it. The kernel's
// functions, v5.11's (ksim.Linux511, the seed's kernel), are bench/ksim's
// where more than one scenario needs them:
//
//   - the idle entry, exit and tick hooks of each update= policy (cpu.go):
//     always (an exact mask), tickstop (v5 as posted: set only "if
//     (stop_tick || tick_nohz_tick_stopped())", the cpuidle governor's
//     decision, menu's "predicted_ns >= TICK_NSEC" on the CPU's idle
//     sleeps, each ended by a task, a re-entry or the kept tick, with the
//     softlockup watchdog as its timer: ksim.Governor), laststate (v5 with Vincent's change:
//     update_idle_cpumask() at every idle entry and at the tick, filtered by
//     rq->last_idle_state), tick (laststate without the filter), none (the
//     kernel before the patch);
//   - rq->avg_idle (update_avg(), capped at 2*max_idle_balance_cost as
//     ttwu_do_wakeup() does) and the LLC domain's avg_scan_cost;
//   - select_idle_sibling() of v5.11 (early=on: the target, prev_cpu,
//     recent_used_cpu and the per-cpu-kthread shortcuts), select_idle_cpu()
//     over the mask (scan=mask) or the LLC's span (scan=all) with SIS_PROP's
//     budget (sis=prop), and with smt=2 select_idle_core() and
//     select_idle_smt() with sd_llc_shared->has_idle_cores
//     (ksim.SISShortcut, SISPropNr, SelectIdleCPU, SelectIdleCore and
//     SelectIdleSMT, over the worker as a ksim.SISView: search.go, smt.go);
//   - try_to_wake_up()'s placement on the CPU found (a CAS on its runqueue
//     line, held through the mask's clear under update=always as the remote
//     rq lock is), and a stacked task's wait until the running task blocks;
//   - with nohz=, nohz_balance_enter_idle() on a tick-stopping idle entry and
//     nohz_balancer_kick()'s exit and test on the next busy tick, with
//     nohz.nr_cpus (counter, before 5d86d542f68f) or without (weight).
//
// Simulate (contend simulate idlemask) runs the same workers on one thread
// at seed 003's 192 CPUs in 4 LLCs of 48, one row per update policy, with
// tick= set so that a CPU makes uperf's 80 idle entries between two ticks.
//
// # Keys and metrics
//
// Keys: update, scan, sis, busy, wake, llc, tick, hz; early, prev (draw or
// history: where prev_cpu and recent_used_cpu come from), probe (kernel ns
// a probe adds to avg_scan_cost, or auto), smt, kthread and nohz are left
// out of names at their defaults.
//
// Per event: mask-writes/op, cpus-scanned/op, core-flag-writes/op and
// nohz-writes/op; per wakeup: found-idle-%, budget-out-%, wrong-% (the mask
// offered a busy CPU, or none while one was idle), early-%, idle-core-%,
// stacked-% and wait-sec/wakeup (where the woken task landed and what it
// waited); sec/probe is the cost per probe avg_scan_cost was fed.
//
// docs/idlemask.md is the reference: the model and its kernel time in
// detail, each update policy, the wakeup search, placement and the woken
// task's wait (and the window between probe and enqueue the model does not
// have), every metric's definition, and the figures at the seed's size.
package idlemask
