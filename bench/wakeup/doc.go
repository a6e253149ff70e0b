// Package wakeup is the scenario "wakeup": the price of a migration at
// wakeup, seed 004 (Peter Zijlstra's "simpler wake_affine()" and Eric
// Farman's test of it in a KVM guest, September 2017): with the old
// wake_affine_llc(), which moved a wakee to the waker's LLC on stale LLC
// statistics, sysbench oltp saw "guest cpu migrations decreased
// significantly, from ~27K to ~2K over 5 seconds" and 5655 → 9618
// transactions/s once wake_affine() went back to
//
//	if (idle_cpu(this_cpu))
//		affine = true;
//	else if (sync && cpu_rq(this_cpu)->nr_running == 1)
//		affine = true;
//
// The contention side of that is what a task's working set costs when it
// follows the task to another cpu. This scenario makes that cost real and
// counts it: a woken task runs on the cpu a policy picks and reads and writes
// its whole working set there, pulling every line from the cache of the cpu
// that last wrote it.
//
// # The model
//
// Each worker is one cpu. A task is a set of cache lines: a header line (its
// task_struct's wakeup fields: state, task_cpu, the wake-list link) and
// lines= lines of working set. tasks= tasks are at home on each cpu: each is
// the partner of the waker that runs there (the mysqld thread of a sysbench
// client), starts asleep there, and has its memory first touched there. Each
// cpu has a runqueue line holding its wake list (rq->wake_list: a lock-free
// stack, pushed by remote wakers as __ttwu_queue_wakelist() does and emptied
// in one exchange as sched_ttwu_pending() does) and how many woken tasks wait
// on it.
//
// One operation is one wakeup made on the worker's cpu, by the waker that stays
// there (the client, a softirq), after the cpu has run whatever other cpus woke
// onto it:
//
//   - the waker wakes one of its own partners' tasks (a home wakeup) or, with
//     probability mig=, a task at home on another cpu picked at random (an
//     away wakeup: a client waking another client's server thread, an I/O
//     completion on the wrong cpu);
//   - it claims the task with a compare-and-swap of its state (a task already
//     awake makes the wakeup a no-op, as in try_to_wake_up());
//   - the policy picks the cpu it runs on; a pick other than where it last
//     ran is a migration (set_task_cpu);
//   - if the pick is this cpu the task runs at once; otherwise it is pushed
//     onto the pick's wake list and runs when that cpu next looks (no IPI:
//     every cpu polls its own list once an operation);
//   - a run increments one word in every line of the working set, a read
//     for ownership of each line: a hit where the task last ran, a transfer
//     from another cache where it did not. So the working set is handed back
//     and forth between the cpus that run the task, for real.
//
// The policies, in the kernel's terms (select_task_rq_fair):
//
//   - wake=affine: the waking cpu; wake_affine() said yes, as the old
//     wake_affine_llc() often did across LLCs. An away wakeup takes the task
//     to the away waker and its home's next wakeup brings it back, so about
//     2×mig% of wakeups migrate (2p(1-p) + p²(N-2)/(N-1) for p = mig/100 on
//     N cpus), and nothing is ever queued on another cpu.
//   - wake=prev: where the task last ran; wake_affine() said no, the
//     patch's "otherwise meh" for a busy waker. Nothing ever moves; every
//     away wakeup is a push onto the home cpu's wake list.
//   - wake=idle: select_idle_sibling(p, prev, this_cpu) with the waking cpu
//     busy (it runs the waker): prev if it shares the waker's LLC and is
//     idle, else the first idle cpu of the waker's LLC in for_each_cpu_wrap()
//     order from the cpu after the waker's, else the waker's own. Idle means
//     no woken task waits on it; each probe reads that cpu's runqueue line. A
//     task woken on its own busy cpu is moved to an idle sibling and then
//     stays there while the sibling looks idle; away wakers on another LLC
//     pull it into theirs.
//
// The realised shares depend on every cpu running: a worker the hypervisor
// deschedules leaves the tasks pushed onto it queued (away wakeups of them are
// no-ops) and the tasks its partners' wakers took away not brought back, so
// on a loaded host migrations/op falls below the share above. Every figure
// below is counted, so it says what the run did, whatever mig= asked for.
//
// What is not modelled: the waker's cpu never idles and no cpu sleeps, so the
// scenario has no IPI, no idle exit and no vCPU wakeup on a remote wakeup. In
// a guest those cost microseconds each and are very likely most of what the
// seed's 70% throughput gain bought; this scenario prices the cache side
// alone. A task's pages stay where they were first touched, so on a real
// multi-node machine a cross-node migration also leaves its memory remote,
// which only the first pull here shows.
//
// # Metrics
//
// ns/op is wall time per wakeup of the whole machine (the inverse of the
// wakeup throughput; one wakeup costs workers × ns/op of cpu time).
// Counted exactly, from the model's own bookkeeping (no hardware counters):
//
//   - migrations/op: wakeups that placed the task on another cpu than it
//     last ran on.
//   - lines-pulled/op: working-set lines a run pulled from another cpu's
//     cache: lines= for every run of a task that last ran elsewhere. The
//     handoff's own lines (the task's header, the wake list) are not in it:
//     remote-wakes/op counts the wakeups that used a wake list.
//   - cross-llc-%, cross-node-%: wakeups that moved the task to another LLC,
//     to another node. The classes are the affinity topology's: on a fake
//     topology (CONTEND_FAKE_NODES=2, labelled fake-2) the nodes are made
//     up and every cpu still shares the real caches and memory, so a
//     cross-node move there costs what a same-LLC move costs.
//   - noop-%: wakeups that found the task awake.
//
// Measured:
//
//   - sec/migration: the median time of a run of a task that moved less
//     that of a run of a task that stayed, one run in 16 of each kind timed
//     with two clock reads (the last 2048 of each kind per worker kept); the
//     price of one migration's pulls on this machine, at this working set.
//     Medians, because a timed run the hypervisor preempts takes
//     milliseconds and would swamp a mean. go test prints it in ns.
//   - seed-mig-cpu-%: that price times the 25K migrations per 5 s the seed's
//     patch saved, as a share of one cpu: what those migrations cost here.
//     It is 100 × 5000/s × sec/migration.
//
// On kernel time:
//
//   - migrations/5s: migrations in 5 s of kernel time when the machine makes
//     rate= wakeups a second. Each worker's kernel time is its wakeups ×
//     workers×1e9/rate ns (whole ns). rate=226000 is the seed's,
//     estimated: 5655 transactions/s × about 20 statements × 2 wakeups each,
//     1.13M wakeups in 5 s, of which the seed's 27K migrations are 2.4% and
//     its 2K 0.18%. At that rate wake=affine/mig=1.2 is about the 27K,
//     mig=0.09 about the 2K, and wake=prev/mig=1.2 is the patch: the same
//     wakers, nothing moved.
package wakeup
