package sweep

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/nodemask"
)

// cpuSet returns the CPU set a job's handoff floor is measured on, and its
// key: the distinct CPUs, ascending, whatever their worker order or repeats.
// A floor depends on the set alone (c2c measures the set), so one
// measurement serves every job on it; a set of one CPU has no transfers to
// measure.
func cpuSet(cpus []int) (key string, set nodemask.Bitmap) {
	set = nodemask.BitmapOf(cpus...)
	return set.String(), set
}

// measureFloor measures the handoff floor of a job's CPU set the first
// time a job uses the set.
func (p *Plan) measureFloor(ctx context.Context, cpus []int) error {
	key, bits := cpuSet(cpus)
	if _, done := p.floors[key]; !p.Floor || bits.Weight() < 2 || done {
		return nil
	}
	set := bits.Bits()
	if p.floors == nil {
		p.floors = map[string]*c2c.Floor{}
	}
	// A ping-pong needs both CPUs at once: on CPUs busy with other work
	// every handoff waits for a time slice, and the floor would take
	// minutes and mean nothing. Give up after a few seconds and say so.
	f, timedOut, err := p.floor(ctx, set)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case timedOut:
		p.floorSkipped = append(p.floorSkipped, fmt.Sprintf("cpus %v: not measured within %v (are the cpus busy?), no handoffs/op", set, floorTimeout))
	case err != nil:
		return fmt.Errorf("measuring the handoff floor of cpus %v: %w", set, err)
	}
	p.floors[key] = f // nil when timed out: not tried again
	return nil
}

// floor measures the handoff floor of cpus, giving up after floorTimeout
// (timedOut). Callers check ctx first: a sweep interrupted during a floor
// is interrupted, not busy.
func (p *Plan) floor(ctx context.Context, cpus []int) (f *c2c.Floor, timedOut bool, err error) {
	fctx, cancel := context.WithTimeout(ctx, floorTimeout)
	defer cancel()
	cfg := FloorConfig
	cfg.Context = fctx
	f, err = floorOf(p.Topology, cpus, cfg)
	if fctx.Err() != nil {
		return nil, true, nil
	}
	return f, false, err
}

// floorTimeout bounds one handoff-floor measurement; on idle CPUs it takes a
// few milliseconds after the preheat. A variable for tests.
var floorTimeout = 5 * time.Second

// floorOf measures a floor; tests replace it.
var floorOf = c2c.MeasureFloor

// FloorConfig is how a sweep measures a handoff floor: c2c.MeasureFloor's
// light defaults (100 samples of 500 round trips per pair), after a
// preheat as contend c2c -preheat gives one, so that both cores have left
// their idle clocks (an idle core answers its first handoffs several times
// slower, which would flatter every handoffs/op).
var FloorConfig = c2c.Config{Samples: 100, Rounds: 500, Preheat: 200 * time.Millisecond}

// FloorDrift is how far apart the handoff floors measured before and after
// a sweep may be, as a share, before the sweep warns that the machine
// changed under it. The states it exists to catch are far apart: a VM whose
// vCPUs the host moves between core complexes jumps between floors 3-5x
// apart (25-40 ns and 120-200 ns on the 2-vCPU EPYC guest), and every
// contended figure moves with it. Floors measured back to back on that
// guest under a light load (41-59 ns) differed by up to 29%, two pairs in
// eight by more than 25%, so a bound of 25% would cry wolf; 50% leaves room
// for that noise and still catches any change of state.
const FloorDrift = 0.5

// A FloorChange is one CPU set's handoff floor before and after a sweep.
type FloorChange struct {
	CPUs          []int
	Before, After float64 // ns, c2c.Floor.NS
}

// Drifted says whether the two disagree by more than FloorDrift, either
// way.
func (c FloorChange) Drifted() bool { return c.Differ() > FloorDrift }

// Differ is how far apart the two are: the larger over the smaller, less
// one (0.3 for 30 and 39 ns, either way round).
func (c FloorChange) Differ() float64 { return max(c.Before, c.After)/min(c.Before, c.After) - 1 }

func (c FloorChange) String() string {
	return fmt.Sprintf("cpus %v: handoff floor %.1f ns before the sweep, %.1f ns after, %.0f%% apart (over %.0f%%): the machine changed under the sweep (a VM's vCPUs moved between cores?); its results are not comparable with one another, and handoffs/op used the first",
		c.CPUs, c.Before, c.After, 100*c.Differ(), 100*FloorDrift)
}

// remeasureFloors measures again, at the end of a sweep, every floor
// measured before it, and records in o how each moved.
func (p *Plan) remeasureFloors(ctx context.Context, o *Outcome) error {
	for _, key := range slices.Sorted(maps.Keys(p.floors)) {
		before := p.floors[key]
		if before == nil {
			continue
		}
		after, timedOut, err := p.floor(ctx, before.CPUs)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return fmt.Errorf("measuring the handoff floor of cpus %v again: %w", before.CPUs, err)
		case timedOut:
			o.Unmeasured = append(o.Unmeasured, before.CPUs)
		default:
			o.Floors = append(o.Floors, FloorChange{CPUs: before.CPUs, Before: before.NS, After: after.NS})
		}
	}
	return nil
}

// FloorNote describes the floors a sweep measured, for the end of the run.
func (p *Plan) FloorNote() string {
	var parts []string
	for _, f := range p.floors {
		if f != nil {
			parts = append(parts, fmt.Sprintf("cpus %v: %.1f ns (%s, median, cheapest class %.1f ns)", f.CPUs, f.NS, f.Mode, f.MinNS))
		}
	}
	parts = append(parts, p.floorSkipped...)
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
