// Package rqlayout is struct rq's hot field groups laid out as before and
// after Blake Jones's reorder (89951fc1f820, "sched: Reorder some fields in
// struct rq", merged for 6.20 in 2026-01), registered as the scenario
// "rqlayout".
//
// # The kernel
//
// struct rq (kernel/sched/sched.h) is the per-cpu runqueue. A fleet profile
// at Google put the cycles spent on its fields at 50 % on the lock (__lock,
// always a read-modify-write), 39 % on the fields pick_next_task_fair()
// reads (nr_running, nr_numa_running, nr_preferred_running, ttwu_pending,
// cpu_capacity, curr, idle; 38 loads per store), 8 % on the clock fields
// (clock, clock_task, clock_pelt, ...; 5:1) and 3 % on the rest. Before the
// commit the lock shared line 0 with nr_running and the NUMA counters,
// ttwu_pending sat on line 1 behind nohz_csd, curr and idle on a line after
// cfs, rt and dl, beside next_balance, prev_mm, clock_update_flags and
// clock (clock_task starts the next, ____cacheline_aligned, line), and
// cpu_capacity further on, after rd and sd. After it, the pick_next fields
// fill line 0, __lock is ____cacheline_aligned on line 1, and clock and
// clock_update_flags join clock_task's line. The commit measured 4.6 %
// fewer scheduler cycles on Haswell and about 5 % on Power11.
//
// # What runs
//
// Each worker owns one rq, laid out with the kernel's 64-byte lines at the
// offsets above (layout=before|after; the exact offset of curr and
// cpu_capacity before the commit depends on the config, and here they sit
// on lines 16 and 24, where neither shares a line or a 128-byte prefetched
// pair with another group). Every operation is one __schedule() on the
// worker's own rq: it takes the rq's lock (a compare-and-swap on the lock
// word, spinning on a load while another holds it: the queued spinlock's
// uncontended path and its wait), writes clock and clock_task
// (update_rq_clock()), reads the seven pick_next fields, and when a woken
// task is queued (nr_running above zero) runs it: nr_running is
// decremented (the task runs and sleeps again) and curr written. Every
// picks= operations the worker also wakes a task onto the next worker's rq
// (worker i onto i+1, the last onto the first; a lone worker onto its
// own), as try_to_wake_up() does for a cpu in its LLC (ttwu_queue() without
// the wakelist): it takes that rq's lock, writes its clock
// (update_rq_clock()), increments nr_running (ttwu_do_activate()) and
// reads curr (wakeup_preempt()). So remote wakers write the lock's line
// and the clock and nr_running while the owner reads the pick_next fields:
// before the reorder, the lock shares the owner's pick line and the
// waker's clock write lands on curr's.
//
// picks=16 is from the commit's 38:1 load:store ratio on the pick_next
// group: a pick reads its seven fields, and each wakeup stores three (the
// waker's increment, the owner's decrement and its write of curr), so 16
// picks per wakeup is 112 loads to 3 stores, 37:1. work= adds local work
// to every operation.
//
// # Metrics
//
// pick-lines is the lines the pick reads (4 before, 1 after) and
// woken-pick-lines those of them a wakeup writes (the lock's, nr_running's
// and clock's lines), both by construction; lock-spins/op counts the loads
// spent waiting for a held rq lock, per operation, and wakeups/op the
// remote wakeups made. Finish checks that every wakeup was either run or
// is still queued (nr_running), and every lock is free.
package rqlayout
