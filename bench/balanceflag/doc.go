// Package balanceflag is the scenario "balanceflag": sched_balance_running,
// the one global word that serializes load balancing of the NUMA-level
// (SD_SERIALIZE) domains, and the order in which sched_balance_domains()
// reaches it (seed 002: Tim Chen, "Acquire sched_balance_running only when
// needed", upstream 3324b2180c17 and 522fb20fbdbe).
//
// Before the fix every balance softirq whose domain walk reached a
// serialized level did
//
//	if (atomic_cmpxchg_acquire(&sched_balance_running, 0, 1))
//		goto out;
//	if (time_after_eq(jiffies, sd->last_balance + interval)) {
//
// due or not, designated or not; on a 2-socket Granite Rapids 7.8% of all
// cycles went to that lock cmpxchg (99.39% of sched_balance_domains()'s
// samples). After it, the cmpxchg sits in sched_balance_rq() behind the
// interval check (the caller) and should_we_balance(): a test and
// test-and-set, where the test is per-CPU state (PeterZ's second patch
// sends newidle balancing through it too). The scenario measures what the
// flag costs in each order, here and simulated on the seed's 512 CPUs.
//
// # What it models
//
// Each CPU walks its own copy of its sched_domains on the kernel clock, one
// tick (a jiffy, hz=) at a time. The kernel's functions are bench/ksim's,
// written once for every scenario; this package adds the flag and the
// costs, hooked into ksim's walks (domain.go's walk, a ksim.Balancer):
//
//   - the domains as sd_init() and sched_init_numa()
//     (kernel/sched/topology.c) build them: SMT, LLC (MC), with snc= above 1
//     the socket's NUMA level, and the level of every node, each NUMA level
//     SD_SERIALIZE (topo.go, over ksim.Grid and Machine.Build);
//   - sched_balance_trigger()'s test and the softirq,
//     sched_balance_domains() (rebalance_domains() before v6.10;
//     ksim.Kernel.BalanceDomains), with get_sd_balance_interval()
//     (Kernel.BalanceInterval: busy_factor 16, the busy "-1", the clamp to
//     max_load_balance_interval) and balance_interval doubling to
//     max_interval on every pass that moves nothing;
//   - should_we_balance() (Kernel.ShouldWeBalance) over the group's idle
//     pattern, drawn per CPU and tick by a hash every CPU computes alike
//     (ksim.TickIdle), so no worker reads another's line;
//   - sched_balance_newidle() (Kernel.NewidleBalance) with
//     update_next_balance() and the need_decay walk (update_newidle_cost());
//     its avg_idle cutoff needs the walk's time, so only the simulation has
//     it;
//   - in the simulation, the nohz balancer: nohz_balance_enter_idle() and
//     exit, nohz_balancer_kick() with its reasons in the kernel's order,
//     find_new_ilb() and _nohz_idle_balance() (ksim.Nohz).
//
// A balancing pass (update_sd_lb_stats() over the span) costs cs= per CPU
// of the span. order= is where the flag is taken: cmpxchg-first (before
// 3324b2180c17), check-first (after it), check-first+newidle (after
// 522fb20fbdbe too).
//
// It runs two ways. The benchmark pins one worker a CPU, each a CPU of the
// simulated machine (the first CPU of each node, the changelog's racers),
// taking the real flag with the kernel's LOCK CMPXCHG and releasing it with
// release= (mov on amd64 and stlr on arm64, the kernel's
// atomic_set_release; xchg, dmb and store for comparison), ticks back to
// back (pace=off) or at the kernel's rate (pace=on). Simulate (contend
// simulate balanceflag) runs every CPU of a machine of any size as a
// coroutine on one thread, on kernel time, the flag's line a FIFO server
// priced at -cas a handoff (by default this machine's, bench/c2c), idle CPUs
// balanced by the nohz balancer: what the seed's machine spends on the flag,
// which a small machine's workers cannot show. SimulateNohz (-nohz) counts
// the nohz struct's lines per second before and after 5d86d542f68f.
//
// # Keys and metrics
//
// contend list balanceflag (docs/scenarios.md) gives every key and metric
// with its meaning, from the registry: the flag's cmpxchg and its fails,
// passes, hold time and the workers' share on the flag (the seed's 7.8 % of
// cycles), per tick and per second of kernel time, per serialized level.
//
// docs/balanceflag.md is the reference: the model in detail, the
// simulation's knobs and the figures they move, the cost of a pass, pacing,
// the release instruction, the rows contend kernel model holds against the
// lab's kernels with the mechanisms still missing (idle intervals for
// ksim's tick-stop governor; the kick's nr_running and capacity reasons,
// which need a runqueue), and every metric's definition.
package balanceflag
