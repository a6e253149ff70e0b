// Package counter implements tg->load_avg, the Linux scheduler's task-group
// load counter, in the four storages the kernel thread behind issue 3 argues
// over, together with the kernel's own write path (update_tg_load_avg) and
// read path (calc_group_shares) and every patch the thread tried on them.
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
//   - FalseShare: the same atomic sharing its line with read-mostly fields
//     that every event reads (ReadMostly), the kernel before that re-layout,
//     so the price of false sharing shows.
//   - PerNode: one slot per NUMA node in a page of that node's memory
//     (patch 2, "Make tg->load_avg per node"). Writers add to their node's
//     slot; the reader sums the slots walking the node mask, bounded by
//     nr_node_ids or, as an option, over all MAX_NUMNODES bits as
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
// A CfsRq is the private half: one per worker, standing for one CPU's
// cfs_rq of the group. It holds the cfs_rq's load (avg.load_avg,
// load.weight), what it last pushed into the group (tg_load_avg_contrib)
// and the state of the policies. Its write path, updateTGLoadAvg, and read
// path, calcGroupShares, are named after the kernel functions and kept out
// of line so that perf annotate finds them. The policies:
//
//   - write=every: push the delta when |delta| > contrib/64, the kernel's
//     long-standing threshold.
//   - write=threshold=N: the same with contrib/N (Vincent Guittot: "maybe
//     increase it to 6%?", that is N=16).
//   - write=ratelimit=D: at most one push per D per cfs_rq (the fix that was
//     merged; D=1ms there), the clock read once per event as the rq clock is.
//   - write=delay: patch 3, load removed by a migration is not pushed at once
//     but with the next update.
//   - read=every: compute the shares on every event.
//   - read=skip=K: patch 4, compute them on one event in K.
//
// A Variant is a storage, a write policy and a read policy, named in
// benchmarks as "store=pernode/write=ratelimit/read=every"; the thread's
// labels (base, node, delay, skip, rate, rate+node, rate+skip) are presets.
//
// Nothing here reads a clock, pins a thread or starts a goroutine: time is
// an argument, placement is the caller's, so every policy is testable with
// an injected clock and the scenario decides how events are driven.
package counter
