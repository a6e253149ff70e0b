// Package sweep plans and runs a matrix of scenarios × variants × worker
// counts × placements.
//
// Build expands what the user asked for (a Matrix: a preset, or lists of
// scenarios, variants, thread counts and placements) into a Plan of Jobs,
// each a configuration this machine can host, with the CPUs its workers
// get, named as its results will be. Plan.RunAll runs the whole matrix once
// per round, Count rounds, so that slow drifts of the machine spread over
// every configuration instead of landing on one, and writes each result
// durably (results.File) before the next run; an interrupted sweep resumes
// where it stopped. Before the first run on a CPU set (the distinct CPUs,
// whatever the workers' order) it measures the set's core-to-core handoff
// floor (bench/c2c), so results also read as handoffs/op, and measures it
// again at the end: RunAll's Outcome lists the disturbed runs and every
// floor before and after, and its notes warn of any that moved (the host
// moved the CPUs under the sweep). Plan.Write prints a plan with every CPU
// list and Plan.Estimate's wall time before anything runs.
package sweep
