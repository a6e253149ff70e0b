package sweep

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/contend/contend/bench/c2c"
)

// measureFloor measures the handoff floor of a CPU set the first time a Job
// uses it. Sets of one CPU (or one CPU repeated) have no transfers to measure.
func (p *Plan) measureFloor(ctx context.Context, cpus []int) error {
	key := fmt.Sprint(cpus)
	if _, done := p.floors[key]; !p.Floor || done {
		return nil
	}
	distinct := map[int]bool{}
	for _, c := range cpus {
		distinct[c] = true
	}
	if len(distinct) < 2 {
		return nil
	}
	var set []int
	for _, c := range cpus {
		if distinct[c] {
			set = append(set, c)
			delete(distinct, c)
		}
	}
	if p.floors == nil {
		p.floors = map[string]*c2c.Floor{}
	}
	// A ping-pong needs both CPUs at once: on CPUs busy with other work
	// every handoff waits for a time slice, and the floor would take
	// minutes and mean nothing. Give up after a few seconds and say so.
	fctx, cancel := context.WithTimeout(ctx, floorTimeout)
	defer cancel()
	f, err := c2c.MeasureFloor(p.Topology, set, c2c.Config{Context: fctx})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case fctx.Err() != nil:
		p.floorSkipped = append(p.floorSkipped, fmt.Sprintf("cpus %v: not measured within %v (are the cpus busy?), no handoffs/op", set, floorTimeout))
		p.floors[key] = nil
		return nil
	case err != nil:
		return fmt.Errorf("measuring the handoff floor of cpus %v: %w", set, err)
	}
	p.floors[key] = f
	return nil
}

// floorTimeout bounds one handoff-floor measurement; on idle CPUs it takes a
// few milliseconds.
const floorTimeout = 5 * time.Second

// FloorNote describes the floors a sweep measured, for the end of the run.
func (p *Plan) FloorNote() string {
	var parts []string
	for key, f := range p.floors {
		if f != nil {
			parts = append(parts, fmt.Sprintf("cpus %s: %.1f ns (%s, median, cheapest class %.1f ns)", key, f.NS, f.Mode, f.MinNS))
		}
	}
	parts = append(parts, p.floorSkipped...)
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
