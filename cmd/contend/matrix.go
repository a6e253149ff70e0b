package main

import (
	"fmt"
	"strings"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/configlist"
	"github.com/contend/contend/internal/sweep"
)

// matrix reads sweep's flags into the matrix they ask for on t: the
// preset of -quick or -full, and the scenarios, variants, worker counts and
// placements named in its place (empty: the preset's), each list read as
// bench/configlist reads it for go test too.
func matrix(t *affinity.Topology, pf presetFlags, scenarios, variants, threads, places string) (sweep.Matrix, error) {
	m := sweep.Matrix{Preset: sweep.Quick, Count: pf.count, Duration: pf.duration}
	if pf.full {
		m.Preset = sweep.Full
	}
	var err error
	if m.Scenarios, err = sweep.ParseScenarios(scenarios); err != nil {
		return m, err
	}
	if variants != "" {
		m.Variants = strings.Split(variants, ",")
	}
	if threads != "" {
		if m.Threads, err = configlist.ParseThreads(threads, t); err != nil {
			return m, fmt.Errorf("-threads: %w", err)
		}
	}
	if places != "" {
		if m.Places, err = configlist.ParsePlaces(places); err != nil {
			return m, fmt.Errorf("-place: %w", err)
		}
	}
	return m, nil
}
