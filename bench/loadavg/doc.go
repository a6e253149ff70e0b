// Package loadavg is the scenario "loadavg": tg->load_avg under fire, seed 000
// (Aaron Lu, "Reduce cost of accessing tg->load_avg", 2023, and its v2
// "ratelimit"). One task group spans every worker, each worker being the
// group's cfs_rq on one CPU, and its tasks wake and sleep on those CPUs,
// most wakeups on another CPU than the task slept on; the group sits
// levels=N levels below the root, each level a task group with its own
// tg->load_avg. Each operation is one event on one CPU, an enqueue or a
// dequeue, run through package counter's kernel code on every level:
// update_load_avg() (PELT, attach, removed load, propagation, and
// update_tg_load_avg() when the kernel calls it: the write path) and
// update_cfs_group() (calc_group_shares(): the read path).
//
// The seed's postgres_sysbench on 224 CPUs wrote tg->load_avg some 10
// million times in 5 s and spent 13.75% of its cycles in update_cfs_group()
// and 10.63% in update_load_avg(): every CPU's cfs_rq adds to one shared
// word that every CPU's calc_group_shares() reads. The scenario measures
// what those writes and reads cost on this machine's cache lines for each
// of the seed's patches, and what each patch costs in the readers' error
// (the tg_weight a cfs_rq computes from a tg->load_avg others have not yet
// updated).
//
// # What it models
//
// Each worker's cfs_rq runs on a model clock of kernel time (ktime.Clock),
// a fixed gap per event: PELT in the kernel's integer arithmetic
// (kernel/sched/pelt.c), entity_tick(), the 1 ms rate limit and the
// blocked-load updates run on it; nothing reads a wall clock to decide
// anything. What is real, at full speed: the atomic adds to tg->load_avg
// (or its per-node or per-CPU slots) and its reads, and a wakeup
// migration's cross-CPU traffic (the sleeper's lock,
// cfs_rq->avg.last_update_time, remove_entity_load_avg()'s
// cfs_rq->removed). Paced (pace=kernel), each worker runs at the kernel's
// event rate, so the paths' time is a share of a worker's as the seed's
// profile gives shares of cycles.
//
// The kernel functions, v6.5's kernel/sched/fair.c walked level by level as
// enqueue_task_fair() and dequeue_task_fair() walk them
// (counter.NewCfsRqPath): enqueue_entity()/dequeue_entity(),
// update_load_avg() with attach_entity_load_avg(),
// detach_entity_load_avg(), update_cfs_rq_load_avg()'s removed branch and
// propagate_entity_load_avg() (update_tg_cfs_load(), add_tg_cfs_propagate());
// update_tg_load_avg() gated by contrib/64 and, in v2, the 1 ms limit;
// update_cfs_group() with calc_group_shares() and reweight_entity();
// entity_tick(); __update_blocked_fair() with skip_blocked_update(). The
// levels default to two, Docker's system.slice/docker-<id>.scope under
// systemd's cgroup driver. The presets are the seed's rows
// (counter.PresetTable): v1's node (patch 2, per-node counters), delay
// (patch 3, drained removed load no longer writes) and skip (patch 4, no
// update_cfs_group() on a group entity's dequeue), v2's rate (the 1 ms
// limit, merged in v6.7) and its combinations, and base.
//
// Simulate (contend simulate loadavg) runs the same per-CPU code for any
// number of virtual CPUs on one thread in kernel-time order and prints the
// seed's table: writes per 5 s per preset and level, and the errors. Its
// pairs workload (SimConfig.Pairs, package bench/loadavg/pairs: the lab's
// pipe, migrate and udp shapes as tasks on ksim's runqueues, with the
// balance softirq, 6.12's
// DELAY_DEQUEUE, the context switches' updates and ksim.Governor's tick
// stops) is what contend kernel model feeds a lab count's measured rates
// and holds against the count.
//
// # Keys and metrics
//
// Keys: preset (the seed's rows), or its parts store (atomic, falseshare,
// pernode, percpu), write (every, threshold=N, ratelimit[=D], delay), read
// (every, skip, onein=K) and scan; clock (none, sched_clock, rq_clock: the
// rate limit's clock read), pace (none, kernel), gap (40us: the seed's
// 12,500 wakeups per CPU per second), mig (79: 11M migrations per 14M
// wakeups), tasks (2 per CPU), hz (1000), work, stride and levels (2).
//
// Per event: shared-writes/op, writes/op, reads/op, read-lines/op,
// load-moves/op; per CPU per second of kernel time,
// cfsrq-writes/kernel-sec (the seed's 10 million per 5 s on 224 CPUs is
// 8.9k); tgweight-err-% and shares-err-% (the readers' error against the
// true sum); write-path-% and read-path-% (the paths' share of a worker's
// time: the seed's profile), path-sec/op; idle-slots-% and local-slots-%.
// With levels above 1 each level's figures follow under l1-, l2-, l3-.
// Finish checks that the stopped group conserved every unit of load
// (cfsmodel.StoresConserved).
//
// docs/loadavg.md is the reference: what runs on kernel time and what is
// real, where each default comes from, the hierarchy and where the model
// simplifies it, every metric's definition, the simulation's figures at the
// seed's size, the pairs workload, and the model held against the kernel
// (where every input comes from, the rows still outside ×1.5 and the
// mechanism each lacks).
package loadavg
