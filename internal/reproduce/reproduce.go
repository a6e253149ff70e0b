package reproduce

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
	"github.com/contend/contend/internal/sweep"
)

// Env is what the experiments are sized for: the worker count and placement
// of the contended ones, how many nodes there are and whether they are real.
// NewEnv makes it for this machine, to run; EnvFromResults reads it back
// from a results file, to judge that file anywhere.
type Env struct {
	topo    *affinity.Topology // nil when judging a file
	full    bool
	threads int    // workers for the contended experiments
	place   string // their placement
	nodes   int    // nodes with usable cpus
	fake    bool   // the nodes are fake (affinity.Topology.Fake)
	machine string // the machine, in words, for the table's heading
}

// NewEnv sizes the experiments for topology t: every allowed CPU a worker
// (at most 4 unless full), spread over the nodes when there are several.
func NewEnv(t *affinity.Topology, full bool) *Env {
	e := &Env{topo: t, full: full, place: "compact", fake: t.IsFake()}
	e.nodes = t.UsableNodes()
	e.threads = t.AllowedCPUs.Weight()
	if !full {
		e.threads = min(e.threads, 4)
	}
	if e.nodes >= 2 {
		e.place = "spread"
	}
	e.machine = describe(t, e)
	return e
}

// EnvFromResults reads the Env of a reproduce run back from its results:
// the worker count and placement its contended experiments ran at, the node
// count and topology its configuration lines record. It fails when the
// results hold none of reproduce's experiments, or several sizings of them
// (a sweep's file rather than a reproduce run's).
func EnvFromResults(set *results.Set) (*Env, error) {
	if len(set.Results) == 0 {
		return nil, errors.New("no results")
	}
	cfg := func(key string) string {
		if v := set.Results[0].GetConfig(key); v != "" {
			return v
		}
		return "unknown"
	}
	e := &Env{fake: strings.HasPrefix(cfg("topology"), "fake")}

	// Which sizings did the contended experiments run at? The probe's
	// worker count does not matter: only the name up to /threads= is read.
	probe := &Env{threads: 2, place: "compact", nodes: 2}
	prefixes := map[string]bool{}
	for _, f := range findings(probe) {
		for _, m := range f.measures() {
			if m.X.contended {
				if p, err := m.X.prefix(); err == nil {
					prefixes[p] = true
				}
			}
		}
	}
	type sizing struct {
		threads int
		place   string
	}
	var found []sizing
	for _, r := range set.Results {
		name := stripProcs(r.Name.String())
		i := strings.LastIndex(name, "/threads=")
		if i < 0 || !prefixes[name[:i]] {
			continue
		}
		var s sizing
		if _, err := fmt.Sscanf(strings.ReplaceAll(name[i+1:], "/", " "), "threads=%d place=%s", &s.threads, &s.place); err != nil || s.threads < 1 {
			continue
		}
		if !slices.Contains(found, s) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, errors.New("none of reproduce's experiments are in the results (is it a reproduce run's file?)")
	case 1:
	default:
		var ss []string
		for _, s := range found {
			ss = append(ss, fmt.Sprintf("threads=%d/place=%s", s.threads, s.place))
		}
		return nil, fmt.Errorf("reproduce's experiments ran at several sizings (%s): judge one reproduce run's file", strings.Join(ss, ", "))
	}
	e.threads, e.place = found[0].threads, found[0].place
	// NewEnv spreads the workers exactly when two or more nodes have
	// usable cpus, so the placement says which findings could run; the
	// file's nodes line counts nodes whether or not the run could use them.
	e.nodes = 1
	if e.place == "spread" {
		e.nodes = 2
	}
	hv := ""
	if h := cfg("hypervisor"); h != "none" && h != "unknown" {
		hv = ", under " + affinity.HypervisorName(h)
	}
	e.machine = fmt.Sprintf("%s: cpus %s, %s node(s) (topology %s)%s; %d workers, place=%s",
		cfg("cpu"), cfg("cpus"), cfg("nodes"), cfg("topology"), hv, e.threads, e.place)
	return e, nil
}

// Plan gathers every finding's experiments into one sweep, so that the
// configurations interleave across the rounds like any sweep's.
func (e *Env) Plan() (*sweep.Plan, error) {
	if e.topo == nil {
		return nil, errors.New("an Env read from results cannot run")
	}
	preset := sweep.Quick
	if e.full {
		preset = sweep.Full
	}
	p := &sweep.Plan{Topology: e.topo}
	p.Count, p.Duration = preset.Size()
	seen := map[string]bool{}
	for _, f := range findings(e) {
		if why := f.unmet(e); why != "" {
			continue
		}
		for _, m := range f.measures() {
			j, err := e.job(m.X)
			if err != nil {
				return nil, fmt.Errorf("finding %d: %w", f.ID, err)
			}
			if !seen[j.Name] {
				seen[j.Name] = true
				p.Jobs = append(p.Jobs, j)
			}
		}
	}
	if len(p.Jobs) == 0 {
		return nil, errors.New("no finding can be reproduced on this machine")
	}
	if !e.full {
		fitQuick(p)
	}
	return p, nil
}

// measures returns every measure the finding reads, claims and shown
// figures alike.
func (f *Finding) measures() []Measure {
	var ms []Measure
	for _, c := range f.claims() {
		ms = append(ms, c.measures()...)
	}
	for _, s := range f.Shown {
		ms = append(ms, s.Before, s.After)
	}
	for _, g := range f.Mechanism {
		ms = append(ms, g.measures()...)
	}
	return ms
}

func (e *Env) job(x Experiment) (sweep.Job, error) {
	spec, err := bench.Lookup(x.Scenario)
	if err != nil {
		return sweep.Job{}, err
	}
	pl, err := affinity.ParsePlacement(x.Place)
	if err != nil {
		return sweep.Job{}, err
	}
	return sweep.NewJob(e.topo, spec, x.Variant, x.Threads, pl, false)
}

// name returns the experiment's full benchmark name without the -GOMAXPROCS
// suffix, which depends on the machine that ran it, not on the experiment.
func (x Experiment) name() (string, error) {
	p, err := x.prefix()
	if err != nil {
		return "", err
	}
	return bench.ConfigName(p, x.Threads, x.Place), nil
}

// prefix is the name up to the worker count: benchmark and canonical variant.
func (x Experiment) prefix() (string, error) {
	spec, err := bench.Lookup(x.Scenario)
	if err != nil {
		return "", err
	}
	s, err := spec.New(x.Variant)
	if err != nil {
		return "", err
	}
	return spec.BenchName + "/" + s.Variant(), nil
}

var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

func stripProcs(name string) string { return procsSuffix.ReplaceAllString(name, "") }

// data is what a finding is judged on: each measure's samples.
type data interface {
	values(Measure) []float64
	missing(ms ...Measure) string
}

// sampleSet is data keyed by experiment name (without the -N suffix) and
// unit name, as the scenario declares it (ns/op, not benchfmt's sec/op).
type sampleSet map[string][]float64

func key(m Measure) string {
	n, err := m.X.name()
	if err != nil {
		return "!" + err.Error()
	}
	return n + " " + m.Unit.Name
}

func (s sampleSet) values(m Measure) []float64 {
	v := slices.Clone(s[key(m)])
	slices.Sort(v)
	return v
}

func (s sampleSet) missing(ms ...Measure) string {
	var why []string
	for _, m := range ms {
		if len(s[key(m)]) > 0 {
			continue
		}
		if _, err := m.X.name(); err != nil {
			why = append(why, err.Error())
			continue
		}
		why = append(why, m.X.Scenario+" "+m.X.Label+" "+m.Unit.Name)
	}
	return strings.Join(why, ", ")
}

// samplesOf indexes a results set: every value of every result, in the unit
// the file wrote (benchfmt tidies ns/op to sec/op; findings read ns/op).
func samplesOf(set *results.Set) sampleSet {
	s := sampleSet{}
	for _, r := range set.Results {
		n := stripProcs(r.Name.String())
		for _, v := range r.Values {
			s[n+" "+results.OrigUnit(v)] = append(s[n+" "+results.OrigUnit(v)], results.OrigValue(v))
		}
	}
	return s
}

// Judge reads a reproduce run's results, one row per finding.
func (e *Env) Judge(set *results.Set) []Row {
	return e.judge(samplesOf(set))
}

func (e *Env) judge(d data) []Row {
	var rows []Row
	for _, f := range findings(e) {
		rows = append(rows, f.judge(e, d))
	}
	return rows
}

// NumFindings returns how many findings a reproduce run judges.
func NumFindings() int { return len(findings(&Env{threads: 2, place: "compact"})) }

func describe(t *affinity.Topology, e *Env) string {
	m := t.Machine
	smt := "no SMT"
	for _, c := range t.CPUs {
		if c.Online && c.Siblings.Weight() > 1 {
			smt = "SMT"
			break
		}
	}
	hv := ""
	if m.Hypervisor {
		hv = ", under " + affinity.HypervisorName(m.HypervisorVendor)
	}
	return fmt.Sprintf("%s: %d allowed cpus, %d node(s) (topology %s), %s%s; %d workers, place=%s",
		m.Brand, t.AllowedCPUs.Weight(), len(t.Nodes), t.Label(), smt, hv, e.threads, e.place)
}
