// Package c2c measures core-to-core latency, the physical floor under every
// contended number: the time one cache line takes to move from one CPU to
// another. Two pinned threads ping-pong a single line and the one-way handoff
// latency is the time of a batch of round trips divided by twice their number
// (a clock read per handoff would cost more than the handoff). Each pair
// yields many such samples; we keep the minimum (the machine's best case) and
// the median (what a contended structure meets), and always say which one a
// figure is.
//
// It is not a Scenario: a scenario runs N workers for a fixed share of
// operations and stops them all at the first finisher, while a ping-pong is
// exactly two threads in lockstep that must agree on when to stop and must
// hand back per-sample times. Measure therefore drives its own two pinned
// goroutines (see measure_linux.go), with the runner's rules: pinning verified
// at both ends, GOMAXPROCS ≥ 3, no GC during the measurement. Each end checks
// its cpu after every sample, outside the timed interval, with the runner's
// per-thread probe (affinity.ThreadProbe: TSC_AUX where trusted, else an rseq
// area registered on the thread, else getcpu; Result.Probe says which), and
// an end found elsewhere is an error that says whether its cpu went offline
// (affinity.OffCPU, the runner's wording).
//
// Pairs are described by topology class, nearest first, because a handful of
// pairs per class says almost everything an all-pairs matrix says and takes
// seconds instead of hours on a machine with hundreds of CPUs.
//
// The package also writes what it measured: text matrices and class
// summaries, JSON, and Go benchmark format for benchstat (report.go).
package c2c
