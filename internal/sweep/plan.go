package sweep

import (
	"errors"
	"fmt"
	"slices"
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
	// Also lists the configurations that share this job's run: the same
	// scenario and variant with every worker on the same CPU under
	// another placement's name (one worker, or every CPU in the same
	// order). The job runs once a round and its result is recorded under
	// each name (see RunAll).
	Also []Job

	rank rank // what Fit trims first
}

// A rank orders a preset's jobs by what a budget gives up first (Fit): the
// seeds' topological sizes and the whole machine, then the quarters of a
// scaling curve, then the power-of-two rungs beyond the seeds'.
type rank int

const (
	rankSeed    rank = iota // 1, 2, one LLC, one node, 50 % and 100 %, and whatever the user named
	rankQuarter             // 25 % and 75 %
	rankLadder              // bench.ThreadLadder's other rungs
)

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
		return Job{}, fmt.Errorf("-threads %d: %s needs at least %s", threads, spec.Name, workers(spec.MinWorkers))
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
	Count    int           // rounds: each job runs once per round; with Target, at most
	Duration time.Duration // of one run
	// Target, when above 0, makes rounds adaptive: a job stops once the
	// 95% confidence interval of its ns/op median, as contend table
	// prints it, is within Target of the median (0.02: ±2%), after at
	// least MinRounds rounds, or after Count. 0 runs every job Count
	// rounds, as Build makes it for a Count below MinRounds.
	Target float64
	// Trimmed says what Fit left out to fit a budget, one line each.
	Trimmed []string
	// Rungs says what a preset's worker counts answer, and which of
	// bench.ThreadLadder's rungs it left out; empty where the user named
	// the counts.
	Rungs string
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
	// compact, rounds of 100 ms: 6 to 10 a configuration, under a minute
	// on 2 CPUs.
	Quick Preset = iota + 1
	// Full runs the seeds' experiments (bench.Spec.Full) at the seeds'
	// worker counts (bench.SeedRungs: 1, 2, one LLC, one node, 25, 50, 75
	// and 100 % of the usable CPUs), under every placement at the
	// machine's own sizes (2, one LLC, one node, all of it) and compact
	// and spread at the quarters between, in rounds of 150 ms, 6 to 10 a
	// configuration. bench.ThreadLadder's other rungs (the powers of two)
	// are kept, compact, where they are cheap: where they add at most a
	// quarter to the configurations.
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

// Size returns how many rounds the preset runs where rounds are not
// adaptive (reproduce's plans, sweep -ci 0), and how long one run lasts.
// A full run was 1 s; 150 ms makes a 224-CPU box's full sweep fit an hour,
// and a noisier run costs rounds, which adaptive rounds add only where the
// confidence interval needs them.
func (p Preset) Size() (count int, d time.Duration) {
	if p == Full {
		return 10, 150 * time.Millisecond
	}
	return 6, 100 * time.Millisecond
}

// MinRounds is the fewest rounds after which an adaptive job may stop: the
// fewest samples for which a distribution-free 95% confidence interval of
// the median exists (benchmath, as contend table and benchstat compute it,
// says "need >= 6 samples" below; with 6, the interval is the samples'
// range, at 96.9%). A job stopped after 3 rounds would show ±∞.
const MinRounds = 6

// Rounds returns the preset's adaptive rounds: at most max a job, each
// stopping once its 95% confidence interval is within target of its median
// (after MinRounds).
func (p Preset) Rounds() (max int, target float64) { return 10, 0.02 }

// Variants returns the variants of scenario s the preset runs.
func (p Preset) Variants(s *bench.Spec) []string {
	if p == Full {
		return s.Full
	}
	return s.Quick
}

// Threads returns the worker counts the preset runs on t (each under the
// placements rungs gives it).
func (p Preset) Threads(t *affinity.Topology) []int {
	var ns []int
	for _, r := range p.rungs(t) {
		ns = append(ns, r.Threads)
	}
	return ns
}

// A presetRung is a worker count a preset runs at, the placements it runs
// it under, and what a budget gives up first.
type presetRung struct {
	bench.Rung
	places []affinity.Placement
	rank   rank
}

// ladderShare is how much bench.ThreadLadder's other rungs may add to a full
// sweep's configurations for Full to keep them: up to a quarter they are
// cheap (4 and 8 workers of a 64-CPU box); on a 224-CPU box, 4 to 128
// would add 6 to 16 configurations of each variant.
const ladderShare = 0.25

// rungs returns the preset's worker counts on t with their placements, in
// ascending order of workers.
func (p Preset) rungs(t *affinity.Topology) []presetRung {
	if p != Full {
		rs := []presetRung{{Rung: bench.Rung{Threads: 1, Why: []string{"1"}}, places: p.Places(t)}}
		if t.AllowedCPUs.Weight() >= 2 {
			rs = append(rs, presetRung{Rung: bench.Rung{Threads: 2, Why: []string{"2"}}, places: p.Places(t)})
		}
		return rs
	}
	all := p.Places(t)
	curve := slices.DeleteFunc(slices.Clone(all), func(pl affinity.Placement) bool {
		return pl.Policy != affinity.Compact && pl.Policy != affinity.Spread
	})
	var rs []presetRung
	cells := 0
	for _, r := range bench.SeedRungs(t) {
		pr := presetRung{Rung: r, places: curve}
		if r.Topological() || slices.Contains(r.Why, "100%") || r.Threads == 1 {
			pr.places = all
		}
		if !r.Topological() && !slices.Contains(r.Why, "50%") && !slices.Contains(r.Why, "100%") && r.Threads > 1 {
			pr.rank = rankQuarter
		}
		cells += len(pr.places)
		rs = append(rs, pr)
	}
	var extra []presetRung
	for _, n := range bench.ThreadLadder(t) {
		if !slices.ContainsFunc(rs, func(r presetRung) bool { return r.Threads == n }) {
			extra = append(extra, presetRung{Rung: bench.Rung{Threads: n, Why: []string{"ladder"}},
				places: []affinity.Placement{{Policy: affinity.Compact}}, rank: rankLadder})
		}
	}
	if float64(len(extra)) <= ladderShare*float64(cells) {
		rs = append(rs, extra...)
		slices.SortFunc(rs, func(a, b presetRung) int { return a.Threads - b.Threads })
	}
	return rs
}

// rungNote says what the rungs of a preset answer on t and which of
// bench.ThreadLadder's rungs it leaves out, for Plan.Write.
func (p Preset) rungNote(t *affinity.Topology) string {
	rs := p.rungs(t)
	var parts []string
	for _, r := range rs {
		why := strings.Join(slices.DeleteFunc(slices.Clone(r.Why), func(w string) bool { return w == fmt.Sprint(r.Threads) }), ", ")
		part := fmt.Sprint(r.Threads)
		if why != "" {
			part += " (" + why + ")"
		}
		if len(r.places) < len(p.Places(t)) {
			part += " " + configlist.FormatPlaces(r.places)
		}
		parts = append(parts, part)
	}
	note := strings.Join(parts, "; ")
	var left []string
	for _, n := range bench.ThreadLadder(t) {
		if !slices.ContainsFunc(rs, func(r presetRung) bool { return r.Threads == n }) {
			left = append(left, fmt.Sprint(n))
		}
	}
	if p == Full && len(left) > 0 {
		note += fmt.Sprintf("; the ladder's %s left out (more than a quarter more configurations; -threads ladder runs them)", strings.Join(left, ", "))
	}
	return note
}

// Places returns the placements the preset can run on t: compact for Quick;
// every policy for Full (rungs says which run at which worker count), except that spread and cross, which differ from
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
	Preset    Preset
	Scenarios []*bench.Spec        // the scenarios to run; ParseScenarios reads -scenarios
	Variants  []string             // one scenario only
	Threads   []int                // configlist.ParseThreads reads -threads
	Places    []affinity.Placement // configlist.ParsePlaces reads -place
	Count     int
	Duration  time.Duration
	// Target is the adaptive rounds' confidence target (Plan.Target): 0
	// takes the preset's, NoTarget runs every job Count rounds.
	Target        float64
	Oversubscribe bool
}

// NoTarget as a Matrix's Target runs every job Count rounds.
const NoTarget = -1

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
		return nil, errors.New("-variant needs exactly one scenario in -scenarios")
	}
	p := &Plan{Topology: t, Count: m.Count, Duration: m.Duration, Target: m.Target}
	count, d := m.Preset.Size()
	maxRounds, target := m.Preset.Rounds()
	switch {
	case p.Target == NoTarget:
		p.Target = 0
	case p.Target == 0:
		p.Target = target
		count = maxRounds
	case p.Target < 0 || p.Target >= 1:
		return nil, fmt.Errorf("confidence target %g: want a share of the median between 0 and 1", p.Target)
	default:
		count = maxRounds
	}
	if p.Count == 0 {
		p.Count = count
	}
	if p.Duration == 0 {
		p.Duration = d
	}
	if p.Count < MinRounds {
		p.Target = 0 // no configuration can reach a 95% interval: fixed rounds, ±∞ in the tables
	}
	// The preset's rungs, each with its placements, unless the user named
	// the counts: then each count under the placements asked for, or all
	// the preset's.
	var rungs []presetRung
	if m.Threads == nil {
		rungs = m.Preset.rungs(t)
		if m.Places != nil {
			for i := range rungs {
				rungs[i].places = m.Places
			}
		}
		p.Rungs = m.Preset.rungNote(t)
	} else {
		places := m.Places
		if places == nil {
			places = m.Preset.Places(t)
		}
		for _, n := range m.Threads {
			rungs = append(rungs, presetRung{Rung: bench.Rung{Threads: n}, places: places})
		}
	}
	for _, s := range m.Scenarios {
		if err := p.expand(m, s, rungs, len(m.Scenarios) == 1); err != nil {
			return nil, err
		}
	}
	if len(p.Jobs) == 0 {
		return nil, errors.New("the matrix is empty on this machine (too few cpus or nodes for the asked threads and placements)")
	}
	return p, nil
}

// expand adds one scenario's jobs: its variants × rungs × their places. A
// configuration whose workers get the same CPUs, in the same order, as an
// earlier one of the same variant is not a job of its own: it shares that
// job's run (Job.Also). The same CPU set in another order is another
// measurement: a scenario may give its workers roles by index (loadavg's
// worker 0 samples, cross's first half writes), so spread's 224 workers
// alternating between the nodes are not compact's, though both use every
// CPU.
func (p *Plan) expand(m Matrix, s *bench.Spec, rungs []presetRung, only bool) error {
	vs := m.Preset.Variants(s)
	if m.Variants != nil {
		vs = m.Variants
	}
	for _, v := range vs {
		scen, err := s.New(v)
		if err != nil {
			return fmt.Errorf("-variant: %w", err)
		}
		runs := map[string]int{} // worker cpus → index in p.Jobs
		for _, r := range rungs {
			n := r.Threads
			if n < s.MinWorkers {
				if m.Threads != nil && only {
					return fmt.Errorf("-threads %d: %s needs at least %s", n, s.Name, workers(s.MinWorkers))
				}
				continue
			}
			for _, pl := range r.places {
				j, err := newJob(p.Topology, s, v, scen.Variant(), n, pl, m.Oversubscribe)
				if err != nil {
					if m.Threads != nil && m.Places != nil {
						return err
					}
					continue // this machine cannot host it; presets skip it
				}
				j.rank = r.rank
				key := fmt.Sprint(j.CPUs)
				if i, ok := runs[key]; ok {
					p.Jobs[i].Also = append(p.Jobs[i].Also, j)
					continue
				}
				runs[key] = len(p.Jobs)
				p.Jobs = append(p.Jobs, j)
			}
		}
	}
	return nil
}

// Configurations counts the plan's configurations: its jobs and those that
// share their runs.
func (p *Plan) Configurations() int {
	n := 0
	for _, j := range p.Jobs {
		n += 1 + len(j.Also)
	}
	return n
}

// workers is "1 worker", "2 workers".
func workers(n int) string {
	if n == 1 {
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", n)
}
