package sweep

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/bench/resultfmt"
)

// A Job is one configuration of the matrix.
type Job struct {
	Spec    *bench.Spec
	Variant string // as given; the canonical form comes from the scenario
	Threads int
	Place   affinity.Placement
	CPUs    []int  // one per worker, as Place assigns them on the plan's topology
	Name    string // full benchmark name, as results files carry it
}

// NewJob checks one configuration against topology t (the scenario accepts
// the variant, the machine hosts the placement) and names it.
func NewJob(t *affinity.Topology, spec *bench.Spec, variant string, threads int, place affinity.Placement, oversubscribe bool) (Job, error) {
	scen, err := spec.New(variant)
	if err != nil {
		return Job{}, err
	}
	return newJob(t, spec, variant, scen.Variant(), threads, place, oversubscribe)
}

// newJob is NewJob for a variant already checked, whose canonical form is
// canonical.
func newJob(t *affinity.Topology, spec *bench.Spec, variant, canonical string, threads int, place affinity.Placement, oversubscribe bool) (Job, error) {
	if threads < spec.MinWorkers {
		return Job{}, fmt.Errorf("-threads %d: %s needs at least %d workers", threads, spec.Name, spec.MinWorkers)
	}
	cpus, err := place.Assign(t, threads, oversubscribe)
	if err != nil {
		return Job{}, err
	}
	return Job{Spec: spec, Variant: variant, Threads: threads, Place: place, CPUs: cpus,
		Name: resultfmt.Name(spec, canonical, threads, place.String())}, nil
}

// Plan is a matrix expanded into jobs, in the order they run.
type Plan struct {
	Topology *affinity.Topology
	Jobs     []Job
	Count    int           // rounds: each job runs once per round
	Duration time.Duration // of one run
	// Floor asks for each CPU set's core-to-core handoff floor, so that
	// results also read as handoffs/op: line transfers per operation,
	// comparable across machines whose transfers cost 20 or 200 ns.
	Floor bool
	// Command is the command line the results file records as its
	// "command:" line (os.Args of contend sweep or reproduce).
	Command []string
	// RetryFailed makes a resumed sweep run again the configurations
	// the file records as failed; without it they are skipped.
	RetryFailed bool

	floors       map[string]*c2c.Floor
	floorSkipped []string
}

// A Preset is a named size of sweep: what runs where the user names no
// variants, worker counts or placements, and how many rounds of how long.
// Sweeps and reproduce's plans take their sizes from here. Its zero value
// is no preset: Build refuses it, so that a matrix never mixes one
// preset's variants with another's worker counts.
type Preset int

const (
	// Quick runs every scenario's quick variants (bench.Spec.Quick) at 1
	// and 2 workers, a scenario alone and under contention, placed
	// compact, 6 rounds of 100 ms: under a minute on 2 CPUs.
	Quick Preset = iota + 1
	// Full runs the seeds' experiments (bench.Spec.Full) at every count of
	// bench.ThreadLadder (1, 2, 4, ... every usable CPU, and one node's
	// worth) and every placement the machine can tell apart, 10 rounds of
	// 1 s.
	Full
)

// String returns the preset's name, as the -quick and -full flags say it.
func (p Preset) String() string {
	switch p {
	case Quick:
		return "quick"
	case Full:
		return "full"
	}
	return fmt.Sprintf("Preset(%d)", int(p))
}

// Size returns how many rounds the preset runs and how long one run lasts.
func (p Preset) Size() (count int, d time.Duration) {
	if p == Full {
		return 10, time.Second
	}
	return 6, 100 * time.Millisecond
}

// Variants returns the variants of scenario s the preset runs.
func (p Preset) Variants(s *bench.Spec) []string {
	if p == Full {
		return s.Full
	}
	return s.Quick
}

// Threads returns the worker counts the preset runs on t.
func (p Preset) Threads(t *affinity.Topology) []int {
	if p == Full {
		return bench.ThreadLadder(t)
	}
	if t.AllowedCPUs.Weight() < 2 {
		return []int{1}
	}
	return []int{1, 2}
}

// Places returns the placements the preset runs on t: compact for Quick;
// every policy for Full, except that spread and cross, which differ from
// compact only across nodes, are left out on one node rather than rerun
// compact under other names.
func (p Preset) Places(t *affinity.Topology) []affinity.Placement {
	if p != Full {
		return []affinity.Placement{{Policy: affinity.Compact}}
	}
	nodes := t.UsableNodes()
	var places []affinity.Placement
	for _, pol := range affinity.Policies {
		if nodes < 2 && (pol == affinity.Spread || pol == affinity.Cross) {
			continue
		}
		places = append(places, affinity.Placement{Policy: pol})
	}
	return places
}

// Matrix is what the user asked for, before expansion: a preset, and what
// they named in its place. A nil list, a zero Count or Duration takes the
// preset's.
type Matrix struct {
	Preset        Preset
	Scenarios     []*bench.Spec        // the scenarios to run; ParseScenarios reads -scenarios
	Variants      []string             // one scenario only
	Threads       []int                // configlist.ParseThreads reads -threads
	Places        []affinity.Placement // configlist.ParsePlaces reads -place
	Count         int
	Duration      time.Duration
	Oversubscribe bool
}

// Build expands a matrix into jobs. Configurations the machine cannot host (a
// cross placement on one node, more workers than CPUs) are dropped from
// presets, but are errors when the user named them.
func Build(t *affinity.Topology, m Matrix) (*Plan, error) {
	if m.Preset != Quick && m.Preset != Full {
		return nil, fmt.Errorf("no preset (%v): a matrix is Quick or Full", m.Preset)
	}
	if len(m.Scenarios) == 0 {
		return nil, errors.New("no scenarios to run")
	}
	if m.Variants != nil && len(m.Scenarios) != 1 {
		return nil, errors.New("-variants needs exactly one scenario in -scenarios")
	}
	p := &Plan{Topology: t, Count: m.Count, Duration: m.Duration}
	count, d := m.Preset.Size()
	if p.Count == 0 {
		p.Count = count
	}
	if p.Duration == 0 {
		p.Duration = d
	}
	threads, places := m.Threads, m.Places
	if threads == nil {
		threads = m.Preset.Threads(t)
	}
	if places == nil {
		places = m.Preset.Places(t)
	}
	for _, s := range m.Scenarios {
		if err := p.expand(m, s, threads, places, len(m.Scenarios) == 1); err != nil {
			return nil, err
		}
	}
	if len(p.Jobs) == 0 {
		return nil, errors.New("the matrix is empty on this machine (too few cpus or nodes for the asked threads and placements)")
	}
	return p, nil
}

// expand adds one scenario's jobs: its variants × threads × places.
func (p *Plan) expand(m Matrix, s *bench.Spec, threads []int, places []affinity.Placement, only bool) error {
	vs := m.Preset.Variants(s)
	if m.Variants != nil {
		vs = m.Variants
	}
	for _, v := range vs {
		scen, err := s.New(v)
		if err != nil {
			return fmt.Errorf("-variants: %w", err)
		}
		for _, n := range threads {
			if n < s.MinWorkers {
				if m.Threads != nil && only {
					return fmt.Errorf("-threads %d: %s needs at least %d workers", n, s.Name, s.MinWorkers)
				}
				continue
			}
			for _, pl := range places {
				j, err := newJob(p.Topology, s, v, scen.Variant(), n, pl, m.Oversubscribe)
				if err != nil {
					if m.Threads != nil && m.Places != nil {
						return err
					}
					continue // this machine cannot host it; presets skip it
				}
				p.Jobs = append(p.Jobs, j)
			}
		}
	}
	return nil
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
