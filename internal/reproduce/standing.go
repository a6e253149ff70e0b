package reproduce

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A Standing sorts a verdict for the table a reader meets first: it keeps
// apart a finding this run contradicts from one it cannot show, because
// most findings are contention measured on 192 to 512 cpus, and a "no" at
// a handful of workers says nothing against them.
type Standing int

const (
	StandYes      Standing = iota // every yes claim held
	StandPartly                   // a partly alternative held
	StandNo                       // contradicted here: the run could have shown it and did not
	StandTooSmall                 // this machine cannot show it: too few cpus or nodes
	StandNA                       // not judged: no results, an unfair comparison, a model that cannot show it
)

// Word is the standing in the table's verdict column.
func (s Standing) Word() string {
	return [...]string{"yes", "partly", "no", "not here", "n/a"}[s]
}

// meaning is the tally's gloss of the word.
func (s Standing) meaning() string {
	return [...]string{"", "", "contradicted", "machine too small", "not judged"}[s]
}

// seedMachine is the machine a seed measured a contention effect on.
type seedMachine struct {
	cpus  int    // its cpus, or the most its kind has where the thread gives none
	words string // "224 cpus (seed 000's Sapphire Rapids)"
}

// tooSmall says why e cannot show an effect measured on m, "" when it can:
// fewer workers than m had cpus write the contended lines.
func (m *seedMachine) tooSmall(e *Env) string {
	if m == nil || e.threads >= m.cpus {
		return ""
	}
	return fmt.Sprintf("%d workers here; the seed %s", e.threads, m.words)
}

// unmet says why the finding does not run at e, "" when it does.
func (f *Finding) unmet(e *Env) string {
	if why := f.needs(e); why != "" {
		return why
	}
	if f.modelGap != nil {
		return f.modelGap(e)
	}
	return ""
}

// stand sorts r, f judged at e, and says why this machine cannot show f
// where that is the standing.
func (f *Finding) stand(e *Env, r Row) (Standing, string) {
	if why := f.needs(e); why != "" {
		return StandTooSmall, why
	}
	switch {
	case r.Holds == Yes:
		return StandYes, ""
	case r.Holds == Partly:
		return StandPartly, ""
	case r.Holds == No && r.WinsByNot == "":
		if why := f.seedSize.tooSmall(e); why != "" {
			return StandTooSmall, why
		}
		return StandNo, ""
	case r.Holds == No:
		return StandNo, ""
	}
	return StandNA, ""
}

// Line is the row's reason in the verdict table: why this machine cannot
// show the finding where it cannot, the simulation's verdict at the seed's
// size where there is one, and what decided the verdict here.
func (r Row) Line() string {
	var parts []string
	sim := ""
	if s := r.Simulated; s != nil {
		sim = "simulated at " + simSize(s.Size) + ": " + s.Verdict()
	}
	switch {
	case r.NotHere == "":
		parts = append(parts, r.Reason, sim)
	case r.Reason == r.NotHere:
		parts = append(parts, r.NotHere, sim)
	default:
		parts = append(parts, r.NotHere, sim, "here "+r.Reason)
	}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "; ")
}

// simSize is the simulated machine's size from its description: "224
// cpus" of "224 cpus, 2 nodes, levels=2 (...)".
func simSize(size string) string {
	if m := sizeRE.FindString(size); m != "" {
		return m
	}
	return "the seed's size"
}

var sizeRE = regexp.MustCompile(`[0-9]+ (cpus|vCPUs)`)

// tally counts the rows by standing, leaving out the standings none has:
// "14 findings: 2 yes, 1 no (contradicted), 10 not here (machine too
// small), 1 n/a (not judged)".
func tally(rows []Row) string {
	var n [StandNA + 1]int
	for _, r := range rows {
		n[r.Standing]++
	}
	var parts []string
	for s := StandYes; s <= StandNA; s++ {
		if n[s] == 0 {
			continue
		}
		p := fmt.Sprintf("%d %s", n[s], s.Word())
		if m := s.meaning(); m != "" {
			p += " (" + m + ")"
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("%d findings: %s", len(rows), strings.Join(parts, ", "))
}

// The seeds' machines, for the findings whose effect is contention that
// grows with the cpus writing the line (Finding.seedSize).
var (
	sz224 = &seedMachine{224, "had 224 cpus"}
	// Seed 002 names a 2-socket Granite Rapids, not its cpus: 512 is
	// the most it has (2 × 128 cores × SMT 2), as simulate balanceflag's
	// seed-size run takes it.
	szGNR = &seedMachine{512, "had a 2-socket Granite Rapids, ≤512 cpus"}
	sz192 = &seedMachine{192, "had 192 cpus"}
	sz256 = &seedMachine{256, "had 256 cpus"}
	// 89951fc1f820 profiled a fleet, and measured on Haswell and Power11
	// servers without their size: 72 is a 2-socket Haswell-EP's most
	// (2 × 18 cores × SMT 2).
	szHSW = &seedMachine{72, "had fleet servers (2-socket Haswell: ≤72 cpus)"}
	sz480 = &seedMachine{480, "had 480 cpus and more"}
)
