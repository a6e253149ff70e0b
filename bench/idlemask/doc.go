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
// own (imCPU: its idle state, which remote wakeups read, as
// available_idle_cpu() reads a remote rq, and rq->last_idle_state), and the
// LLC has one idle mask: real 64-bit words, set and cleared with atomic OR and
// AND (LOCK OR / LOCK AND, the kernel's set_bit/clear_bit), padded by 128
// bytes on each side so nothing else shares their line.
//
// The workers of one real LLC divide the simulated LLC into contiguous
// shares: with two workers and llc=48, worker 0 is CPUs 0..23 and worker 1 is
// CPUs 24..47, so a 2-CPU machine models a 48-CPU LLC whose mask line and
// runqueue lines really move between two cores. Every simulated CPU has
// exactly one owner, the only thread that writes its runqueue line; the mask
// words are written by all. No simulated CPU sits out with a fixed state: a
// runqueue line nobody writes never leaves a prober's cache, which would make
// the full scan look cheaper than it is. A real LLC with more workers than
// llc= gets several simulated LLCs of llc= CPUs, and workers on different
// real LLCs never share one, as CPUs of different LLCs share no
// sd_llc_shared.
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
//     after idle is an idle exit (a task was picked);
//   - every tick= events of a CPU its scheduler tick runs.
//
// # Update policies
//
// update= says when the shared word is written; in every policy the CPU
// changes its own runqueue state first and the mask after, as the kernel
// switches to the idle task before cpuidle_idle_call() runs.
//
//   - always: an exact mask, written unconditionally at every hook: set on
//     every idle entry, cleared on idle exit, rewritten at every tick. The
//     upper bound on writes, and the reference with no stale answers.
//   - laststate: the patch as the thread left it (v5 with Vincent's change):
//     update_idle_cpumask(rq, true) on every idle entry,
//     update_idle_cpumask(rq, false) at the tick, and nothing at idle exit,
//     with the filter "No need to update idle cpumask if the state does not
//     change": if (rq->last_idle_state == idle_state) return; so the word is
//     written at most twice per CPU per tick. A CPU that went busy stays in
//     the mask until its next tick.
//   - tick: the same hooks without the last_idle_state filter: set on every
//     idle entry, clear at every tick that finds the CPU busy. The same mask
//     as laststate, so the same stale answers; the difference in writes is
//     what the filter buys.
//   - none: no mask at all, the kernel before the patch (scan=all only).
//
// # Wakeup search
//
// scan=mask is the patched select_idle_cpu(): AND the mask words with the
// task's allowed CPUs (all of the LLC here) into a per-worker scratch mask,
// the per-CPU select_idle_mask, then probe the candidates in
// for_each_cpu_wrap() order from the waker until one is idle. scan=all is the
// code before it: the same loop over the LLC span. The waker's own CPU is not
// a candidate: select_idle_sibling() has looked at the target before it calls
// select_idle_cpu(), and the waker is running. The SIS_PROP scan budget
// (nr) and placing the woken task are not modelled: a search runs until it
// finds an idle CPU or runs out, and the found CPU's state changes only by its
// own events.
//
// # Metrics
//
// mask-writes/op counts atomic writes to the shared words per event;
// cpus-scanned/op the runqueue probes of the searches per event (divide by
// wake= for per wakeup); found-idle-% is how many wakeups found an idle CPU;
// wrong-% how many wakeups the mask answered wrongly: it offered a CPU that
// was busy (a wasted probe, Aubrey's "the wakeup task likely needs to wait"),
// or it offered none while an idle CPU existed. The second is checked by an
// audit of every allowed runqueue after one failed mask search in
// imAuditEvery (not on every one, so that the audit does not swamp the cost
// it audits) and scaled up. Races between a search and the owners' writes
// count as wrong answers too, as they are in the kernel. scan=all takes no
// answer from the mask, so its wrong-% is 0.
package idlemask
