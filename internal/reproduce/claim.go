package reproduce

import (
	"fmt"
	"github.com/contend/contend/internal/reproduce/rule"
	"math"
	"slices"

	"github.com/contend/contend/bench"
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

// A Kind is what a claim says of its two measures (rule.Kind, whose
// constants say each).
type Kind = rule.Kind

// The kinds, as rule declares them.
const (
	Lower     = rule.Lower
	Higher    = rule.Higher
	Same      = rule.Same
	Agree     = rule.Agree
	AtLeast   = rule.AtLeast
	NotBelow  = rule.NotBelow
	NotAbove  = rule.NotAbove
	NoWorseBy = rule.NoWorseBy
	Fewer     = rule.Fewer
	More      = rule.More
	Ceiling   = rule.Ceiling
	Floor     = rule.Floor
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
func (c Claim) criterion() string { return rule.Words(c.Kind, c.What, c.Min, c.Before.label()) }

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
	fig := fmt.Sprintf("%s: %s %s → %s %s", c.What, c.Before.label(), rule.Num(mb), c.After.label(), rule.Num(ma))
	switch c.Kind {
	case NotBelow:
		// Guards compare the medians alone: a mechanism's figures are
		// counts the code decides (found idle, balances per tick), not
		// noisy times, and a guard must not pass for want of runs.
		o := outcome{text: fig}
		if ma >= c.Min*mb {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s is %s%% of %s's, needs ≥%s%%", rule.Num(ma), rule.Trim(100*ma/mb), c.Before.label(), rule.Trim(100*c.Min))
		}
		return o
	case NotAbove:
		o := outcome{text: fig}
		if ma <= c.Min*mb {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s is %s%% of %s's, allows ≤%s%%", rule.Num(ma), rule.Trim(100*ma/mb), c.Before.label(), rule.Trim(100*c.Min))
		}
		return o
	case NoWorseBy:
		o := outcome{text: fig}
		if ma <= mb+c.Min {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s above %s's, allows %s", rule.Trim(ma-mb), c.Before.label(), rule.Trim(c.Min))
		}
		return o
	case Fewer, More:
		o := outcome{text: fig}
		if (c.Kind == Fewer && ma < mb) || (c.Kind == More && ma > mb) {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s, not %s", rule.Change(mb, ma), map[Kind]string{Fewer: "lower", More: "higher"}[c.Kind])
		}
		return o
	case Lower, Higher:
		if !rankstat.CanReject(len(before), len(after)) {
			return outcome{na: fmt.Sprintf("too few runs for %s (n=%d+%d; the U test needs 4+4 to reach p<%.2g)", c.What, len(before), len(after), rankstat.Alpha)}
		}
		p := rankstat.UTest(before, after)
		r := rule.Factor(mb, ma, c.Kind)
		o := outcome{text: fmt.Sprintf("%s (%s, %s)", fig, rule.Change(mb, ma), pstr(p))}
		word := "lower"
		if c.Kind == Higher {
			word = "higher"
		}
		switch {
		case !rule.DirOK(mb, ma, c.Kind):
			o.short = fmt.Sprintf("%s, not %s", rule.Change(mb, ma), word)
		case p >= rankstat.Alpha:
			o.short = fmt.Sprintf("%s, not significant (p=%.2f)", rule.Change(mb, ma), p)
		case r < c.Min:
			o.short = fmt.Sprintf("%.4g× %s, needs ≥%s×", r, word, rule.Trim(c.Min))
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
			o.short = fmt.Sprintf("%s reaches beyond ±%s%%", ci, rule.Trim(100*c.Min))
		}
		return o
	default: // Agree
		p := rankstat.UTest(before, after)
		o := outcome{text: fmt.Sprintf("%s (%s, %s)", fig, rule.Change(mb, ma), pstr(p))}
		if math.Abs(ma-mb) <= c.Min*math.Abs(mb) || p >= rankstat.Alpha {
			o.ok = true
		} else {
			o.short = fmt.Sprintf("%s → %s, more than ±%s%% apart (p=%.3f)", rule.Num(mb), rule.Num(ma), rule.Trim(100*c.Min), p)
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
	o := outcome{text: fmt.Sprintf("%s: %s %s (95%% CI %s … %s)", c.What, c.After.label(), rule.Num(sum.Center), rule.Num(sum.Lo), rule.Num(sum.Hi))}
	if sum.Lo >= c.Min {
		o.ok = true
	} else {
		o.short = fmt.Sprintf("median %s, 95%% CI from %s, below %s", rule.Num(sum.Center), rule.Num(sum.Lo), rule.Trim(c.Min))
	}
	return o
}

// judgeBound decides a Ceiling or Floor guard on one measure's median.
func (c Claim) judgeBound(xs []float64) outcome {
	if len(xs) == 0 {
		return outcome{na: "no results"}
	}
	m := rankstat.Median(xs)
	o := outcome{text: fmt.Sprintf("%s: %s %s", c.What, c.After.label(), rule.Num(m))}
	switch {
	case c.Kind == Ceiling && m > c.Min:
		o.short = fmt.Sprintf("median %s, above %s", rule.Num(m), rule.Trim(c.Min))
	case c.Kind == Floor && m < c.Min:
		o.short = fmt.Sprintf("median %s, below %s", rule.Num(m), rule.Trim(c.Min))
	default:
		o.ok = true
	}
	return o
}

func pstr(p float64) string {
	if p >= rankstat.Alpha {
		return fmt.Sprintf("~ p=%.2f", p)
	}
	return fmt.Sprintf("p=%.3f", p)
}

func pct(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }

// label names the measure's experiment in criteria.
func (m Measure) label() string { return m.X.Label }
