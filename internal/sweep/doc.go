// Package sweep plans and runs a matrix of scenarios × variants × worker
// counts × placements.
//
// Build expands what the user asked for (a Matrix: a preset, or lists of
// scenarios, variants, thread counts and placements) into a Plan of Jobs,
// each a configuration this machine can host, with the CPUs its workers
// get, named as its results will be. The full preset runs the seeds' worker
// counts (bench.SeedRungs), not every power of two under every placement.
// Configurations whose workers get the same CPUs in the same order (one
// worker under any placement; every CPU in compact's order under cross)
// are one job whose run is recorded under each name (Job.Also). Plan.Fit
// trims a plan to a time budget, saying what it gave up.
//
// Plan.RunAll runs the whole matrix once per round, so that slow drifts of
// the machine spread over every configuration instead of landing on one,
// and writes each result durably (results.File) before the next run; an
// interrupted sweep resumes where it stopped. With a Target, rounds are
// adaptive: a job leaves the rounds once the 95% confidence interval of its
// median, as contend table computes it, is within the target (after
// MinRounds, the fewest samples with a 95% interval), or after Count; the
// file records each job's rounds and the interval it reached, and tables
// mark the jobs that never converged. Before the first run on a CPU set
// (the distinct CPUs, whatever the workers' order) it measures the set's
// core-to-core handoff floor (bench/c2c), so results also read as
// handoffs/op, and measures it again at the end: RunAll's Outcome lists the
// disturbed runs and every floor before and after, and its notes warn of
// any that moved (the host moved the CPUs under the sweep) and compare the
// wall time with the plan's estimate. Plan.Write prints a plan with every
// CPU list and Plan.Estimate's wall time, a range with adaptive rounds,
// before anything runs. Every result carries the sweep's session id
// (results.SessionKey): one sweep's configurations were interleaved round
// by round, which lets contend compare -fail-on pair them.
//
// Plan.RunAB (contend ab) runs the plan's jobs on two sides instead, two
// contend binaries, each round running every job once on each side back to
// back, the side that goes first alternating, so that the host's drift
// falls on both alike and each round's two results pair: the measurement a
// regression gate can trust on a shared host (see report.Gate).
package sweep
