// Package counter implements tg->load_avg, the Linux scheduler's task-group
// load counter, in the four storages seed 000's thread argues over,
// together with the kernel code around it: PELT, a cfs_rq's
// update_load_avg() with its gating of update_tg_load_avg() (the write
// path), update_cfs_group()'s calc_group_shares() (the read path), the
// removed-load handoff of wakeup migrations, and every patch the thread
// tried on them.
//
// On a 2-socket, 224-CPU Sapphire Rapids, update_cfs_group() and
// update_load_avg() took 13.75% and 10.63% of all cycles in
// postgres_sysbench, "mostly spent on accessing tg->load_avg with
// update_load_avg() being the write side and update_cfs_group() being the
// read side". This package makes those two sides real so that bench/ can
// drive them from pinned workers and a user can replay the argument with
// numbers from their own machine.
//
// # Storages
//
// A Store is the shared half, one per task group:
//
//   - Atomic: one atomic int64 alone on its cache line, the kernel since
//     Deng Pan's re-layout (the base of the thread).
//   - FalseShare: the same atomic sharing its line with tg->shares, which
//     every calc_group_shares() reads, the kernel before that re-layout,
//     so the price of false sharing shows.
//   - PerNode: one slot per NUMA node in a page of that node's memory
//     (patch 2, "Make tg->load_avg per node"). Writers add to their node's
//     slot; the reader sums the slots walking the node mask, bounded by
//     nr_node_ids or, as v1 ran, over all MAX_NUMNODES bits as
//     for_each_node did before PeterZ's nodemask fix. Placement reports
//     where each page really landed.
//   - PerCPU: one slot per CPU and a summing reader, percpu_counter's
//     shape: beyond the thread, the other end of the trade (free writes,
//     reads that touch every CPU's line).
//
// Every hot word lives in memory this package maps itself (see mem_linux.go)
// so that it is truly line-aligned; Layout reports the addresses and
// Layout.Check asserts at run time that no two hot words share a line.
// Stores must be closed: their memory is outside the Go heap.
//
// # The kernel's paths
//
// A CfsRq is one CPU's cfs_rq of the group, owned by one worker; an Entity
// is a task's sched_entity. Their PELT (pelt.go) is the kernel's, in
// integer arithmetic: 1024 ns units, periods of 1024 units, y^32 = 1/2
// through runnable_avg_yN_inv, sums decayed in whole periods and averages
// recomputed only when a period boundary is crossed. Time is an argument,
// the caller's model clock in kernel time.
//
//   - Enqueue and Dequeue are enqueue_task_fair() and dequeue_task_fair()
//     of a task of a group one level under the root: update_load_avg() of
//     the task's entity (attach of a migrated task, detach of one leaving
//     while queued, the cfs_rq's PELT with any removed load drained),
//     then update_cfs_group() of the group entity.
//   - Tick is entity_tick(), UpdateBlocked is __update_blocked_fair() for
//     a CPU that runs nothing of the group.
//   - NewCfsRqPath makes the cfs_rqs of a task's group and its ancestors
//     on one CPU (group.go), each level with its own tg->load_avg store,
//     contribution, rate limit and group entity: the leaf's Enqueue,
//     Dequeue, Tick and UpdateBlocked then walk every level as
//     for_each_sched_entity() does, propagate moved load upwards
//     (add_tg_cfs_propagate(), propagate_entity_load_avg(),
//     update_tg_cfs_load()) and reweight each group entity on its parent
//     (reweight_entity() with calc_group_shares()'s answer).
//   - RemoveEntityLoadAvg is what a remote CPU does when it wakes a task
//     that slept on this cfs_rq elsewhere: sync its load to the cfs_rq's
//     last_update_time and add it to cfs_rq->removed under the removed
//     lock, for the owner to drain at its next update. This is the one
//     part of a CfsRq that other goroutines write.
//
// update_load_avg() calls update_tg_load_avg() only on attach, on detach,
// when the sums crossed a period boundary, and when removed load was
// drained, as the kernel does (Stats counts each). The write path,
// updateTGLoadAvg, and the read path, calcGroupShares, are kept out of
// line under the kernel's names so that perf annotate finds them. The
// policies:
//
//   - write=every: push the delta when |delta| > contrib/64, the kernel's
//     long-standing threshold.
//   - write=threshold=N: the same with contrib/N (Vincent Guittot: "maybe
//     increase it to 6%?", that is N=16).
//   - write=ratelimit=D: at most one push per D per cfs_rq on the cfs_rq's
//     clock (the fix that was merged, 1528c661c24b; D=1ms there).
//   - write=delay: patch 3: drained removed load no longer makes
//     update_load_avg() call update_tg_load_avg(); it reaches the group
//     with the next attach, detach or period crossing.
//   - read=every: update_cfs_group() wherever the kernel calls it.
//   - read=skip: patch 4: not in dequeue_entity() of the group entity, and
//     not in its enqueue_entity() when the root cfs_rq is empty.
//   - read=onein=K: not from the thread; calc_group_shares() on one event
//     in K by count, to take reads out of a write-heavy measurement.
//
// A Variant is a storage, a write policy, a read policy and the per-node
// reader's scan, named in benchmarks as
// "store=pernode/write=ratelimit/read=skip/scan=bounded"; the thread's
// labels are presets (PresetTable): v1's node, delay and skip (patches 2,
// 2+3, 2+3+4, for_each_node over MAX_NUMNODES), v2's rate, rate+skip and
// rate+skip+node (the v2 rows "rate", "skip" and "node", each on top of
// the one before), and base.
//
// Nothing here reads a clock, pins a thread or starts a goroutine: time is
// an argument, placement is the caller's, so every path is testable with
// an injected clock and the scenario decides how events are driven (CfsRq
// can time its two paths with a clock the caller passes, see Time).
package counter
