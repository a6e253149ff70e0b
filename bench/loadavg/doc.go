// Package loadavg is the scenario "loadavg": tg->load_avg under fire, seed 000
// (Aaron Lu, "Reduce cost of accessing tg->load_avg", 2023): one task group
// spread over every worker, each worker being that group's cfs_rq on one CPU,
// each operation one enqueue or dequeue on it. An event is what the kernel
// does in enqueue_entity()/dequeue_entity(): read the clock (update_rq_clock),
// move the cfs_rq's own load (update_load_avg's PELT step and any attach or
// removed load), push it into the group (update_tg_load_avg, the write path)
// and recompute the group entity's weight (update_cfs_group →
// calc_group_shares, the read path). The storages and the two paths are
// package counter's; this file drives them from pinned workers and measures
// what they cost.
//
// # The load each cfs_rq carries
//
// Each cfs_rq has eight tasks of nice -2..2 (sched_prio_to_weight 1586, 1277,
// 1024 ×4, 820, 655). An event picks one with the worker's own xorshift PRNG,
// seeded by the worker's index so that every run draws the same sequence:
//
//   - a queued task is dequeued; with probability mig% its next wakeup is on
//     another CPU, so its share of the cfs_rq's load leaves (the kernel's
//     "removed" load, what write=delay puts off), else it sleeps here and its
//     load stays attached;
//   - a sleeping task wakes up here (enqueue);
//   - a task that left wakes up here again, having migrated back, and
//     brings the load it took away (attach_entity_load_avg).
//
// load.weight is the sum of the queued tasks' weights (scaled by
// NICE_0_LOAD's 10 extra bits); avg.load_avg (unscaled) is PELT's average of
// it over real time, half-life 32 periods of 1024us, stepped once per event
// from the clock read (the rq clock), plus the attach and removal steps.
// mig=79 is the seed's postgres_sysbench on SPR: "the wakeup number is
// 14millions and migration number is 11millions" in 5 s, 11/14 = 79%.
//
// Two things differ from the thread's machines and matter to err-% under
// write=ratelimit. Events here come every 50-150ns per CPU (about 40us there),
// so a millisecond of rate limit spans ten thousand events, not 25. In this
// model that matters less than it seems: a task's share moves on 79% of
// events, so even 25 events are enough for a cfs_rq's load to wander off what
// it last pushed, and what it holds back is about a third of its load either
// way. What matters more is that the thread's group spans 224 cfs_rqs whose
// held-back loads largely cancel in the sum, while here there are two:
// TestLoadAvgRateLimitAverages replays the model with a made-up clock and
// finds the group's error falling about as 1/sqrt(cfs_rqs), to near 2% at
// 224. The model's loads are also more restless than the thread's: it writes
// after nearly every millisecond (1000 writes/s per cfs_rq under the rate
// limit), where the thread's count, ~25k per 5s on 224 CPUs, is about 22.
//
// # Metrics
//
//   - shared-writes/op: read-modify-writes of a line some other worker also
//     writes. atomic and falseshare: every store write once two workers run.
//     pernode: the writes of workers whose node has another worker on it.
//     percpu: none (a slot per CPU), unless workers share a CPU. Stores from
//     outside package counter (the xsync reference) choose their own lines,
//     so the metric is left out for them.
//   - writes/op: all store writes, shared or not.
//   - read-lines/op: the counter lines the read path touches: one per read
//     for atomic and falseshare, one per node slot for pernode, one per CPU
//     slot (nr_cpu_ids of them) for percpu.
//   - err-%: the mean relative error between the tg->load_avg value the
//     latest calc_group_shares used (under read=skip=K possibly K-1 events
//     old) and the true sum of every cfs_rq's avg.load_avg just after. How
//     it is sampled: after its write path every worker publishes the pair
//     (avg.load_avg, tg_load_avg_contrib) as one word on a line of its own,
//     whenever it changed. Worker 0, once per about 1024×workers events (a
//     jittered interval, so that no skip=K phase is favoured), runs its
//     event, reads every other worker's pair, reads the store itself, and
//     reads the pairs again. It keeps the sample only if no pair moved and
//     the store holds exactly the sum of the published contributions, so
//     that the truth is a consistent cut of the group; a store write whose
//     pair is not yet visible fails that test instead of counting as error.
//     Cost: one locked store to a private line per event that changed the
//     pair; per sample, two misses per other worker and one Sum. With one
//     worker and a store that takes every change (write=threshold=1048576;
//     loads here stay far below 2^20) the error is exactly 0; with
//     write=every it is at most 1/63 (|delta| ≤ contrib/64).
//   - cfsrq-writes/s: store writes per second per cfs_rq, the unit of the
//     thread's "from some 10 millions during a 5s window to ~25k" on 224
//     CPUs: about 8900/s per cfs_rq before the rate limit, 22/s after.
//   - local-slots-%: for pernode, the share of node slots whose page the
//     kernel reports on the slot's node (0 on a fake topology); Notes has the
//     placement in words.
//
// The clock is time.Since on the monotonic clock (runtime nanotime through the
// vDSO), read once per event by every variant as update_rq_clock reads it once
// per enqueue; on the 2-vCPU KVM machine this was written on it costs about
// 25ns (BenchmarkLoadAvgClock), a floor under every event that dilutes
// ratios between storages.
package loadavg
