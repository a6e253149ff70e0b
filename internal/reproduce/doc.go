// Package reproduce replays the seed threads' findings on this machine. Each
// finding names the experiments that test it (scenario configurations), and
// the rule that reads their results into a verdict. Env.Plan gathers every
// finding's experiments into one sweep; Env.Judge reads the results back and
// returns one Row per finding: the seed's figure, what this machine
// measured, and whether the finding holds here.
package reproduce
