package reproduce

import (
	"fmt"
	"math"
	"strings"
)

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

// A simClaim is a claim on two simulated figures (one, for AtLeast): the
// same Kinds and minimums as a Claim, decided on the figures alone.
type simClaim struct {
	what          string
	before, after float64
	kind          Kind
	min           float64
	doing         string // a guard's job, as Guard.Doing
}

func (c simClaim) criterion() string {
	return Claim{What: c.what, Kind: c.kind, Min: c.min}.criterion()
}

// holds decides the claim; short says how it fell short.
func (c simClaim) holds() (ok bool, short string) {
	b, a := c.before, c.after
	switch c.kind {
	case Lower, Higher:
		r := factor(b, a, c.kind)
		if !dirOK(b, a, c.kind) {
			return false, change(b, a)
		}
		if r < c.min {
			return false, fmt.Sprintf("%s, needs ≥%s×", change(b, a), trim(c.min))
		}
		return true, ""
	case AtLeast, Floor:
		if a < c.min {
			return false, fmt.Sprintf("%s, below %s", num(a), trim(c.min))
		}
		return true, ""
	case Ceiling:
		if a > c.min {
			return false, fmt.Sprintf("%s, above %s", num(a), trim(c.min))
		}
		return true, ""
	case NotBelow:
		if a < c.min*b {
			return false, fmt.Sprintf("%s is %s%% of %s, needs ≥%s%%", num(a), trim(100*a/b), num(b), trim(100*c.min))
		}
		return true, ""
	case NoWorseBy:
		if a > b+c.min {
			return false, fmt.Sprintf("%s → %s, %s more, allows %s", num(b), num(a), trim(a-b), trim(c.min))
		}
		return true, ""
	}
	return false, "unknown kind"
}

func (c simClaim) figure() string {
	if c.kind == AtLeast || c.kind == Floor || c.kind == Ceiling {
		return fmt.Sprintf("%s %s", c.what, num(c.after))
	}
	f := fmt.Sprintf("%s %s → %s", c.what, num(c.before), num(c.after))
	if c.kind == Lower || c.kind == Higher {
		f += " (" + change(c.before, c.after) + ")"
	}
	return f
}

// simJudge decides a simulated finding as Finding.judge decides a measured
// one: yes when every yes claim holds, else partly when one alternative
// does, else no; and a yes or partly whose guard fails is no (wins by not
// ...).
func simJudge(v *SimVerdict, yes []simClaim, partly [][]simClaim, guards []simClaim) {
	all := func(cs []simClaim) bool {
		for _, c := range cs {
			if ok, _ := c.holds(); !ok {
				return false
			}
		}
		return true
	}
	var crit strings.Builder
	words := func(cs []simClaim) string {
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
	for _, cs := range append([][]simClaim{yes, guards}, partly...) {
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
			short = append(short, c.what+": "+s)
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
			v.Why = fmt.Sprintf("the claims held (%s), but %s: %s", v.Holds, g.what, s)
			v.Holds, v.WinsByNot = No, g.doing
			return
		}
	}
}

// simFailed is the verdict of a simulation that could not run.
func simFailed(size string, err error) *SimVerdict {
	return &SimVerdict{Size: size, Holds: NA, Why: "the simulation failed: " + err.Error()}
}

// perFive prints a per-5-s count the way the seed does: "10M", "25k".
func perFive(x float64) string {
	switch {
	case math.Abs(x) >= 1e6:
		return fmt.Sprintf("%.3gM", x/1e6)
	case math.Abs(x) >= 1e3:
		return fmt.Sprintf("%.3gk", x/1e3)
	}
	return num(x)
}
