// Package sweep plans and runs a matrix of scenarios × variants × worker
// counts × placements.
//
// Build expands what the user asked for (a Matrix: a preset, or lists of
// scenarios, variants, thread counts and placements) into a Plan of Jobs,
// each a configuration this machine can host, named as its results will be.
// Plan.Run runs the whole matrix once per round, Count rounds, so that slow
// drifts of the machine spread over every configuration instead of landing
// on one, and writes each result durably (results.File) before the next
// run; an interrupted sweep resumes where it stopped. Before a CPU set's
// first run it measures the set's core-to-core handoff floor (bench/c2c),
// so results also read as handoffs/op, and measures it again at the end:
// Plan.RunAll's Outcome lists the disturbed runs and any floor that moved
// (the host moved the CPUs under the sweep). Plan.Write prints a plan with
// every CPU list and Plan.Estimate's wall time before anything runs.
package sweep
