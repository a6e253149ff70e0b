package c2c

import (
	"fmt"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/nodemask"
)

// A Pair is two CPUs to measure; A pings first.
type Pair struct {
	A, B  int
	Class Class
}

// Selection says which pairs of a CPU set to measure.
type Selection string

const (
	All    Selection = "all"    // every pair: O(N²)
	Sample Selection = "sample" // a few pairs per class
	Auto   Selection = "auto"   // all up to AllPairsMax cpus, else sample
)

// AllPairsMax is the largest CPU count for which auto measures all pairs:
// 16 CPUs are 120 pairs, about ten seconds per mode with the default samples.
const AllPairsMax = 16

// A Plan is the pairs chosen from a CPU set.
type Plan struct {
	CPUs      []int
	Selection Selection // all or sample, never auto
	Pairs     []Pair
	// Total counts the pairs of each class in the whole set, measured or not.
	Total map[Class]int
}

// NewPlan chooses the pairs of cpus to measure. cpus must hold at least two
// distinct usable CPUs; perClass bounds the pairs per class when sampling.
// Sampled pairs are spread evenly over each class's pairs in CPU order, so
// they touch different cores, caches and sockets rather than the first few.
func NewPlan(t *affinity.Topology, cpus []int, sel Selection, perClass int) (*Plan, error) {
	set := nodemask.BitmapOf()
	for i, c := range cpus {
		if err := t.CheckCPU(c); err != nil {
			return nil, fmt.Errorf("c2c plan: cpu %d (position %d): %w", c, i+1, err)
		}
		set.Set(c)
	}
	list := set.Bits()
	if len(list) < 2 {
		return nil, fmt.Errorf("c2c plan: need at least 2 distinct cpus, got %d (%s)", len(list), set)
	}
	if perClass < 1 {
		return nil, fmt.Errorf("c2c plan: pairs per class %d: need at least 1", perClass)
	}
	switch sel {
	case Auto:
		sel = Sample
		if len(list) <= AllPairsMax {
			sel = All
		}
	case All, Sample:
	default:
		return nil, fmt.Errorf("c2c plan: unknown pair selection %q (want all, sample, auto)", sel)
	}
	p := &Plan{CPUs: list, Selection: sel, Total: map[Class]int{}}
	p.eachPair(t, func(pr Pair) {
		p.Total[pr.Class]++
		if sel == All {
			p.Pairs = append(p.Pairs, pr)
		}
	})
	if sel == Sample {
		p.sample(t, perClass)
	}
	return p, nil
}

// eachPair calls f with every pair of the plan's CPUs, in CPU order.
func (p *Plan) eachPair(t *affinity.Topology, f func(Pair)) {
	for i, a := range p.CPUs {
		for _, b := range p.CPUs[i+1:] {
			f(Pair{A: a, B: b, Class: ClassOf(t, a, b)})
		}
	}
}

// sample picks up to perClass pairs of each class, evenly spaced over the
// class's pairs in CPU order, in a second pass over the pairs: a machine of
// N CPUs has N²/2 pairs (half a million at 1024), and only the chosen ones
// are kept, so the plan stays O(N) in memory.
func (p *Plan) sample(t *affinity.Topology, perClass int) {
	seen := map[Class]int{}
	chosen := map[Class][]Pair{}
	p.eachPair(t, func(pr Pair) {
		c, n := pr.Class, p.Total[pr.Class]
		// The j-th of the k pairs chosen of the class's n is its (j·n/k)-th.
		if j, k := len(chosen[c]), min(perClass, n); j < k && seen[c] == j*n/k {
			chosen[c] = append(chosen[c], pr)
		}
		seen[c]++
	})
	for _, c := range Classes {
		p.Pairs = append(p.Pairs, chosen[c]...)
	}
}

// typicalNS is a pessimistic one-way handoff per class, from published
// core-to-core measurements of recent server parts (SMT siblings ~10-20 ns,
// one L3 ~20-50, across L3s or dies ~80-150, across sockets ~150-300), for
// estimating how long a plan takes before it runs.
var typicalNS = map[Class]float64{
	ClassSMT: 20, ClassLLC: 50, ClassNode: 120, ClassPackage: 150, ClassCross: 300, ClassUnknown: 300,
}

// perPairSetup is what measuring one pair costs beside its samples: mapping
// and placing the line, pinning both ends, a GC.
const perPairSetup = 5 * time.Millisecond

// Estimate returns how long measuring the plan's pairs in modes modes with
// cfg takes, at the pessimistic typical handoff of each pair's class: an
// upper-end guess to decide whether to run it, not a measurement.
func (p *Plan) Estimate(cfg Config, modes int) time.Duration {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return 0
	}
	warm := cfg.Warmup.Samples()
	var ns float64
	for _, pr := range p.Pairs {
		ns += float64(warm+cfg.Samples) * float64(cfg.Rounds) * 2 * typicalNS[pr.Class]
		ns += float64(cfg.Preheat + perPairSetup)
	}
	return time.Duration(ns * float64(modes))
}
