package c2c

import (
	"math"
	"slices"
	"sort"

	"github.com/contend/contend/affinity"
)

// A Class says how close two CPUs are. The classes are checked nearest
// first, so a pair belongs to the closest thing it shares.
type Class string

const (
	ClassSMT     Class = "smt"     // SMT siblings: one core, one L1
	ClassLLC     Class = "llc"     // different cores sharing a last-level cache
	ClassNode    Class = "node"    // same NUMA node, different LLC
	ClassPackage Class = "package" // same package, different node
	ClassCross   Class = "cross"   // different packages: over the socket interconnect
	ClassUnknown Class = "unknown" // sysfs did not say enough
)

// Classes lists the classes nearest first.
var Classes = []Class{ClassSMT, ClassLLC, ClassNode, ClassPackage, ClassCross, ClassUnknown}

// ClassOf returns the class of the pair a, b. A fake topology is
// classified by the real one it was split from: classes describe hardware,
// and fake nodes are not hardware.
func ClassOf(t *affinity.Topology, a, b int) Class {
	if t.Real != nil {
		t = t.Real
	}
	if a < 0 || b < 0 || a >= len(t.CPUs) || b >= len(t.CPUs) || a == b {
		return ClassUnknown
	}
	ca, cb := &t.CPUs[a], &t.CPUs[b]
	switch {
	case ca.Siblings.Test(b):
		return ClassSMT
	case ca.LLC >= 0 && ca.LLC == cb.LLC:
		return ClassLLC
	case ca.Node >= 0 && ca.Node == cb.Node:
		return ClassNode
	case ca.Package >= 0 && ca.Package == cb.Package:
		return ClassPackage
	case ca.Package >= 0 && cb.Package >= 0:
		return ClassCross
	}
	return ClassUnknown
}

// A ClassSummary is one class's results in one mode.
type ClassSummary struct {
	Mode    Mode    `json:"mode"`
	Class   Class   `json:"class"`
	Pairs   int     `json:"pairs"`       // pairs measured
	Total   int     `json:"total_pairs"` // pairs of this class in the CPU set, 0 if unknown
	NS      float64 `json:"ns"`          // median over the pairs of their NS
	Stat    Stat    `json:"stat"`        // the statistic each pair's NS is
	MinNS   float64 `json:"min_ns"`      // lowest pair minimum
	MaxNS   float64 `json:"max_ns"`      // highest pair NS
	Example [2]int  `json:"example"`     // one measured pair
}

// Summarize groups results by mode and class, nearest class first.
// totals, if not nil, fills Total (NewPlan's Plan.Total).
func Summarize(rs []Result, totals map[Class]int) []ClassSummary {
	var out []ClassSummary
	for _, m := range Modes {
		for _, c := range Classes {
			var ns []float64
			s := ClassSummary{Mode: m, Class: c, MinNS: math.Inf(1), Total: totals[c]}
			for _, r := range rs {
				if r.Mode != m || r.Class != c {
					continue
				}
				if len(ns) == 0 {
					s.Example = [2]int{r.CPUA, r.CPUB}
					s.Stat = r.Stat
				}
				ns = append(ns, r.NS)
				s.MinNS = min(s.MinNS, r.MinNS)
				s.MaxNS = max(s.MaxNS, r.NS)
			}
			if len(ns) == 0 {
				continue
			}
			s.Pairs = len(ns)
			s.NS = median(ns)
			out = append(out, s)
		}
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
