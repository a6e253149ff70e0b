package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
)

// The gate of contend compare -fail-on: a CI job's question, "did this
// change make anything worse by more than PCT per cent?", answered so that
// an A/A comparison (the same binary on both sides) never fails.
//
// Two results files measured minutes apart cannot answer it: on a shared
// host the same binary's LoadAvg base read 261.7 ns ±3 %, then 76.7 ns,
// then 96.3 ns. A within-run confidence interval bounds the noise of one
// session, not the drift between two, so a U-test on two sessions' samples
// finds "significant" changes that are the host's. The gate therefore
// judges only columns measured in one session, interleaved round by round
// (contend ab alternates the old and new binaries, a sweep runs its whole
// matrix each round), where drift falls on both sides alike and the i-th
// sample of each column come from the same round: a pair. A metric fails
// when both hold:
//
//   - the median of the per-round changes new/old is worse than PCT;
//   - a sign test on those changes shows that more rounds were worse by
//     over PCT than chance allows: were the change at most PCT, each round
//     would be worse by more than PCT with probability at most ½, whatever
//     the noise's distribution, so P(Bin(n, ½) ≥ k) bounds the chance of k
//     or more of n rounds being so. Its level is α over the number of
//     metrics gated (Bonferroni), because a gate that checks 30 figures at
//     α = 0.05 each may cry wolf on up to four A/A runs in five
//     (1 - 0.95³⁰ = 0.79).
//
// Gated are the units with a known direction but the run's own figures
// (bench.RunUnits: the latency quantiles, the workers' spread), which on a
// shared host follow its scheduling more than the code (an A/A run's
// p99.9 read 0.15 to 26400 µs), unless -unit names them.
//
// The U-test of the tables (its p is printed beside) is not asked: it
// treats the two columns as unpaired samples, so drift within the session
// (the figures of the late rounds 3× the early ones) hides a real change
// from it, and drift between sessions makes one up.
//
// The pairing also cancels an order effect (the side run second after a
// warm cache or a frequency step): contend ab alternates which side runs
// first, so such an effect makes half the rounds worse and half better,
// which the sign test does not count as a change.

// A Gate is -fail-on's verdict on a report.
type Gate struct {
	// Paired says the columns were measured in one interleaved session
	// (Options.Paired); without it nothing is gated.
	Paired bool
	// Metrics is how many cells were gated (every compared cell of a
	// unit with a known direction, run figures only where -unit named
	// them), Pairs the fewest rounds one of them
	// pairs, and Level the sign test's level for each, α / Metrics.
	Metrics, Pairs int
	Level          float64
	// NeedPairs is the fewest pairs with which the sign test can reach
	// Level at all: with fewer the gate can fail on nothing.
	NeedPairs   int
	Regressions []Regression
}

// pairedChange is what the rounds of one compared cell say about its change
// against its base.
type pairedChange struct {
	n, worse   int     // pairs, and pairs worse than the threshold
	same       int     // pairs neither worse nor better (at threshold 0: equal)
	medianPct  float64 // median per-round change, %
	signP      float64 // P(Bin(n, ½) ≥ worse)
	comparable bool    // n > 0 and no base value is 0
}

// paired pairs c's samples with its base's, round by round (the i-th of
// each: their order in the file), and counts the rounds worse than pct in
// the unit's direction better.
func paired(c *cell, better int, pct float64) pairedChange {
	n := min(len(c.ordered), len(c.base.ordered))
	pc := pairedChange{n: n, comparable: n > 0}
	changes := make([]float64, 0, n)
	for i := range n {
		o := c.base.ordered[i]
		if o == 0 {
			pc.comparable = false
			return pc
		}
		ch := (c.ordered[i] - o) / math.Abs(o) * 100
		changes = append(changes, ch)
		switch w := ch * float64(-better); {
		case w > pct:
			pc.worse++
		case w >= -pct:
			pc.same++
		}
	}
	slices.Sort(changes)
	if n%2 == 1 {
		pc.medianPct = changes[n/2]
	} else if n > 0 {
		pc.medianPct = (changes[n/2-1] + changes[n/2]) / 2
	}
	pc.signP = binomTail(n, pc.worse)
	return pc
}

// binomTail is P(X ≥ k) for X ~ Bin(n, ½).
func binomTail(n, k int) float64 {
	if k <= 0 {
		return 1
	}
	p, c := 0.0, 1.0 // c = C(n, i)
	for i := 0; i <= n; i++ {
		if i >= k {
			p += c
		}
		c = c * float64(n-i) / float64(i+1)
	}
	return p / math.Pow(2, float64(n))
}

// needPairs is the fewest rounds n for which the sign test can reach level:
// all n rounds worse has probability 2⁻ⁿ.
func needPairs(level float64) int {
	n := 1
	for math.Pow(2, -float64(n)) >= level && n < 64 {
		n++
	}
	return n
}

// Gate judges every gated compared cell (a unit with a known direction,
// not a run figure unless Options.Units named it) for a regression of more
// than pct per cent, at the family-wise level alpha (see the note on the
// gate above). Without Options.Paired it gates nothing and says so.
func (rep *Report) Gate(pct, alpha float64) Gate {
	g := Gate{Paired: rep.paired}
	if !rep.paired {
		return g
	}
	names := rep.colNames()
	cands := rep.pairedCells(0)
	for _, cd := range cands {
		g.Metrics++
		if g.Pairs == 0 || cd.pc.n < g.Pairs {
			g.Pairs = cd.pc.n
		}
	}
	if g.Metrics == 0 {
		return g
	}
	g.Level = alpha / float64(g.Metrics)
	g.NeedPairs = needPairs(g.Level)
	for _, cd := range rep.pairedCells(pct) {
		mc := cd.row.cols[cd.col]
		medWorse := cd.pc.medianPct * float64(-cd.row.better)
		if !cd.pc.comparable || medWorse <= pct || cd.pc.signP >= g.Level {
			continue
		}
		g.Regressions = append(g.Regressions, Regression{Metric: cd.row.metric, Base: cd.row.cols[0].center, New: mc.center,
			DeltaPct: mc.deltaPct, P: mc.p, Column: names[cd.col],
			Paired: true, PairedPct: cd.pc.medianPct, Pairs: cd.pc.n, Worse: cd.pc.worse, SignP: cd.pc.signP})
	}
	return g
}

// A pairedCell is a gated compared cell and what its rounds say against
// its base.
type pairedCell struct {
	row mailRow
	col int
	pc  pairedChange
}

// pairedCells returns the gated compared cells (units with a known
// direction, not run figures unless -unit named them), their rounds paired
// and counted worse than pct.
func (rep *Report) pairedCells(pct float64) []pairedCell {
	var cells []pairedCell
	rows := rep.mailRows()
	ri := 0
	for _, t := range rep.tables {
		for _, row := range t.rows {
			mr := rows[ri]
			ri++
			if t.better == 0 || !rep.unitsNamed && runUnit(t.unit) {
				continue
			}
			for i, col := range t.cols {
				c := t.cells[cellKey{row, col}]
				if i == 0 || c == nil || c.base == nil {
					continue
				}
				cells = append(cells, pairedCell{mr, i, paired(c, t.better, pct)})
			}
		}
	}
	return cells
}

// WritePaired writes what a paired report's rounds say, one line per gated
// metric and compared column: the median per-round change against the base
// column, and in how many rounds it was worse and better. It is what the
// tables' unpaired intervals and U-tests cannot show under drift.
func (rep *Report) WritePaired(w io.Writer) error {
	if !rep.paired {
		return nil
	}
	names := rep.colNames()
	var g textGrid
	g.add("paired by round", "", "median change", "rounds worse", "better", "of")
	for _, cd := range rep.pairedCells(0) {
		if !cd.pc.comparable {
			continue
		}
		better := cd.pc.n - cd.pc.worse - cd.pc.same
		g.add(cd.row.metric, names[cd.col], fmt.Sprintf("%+.1f%%", cd.pc.medianPct), strconv.Itoa(cd.pc.worse), strconv.Itoa(better), strconv.Itoa(cd.pc.n))
	}
	var out strings.Builder
	g.write(&out, "", []bool{false, false, true, true, true, true}, []int{0, 2, 2, 2, 2, 2})
	_, err := io.WriteString(w, out.String())
	return err
}

// pairedString is the paired part of a regression's line.
func (r Regression) pairedString() string {
	if !r.Paired {
		return ""
	}
	return fmt.Sprintf("; paired by round: median %+.1f%%, %d of %d rounds worse, sign test p=%.2g", r.PairedPct, r.Worse, r.Pairs, r.SignP)
}

// runUnit says whether a tidied unit is one of the run's own figures
// (bench.RunUnits), which the gate leaves out unless -unit names them.
func runUnit(unit string) bool {
	return slices.ContainsFunc(bench.RunUnits, func(u bench.Unit) bool { return results.TidyUnit(u.Name) == unit })
}
