package reproduce

import (
	"fmt"
	"io"
	"strings"

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

// A FlagRow is findings 5 and 8's row for one workload counted on a
// kernel of each side.
type FlagRow struct {
	Workload                      string
	Before, After                 string  // the kernels
	BeforeAttempts, AfterAttempts float64 // flag attempts per balance pass
	Verdict, Why                  string
}

// FlagRows pairs set's KernelCount results that have flag-ops/balance by
// workload: the newest kernel before v6.18 as before, the oldest from
// v6.19 as after (the bracket's own two sides).
func FlagRows(set *results.Set) []FlagRow {
	type side struct {
		kernel string
		v      float64
	}
	before, after := map[string]side{}, map[string]side{}
	var order []string
	for _, r := range set.Results {
		wl, ok := strings.CutPrefix(string(r.Name), "KernelCount/")
		if !ok {
			continue
		}
		v, found := 0.0, false
		for _, x := range r.Values {
			if x.Unit == "flag-ops/balance" {
				v, found = x.Value, true
			}
		}
		k := r.GetConfig("kernel")
		if !found || k == "" {
			continue
		}
		if _, b := before[wl]; !b {
			if _, a := after[wl]; !a {
				order = append(order, wl)
			}
		}
		switch {
		case releaseBefore(k, 6, 18):
			if s, ok := before[wl]; !ok || olderRelease(s.kernel, k) {
				before[wl] = side{k, v}
			}
		case !releaseBefore(k, 6, 19):
			if s, ok := after[wl]; !ok || olderRelease(k, s.kernel) {
				after[wl] = side{k, v}
			}
		}
	}
	var rows []FlagRow
	for _, wl := range order {
		b, okb := before[wl]
		a, oka := after[wl]
		if !okb || !oka {
			continue
		}
		r := FlagRow{Workload: wl, Before: b.kernel, After: a.kernel, BeforeAttempts: b.v, AfterAttempts: a.v}
		switch cut := b.v / max(a.v, 1e-9); {
		case b.v <= 0:
			r.Verdict, r.Why = "no", "the kernel before the fix took the flag on no pass: no balance pass reached an SD_SERIALIZE domain"
		case cut >= FlagCutYes*(1-1e-9):
			r.Verdict, r.Why = "yes", fmt.Sprintf("attempts per pass %s with the test first, at least the %s cut asked", rule.Change(b.v, a.v), rule.Trim(FlagCutYes)+"×")
		case cut > 1:
			r.Verdict, r.Why = "partly", fmt.Sprintf("attempts per pass %s with the test first, short of the %s cut asked", rule.Change(b.v, a.v), rule.Trim(FlagCutYes)+"×")
		default:
			r.Verdict, r.Why = "no", fmt.Sprintf("attempts per pass %s with the test first", rule.Change(b.v, a.v))
		}
		rows = append(rows, r)
	}
	return rows
}

// WriteFlagRows writes findings 5 and 8's real-kernel rows as reproduce's
// -v text writes a finding, wrapped to Width.
func WriteFlagRows(w io.Writer, rows []FlagRow) {
	for _, r := range rows {
		writeField(w, "5. ", "(real kernels, contend kernel count) sched_balance_running tested for due before the cmpxchg (3324b2180c17; findings 5 and 8): "+r.Workload)
		writeField(w, "   before:    ", fmt.Sprintf("%s (flag before the interval test): %.3f attempts per balance pass", r.Before, r.BeforeAttempts))
		writeField(w, "   after:     ", fmt.Sprintf("%s (interval test first): %.3f", r.After, r.AfterAttempts))
		writeField(w, "   ratio:     ", rule.Change(r.BeforeAttempts, r.AfterAttempts))
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
