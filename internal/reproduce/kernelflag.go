package reproduce

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/internal/reproduce/rule"
	"github.com/contend/contend/internal/results"
)

// Findings 5 and 8 on real kernels: sched_balance_running attempts per
// balance pass (contend kernel count's flag-ops/balance) on a kernel that
// takes the flag before the interval test and one that tests first, Tim
// Chen's 3324b2180c17 ("sched/fair: Skip sched_balance_running cmpxchg
// when balance is not due"). The side is the release's, never the count's
// figure: before v6.18 the flag (6.1's spinlock, v6.9's cmpxchg) is taken
// on every pass over an SD_SERIALIZE domain; from v6.19 the test comes
// first. A 6.18.y may or may not carry the stable backport (Debian's
// 6.18.15 does: contend kernel sites names the form), so it takes no side
// here; the counts to judge are scripts/vmlab.sh history's.

// FlagCutYes is the least cut in attempts per pass the row calls "yes":
// the seed's OLTP profile went from 7.6 % to 0.05 % of cycles; a guest
// whose every pass is due at its SD_SERIALIZE level would show none, so
// the row asks for the margin the oracle's tables allow (1.5×).
const FlagCutYes = 1.5

// A BracketRow is a real-kernel row of a finding whose fix two counted
// kernels bracket: one workload counted on a kernel each side, the
// finding's measure on each (findings 5/8: flag attempts per balance
// pass; 14: locked writes to nohz's line per mask entry).
type BracketRow struct {
	Workload        string
	Before, After   string  // the kernels
	BeforeV, AfterV float64 // the measure
	Verdict, Why    string
}

// cutRows is each workload's row of unit over set's counts, sided by
// side, judged by the cut cutYes asks for: what names the measure, how
// the after side.
func cutRows(set *results.Set, unit string, side func(*benchfmt.Result) int, cutYes float64, what, how string) []BracketRow {
	var rows []BracketRow
	for _, p := range bracketPairs(set, unit, side) {
		r := BracketRow{Workload: p.workload, Before: p.before.kernel, After: p.after.kernel, BeforeV: p.before.v, AfterV: p.after.v}
		r.Verdict, r.Why = cutVerdict(r.BeforeV, r.AfterV, cutYes, what, how)
		rows = append(rows, r)
	}
	return rows
}

// FlagRows pairs set's KernelCount results that have flag-ops/balance by
// workload: the newest kernel before v6.18 as before, the oldest from
// v6.19 as after (the bracket's own two sides).
func FlagRows(set *results.Set) []BracketRow {
	rows := cutRows(set, "flag-ops/balance", flagSide, FlagCutYes, "attempts per pass", "with the test first")
	for i := range rows {
		if rows[i].BeforeV <= 0 {
			rows[i].Verdict, rows[i].Why = "no", "the kernel before the fix took the flag on no pass: no balance pass reached an SD_SERIALIZE domain"
		}
	}
	return rows
}

// flagSide is a count's side of 3324b2180c17 by its release: before
// v6.18, or from v6.19 (a 6.18.y takes none, as its backport may or may
// not be in it).
func flagSide(r *benchfmt.Result) int {
	switch k := r.GetConfig("kernel"); {
	case releaseBefore(k, 6, 18):
		return -1
	case !releaseBefore(k, 6, 19):
		return 1
	}
	return 0
}

// cutVerdict judges a count's fall from before to after against the cut
// asked for "yes": what is the measure, how the after side differs.
func cutVerdict(before, after, cutYes float64, what, how string) (verdict, why string) {
	change := fmt.Sprintf("%s %s %s", what, rule.Change(before, after), how)
	asked := rule.Trim(cutYes) + "×"
	switch cut := before / max(after, 1e-9); {
	case cut >= cutYes*(1-1e-9):
		return "yes", change + ", at least the " + asked + " cut asked"
	case cut > 1:
		return "partly", change + ", short of the " + asked + " cut asked"
	}
	return "no", change
}

// A bracketSide is one kernel's value of a unit.
type bracketSide struct {
	kernel string
	v      float64
}

// A bracketPair is one workload counted on a kernel each side of a fix.
type bracketPair struct {
	workload      string
	before, after bracketSide
}

// bracketPairs pairs set's KernelCount results that have unit by
// workload, each on the side side gives it (-1 before the fix, 1 after,
// 0 neither): the newest kernel before and the oldest after, the
// bracket's own two sides. A workload counted on one side only has no
// pair.
func bracketPairs(set *results.Set, unit string, side func(*benchfmt.Result) int) []bracketPair {
	before, after := map[string]bracketSide{}, map[string]bracketSide{}
	var order []string
	seen := map[string]bool{}
	for _, r := range set.Results {
		wl, ok := strings.CutPrefix(string(r.Name), "KernelCount/")
		if !ok {
			continue
		}
		v, found := 0.0, false
		for _, x := range r.Values {
			if x.Unit == unit {
				v, found = x.Value, true
			}
		}
		k := r.GetConfig("kernel")
		if !found || k == "" {
			continue
		}
		if !seen[wl] {
			seen[wl] = true
			order = append(order, wl)
		}
		switch side(r) {
		case -1:
			if s, ok := before[wl]; !ok || olderRelease(s.kernel, k) {
				before[wl] = bracketSide{k, v}
			}
		case 1:
			if s, ok := after[wl]; !ok || olderRelease(k, s.kernel) {
				after[wl] = bracketSide{k, v}
			}
		}
	}
	var pairs []bracketPair
	for _, wl := range order {
		b, okb := before[wl]
		a, oka := after[wl]
		if okb && oka {
			pairs = append(pairs, bracketPair{wl, b, a})
		}
	}
	return pairs
}

// WriteFlagRows writes findings 5 and 8's real-kernel rows as reproduce's
// -v text writes a finding, wrapped to Width.
func WriteFlagRows(w io.Writer, rows []BracketRow) {
	writeBracketRows(w, rows, bracketText{
		head:   "5. ",
		title:  "sched_balance_running tested for due before the cmpxchg (3324b2180c17; findings 5 and 8)",
		before: "flag before the interval test", after: "interval test first",
		measure: "attempts per balance pass"})
}

// bracketText is how a finding's bracket rows read: the finding's label,
// the fix, each side's code and the measure.
type bracketText struct{ head, title, before, after, measure string }

// writeBracketRows writes rows as reproduce's -v text writes a finding,
// wrapped to Width.
func writeBracketRows(w io.Writer, rows []BracketRow, t bracketText) {
	for _, r := range rows {
		writeField(w, t.head, "(real kernels, contend kernel count) "+t.title+": "+r.Workload)
		writeField(w, "   before:    ", fmt.Sprintf("%s (%s): %.3f %s", r.Before, t.before, r.BeforeV, t.measure))
		writeField(w, "   after:     ", fmt.Sprintf("%s (%s): %.3f", r.After, t.after, r.AfterV))
		writeField(w, "   ratio:     ", rule.Change(r.BeforeV, r.AfterV))
		writeField(w, "   holds:     ", r.Verdict+" — "+r.Why)
		fmt.Fprintln(w)
	}
}

// releaseParts is a release's major and minor ("6.18.15+deb13-amd64": 6,
// 18); an unreadable one is 0, 0.
func releaseParts(release string) (int, int) {
	var ma, mi int
	fmt.Sscanf(release, "%d.%d", &ma, &mi)
	return ma, mi
}

// releaseBefore says whether release is older than major.minor.
func releaseBefore(release string, major, minor int) bool {
	ma, mi := releaseParts(release)
	return ma < major || ma == major && mi < minor
}

// olderRelease says whether release a's major.minor is older than b's.
func olderRelease(a, b string) bool {
	ma, mi := releaseParts(b)
	return releaseBefore(a, ma, mi)
}
