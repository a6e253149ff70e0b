// Package runs runs one configuration of a scenario on pinned workers, a
// fixed duration or number of operations, one or more times: what contend
// run does, made for perf record. NewPlan resolves what the command line
// chose (scenario, variant, worker count, placement) into the workers'
// cpus on a topology; Plan.Run runs it and writes each result as it
// completes, as a Go benchmark line or one JSON object (results.NewJSON),
// with its description for people beside it (report.WriteRun) and, after
// several runs, their summary (report.SummarizeRecords).
//
// Results go to stdout or replace a file whole once every run is done
// (results.Output); a run that fails part way keeps the completed ones in
// FILE.partial and says so in its one-line error.
package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/resultfmt"
	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/results"
)

// A Choice is one configuration as contend run's flags name it.
type Choice struct {
	Scenario, Variant string
	// Threads is the number of workers; 0 takes 2 (or the scenario's
	// least, if more), or the count of an explicit cpu list.
	Threads int
	// Place is a placement policy or an explicit cpu list, as
	// affinity.ParsePlacement reads it.
	Place         string
	Oversubscribe bool // allow more workers than usable cpus
}

// A Plan is a Choice resolved: the topology, the scenario and the cpus.
type Plan struct {
	Topology *affinity.Topology
	Spec     *bench.Spec
	Scenario bench.Scenario
	Place    affinity.Placement
	CPUs     []int
}

// NewPlan resolves c on the topology that load returns, which it calls
// only once the scenario and its variant are known good (load's errors
// come back as they are). Errors start with cmd, the command's name, and
// name the flag at fault.
func NewPlan(cmd string, c Choice, load func() (*affinity.Topology, error)) (*Plan, error) {
	spec, err := bench.Lookup(c.Scenario)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	scen, err := spec.New(c.Variant)
	if err != nil {
		return nil, fmt.Errorf("%s: -variant: %w", cmd, err)
	}
	t, err := load()
	if err != nil {
		return nil, err
	}
	place, err := affinity.ParsePlacement(c.Place)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	threads := c.Threads
	if threads == 0 {
		threads = max(2, spec.MinWorkers)
		if place.Policy == affinity.List {
			threads = place.CPUs.Weight()
		}
	}
	if threads < spec.MinWorkers {
		return nil, fmt.Errorf("%s: -threads %d: %s needs at least %d workers", cmd, threads, spec.Name, spec.MinWorkers)
	}
	cpus, err := place.Assign(t, threads, c.Oversubscribe)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return &Plan{Topology: t, Spec: spec, Scenario: scen, Place: place, CPUs: cpus}, nil
}

// Options say how to run a Plan and where its results go.
type Options struct {
	Ops      int64         // a fixed total of operations; 0 runs for Duration
	Duration time.Duration // how long each run lasts without Ops
	Count    int           // runs, one result each, as go test -count
	Out      string        // the results file ("" for stdout)
	JSON     bool          // one JSON object per result instead of the benchmark line
	Context  context.Context
	Command  []string // the command line, for the results' provenance
	// Run runs one configuration (bench.Run if nil); tests replace it to
	// make a run fail.
	Run func(bench.Scenario, bench.Config) (*bench.Result, error)
}

// Run runs p o.Count times, stopping early once o.Context is done, writing
// results to stdout (or o.Out) and the description of each, then the
// summary of several, to stderr.
func (p *Plan) Run(stdout, stderr io.Writer, o Options) error {
	run := o.Run
	if run == nil {
		run = bench.Run
	}
	w, commit, keep := results.Output(stdout, "run", o.Out)
	out := &output{p: p, w: w, bw: benchfmt.NewWriter(w), stderr: stderr, asJSON: o.JSON,
		// One provenance for every run of the command, as a sweep has.
		cfg: resultfmt.WithPackage(resultfmt.FileConfig(p.Topology, o.Command), p.Spec.Package)}
	cfg := bench.Config{Topology: p.Topology, CPUs: p.CPUs, Ops: o.Ops, Duration: o.Duration, Context: o.Context}
	for i := range o.Count {
		res, err := run(p.Scenario, cfg)
		if err != nil {
			// The runs that completed are results: keep them.
			if partial, kerr := keep(); kerr != nil || partial != "" {
				return fmt.Errorf("run %s: %w (%s)", p.Spec.Name, err, results.KeptNote(len(out.recs), partial, kerr))
			}
			return fmt.Errorf("run %s: %w", p.Spec.Name, err)
		}
		if err := out.write(res, i == 0); err != nil {
			return err
		}
		if o.Context != nil && o.Context.Err() != nil {
			break
		}
	}
	if err := commit(); err != nil {
		return err
	}
	// Several runs of one configuration: their median and its interval,
	// after the runs' own reports.
	if len(out.recs) > 1 {
		where := o.Out
		if where == "" {
			where = "the results on stdout"
		}
		fmt.Fprintln(stderr)
		return report.SummarizeRecords(stderr, out.recs, where)
	}
	return nil
}

// output is where a Plan's results go: benchmark lines or JSON to w, a
// description for people to stderr.
type output struct {
	p      *Plan
	w      io.Writer
	bw     *benchfmt.Writer
	stderr io.Writer
	asJSON bool
	cfg    []benchfmt.Config
	recs   []*benchfmt.Result // every run's record, for the closing summary
}

// write writes one run's result and its description; the first result of
// the command is preceded by its units' metadata.
func (o *output) write(res *bench.Result, first bool) error {
	p := o.p
	name := resultfmt.Name(p.Spec, res.Variant, len(p.CPUs), p.Place.String())
	rec := resultfmt.Record(name, res, o.cfg)
	var err error
	if o.asJSON {
		err = json.NewEncoder(o.w).Encode(results.NewJSON(p.Spec, name, p.Place.String(), p.Topology.Label(), res, rec))
	} else {
		err = results.WriteRecord(o.bw, res, rec, first)
	}
	if err != nil {
		return err
	}
	o.recs = append(o.recs, rec)
	var notes []string
	if n, ok := p.Scenario.(bench.Noter); ok {
		notes = n.Notes()
	}
	report.WriteRun(o.stderr, report.Run{Scenario: p.Spec.Name, CPUs: p.CPUs, Place: p.Place.String(), Topology: p.Topology, Notes: notes}, res)
	return nil
}
