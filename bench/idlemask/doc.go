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
// when the mask is stale, since it is cleared only at the tick.
//
// # The model
//
// A simulated LLC of llc= CPUs. Each simulated CPU has a runqueue line of its
// own (imCPU: its state as remote wakeups see it, as available_idle_cpu()
// reads a remote rq, and rq->last_idle_state), and the LLC has one idle
// mask: real 64-bit words, set and cleared with atomic OR and AND (LOCK OR /
// LOCK AND, the kernel's set_bit/clear_bit), padded by 128 bytes on each
// side so nothing else shares their line.
//
// The workers of one real LLC divide the simulated LLC into contiguous
// shares: with two workers and llc=48, worker 0 is CPUs 0..23 and worker 1 is
// CPUs 24..47, so a 2-CPU machine models a 48-CPU LLC whose mask line and
// runqueue lines really move between two cores. Every simulated CPU has
// exactly one owner, the thread that runs its events; the mask words are
// written by all, and a runqueue line also by the wakers that queue a task
// on it. No simulated CPU sits out with a fixed state: a runqueue line
// nobody writes never leaves a prober's cache, which would make the full
// scan look cheaper than it is. A real LLC with more workers than llc= gets
// several simulated LLCs of llc= CPUs, and workers on different real LLCs
// never share one, as CPUs of different LLCs share no sd_llc_shared.
//
// # Kernel time
//
// Each simulated CPU has a clock in nanoseconds of kernel time, kept by its
// owner. One of its events takes 1/tick= of a tick (TICK_NSEC = 1e9/hz=: 10
// us at tick=100 and HZ=1000), whatever the hardware took to run it; its
// scheduler tick comes when its clock passes the next tick (staggered per
// CPU). Everything the kernel measures in time is measured on that clock:
// the idle periods behind rq->avg_idle, the governor's prediction, and
// avg_scan_cost too: a search of k probes costs k × probe= ns of kernel time
// (at least one probe's worth), so SIS_PROP weighs two figures on one clock.
// probe=auto, the default, takes the cost per probe from this machine:
// one search in eight is timed with the wall clock, and the worker's cost
// per probe is those searches' time over their probes; sec/probe reports
// the figure used. (The kernel times every search with cpu_clock(); timing
// them here would cost more than a short scan, and wall time fed straight
// into avg_scan_cost, against avg_idle in compressed kernel time, made the
// budget depend on the host's speed.) A fixed probe= makes the budget
// reproducible anywhere; contend simulate idlemask uses 50 ns.
//
// One operation is one event on one of the worker's simulated CPUs, taken
// round-robin, drawn from a per-worker xorshift generator (deterministic per
// worker index):
//
//   - with probability wake= the CPU wakes a task and searches for an idle CPU
//     (select_idle_cpu); its own state does not change;
//   - otherwise the CPU is busy with probability busy= (the duty cycle) and
//     goes, or stays, idle otherwise. Every idle event is an idle entry:
//     do_idle() calls cpuidle_idle_call() again each time an interrupt that
//     woke no task ends, so an idle CPU "enters idle" many times. A busy event
//     after idle is an idle exit (a task was picked), which folds the idle
//     period into rq->avg_idle (update_avg(), capped at 2*max_idle_balance_cost
//     = 1 ms, as ttwu_do_wakeup() does) and into the governor's prediction;
//   - a CPU on which a waker queued a task (see Placement) first exits idle to
//     run it, then takes its event;
//   - its scheduler tick runs when its clock reaches it.
//
// # Update policies
//
// update= says when the shared word is written; in every policy the CPU
// changes its own runqueue state first and the mask after, as the kernel
// switches to the idle task before cpuidle_idle_call() runs.
//
//   - always: an exact mask, written unconditionally at every hook: set on
//     every idle entry, cleared on idle exit (and by a waker that queues a task
//     on the CPU), rewritten at every tick. The upper bound on writes, and the
//     reference with no stale answers but races.
//   - tickstop: v5 as posted, the variant the seed's uperf figures (+23% /
//     +67% / +81% / +51% at 96 / 144 / 192 / 240 threads) were measured with:
//     update_idle_cpumask(rq, true) only "if (stop_tick ||
//     tick_nohz_tick_stopped())", that is when the cpuidle governor expects
//     the CPU to stay idle at least a tick, with the last_idle_state filter;
//     cleared at the tick when busy. The governor is modelled as menu's test
//     "predicted_ns >= TICK_NSEC" on an update_avg() of the CPU's idle
//     periods (menu averages its recent intervals too), and a period that
//     stopped the tick keeps it stopped for its re-entries. The model has no
//     timers, so only the idle history decides. (A machine without a cpuidle
//     driver sets on every entry in v5 too, as laststate does.)
//   - laststate: v5 with Vincent's change, the patch as the thread left it:
//     update_idle_cpumask(rq, true) on every idle entry, before the governor
//     runs, update_idle_cpumask(rq, false) at the tick, and nothing at idle
//     exit, with the filter "No need to update idle cpumask if the state does
//     not change": if (rq->last_idle_state == idle_state) return; so the word
//     is written at most twice per CPU per tick. Vincent measured it against v5
//     on hackbench -g 1 on an 8-CPU arm64 (against tip: v5 -45%, with
//     the change -1.19%).
//   - tick: laststate's hooks without the last_idle_state filter: set on
//     every idle entry, clear at every tick that finds the CPU busy. The same
//     mask as laststate, so the same stale answers; the difference in writes
//     is what the filter buys.
//   - none: no mask at all, the kernel before the patch (scan=all only).
//
// Under laststate, tick and tickstop a CPU that became busy stays in the mask
// until its next tick.
//
// nohz= adds, on tickstop's path, what the same tick stop does for the nohz
// idle balancer (nohz.go): nohz_balance_enter_idle() sets the CPU in the
// machine-wide nohz.idle_cpus_mask and, before Shrikanth Hegde's
// 5d86d542f68f ("Remove nohz.nr_cpus and use weight of cpumask instead",
// merged 2026-01, for 480+ cpu machines), increments the atomic
// nohz.nr_cpus (nohz=counter); the CPU's first busy tick after
// (nohz_balancer_kick()) runs nohz_balance_exit_idle(), clearing the bit
// and decrementing the counter, then returns unless a CPU is tickless: by
// !atomic_read(&nohz.nr_cpus) before, cpumask_empty(nohz.idle_cpus_mask)
// after (nohz=weight); otherwise it reads nohz.next_balance, on the
// counter's line. The balancer's own walk is not modelled. nohz=none, the
// default, leaves all of it out, as the model did before the key.
// nohz-writes/op counts the locked writes: counter makes two per entry and
// exit, weight one.
//
// # Wakeup search
//
// scan=mask is the patched select_idle_cpu(): AND the mask words with the
// task's allowed CPUs (all of the LLC here) into a per-worker scratch mask,
// the per-CPU select_idle_mask, then probe the candidates in
// for_each_cpu_wrap() order from the waker until one is idle. scan=all is the
// code before it: the same loop over the LLC span.
//
// What comes before the scan is early=. early=on is select_idle_sibling() of
// v5.11 as select_task_rq_fair() calls it on every wakeup: the target (the
// waking CPU) if it is idle; else prev_cpu if it is not the target and is
// idle; else p->recent_used_cpu if it is neither and is idle and allowed;
// only then select_idle_cpu(), whose for_each_cpu_wrap() starts at the
// target: the target stays a candidate (when its mask bit is set, under
// scan=mask), is probed again and spends one unit of nr. The model's tasks
// have no history, so prev_cpu and recent_used_cpu are drawn uniformly from
// the LLC per wakeup: tasks spread over the LLC, every CPU of it sharing
// the target's cache. That moves early-%: a workload whose wakees keep to a
// few CPUs finds its prev idle more or less often than the LLC's idle share.
// Not modelled: the per-cpu-kthread shortcut and asymmetric capacities.
// early=off, the default (so that recorded results keep their names and
// figures), is the model's first version: every wakeup scans, and the
// target is taken out of the candidates, as if select_idle_sibling() had
// looked at it and no shortcut existed; it overstates how many wakeups pay
// for select_idle_cpu(), which is Vincent Guittot's point in the thread.
//
// sis=prop is the SIS_PROP budget of the seed's kernel (v5.11; SIS_AVG_CPU
// was off by default): nr = span_weight * (avg_idle/512) / (avg_scan_cost+1)
// when that exceeds 4, else 4, from the waking CPU's rq->avg_idle and its LLC
// domain's avg_scan_cost, and the loop's "if (!--nr) return -1;" probes at
// most nr-1 CPUs: three when the waker is busy (the target among them with
// early=on). A search cut short by the
// budget leaves avg_scan_cost alone, as the kernel's early return does;
// every other one feeds it, on the kernel clock (see Kernel time). With the
// budget, the full scan gives up after three busy CPUs where the mask offers
// idle ones first: the patch's real gain is finding an idle CPU within nr, and
// found-idle-% shows it. sis=none searches until it finds one or runs out.
//
// # Placement
//
// The woken task is placed on the CPU found: the waker moves that CPU's
// runqueue from idle to "task queued" (a CAS on the CPU's own line, as
// try_to_wake_up() within an LLC takes the remote rq's lock and enqueues), so
// probes find it busy at once, while its mask bit stays set until the CPU's
// tick clears it (under always the waker clears it). The CPU's owner runs the
// task at that CPU's next event. This is the main source of stale bits: a
// CPU that just became busy, still marked idle until the tick.
//
// Under update=always the waker holds that runqueue while it places the task,
// as try_to_wake_up() holds the remote rq lock through ttwu_do_activate()
// (ttwu_queue() within an LLC, where ttwu_queue_cond() is false): it moves the
// CPU to a held state, clears the bit, then publishes "task queued", and the
// owner waits the hold out before switching tasks, as __schedule() waits for
// rq->lock. Without the hold a late clear could land after the owner ran the
// task and went idle again, leaving an idle CPU out of the exact mask (the
// post-run check caught it once in some 400 quick sweeps; the hooked test
// TestIdleMaskAlwaysPlacementRace forces it). The other policies place with
// one compare-and-swap, as before.
//
// # Metrics
//
// mask-writes/op counts atomic writes to the shared words per event;
// cpus-scanned/op the runqueue probes of the searches per event (divide by
// wake= for per wakeup); found-idle-% is how many wakeups found an idle CPU
// within the budget; budget-out-% how many searches the budget stopped;
// wrong-% how many wakeups the mask answered wrongly: it offered a CPU that
// was busy (a wasted probe, Aubrey's "the wakeup task likely needs to wait"),
// or it offered none while an idle CPU existed. The second is checked by an
// audit of every allowed runqueue after one failed mask search in
// imAuditEvery (not on every one, so that the audit does not swamp the cost
// it audits) and scaled up. Races between a search and the owners' writes
// count as wrong answers too, as they are in the kernel. scan=all takes no
// answer from the mask, so its wrong-% is 0. cpus-scanned/op counts
// select_idle_cpu()'s probes only (the target's included with early=on);
// the shortcuts' one to three runqueue reads are not in it. early-% is the
// wakeups a shortcut placed (early=on), found-idle-% includes them, and
// sec/probe is the cost per probe avg_scan_cost was fed.
//
// # At the seed's size
//
// contend simulate idlemask runs the same workers on one thread at seed
// 003's 192 CPUs in 4 LLCs of 48, with tick= set so that a CPU makes
// uperf's 80 idle entries between two ticks, early=on and probe=50: mask
// writes per second and per CPU per tick, CPUs probed per wakeup and idle
// CPUs found, per update policy.
package idlemask
