// Package rule is the vocabulary of contend reproduce's verdicts, split
// out of internal/reproduce: the verdicts, the kinds of claim and their
// words, and the decision on single figures that the findings' kernel-time
// simulations at the seeds' sizes are judged by (SimVerdict, Judge).
// internal/reproduce decides its claims on samples, with
// internal/reproduce/rankstat's tests, in the same kinds and words; this
// package decides them on one deterministic figure a side.
package rule

import (
	"fmt"
	"math"
	"strings"

	"github.com/contend/contend/internal/report"
)

// The verdicts a finding can get.
const (
	Yes    = "yes"
	Partly = "partly"
	No     = "no"
	NA     = "n/a here"
)

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

// Words words a claim of kind k on what, with minimum min, as the verdict
// line shows it; baseline names the before side where the kind compares
// against it ("≥90% of no mask's").
func Words(k Kind, what string, min float64, baseline string) string {
	switch k {
	case Lower:
		return fmt.Sprintf("%s ≥%s× lower", what, Trim(min))
	case Higher:
		return fmt.Sprintf("%s ≥%s× higher", what, Trim(min))
	case Same:
		return fmt.Sprintf("%s within ±%s%%", what, Trim(100*min))
	case AtLeast:
		return fmt.Sprintf("%s ≥%s", what, Trim(min))
	case NotBelow:
		return fmt.Sprintf("%s ≥%s%% of %s's", what, Trim(100*min), baseline)
	case NotAbove:
		return fmt.Sprintf("%s ≤%s%% of %s's", what, Trim(100*min), baseline)
	case Ceiling:
		return fmt.Sprintf("%s ≤%s", what, Trim(min))
	case Floor:
		return fmt.Sprintf("%s ≥%s", what, Trim(min))
	case Fewer:
		return fmt.Sprintf("%s below %s's", what, baseline)
	case More:
		return fmt.Sprintf("%s above %s's", what, baseline)
	case NoWorseBy:
		return fmt.Sprintf("%s at most %s above %s's", what, Trim(min), baseline)
	default:
		return fmt.Sprintf("%s agree within ±%s%%", what, Trim(100*min))
	}
}

// Trim prints a minimum or a share without a trailing ".0": 1.05, 90.
func Trim(x float64) string { return strings.TrimSuffix(fmt.Sprintf("%.4g", x), ".0") }

// Factor is the size of a change in the claimed direction: before/after for
// Lower, after/before for Higher; +Inf for a fall to zero (or a rise from it),
// 0 when both are zero.
func Factor(b, a float64, k Kind) float64 {
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

// DirOK reports whether a change from b to a goes the way k claims.
func DirOK(b, a float64, k Kind) bool {
	if k == Higher {
		return a > b
	}
	return a < b
}

// Change words a change of medians: "1.46× lower", "2.00× higher", "no
// change" (report.Ratio, which words every ratio of medians contend prints).
func Change(b, a float64) string { return report.Ratio(b, a, "lower", "higher").String() }

// Num prints a median with three significant figures.
func Num(x float64) string { return fmt.Sprintf("%.3g", x) }

// A SimVerdict is a finding judged a second time, on the kernel-time
// simulation of its model at the seed's machine size (contend simulate):
// the pinned run's verdict is what this machine earned with its few
// workers; this one says what the same model predicts on 224 or 512 cpus.
// A simulation is one deterministic run per side, so its claims compare
// the two figures against the finding's minimum, with no test of
// significance, and its guards are the pinned finding's.
type SimVerdict struct {
	Size      string // the simulated machine, in words
	Criterion string
	Measured  string
	Holds     string // Yes, Partly, No, or NA when the simulation failed
	WinsByNot string // as Row.WinsByNot
	Why       string
	// Assumptions are the simulation's inputs that the seed does not
	// give (a handoff's cost, the idle pattern), each with where its
	// value comes from.
	Assumptions []string
}

// Verdict words Holds as Row.Verdict does.
func (v *SimVerdict) Verdict() string {
	if v.WinsByNot != "" {
		return v.Holds + " (wins by not " + v.WinsByNot + ")"
	}
	return v.Holds
}

// A Figure is a claim on two simulated figures (one, for AtLeast): the
// same Kinds and minimums as reproduce's claims on samples, decided on the
// figures alone.
type Figure struct {
	What          string
	Before, After float64
	Kind          Kind
	Min           float64
	Doing         string // a guard's job, as reproduce's Guard.Doing
}

func (c Figure) criterion() string {
	// A guard's baseline is the claim's before side, which a Figure
	// does not name: "≥90% of the baseline's".
	return Words(c.Kind, c.What, c.Min, "the baseline")
}

// holds decides the claim; short says how it fell short.
func (c Figure) holds() (ok bool, short string) {
	b, a := c.Before, c.After
	switch c.Kind {
	case Lower, Higher:
		r := Factor(b, a, c.Kind)
		if !DirOK(b, a, c.Kind) {
			return false, Change(b, a)
		}
		if r < c.Min {
			return false, fmt.Sprintf("%s, needs ≥%s×", Change(b, a), Trim(c.Min))
		}
		return true, ""
	case AtLeast, Floor:
		if a < c.Min {
			return false, fmt.Sprintf("%s, below %s", Num(a), Trim(c.Min))
		}
		return true, ""
	case Ceiling:
		if a > c.Min {
			return false, fmt.Sprintf("%s, above %s", Num(a), Trim(c.Min))
		}
		return true, ""
	case NotBelow:
		if a < c.Min*b {
			return false, fmt.Sprintf("%s is %s%% of %s, needs ≥%s%%", Num(a), Trim(100*a/b), Num(b), Trim(100*c.Min))
		}
		return true, ""
	case NotAbove:
		if a > c.Min*b {
			return false, fmt.Sprintf("%s is %s%% of %s, allows ≤%s%%", Num(a), Trim(100*a/b), Num(b), Trim(100*c.Min))
		}
		return true, ""
	case NoWorseBy:
		if a > b+c.Min {
			return false, fmt.Sprintf("%s → %s, %s more, allows %s", Num(b), Num(a), Trim(a-b), Trim(c.Min))
		}
		return true, ""
	case Fewer:
		if a >= b {
			return false, Change(b, a) + ", not lower"
		}
		return true, ""
	case More:
		if a <= b {
			return false, Change(b, a) + ", not higher"
		}
		return true, ""
	}
	return false, "unknown kind"
}

func (c Figure) figure() string {
	if c.Kind == AtLeast || c.Kind == Floor || c.Kind == Ceiling {
		return fmt.Sprintf("%s %s", c.What, Num(c.After))
	}
	f := fmt.Sprintf("%s %s → %s", c.What, Num(c.Before), Num(c.After))
	if c.Kind == Lower || c.Kind == Higher {
		f += " (" + Change(c.Before, c.After) + ")"
	}
	return f
}

// Judge decides a simulated finding as reproduce decides a measured
// one: yes when every yes claim holds, else partly when one alternative
// does, else no; and a yes or partly whose guard fails is no (wins by not
// ...).
func Judge(v *SimVerdict, yes []Figure, partly [][]Figure, guards []Figure) {
	all := func(cs []Figure) bool {
		for _, c := range cs {
			if ok, _ := c.holds(); !ok {
				return false
			}
		}
		return true
	}
	var crit strings.Builder
	words := func(cs []Figure) string {
		var w []string
		for _, c := range cs {
			w = append(w, c.criterion())
		}
		return strings.Join(w, " and ")
	}
	crit.WriteString("yes if " + words(yes))
	for i, alt := range partly {
		if i == 0 {
			crit.WriteString("; partly if ")
		} else {
			crit.WriteString(", or ")
		}
		crit.WriteString(words(alt))
	}
	crit.WriteString("; else no")
	if len(guards) > 0 {
		crit.WriteString("; a fix must keep " + words(guards))
	}
	v.Criterion = crit.String()

	var figs, short []string
	seen := map[string]bool{}
	for _, cs := range append([][]Figure{yes, guards}, partly...) {
		for _, c := range cs {
			if f := c.figure(); !seen[f] {
				seen[f] = true
				figs = append(figs, f)
			}
		}
	}
	v.Measured = strings.Join(figs, "; ")
	for _, c := range yes {
		if ok, s := c.holds(); !ok {
			short = append(short, c.What+": "+s)
		}
	}
	switch {
	case all(yes):
		v.Holds, v.Why = Yes, "held: "+words(yes)
	default:
		v.Holds, v.Why = No, "short: "+strings.Join(short, "; ")
		for _, alt := range partly {
			if all(alt) {
				v.Holds, v.Why = Partly, "held: "+words(alt)+"; short of yes: "+strings.Join(short, "; ")
				break
			}
		}
	}
	if v.Holds == No {
		return
	}
	for _, g := range guards {
		if ok, s := g.holds(); !ok {
			v.Why = fmt.Sprintf("the claims held (%s), but %s: %s", v.Holds, g.What, s)
			v.Holds, v.WinsByNot = No, g.Doing
			return
		}
	}
}

// Failed is the verdict of a simulation that could not run.
func Failed(size string, err error) *SimVerdict {
	return &SimVerdict{Size: size, Holds: NA, Why: "the simulation failed: " + err.Error()}
}
