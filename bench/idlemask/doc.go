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
// own (runqueue: its state as remote wakeups see it, as available_idle_cpu()
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
//     stopped the tick keeps it stopped for its re-entries (ksim.Governor,
//     the one balanceflag and wakeup use). The model has no timers, so only
//     the idle history decides. Not applied here: menu_update()'s rule that
//     a sleep the kept tick ended counts as a 45 ms idle
//     (ksim.Governor.TickWakeup), which wakeup's model applies at the first
//     kept tick. Applied at every idle cpu's tick, it stops ticks at seed
//     003's workload too (200 a second at 32 cpus, 80 idle entries a tick,
//     where TestSimulateNohzNoStops and TestIdleMaskStaleUntilTick expect
//     none): whether menu stops the tick there turns on
//     get_typical_interval()'s outlier pass over the real spread of idle
//     periods, which the seed does not give. (A machine without a cpuidle
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
// contend simulate idlemask -nohz counts the two nohz lines per second on
// the simulation's own idle pattern (simnohz.go): stops, every
// nohz_balance_enter_idle() call, restarts, each line's locked writes,
// stores and reads, and the transfers they cause, split into the idle
// path's and the busy tick's. How often a tick stops is not a knob: the
// governor stops it only on an idle entry predicted to last a tick. At
// seed 003's workload (80 idle entries a tick) that never happens, so
// nohz.nr_cpus costs nothing there and the table says so. At 480 cpus,
// one idle entry a tick and 50% busy, both variants stop 11.4k ticks a
// second; the weight takes the struct line's 21.7k locked writes a second
// to 0 and the idle path's transfers from 55.3k to 45.0k a second, but the
// busy ticks' transfers go from 182k to 353k: has_blocked_load and
// needs_update are still stored on the struct's line, which a busy tick
// still reads while any cpu is tickless, and cpumask_empty() now reads the
// mask's line, written at every stop and restart. balanceflag's -nohz,
// on its own idle pattern, finds the same direction.
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
// scan=mask), is probed again and spends one unit of nr. With prev=draw,
// the default, prev_cpu and recent_used_cpu are drawn uniformly from the
// LLC per wakeup: tasks spread over the LLC, every CPU of it sharing the
// target's cache. prev=history gives each worker two tasks a CPU, the
// waker its CPU's current task and the wakee a sleeping one, and keeps
// both as v5.11 does (tasks.go): prev is the CPU the task's last wakeup
// put it on, recent_used_cpu the CPU it last woke another task from
// (select_task_rq_fair()'s current->recent_used_cpu = cpu), or its old
// prev after the shortcut returned it. Since the model's CPUs keep their
// duty cycle whatever they run, a task's prev is a CPU that took it and
// was busy since, so history lowers early-%: at 192 cpus (contend
// simulate idlemask -prev history, smt=2) the shortcuts place 14.4 % of
// wakeups before the patch instead of 19.6 %, and v5's stacked share rises
// from 70.1 % to 74.4 % (with -smt 1: 15.3 % instead of 20.9 %, and 84.2 %
// instead of 78.2 %). Not a default: the history needs a task population the
// seed does not give. Not modelled: asymmetric capacities.
//
// smt=2 pairs CPUs 2k and 2k+1 into cores and adds what v5.11's
// select_idle_sibling() does on an SMT machine such as the seed's (smt.go):
// select_idle_core() before select_idle_cpu(), when the LLC's
// has_idle_cores is set: a scan of the LLC's span, not the mask, with no
// SIS_PROP budget, each core's threads probed until one is busy, that
// returns the first wholly idle core or clears the flag; and
// select_idle_smt(), the target's core's threads (the target's too: its
// runqueue is read again) after select_idle_cpu() found nothing (both
// bench/ksim's, sis.go). has_idle_cores is a shared word of its own: set by
// __update_idle_core() when a CPU switches to idle beside an idle sibling.
// cpus-scanned/op counts the core scan's probes too; idle-core-% is the
// wakeups it placed, core-flag-writes/op the flag's writes. The default
// smt=1 is the model before (no name changes); contend simulate idlemask
// runs smt=2, the seed's machine (see At the seed's size): has_idle_cores
// then takes 2.04M writes a second at 192 cpus, six times the filtered
// mask's 352k (the kernel keeps it in sd_llc_shared beside the mask's
// first word, on one line; here it has its own line).
//
// kthread= is the share of wakeups a per-cpu kthread makes (a kworker
// completing the wakee's IO, or ksoftirqd), for select_idle_sibling()'s
// case after prev: "Allow a per-cpu kthread to stack with the wakee if the
// kworker thread and the tasks previous CPUs are the same", when prev is
// the waking CPU and it runs nothing but the kthread (no task stacked
// there): the wakee is stacked on prev without a scan, and counts in
// early-% and stacked-%. Its wait is priced as any stacked task's, by the
// duty cycle, though a kthread finishing its work is likely to block
// sooner. The default 0 is the model before; the seed's uperf gives no
// share (its wakeups come from the sending task, or ksoftirqd under
// softirq load), so nothing runs it by default. With prev=draw, prev is
// the target one wakeup in llc=; prev=history makes it likelier.
//
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
// # Where the woken task lands, and what it waits
//
// The seed's +23–81 % is uperf throughput, and what a wakeup search buys a
// throughput benchmark is where the woken task lands: on an idle CPU it
// runs at once; when the search finds none, select_idle_sibling() returns
// the target, busy (the waking CPU here), and the task is queued behind the
// running task. Aubrey Li's argument for v5 is this wait, from the other
// side: a short-idle CPU in the mask is "very likely" busy again when the
// task gets there, "and the wakeup task has to wait too" (003). The model
// prices both: a task is stacked when select_idle_sibling() returns a busy
// CPU, the target when nothing was found, or a CPU found idle that was busy
// again by the enqueue (the CAS in place fails; only a race between
// workers does that, so the one-thread simulation has none, and Aubrey's
// case is in the model only as that race: no window between the probe and
// the enqueue is simulated). That missing window is the assumption most
// likely to move the comparison towards v5: at the seed's workload an idle
// CPU's event ends its idle period with probability (1-wake)·busy = 0.81,
// so the model's idle periods last 1/0.81 events, 1.4 µs at 1.125 µs an
// event, comparable to the microsecond or so a remote wakeup may take (an
// IPI or a remote rq lock; not measured here), and a window of that size
// would catch many of the CPUs the full scan finds idle busy again, which
// an empty mask never offers. A stacked task waits until the running task
// blocks: the CPU's next switch to idle, on that CPU's kernel clock. CFS
// would not preempt sooner: the woken task's vruntime lands near the
// runqueue's min_vruntime, within wakeup_gran (1 ms × (1 + ilog2(8)) = 4 ms
// on 192 CPUs) of the running task's, and the tick preempts only after a
// sched_slice of milliseconds. So the wait is the running task's remaining
// run, which the model draws from its duty cycle: a busy CPU blocks at an
// event with probability (1-wake)(1-busy), so a stacked task waits tick/
// entries of a tick on average, 1 ms / 80 = 12.5 µs at the seed's "80
// times between two ticks" (the simulation's figure, from no other
// input). Tasks stacked on one CPU all run at its block (each waits for
// the running task, not for each other: a lower bound), and a task placed
// on an idle CPU waits nothing: the idle state's exit latency is not
// priced. The wait is priced, not played: the model's load is its duty
// cycle, a woken task adds no work of its own (as a placed one never did),
// so every other figure is what it was before the wait was modelled.
// stacked-% is the share of wakeups stacked, wait-sec/wakeup the mean wait
// over all wakeups (placed ones at 0); a task still stacked when the run
// stops counts what it had waited.
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
// defaultAuditEvery (not on every one, so that the audit does not swamp the cost
// it audits) and scaled up. Races between a search and the owners' writes
// count as wrong answers too, as they are in the kernel. scan=all takes no
// answer from the mask, so its wrong-% is 0. cpus-scanned/op counts
// select_idle_cpu()'s probes (the target's included with early=on) and,
// with smt=2, select_idle_core()'s and select_idle_smt()'s; the shortcuts'
// one to three runqueue reads are not in it. early-% is the
// wakeups a shortcut placed (early=on), found-idle-% includes them,
// sec/probe is the cost per probe avg_scan_cost was fed, and stacked-% and
// wait-sec/wakeup are where the woken tasks landed and what they waited
// (see above).
//
// # At the seed's size
//
// contend simulate idlemask runs the same workers on one thread at seed
// 003's 192 CPUs in 4 LLCs of 48, with tick= set so that a CPU makes
// uperf's 80 idle entries between two ticks, early=on, probe=50 and smt=2
// (the seed's 2 threads a core; -smt 1 gives the model without the SMT
// search): mask writes per second and per CPU per tick, CPUs probed per
// wakeup, idle CPUs found, the woken tasks stacked and their wait, and
// with smt=2 the idle cores found and has_idle_cores' writes, per update
// policy. At its defaults v5 as posted (update=tickstop) keeps the mask
// empty, but select_idle_core() still scans the LLC whenever
// has_idle_cores is set: v5 probes 3.86 runqueues a wakeup against the
// kernel before it's 5.94 (1.5× fewer, where without the SMT search it
// probed none against 2.40), finds an idle CPU for 29.9 % of wakeups
// against 36.1 %, and stacks 70.1 % against 63.9 %: 8.75 µs of wait a
// wakeup against 7.97 µs, 10 % more (with -smt 1: 21.8 % against 31.8 %
// found, 78.2 % against 68.2 % stacked, 9.78 µs against 8.51, 15 % more).
// The exact mask stacks 22.7 % and waits 2.83 µs. What v5 would win back by
// this measure, tasks spared a short-idle CPU that is busy again by the
// enqueue, needs the window the simulation does not have (see Where the
// woken task lands).
package idlemask
