package sweep

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/bench/configlist"
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

// PresetSize is what a preset ("quick" or "full") means when the user names
// nothing else: how many rounds, and how long one run lasts. Sweeps and
// reproduce's plans take their sizes from here.
func PresetSize(preset string) (count int, d time.Duration) {
	if preset == "full" {
		return 10, time.Second
	}
	return 6, 100 * time.Millisecond
}

// Matrix is what the user asked for, before expansion. Empty fields take
// the preset's values.
type Matrix struct {
	Preset        string // "quick" or "full"
	Scenarios     string // comma-separated scenario names, or "all"
	Variants      string // comma-separated variants (one scenario only)
	Threads       string // a thread list (bench/configlist): counts, max, ladder
	Places        string // a placement list (bench/configlist): policies, cpu lists set apart by ";"
	Count         int
	Duration      time.Duration
	Oversubscribe bool
}

// Build expands a matrix into jobs. Configurations the machine cannot host (a
// cross placement on one node, more workers than CPUs) are dropped from
// presets, but are errors when the user named them.
func Build(t *affinity.Topology, m Matrix) (*Plan, error) {
	p := &Plan{Topology: t, Count: m.Count, Duration: m.Duration}
	count, d := PresetSize(m.Preset)
	if p.Count == 0 {
		p.Count = count
	}
	if p.Duration == 0 {
		p.Duration = d
	}
	specs, err := m.specs()
	if err != nil {
		return nil, err
	}
	if m.Variants != "" && len(specs) != 1 {
		return nil, errors.New("-variants needs exactly one scenario in -scenarios")
	}
	threads, err := m.threads(t)
	if err != nil {
		return nil, err
	}
	places, err := m.places(t)
	if err != nil {
		return nil, err
	}
	for _, s := range specs {
		if err := p.expand(m, s, threads, places, len(specs) == 1); err != nil {
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
	vs := s.Quick
	if m.Preset == "full" {
		vs = s.Full
	}
	if m.Variants != "" {
		vs = strings.Split(m.Variants, ",")
	}
	for _, v := range vs {
		scen, err := s.New(v)
		if err != nil {
			return fmt.Errorf("-variants: %w", err)
		}
		for _, n := range threads {
			if n < s.MinWorkers {
				if m.Threads != "" && only {
					return fmt.Errorf("-threads %d: %s needs at least %d workers", n, s.Name, s.MinWorkers)
				}
				continue
			}
			for _, pl := range places {
				j, err := newJob(p.Topology, s, v, scen.Variant(), n, pl, m.Oversubscribe)
				if err != nil {
					if m.Threads != "" && m.Places != "" {
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

func (m Matrix) specs() ([]*bench.Spec, error) {
	if m.Scenarios == "all" || m.Scenarios == "" {
		return bench.Specs(), nil
	}
	var specs []*bench.Spec
	for _, n := range strings.Split(m.Scenarios, ",") {
		s, err := bench.Lookup(n)
		if err != nil {
			return nil, fmt.Errorf("-scenarios: %w", err)
		}
		specs = append(specs, s)
	}
	return specs, nil
}

// threads returns the worker counts: the user's, or the preset's (the quick
// one runs 1 and 2 workers, a scenario alone and under contention; the full
// one climbs bench.ThreadLadder: 1, 2, 4, ... to every usable CPU, and one
// node's worth).
func (m Matrix) threads(t *affinity.Topology) ([]int, error) {
	if m.Threads == "" {
		if m.Preset == "quick" {
			if t.AllowedCPUs.Weight() < 2 {
				return []int{1}, nil
			}
			return []int{1, 2}, nil
		}
		return bench.ThreadLadder(t), nil
	}
	ns, err := configlist.ParseThreads(m.Threads, t)
	if err != nil {
		return nil, fmt.Errorf("-threads: %w", err)
	}
	return ns, nil
}

// places returns the placements: the user's, or the preset's (compact for
// the quick one; every policy for the full one, except that spread and
// cross, which differ from compact only across nodes, are left out on one
// node rather than rerun compact under other names).
func (m Matrix) places(t *affinity.Topology) ([]affinity.Placement, error) {
	if m.Places != "" {
		places, err := configlist.ParsePlaces(m.Places)
		if err != nil {
			return nil, fmt.Errorf("-place: %w", err)
		}
		return places, nil
	}
	if m.Preset == "quick" {
		return []affinity.Placement{{Policy: affinity.Compact}}, nil
	}
	nodes := t.UsableNodes()
	var places []affinity.Placement
	for _, pol := range affinity.Policies {
		if nodes < 2 && (pol == affinity.Spread || pol == affinity.Cross) {
			continue
		}
		places = append(places, affinity.Placement{Policy: pol})
	}
	return places, nil
}
