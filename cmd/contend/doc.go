// Contend measures cache-line contention in the Linux scheduler's hot shared
// data structures, re-implemented in Go and run on pinned workers.
//
// Usage:
//
//	contend <command> [flags] [arguments]
//
// Every command that runs something pins one worker goroutine per CPU
// (LockOSThread, sched_setaffinity, verified with getcpu, and checked after
// every batch during the run with RDTSCP's TSC_AUX where the kernel keeps it
// trustworthy, else the thread's rseq area's cpu_id, else getcpu), releases
// the workers together, and stops them all when the first one finishes. Results are written in the Go benchmark format,
// so benchstat reads them unmodified.
//
// # Looking at the machine
//
//	contend topo [-sysfs DIR] [-fake-nodes K] [-json]
//
// prints nodes and their CPUs, nr_node_ids beside the node count, the distance
// matrix, last-level-cache groups, SMT siblings, the cache line and the CPUs
// this process may use. -sysfs reads another machine's sysfs tree;
// -fake-nodes K splits this machine's CPUs into K fake nodes, and every output
// made on them says "fake-K".
//
// # Running one configuration
//
//	contend list [SCENARIO]
//	contend run SCENARIO [-variant V] [-threads N] [-place P | -cpus LIST] [-duration D | -ops N] [-count N] [-o FILE]
//
// list shows the scenarios (atomicadd, balanceflag, cpumask, idlemask,
// loadavg, nodemask, rqlayout, wakeup), their variant keys with each one's
// values and default, the metrics each reports and its hot functions, the
// symbols scripts/perf-annotate.sh annotates (list -json's hot_symbols). run
// prints one benchmark-format result on stdout and a readable summary on
// stderr: throughput, latency percentiles, how evenly the workers progressed,
// and a WARNING naming any worker that lost its CPU for more than 2% of the
// run; its fixed duration is made for perf record (see
// scripts/perf-annotate.sh). Placements are compact, spread, cross and smt, or
// an explicit CPU list.
//
// # Sweeps and their results
//
//	contend sweep [-quick | -full] [-scenarios LIST] [-variant LIST] [-threads LIST] [-place LIST] [-count N] [-o FILE] [-resume [-retry-failed]] [-plan]
//	contend table [-full-names] results.txt
//	contend compare [-format text|lkp|seed|markdown] [-fail-on PCT] old.txt new.txt | ab.txt
//	contend ab -old BIN -new BIN [-fail-on PCT] [sweep's -scenarios -variant -threads -place -count -duration] [-o ab.txt]
//	contend plot [-o out.svg] results.txt
//
// sweep runs a matrix of scenarios × variants × thread counts × placements
// (the quick preset unless -full), -count times, appending each result
// durably to FILE.partial and renaming it to FILE when the matrix is done;
// -resume continues an interrupted sweep, and -plan prints the matrix with
// every CPU list and the estimated wall time without running it (also for
// another machine's -sysfs tree). It also measures each CPU set's
// core-to-core handoff floor, before and after, and reports handoffs/op. A
// run that fails is recorded in the file as a comment line and the sweep
// goes on; it exits non-zero at the end, and -resume -retry-failed runs the
// failed configurations again. It ends with a summary: per scenario, the
// keys that vary, the median time per operation and its confidence interval
// at each thread count, the headline metric, and each fix against the
// scenario's baseline as N× faster or slower, with the U-test's verdict.
// When more than half of the cells include a disturbed run or never
// converged, its first line says the machine was busy, and what to do.
//
// table groups one file for reading, compare computes benchstat's statistics
// between files and names the configuration keys that differ; both label rows
// with the keys that vary only (-full-names keeps whole names). compare
// -format lkp writes the 0-day robot's layout and -format seed the seeds'
// mail style, ready to paste into a mail, each in the file's own units with
// the tables' marks. A last line cut mid-write is left out and named.
//
// Two results files measured minutes apart on a shared host differ by more
// than either's interval (one binary's LoadAvg base read 261.7 ns, then
// 76.7 ns), so compare says it cannot tell their drift from a change, and
// -fail-on fails on neither. ab measures two binaries (two revisions, each
// go build -o'd) in one session: every round runs each configuration once
// on each side, back to back, the side that goes first alternating, into
// one file whose results carry a session id and their side. compare of that
// file (or -fail-on PCT, for a kernel CI job) pairs each round's old and new
// and fails only on a metric whose median per-round change is worse than
// PCT in more rounds than chance allows (a sign test at α 0.01 over the
// metrics gated), so an A/A run does not fail. cpu-ns/op, the time per
// operation the workers were on their CPUs, is the figure to gate on a
// shared host, where ns/op moves with the load. plot draws a panel per scenario
// (scaling curves, or dots per variant) or core-to-core heatmaps. run,
// sweep, table and compare print JSON with -json.
//
// # Models at the seeds' size
//
//	contend simulate loadavg [-cpus 224] [-levels 2] [-variants base,rate,...] [-sensitivity=false]
//
// replays the tg->load_avg model on N virtual CPUs on kernel time, on one
// thread, and prints the seed's table: tg->load_avg updates per 5 s before
// and after each patch, for each task-group level (2: the seed's docker
// container under system.slice, each level its own tg->load_avg) and
// summed, calls beside writes, and the error the readers pay; then the
// rate limit's error against tasks per cpu, task weight, levels and mig.
// Counts need no real CPUs; what contention costs does (run, sweep).
//
//	contend simulate balanceflag [-cpus 512] [-snc 2] [-busy 90] [-newidle 2] [-cas D]
//
// replays the balance-flag model on a machine of any size: every SD_SERIALIZE
// level, idle cpus balanced by the nohz balancer, newidle walks, and the
// flag's cache line as a queue whose handoff is this machine's (contend c2c
// -mode cas) unless -cas gives it; it prints cmpxchg attempts and fails per
// second per level and the flag's share of cycles before and after
// check-first, with its assumptions. -skew-tick, -jitter D,
// -newidle-per-tick K, -short-idle D (the avg_idle cutoff's input) and
// -cas-remote D (a cross-socket handoff) refine the model; with any of them
// it also prints what they move against the defaults.
// -idle-tick governor|stop|after-tick is the idle loop's tick rule: the
// default (a cpuidle driver's governor) and stop (no driver, before
// f4c31b07b136) stop an idle cpu's tick as it goes idle; after-tick (no
// driver, from f4c31b07b136: Debian 6.1.0-57, 6.12.118, 6.19 on) keeps it
// for the idle's first tick, which runs the cpu's own CPU_IDLE pass.
//
// # The physical limit
//
//	contend c2c [-mode rw|cas|all] [-cpus LIST] [-pairs auto|all|sample] [-home first|second|NODE] [-json | -bench]
//
// measures one-way handoff latency between pinned CPUs and summarizes it by
// topology class (SMT sibling, same LLC, same node, same package, cross
// package).
//
// # Replaying the seeds
//
//	contend reproduce [-quick | -full] [-fake-nodes K] [-o FILE] [-md FILE] [-resume] [-sim-share F] [-v]
//	contend reproduce -from FILE [-md FILE] [-sim-share F] [-v]
//
// runs the experiments behind the findings of the kernel threads contend is
// built on and leads with one table: each finding, its verdict and the
// reason in a line, then a tally. The verdicts keep apart what this run
// contradicts (no) from what this machine cannot show (not here: too few
// cpus or nodes, or a contention effect the seed measured on 192-512 cpus
// run at a handful of workers). -v prints after it, and the Markdown copy
// beside the raw results holds, each finding's seed figure, the criterion
// that decides it, what this machine measured and whether it holds here. An
// effect counts when the ratio of medians reaches the seed's own size and
// the U test (benchstat's) rejects; a claim of no effect when the 90%
// confidence interval of the difference lies inside its margin; figures the
// configuration fixes are shown but never decide. Each finding also names
// the mechanism its fix must keep (the idle mask must still find idle cpus,
// the flag's fix must still balance, a load_avg fix must keep tg_weight near
// the truth): a fix whose claims hold but that fails its guard is "no (wins
// by not ...)". Where the finding's model has a kernel-time simulation
// (findings 1, 6, 8, 9 and 14), it is judged a second time at the seed's
// machine size, with the simulation's assumptions named; -sim-share runs a
// share of each simulation's kernel time (0.25 with -quick, the default).
// The measured verdict stays the one the pinned run earned. -from judges an
// existing reproduce run's results file without running anything: the
// machine, worker count and placement come from the file.
//
// # The running kernel as the oracle
//
//	contend kernel sites [-root DIR] [-json] [-save DIR]
//	contend kernel count [-shape pipe|udp|migrate|server] [-pairs N] [-levels L] [-duration D] [-o FILE] [-json]
//	contend kernel model FILE...
//
// sites finds the contended writes in the running kernel's own text (BTF
// offsets, kallsyms, /proc/kcore, disassembled) and prints each as
// SYMBOL+0xOFF with its instruction, naming what it did not find and why,
// and the idle loop's form without a cpuidle driver (whether the tick
// stops at every iteration, before f4c31b07b136); -root reads a fixture
// instead of /, and -save writes what the finder read as one. count runs a workload in a cgroup-v2
// hierarchy, bare and then counted by hardware breakpoints and kprobes on
// those sites, and undoes every change it made (kprobes, cgroups,
// sched_schedstats) on exit, failure and SIGINT/SIGTERM; the next run
// removes what a killed one left; its results record the idle loop's
// form (kernel-idle-tick) and its asks to stop or keep the tick
// (idle-stop-asks/s, idle-retains/s), and the ticks that fire and those
// that find the cpu idle (ticks/s, idle-ticks/s). model feeds simulate loadavg the rates
// of count's results files and prints kernel, model and model/kernel. All
// need root; see the README for what they touch and cost.
package main
