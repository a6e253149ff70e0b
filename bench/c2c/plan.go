package c2c

import (
	"fmt"

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
	byClass := map[Class][]Pair{}
	for i, a := range list {
		for _, b := range list[i+1:] {
			pr := Pair{A: a, B: b, Class: ClassOf(t, a, b)}
			p.Total[pr.Class]++
			if sel == All {
				p.Pairs = append(p.Pairs, pr)
			} else {
				byClass[pr.Class] = append(byClass[pr.Class], pr)
			}
		}
	}
	for _, c := range Classes {
		prs := byClass[c]
		k := min(perClass, len(prs))
		for i := range k {
			p.Pairs = append(p.Pairs, prs[i*len(prs)/k])
		}
	}
	return p, nil
}
