// Package reproduce replays the seed threads' findings and judges them, so
// that a verdict is only "yes" where the same code would have said "no" had
// the effect not been there.
//
// A Finding states its claim as measured hypotheses (claim.go): a quantity
// (one unit of one experiment before and after), a direction, and a minimum
// effect size, which is the weakest reading of the seed's own figure for the
// variants compared. An effect holds when the ratio of medians reaches that
// size and benchstat's Mann-Whitney U test rejects at 0.05; "no effect"
// holds when the 90% Hodges-Lehmann interval of the difference lies inside
// the margin (an equivalence test, stats.go says why this interval). "yes"
// and "partly" are lists of such claims (finding.go); figures that the
// configuration fixes (a configured interval, bits counted by arithmetic)
// are shown beside them and never decide. The findings themselves, with the
// evidence for each size, are in findings.go; the configurations they run,
// in one place to re-point when a scenario renames a preset, in
// experiments.go.
//
// Running and judging are separate. Env.Plan gathers every finding's
// experiments into one sweep; Env.Judge reads results back, from that sweep
// or from any reproduce run's file (EnvFromResults recovers the worker count,
// placement and machine it ran on), and returns one Row per finding: the
// seed's figure, the criterion in one line, what was measured and whether
// the finding holds. The tests feed the judge made-up runs on both sides of
// every threshold.
package reproduce
