package sweep

import (
	"fmt"
	"strings"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/configlist"
)

// Lists are a Matrix's lists as a command line spells them: contend
// sweep's -scenarios, -variant, -threads and -place ("" for the preset's,
// but Scenarios, which is "all" or names).
type Lists struct {
	Scenarios, Variants, Threads, Places string
}

// ParseMatrix reads lists into the matrix they ask for on t under preset,
// each list read as bench/configlist reads it for go test too; the caller
// sets the rest (Count, Duration, Target, Oversubscribe).
func ParseMatrix(t *affinity.Topology, preset Preset, l Lists) (Matrix, error) {
	m := Matrix{Preset: preset}
	var err error
	if m.Scenarios, err = ParseScenarios(l.Scenarios); err != nil {
		return m, err
	}
	if l.Variants != "" {
		m.Variants = strings.Split(l.Variants, ",")
	}
	if l.Threads != "" {
		if m.Threads, err = configlist.ParseThreads(l.Threads, t); err != nil {
			return m, fmt.Errorf("-threads: %w", err)
		}
	}
	if l.Places != "" {
		if m.Places, err = configlist.ParsePlaces(l.Places); err != nil {
			return m, fmt.Errorf("-place: %w", err)
		}
	}
	return m, nil
}

// ParseScenarios reads a -scenarios value: scenario names separated by
// commas, or "all" for every registered scenario.
func ParseScenarios(s string) ([]*bench.Spec, error) {
	if s == "all" {
		return bench.Specs(), nil
	}
	var specs []*bench.Spec
	for _, n := range strings.Split(s, ",") {
		spec, err := bench.Lookup(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("-scenarios: %w", err)
		}
		specs = append(specs, spec)
	}
	return specs, nil
}
