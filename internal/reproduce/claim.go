package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/reproduce/rankstat"
	"github.com/contend/contend/internal/results"
)

// nsPerOp is the time every run reports. The runner writes it itself, so no
// scenario declares it; benchfmt reads it back as sec/op.
var nsPerOp = bench.Unit{Name: "ns/op", Better: bench.Lower, Doc: "elapsed time over operations completed by all workers"}

// A Measure is one unit of one experiment: the figures a claim compares.
type Measure struct {
	X    Experiment
	Unit bench.Unit
}

// A Kind is what a claim says of its two measures.
type Kind int

const (
	// Lower: the after-median is at most the before-median divided by Min,
	// and the U test rejects (p < 0.05).
	Lower Kind = iota
	// Higher: the after-median is at least Min times the before-median,
	// and the U test rejects.
	Higher
	// Same: the 90% Hodges-Lehmann interval of after−before lies inside
	// ±Min of the before-median (an equivalence test).
	Same
	// Agree: a fairness check, not a hypothesis: the comparison is unfair,
	// and the finding not judged, when the two sides did measurably
	// different work (balances per tick, migrations per event): the
	// medians differ by more than Min of the before-median and the U test
	// rejects. A check guards the verdict against a difference in the work
	// done; noise in a workload count that the U test cannot tell from
	// chance is not such a difference.
	Agree
	// AtLeast is a claim on one measure, After (Before is unset): the 95%
	// confidence interval of its median (benchstat's, distribution-free)
	// lies at or above Min. It states a precondition of an effect, such as
	// "the flag is in the profile at all before the fix".
	AtLeast
	// NotBelow, a mechanism's guard: the after-median is at least Min (a
	// fraction, 0.9 is "90% of") of the before-median. A fix that does
	// less of its job than that does not count, however fast it is.
	NotBelow
	// NotAbove, a guard: the after-median is at most Min (a fraction,
	// 1.1 is "110% of") of the before-median: a fix may not
	// make what its job exists to keep low (a woken task's wait) much
	// worse.
	NotAbove
	// NoWorseBy, a guard: the after-median exceeds the before-median by
	// at most Min, in the unit's own terms (percentage points of an
	// error).
	NoWorseBy
	// Fewer and More, guards: the after-median is below (above) the
	// before-median: the fix still does what sets it apart (reads
	// skipped, a counter split per node).
	Fewer
	More
	// Ceiling and Floor, guards on one measure, After: its median is at
	// most (at least) Min.
	Ceiling
	Floor
)

// A Claim is one measured hypothesis: a quantity, a direction and a minimum
// effect size.
type Claim struct {
	What          string // the quantity, in a few words: "ns per event"
	Before, After Measure
	Kind          Kind
	// Min is the effect size: for Lower and Higher a factor ≥ 1 (1.2 is
	// "at least 1.2× lower"); for Same and Agree a fraction (0.05 is ±5%).
	Min float64
}

// criterion words the claim as the verdict line shows it.
func (c Claim) criterion() string {
	switch c.Kind {
	case Lower:
		return fmt.Sprintf("%s ≥%s× lower", c.What, trim(c.Min))
	case Higher:
		return fmt.Sprintf("%s ≥%s× higher", c.What, trim(c.Min))
	case Same:
		return fmt.Sprintf("%s within ±%s%%", c.What, trim(100*c.Min))
	case AtLeast:
		return fmt.Sprintf("%s ≥%s", c.What, trim(c.Min))
	case NotBelow:
		return fmt.Sprintf("%s ≥%s%% of %s's", c.What, trim(100*c.Min), c.Before.label())
	case NotAbove:
		return fmt.Sprintf("%s ≤%s%% of %s's", c.What, trim(100*c.Min), c.Before.label())
	case Ceiling:
		return fmt.Sprintf("%s ≤%s", c.What, trim(c.Min))
	case Floor:
		return fmt.Sprintf("%s ≥%s", c.What, trim(c.Min))
	case Fewer:
		return fmt.Sprintf("%s below %s's", c.What, c.Before.label())
	case More:
		return fmt.Sprintf("%s above %s's", c.What, c.Before.label())
	case NoWorseBy:
		return fmt.Sprintf("%s at most %s above %s's", c.What, trim(c.Min), c.Before.label())
	default:
		return fmt.Sprintf("%s agree within ±%s%%", c.What, trim(100*c.Min))
	}
}

func trim(x float64) string { return strings.TrimSuffix(fmt.Sprintf("%.4g", x), ".0") }

// An outcome is a claim judged on data.
type outcome struct {
	ok   bool   // the claim holds
	text string // what was measured: "ns per event 36.6 → 25.0 (1.46× lower, p=0.002)"
	// short says how a claim that does not hold fell short:
	// "1.199× lower, needs ≥1.2×", "not significant (p=0.31)".
	short string
	// na, when set, says why the claim could not be judged at all (no
	// results, too few runs); the other fields are then meaningless.
	na string
}

// measures returns the measures the claim reads.
func (c Claim) measures() []Measure {
	if c.onOne() {
		return []Measure{c.After}
	}
	return []Measure{c.Before, c.After}
}

// where names the experiments compared: "base → rate", or the one a claim
// on one measure reads.
func (c Claim) where() string {
	if c.onOne() {
		return c.After.label()
	}
	return c.Before.label() + " → " + c.After.label()
}

// onOne reports whether the claim reads one measure, After.
func (c Claim) onOne() bool { return c.Kind == AtLeast || c.Kind == Ceiling || c.Kind == Floor }

// judge decides a claim on samples before and after.
func (c Claim) judge(before, after []float64) outcome {
	switch c.Kind {
	case AtLeast:
		return c.judgeOne(after)
	case Ceiling, Floor:
		return c.judgeBound(after)
	}
	if len(before) == 0 || len(after) == 0 {
		return outcome{na: "no results"}
	}
	mb, ma := rankstat.Median(before), rankstat.Median(after)
	fig := fmt.Sprintf("%s: %s %s → %s %s", c.What, c.Before.label(), num(mb), c.After.label(), num(ma))
	switch c.Kind {
	case NotBelow:
		// Guards compare the medians alone: a mechanism's figures are
		// counts the code decides (found idle, balances per tick), not
		// noisy times, and a guard must not pass for want of runs.
		o := outcome{text: fig}
		if ma >= c.Min*mb {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s is %s%% of %s's, needs ≥%s%%", num(ma), trim(100*ma/mb), c.Before.label(), trim(100*c.Min))
		}
		return o
	case NotAbove:
		o := outcome{text: fig}
		if ma <= c.Min*mb {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s is %s%% of %s's, allows ≤%s%%", num(ma), trim(100*ma/mb), c.Before.label(), trim(100*c.Min))
		}
		return o
	case NoWorseBy:
		o := outcome{text: fig}
		if ma <= mb+c.Min {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s above %s's, allows %s", trim(ma-mb), c.Before.label(), trim(c.Min))
		}
		return o
	case Fewer, More:
		o := outcome{text: fig}
		if (c.Kind == Fewer && ma < mb) || (c.Kind == More && ma > mb) {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s, not %s", change(mb, ma), map[Kind]string{Fewer: "lower", More: "higher"}[c.Kind])
		}
		return o
	case Lower, Higher:
		if !rankstat.CanReject(len(before), len(after)) {
			return outcome{na: fmt.Sprintf("too few runs for %s (n=%d+%d; the U test needs 4+4 to reach p<%.2g)", c.What, len(before), len(after), rankstat.Alpha)}
		}
		p := rankstat.UTest(before, after)
		r := factor(mb, ma, c.Kind)
		o := outcome{text: fmt.Sprintf("%s (%s, %s)", fig, change(mb, ma), pstr(p))}
		word := "lower"
		if c.Kind == Higher {
			word = "higher"
		}
		switch {
		case !dirOK(mb, ma, c.Kind):
			o.short = fmt.Sprintf("%s, not %s", change(mb, ma), word)
		case p >= rankstat.Alpha:
			o.short = fmt.Sprintf("%s, not significant (p=%.2f)", change(mb, ma), p)
		case r < c.Min:
			o.short = fmt.Sprintf("%.4g× %s, needs ≥%s×", r, word, trim(c.Min))
		default:
			o.ok = true
		}
		return o
	case Same:
		_, lo, hi, finite := rankstat.ShiftCI(before, after, rankstat.EquivLevel)
		if !finite {
			return outcome{na: fmt.Sprintf("too few runs for %s (n=%d+%d) to bound a difference at %.0f%%", c.What, len(before), len(after), 100*rankstat.EquivLevel)}
		}
		if mb == 0 {
			return outcome{text: fig, short: "the before-median is 0: no ±% of it to be within"}
		}
		plo, phi := lo/math.Abs(mb), hi/math.Abs(mb)
		ci := fmt.Sprintf("90%% CI %s … %s", pct(plo), pct(phi))
		o := outcome{text: fmt.Sprintf("%s (difference %s, %s)", fig, pct((ma-mb)/math.Abs(mb)), ci)}
		if plo >= -c.Min && phi <= c.Min {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s reaches beyond ±%s%%", ci, trim(100*c.Min))
		}
		return o
	default: // Agree
		p := rankstat.UTest(before, after)
		o := outcome{text: fmt.Sprintf("%s (%s, %s)", fig, change(mb, ma), pstr(p))}
		if math.Abs(ma-mb) <= c.Min*math.Abs(mb) || p >= rankstat.Alpha {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s → %s, more than ±%s%% apart (p=%.3f)", num(mb), num(ma), trim(100*c.Min), p)
		}
		return o
	}
}

// judgeOne decides a claim on one measure's samples.
func (c Claim) judgeOne(xs []float64) outcome {
	if len(xs) == 0 {
		return outcome{na: "no results"}
	}
	sum := results.Summarize(slices.Clone(xs), nil, nil, 0.95)
	if math.IsInf(sum.Lo, 0) {
		return outcome{na: fmt.Sprintf("too few runs for %s (n=%d) to bound its median at 95%%", c.What, len(xs))}
	}
	o := outcome{text: fmt.Sprintf("%s: %s %s (95%% CI %s … %s)", c.What, c.After.label(), num(sum.Center), num(sum.Lo), num(sum.Hi))}
	if sum.Lo >= c.Min {
		o.ok = true
	} else {
		o.short = fmt.Sprintf("median %s, 95%% CI from %s, below %s", num(sum.Center), num(sum.Lo), trim(c.Min))
	}
	return o
}

// judgeBound decides a Ceiling or Floor guard on one measure's median.
func (c Claim) judgeBound(xs []float64) outcome {
	if len(xs) == 0 {
		return outcome{na: "no results"}
	}
	m := rankstat.Median(xs)
	o := outcome{text: fmt.Sprintf("%s: %s %s", c.What, c.After.label(), num(m))}
	switch {
	case c.Kind == Ceiling && m > c.Min:
		o.short = fmt.Sprintf("median %s, above %s", num(m), trim(c.Min))
	case c.Kind == Floor && m < c.Min:
		o.short = fmt.Sprintf("median %s, below %s", num(m), trim(c.Min))
	default:
		o.ok = true
	}
	return o
}

// factor is the size of a change in the claimed direction: before/after for
// Lower, after/before for Higher; +Inf for a fall to zero (or a rise from it),
// 0 when both are zero.
func factor(b, a float64, k Kind) float64 {
	if k == Higher {
		b, a = a, b
	}
	switch {
	case b == 0:
		return 0
	case a == 0:
		return math.Inf(1)
	}
	return b / a
}

func dirOK(b, a float64, k Kind) bool {
	if k == Higher {
		return a > b
	}
	return a < b
}

// change words a change of medians: "1.46× lower", "2.00× higher", "no
// change" (report.Ratio, which words every ratio of medians contend prints).
func change(b, a float64) string { return report.Ratio(b, a, "lower", "higher").String() }

func pstr(p float64) string {
	if p >= rankstat.Alpha {
		return fmt.Sprintf("~ p=%.2f", p)
	}
	return fmt.Sprintf("p=%.3f", p)
}

func pct(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }

// num prints a median with three significant figures.
func num(x float64) string { return fmt.Sprintf("%.3g", x) }

// label names the measure's experiment in criteria.
func (m Measure) label() string { return m.X.Label }
