// Package balanceflag is the scenario "balanceflag": sched_balance_running,
// the one global word that serializes load balancing of the NUMA-level
// (SD_SERIALIZE) domains, and the order in which sched_balance_domains()
// reaches it (seed 002: Tim Chen, "Acquire sched_balance_running only when
// needed", upstream 3324b2180c17 and 522fb20fbdbe).
//
// Before the fix every CPU whose domain walk reached the serialized level did
//
//	if (atomic_cmpxchg_acquire(&sched_balance_running, 0, 1))
//		goto out;
//	if (time_after_eq(jiffies, sd->last_balance + interval)) {
//
// on every pass, due or not, designated or not; on a 2-socket Granite Rapids
// 7.8% of all cycles went to that lock cmpxchg. After it, the cmpxchg sits in
// sched_balance_rq() behind the interval check (the caller) and
// should_we_balance(): a test and test-and-set, where the test is per-CPU
// state. PeterZ's second patch also sends newidle balancing through the flag.
//
// The model, per worker (a pinned CPU), one operation being one tick on which
// the balance softirq walks up to the serialized domain:
//
//   - jiffies are counted per worker, so the balancing work a worker owes is a
//     function of its own tick count (one pass per interval ticks), not of the
//     wall clock, and both orders owe the same work per tick;
//   - sd->last_balance and sd->balance_interval are the worker's own, on its
//     own cache line, as a CPU's sched_domain is per CPU;
//   - the interval is the kernel's get_sd_balance_interval() for a busy CPU in
//     a domain spanning all workers (sd_init: balance_interval = sd_weight ms,
//     doubling to max_interval = 2*sd_weight on each balanced pass, times
//     busy_factor 16, clamped to max_load_balance_interval = HZ*ncpus/10), at
//     HZ=1000, or a fixed interval=N;
//   - workers form groups of group=N consecutive workers and the first of each
//     is the designated balancer should_we_balance() picks for busy CPUs
//     (group_balance_cpu(sg) == env->dst_cpu); group=1 makes every worker a
//     leader, the CPUs the changelog says raced for the flag;
//   - the critical section is cs= steps of local arithmetic (the balancing pass
//     itself, sched_balance_find_src_group() and friends), with a checker that
//     counts two workers inside at once;
//   - with newidle=N every Nth tick the CPU also goes newly idle and balances
//     the serialized domain with no interval check; only
//     order=check-first+newidle sends that through the flag.
//
// The lower, unserialized domains are not modelled: their short intervals are
// why the softirq runs (rq->next_balance is the earliest due domain of any
// level), and work= stands for everything else a tick does. Nothing ever needs
// moving, so every pass ends balanced and the interval settles at its maximum.
//
// Beside ns/op it reports, per tick: cas/op, the cmpxchg attempts on the flag
// (exactly 1 before the fix); cas-fails/op, those that found it taken;
// balances/op and newidle-balances/op, the balancing passes actually done,
// which must match across orders for the ns/op comparison to be fair; and
// hold-ns/op, how long the flag was held (the median timed hold times the
// takes).
package balanceflag
