package reproduce

import (
	"fmt"
	"github.com/contend/contend/internal/reproduce/rankstat"
	"github.com/contend/contend/internal/reproduce/rule"
	"slices"
	"strings"
)

// The verdicts a finding can get, as rule names them.
const (
	Yes    = rule.Yes
	Partly = rule.Partly
	No     = rule.No
	NA     = rule.NA
)

// A Finding is one claim of the seed threads, stated as measured hypotheses.
//
// Yes and Partly are the whole rule: "yes" when every claim in Yes holds;
// otherwise "partly" when every claim of one of the Partly alternatives holds;
// otherwise "no". A claim that cannot be judged (no results, too few runs)
// makes the verdict "n/a here", as does a failed fairness check. Shown
// figures follow from the configuration (a configured interval, bits counted
// by arithmetic): the table prints them, marked so, and they never decide.
type Finding struct {
	ID    int
	Title string
	// Short names the finding in the verdict table, in a few words.
	Short string
	// Seed is the seed's figure for the variants the finding runs, with the
	// thread and author it comes from.
	Seed string
	// needs says why this machine cannot run the finding ("" when it
	// can): too few cpus or nodes.
	needs func(*Env) string
	// modelGap, where set, says why the model cannot show the finding at
	// this size ("" when it can): the run is skipped and the verdict is
	// n/a, not "cannot show here", since a bigger machine would not help.
	modelGap func(*Env) string
	// seedSize, where set, is the machine the seed measured the effect on:
	// contention that grows with the cpus sharing the line. A "no" on a
	// smaller run cannot contradict it, and the table says so.
	seedSize *seedMachine

	Yes    []Claim
	Partly [][]Claim
	Checks []Claim // Agree claims: the comparison is fair
	Shown  []Shown

	// Mechanism is what each fix must keep doing for its win to count:
	// a mask must still find idle cpus, a rate limit must keep tg_weight
	// near the truth, the flag's fix must balance as often. A "yes" or
	// "partly" whose fix fails a guard is "no (wins by not ...)": the
	// review found finding 6 winning on an idle mask that was never
	// searched. Where the comparison cannot trade the job away (the same
	// code laid out differently), MechanismNote says why there is no
	// guard; one of the two is always set.
	Mechanism     []Guard
	MechanismNote string

	// simulate, where the finding's model has a kernel-time simulation,
	// judges it at the seed's machine size (Env.Simulate).
	simulate func(SimBudget) *SimVerdict

	// Notes explain a verdict in the finding's own terms ("the contended
	// line is not what limits an event at 2 workers"), keyed by verdict.
	Notes map[string]string
}

// Shown is a figure printed beside the claims that decides nothing: either
// the configuration fixes it (a configured interval, bits counted by
// arithmetic), or it is measured but only gives context (the one-word path
// beside the bounded walk).
type Shown struct {
	What          string
	Before, After Measure
	// Context marks a measured figure; otherwise the figure is "by
	// construction".
	Context bool
}

// A Guard is one mechanism a fix must keep: a NotBelow, AtMost or
// NoWorseBy claim on the fix (After), against its baseline (Before) where
// the kind compares two.
type Guard struct {
	// Doing is the job, as the verdict words its absence: "no (wins by
	// not <Doing>)".
	Doing string
	Claim
}

// Criterion is the rule in one line, as the table prints it under the
// finding, so a reader sees what "yes" meant.
func (f *Finding) Criterion() string {
	var b strings.Builder
	b.WriteString("yes if ")
	b.WriteString(claimsText(f.Yes))
	if len(f.Partly) > 0 {
		b.WriteString("; partly if ")
		for i, alt := range f.Partly {
			if i > 0 {
				b.WriteString(", or ")
			}
			b.WriteString(claimsText(alt))
		}
	}
	b.WriteString("; else no")
	var how []string
	if f.has(Lower) || f.has(Higher) {
		how = append(how, "\"× lower/higher\": ratio of medians, U test p<0.05")
	}
	if f.has(AtLeast) {
		how = append(how, "\"≥\" alone: the 95% CI of the median at or above it")
	}
	if f.has(Same) {
		how = append(how, "\"within\": 90% Hodges-Lehmann CI of the difference inside the margin")
	}
	if len(f.Checks) > 0 {
		var cs []string
		for _, c := range f.Checks {
			cs = append(cs, c.criterion())
		}
		how = append(how, "n/a as unfair unless "+strings.Join(cs, " and ")+" or the U test cannot tell them apart")
	}
	if len(how) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(how, "; "))
	}
	return b.String()
}

func (f *Finding) has(k Kind) bool {
	for _, c := range f.claims() {
		if c.Kind == k {
			return true
		}
	}
	return false
}

// claimsText words claims joined by "and", naming the experiments once for
// each run of claims on the same ones: "a ≥2 and b ≥2 (base, paced)".
func claimsText(cs []Claim) string {
	var s []string
	for i := 0; i < len(cs); {
		j := i
		var words []string
		for ; j < len(cs) && cs[j].where() == cs[i].where(); j++ {
			words = append(words, cs[j].criterion())
		}
		s = append(s, strings.Join(words, " and ")+" ("+cs[i].where()+")")
		i = j
	}
	return strings.Join(s, " and ")
}

// claims returns every distinct claim the finding judges, in the order the
// table shows them: Yes, then those only Partly names, then the checks.
func (f *Finding) claims() []Claim {
	var cs []Claim
	add := func(c Claim) {
		if !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	for _, c := range f.Yes {
		add(c)
	}
	for _, alt := range f.Partly {
		for _, c := range alt {
			add(c)
		}
	}
	for _, c := range f.Checks {
		add(c)
	}
	return cs
}

// A Row of the findings table.
type Row struct {
	ID        int
	Finding   string
	Seed      string
	Criterion string
	Measured  string
	Holds     string // Yes, Partly, No or NA
	Why       string
	// Mechanism is each guard's figure and whether it held; WinsByNot,
	// when set, is the job a fix did less of, which turned a yes or
	// partly into no.
	Mechanism string
	WinsByNot string
	// Simulated is the finding judged on its kernel-time simulation at
	// the seed's machine size, where one exists (nil otherwise).
	Simulated *SimVerdict

	// Short is the finding's name in the verdict table.
	Short string
	// Standing sorts the verdict for the table: a "no" or "n/a" that
	// this machine's size explains is StandTooSmall, not StandNo.
	Standing Standing
	// Reason is what decided the verdict, in one line: the figures of
	// a yes, the first claim short of it otherwise; NotHere, for
	// StandTooSmall, why this machine cannot show the finding. Line
	// joins them for the table.
	Reason, NotHere string
}

// Verdict words Holds for the table: "no (wins by not finding idle
// cpus)" where a guard failed.
func (r Row) Verdict() string {
	if r.WinsByNot != "" {
		return r.Holds + " (wins by not " + r.WinsByNot + ")"
	}
	return r.Holds
}

// judge decides f on the samples in d.
func (f *Finding) judge(e *Env, d data) Row {
	r := f.decide(e, d)
	r.Short = f.Short
	r.Standing, r.NotHere = f.stand(e, r)
	return r
}

// decide is judge's verdict, before the table sorts it.
func (f *Finding) decide(e *Env, d data) Row {
	r := Row{ID: f.ID, Finding: f.Title, Seed: f.Seed, Criterion: f.Criterion(), Mechanism: f.MechanismNote}
	if why := f.unmet(e); why != "" {
		r.Measured, r.Holds, r.Why, r.Reason = "not run", NA, why, why
		if len(f.Mechanism) > 0 {
			var gs []string
			for _, g := range f.Mechanism {
				gs = append(gs, g.criterion())
			}
			r.Mechanism = "not judged (" + strings.Join(gs, "; ") + ")"
		}
		return r
	}
	failed := f.judgeMechanism(d, &r)
	got := map[Claim]outcome{}
	var texts []string
	na := ""
	for _, c := range f.claims() {
		o := c.judge(d.values(c.Before), d.values(c.After))
		got[c] = o
		switch {
		case o.na != "" && na == "":
			na = o.na
			if o.na == "no results" {
				na = fmt.Sprintf("no results for %s (%s; interrupted?)", c.What, d.missing(c.measures()...))
			}
		case o.na == "" && !slices.Contains(texts, o.text):
			texts = append(texts, o.text)
		}
	}
	for _, s := range f.Shown {
		b, a := d.values(s.Before), d.values(s.After)
		if len(b) > 0 && len(a) > 0 {
			how := "by construction"
			if s.Context {
				how = "for reference"
			}
			texts = append(texts, fmt.Sprintf("%s %s → %s (%s)", s.What, rule.Num(rankstat.Median(b)), rule.Num(rankstat.Median(a)), how))
		}
	}
	r.Measured = strings.Join(texts, "; ")
	if na != "" {
		if r.Measured == "" {
			r.Measured = "no results"
		}
		r.Holds, r.Why, r.Reason = NA, na, na
		return r
	}
	for _, c := range f.Checks {
		if !got[c].ok {
			r.Holds, r.Why = NA, fmt.Sprintf("unfair comparison: %s differ by more than ±%s%% (U test p<%.2g), so the two sides did not do the same work", c.What, rule.Trim(100*c.Min), rankstat.Alpha)
			r.Reason = r.Why
			return r
		}
	}
	switch {
	case allHold(f.Yes, got):
		r.Holds = Yes
	case f.partly(got) != nil:
		r.Holds = Partly
	default:
		r.Holds = No
	}
	r.Why = f.why(r.Holds, got)
	r.Reason = f.reason(r.Holds, got)
	if failed != nil && r.Holds != No {
		r.Why = fmt.Sprintf("the claims held (%s), but %s (%s): %s", r.Holds, failed.What, failed.where(), failed.short)
		r.Reason = fmt.Sprintf("wins by not %s: %s %s", failed.Doing, failed.What, failed.short)
		r.Holds, r.WinsByNot = No, failed.Doing
	}
	return r
}

// reason is why's one line for the verdict table: what decided v, the
// measured figures of a yes, the first claim short of yes otherwise.
func (f *Finding) reason(v string, got map[Claim]outcome) string {
	var held []string
	short := ""
	for _, c := range f.Yes {
		if o := got[c]; o.ok {
			held = append(held, o.text)
		} else if short == "" {
			short = c.What + ": " + o.short
		}
	}
	switch v {
	case Yes:
		return strings.Join(held, "; ")
	case Partly:
		var texts []string
		for _, c := range f.partly(got) {
			texts = append(texts, got[c].text)
		}
		return strings.Join(texts, "; ") + "; short of yes: " + short
	}
	return short
}

// guardOutcome is a guard judged on data.
type guardOutcome struct {
	Guard
	outcome
}

// judgeMechanism judges f's guards into r.Mechanism and returns the first
// that failed, nil when every guard held or none could be judged. A guard
// without data does not decide: the claims' own "no results" says so.
func (f *Finding) judgeMechanism(d data, r *Row) *guardOutcome {
	if len(f.Mechanism) == 0 {
		return nil
	}
	var texts []string
	var failed *guardOutcome
	for _, g := range f.Mechanism {
		o := guardOutcome{g, g.judge(d.values(g.Before), d.values(g.After))}
		switch {
		case o.na != "":
			texts = append(texts, fmt.Sprintf("%s: %s", g.criterion(), o.na))
		case o.ok:
			texts = append(texts, fmt.Sprintf("%s — kept (%s)", o.text, g.criterion()))
		default:
			texts = append(texts, fmt.Sprintf("%s — NOT kept (%s)", o.text, g.criterion()))
			if failed == nil {
				failed = &o
			}
		}
	}
	r.Mechanism = strings.Join(texts, "; ")
	return failed
}

func allHold(cs []Claim, got map[Claim]outcome) bool {
	for _, c := range cs {
		if !got[c].ok {
			return false
		}
	}
	return true
}

// partly returns the first Partly alternative that holds, nil if none does.
func (f *Finding) partly(got map[Claim]outcome) []Claim {
	for _, alt := range f.Partly {
		if allHold(alt, got) {
			return alt
		}
	}
	return nil
}

// why explains a verdict: what held, how the rest fell short, and the
// finding's note.
func (f *Finding) why(v string, got map[Claim]outcome) string {
	var held, short []string
	for _, c := range f.Yes {
		if o := got[c]; o.ok {
			held = append(held, c.criterion())
		} else {
			short = append(short, fmt.Sprintf("%s (%s): %s", c.What, c.where(), o.short))
		}
	}
	var s string
	switch v {
	case Yes:
		s = "held: " + strings.Join(held, "; ")
	case Partly:
		s = "held: " + claimsText(f.partly(got)) + "; short of yes: " + strings.Join(short, "; ")
	default:
		s = "short: " + strings.Join(short, "; ")
	}
	if n := f.Notes[v]; n != "" {
		s += " — " + n
	}
	return s
}
