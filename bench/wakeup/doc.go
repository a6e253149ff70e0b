// Package wakeup is the scenario "wakeup": seed 004, Peter Zijlstra's
// "simpler wake_affine()" and Eric Farman's test of it in an s390x KVM
// guest (September 2017). The patch replaces 4.13's wake_affine_llc(),
// which judged a cross-LLC wakeup on sd_llc_shared's statistics, with
//
//	if (idle_cpu(this_cpu))
//		affine = true;
//	else if (sync && cpu_rq(this_cpu)->nr_running == 1)
//		affine = true;
//
// and Eric measured "guest cpu migrations decreased significantly, from
// ~27K to ~2K over 5 seconds" (4.13.0 + 90001d67be2f + a731ebe6f17b, an
// oltp sysbench run) and sysbench oltp 5655 → 9618 transactions/s
// (next-20170926, without and with the patch).
//
// The package is a model of the kernel around that decision, on kernel
// time (contend simulate wakeup), and a pinned benchmark that replays the
// model's schedule on real cpus so that the moves it makes are priced by
// the machine's caches (BenchmarkWakeup; the replay itself is package
// bench/wakeup/replay). Nothing in it is set from the
// figures it is to reproduce: the before and after migrations and
// throughput are outputs; every default says where it comes from
// (SimConfig).
//
// The scheduler is bench/ksim's: runqueues and tasks (ksim.RQ, ksim.Task),
// the domains, the wakeup path (select_task_rq_fair() with each version's
// wake_affine() and select_idle_sibling(), ksim.Kernel naming the
// version), wakeup preemption on each cpu's vruntimes, the balance
// walks, nohz's kick and idle balance, the governor's tick stop and PELT. This package adds what is the seed's
// own (sched.go, fair.go, balance.go, domains.go): sd_llc_shared's LLC
// statistics that 4.13's wake_affine_llc() reads (90001d67be2f), each
// version's find_busiest_group(), the migrations counted by cause
// (perf's cpu-migrations, the seed's "guest cpu migrations"), an idle
// vCPU's wakeup cost; it runs package bench/wakeup/sysbench's workloads:
// sysbench oltp's clients and MySQL's server threads waking each other
// with WF_SYNC, and sysbench's threads test. The topologies are the
// seed's guest as read (s390: no topology facility before
// KVM_CAP_S390_CPU_TOPOLOGY, Linux 6.0, so DIE alone and no sd_llc),
// s390 with the facility (s390llcN) and x86 LLCs (llcN); -figures runs
// the seed's four figures beside the seed's numbers (package
// bench/wakeup/figures).
//
// contend kernel wakeups and wakeups-model hold the model's 6.1 path
// against the lab's Debian 6.1 (internal/oracle.WakeupModelConfig says
// what is fed from the guest's count, and WakeupTolerance why ×2).
//
// docs/wakeup.md is the reference: the model in detail, the workload and
// its defaults, the topologies, the threads test, the figures, what the
// model finds (no topology reproduces the seed's figures; on s390 before
// the patch no wakeup migrates at all), its simplifications and what each
// moves, the 6.1 check's verdict, and the pinned benchmark's metrics.
package wakeup
