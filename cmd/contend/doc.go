// Contend measures cache-line contention in the Linux scheduler's hot shared
// data structures, re-implemented in Go and run on pinned workers.
//
// Usage:
//
//	contend <command> [flags] [arguments]
//
// Every command that runs something pins one worker goroutine per CPU
// (LockOSThread, sched_setaffinity, verified with getcpu and sampled during the
// run with RDTSCP's TSC_AUX), releases the workers together, and stops them all
// when the first one finishes. Results are written in the Go benchmark format,
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
//	contend run SCENARIO [-variant V] [-threads N] [-place P | -cpus LIST] [-duration D | -ops N]
//
// list shows the scenarios (atomicadd, balanceflag, idlemask, loadavg,
// nodemask) and their variant keys. run prints one benchmark-format result on
// stdout and a readable summary on stderr; its fixed duration is made for
// perf record (see scripts/perf-annotate.sh). Placements are compact, spread,
// cross and smt, or an explicit CPU list.
//
// # Sweeps and their results
//
//	contend sweep [-quick | -full] [-scenarios LIST] [-variants LIST] [-threads LIST] [-place LIST] [-count N] [-o FILE] [-resume]
//	contend table results.txt
//	contend compare old.txt new.txt
//	contend plot [-o out.svg] results.txt
//
// sweep runs a matrix of scenarios × variants × thread counts × placements,
// -count times, appending each result durably to FILE.partial and renaming it
// to FILE when the matrix is done; -resume continues an interrupted sweep. It
// also measures each CPU set's core-to-core handoff floor and reports
// handoffs/op. table groups one file for reading, compare computes benchstat's
// statistics between files, and plot draws scaling curves or core-to-core
// heatmaps.
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
//	contend reproduce [-quick | -full] [-fake-nodes K]
//
// runs the experiments behind the seven findings of the kernel threads contend
// is built on and prints one table: the finding, the seed's figure, what this
// machine measured and whether it holds here, with the raw results and a
// Markdown copy of the table beside it.
package main
