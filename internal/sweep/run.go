package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
)

// Handoffs is ns/op over the CPU set's measured core-to-core handoff floor:
// line transfers per operation, a figure that compares across machines whose
// transfers cost 20 or 200 ns.
var Handoffs = bench.Unit{Name: "handoffs/op", Better: bench.Lower,
	Doc: "ns/op over the cpu set's core-to-core handoff time: line transfers per operation"}

// An Outcome is what a sweep saw besides its results.
type Outcome struct {
	// Results is how many results the file holds, Ran how many runs this
	// sweep made.
	Results, Ran int
	// Disturbed lists the runs in which a worker lost more than
	// bench.DisturbedPct of its time, in the order they ran.
	Disturbed []Disturbed
	// Floors holds, per CPU set, the handoff floor measured before its
	// first run and again after the sweep (FloorChange.Drifted says
	// whether the machine changed under the sweep); Unmeasured, the CPU
	// sets whose floor could not be measured again.
	Floors     []FloorChange
	Unmeasured [][]int
}

// A Disturbed names a disturbed run and says what disturbed it.
type Disturbed struct {
	Name     string
	Round    int      // 1-based
	Warnings []string // bench.Result.Warnings
}

// RunAll executes the plan into the results file out: the whole matrix
// once, then again, Count times, so that slow drifts of the machine spread
// over all configurations instead of landing on one. Results are written
// one by one and made durable before the next run (results.File); with
// resume, the results out (or out.partial) already holds are not run again.
// progress receives a progress bar on a terminal, lines otherwise; js, when
// not nil, one JSON object per result (results.JSON) as each is written.
// With Floor, the handoff floor of each CPU set is measured before its
// first run and again at the end, to catch a machine that changed under
// the sweep.
func (p *Plan) RunAll(ctx context.Context, out string, resume bool, progress, js io.Writer) (*Outcome, error) {
	o := &Outcome{}
	rf, err := results.Open(out, resume)
	if err != nil {
		return o, err
	}
	// The configuration lines, once: every record of a scenario carries
	// the same ones.
	cfg := results.FileConfig(p.Topology, p.Command)
	cfgs := map[*bench.Spec][]benchfmt.Config{}
	for _, j := range p.Jobs {
		if cfgs[j.Spec] == nil {
			cfgs[j.Spec] = results.WithPackage(cfg, j.Spec.Package)
		}
	}
	var units []benchfmt.Record
	extra := []bench.Unit{}
	if p.Floor {
		extra = append(extra, Handoffs)
	}
	for _, u := range results.AllUnits(extra...) {
		units = append(units, u)
	}
	if err := rf.Write(units...); err != nil {
		rf.Abandon()
		return o, err
	}
	var enc *json.Encoder
	if js != nil {
		enc = json.NewEncoder(js)
	}
	bar := newProgress(progress, p.Count*len(p.Jobs))
	defer bar.finish()
	for round := range p.Count {
		for _, j := range p.Jobs {
			if rf.Done(j.Name) > round {
				bar.skip()
				continue
			}
			bar.start(j.Name)
			res, rec, err := p.runJob(ctx, j, rf, cfgs[j.Spec])
			if err == nil {
				o.Ran++
				if res.Disturbed() {
					o.Disturbed = append(o.Disturbed, Disturbed{Name: j.Name, Round: round + 1, Warnings: res.Warnings()})
				}
				if enc != nil {
					err = enc.Encode(results.NewJSON(j.Spec, j.Name, j.Place.String(), p.Topology.Label(), res, rec))
				}
			}
			if err != nil {
				rf.Abandon()
				o.Results = rf.Len()
				if ctx.Err() != nil {
					return o, fmt.Errorf("interrupted: %d results kept in %s (valid benchmark format); rerun with -resume -o %s to continue", rf.Len(), rf.Partial(), out)
				}
				return o, fmt.Errorf("%s: %w (results so far kept in %s)", j.Name, err, rf.Partial())
			}
			bar.done()
		}
	}
	o.Results = rf.Len()
	if err := rf.Commit(); err != nil {
		return o, err
	}
	bar.finish()
	if err := p.remeasureFloors(ctx, o); err != nil {
		return o, err
	}
	return o, nil
}

// runJob runs one configuration once, on the CPUs the job was given, and
// writes its result with the configuration lines cfg.
func (p *Plan) runJob(ctx context.Context, j Job, rf *results.File, cfg []benchfmt.Config) (*bench.Result, *benchfmt.Result, error) {
	scen, err := j.Spec.New(j.Variant)
	if err != nil {
		return nil, nil, err
	}
	if err := p.measureFloor(ctx, j.CPUs); err != nil {
		return nil, nil, err
	}
	res, err := bench.Run(scen, bench.Config{Topology: p.Topology, CPUs: j.CPUs, Duration: p.Duration, Context: ctx})
	if err != nil {
		return nil, nil, err
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err() // a run cut short is not a sample
	}
	rec := results.Record(j.Name, res, cfg)
	if key, _ := cpuSet(j.CPUs); p.floors[key] != nil {
		rec.Values = append(rec.Values, benchfmt.Value{Value: p.floors[key].Handoffs(res.NsPerOp()), Unit: Handoffs.Name})
	}
	if err := rf.Write(rec); err != nil {
		return nil, nil, err
	}
	return res, rec, nil
}

// WriteNotes writes what a finished sweep saw besides its results, for
// people: the disturbed runs (at most max, then a count), and any CPU set
// whose handoff floor changed under the sweep.
func (o *Outcome) WriteNotes(w io.Writer, max int) {
	if n := len(o.Disturbed); n > 0 {
		fmt.Fprintf(w, "sweep: %d of %d runs were disturbed (a worker lost over %g%% of its time); tables mark the cells they land in:\n", n, o.Ran, bench.DisturbedPct)
		for i, d := range o.Disturbed {
			if i == max {
				fmt.Fprintf(w, "  ... and %d more (contend table -unit lost-%% or sweep -json shows all)\n", n-max)
				break
			}
			fmt.Fprintf(w, "  %s (round %d): %s\n", d.Name, d.Round, strings.Join(d.Warnings, "; "))
		}
	}
	var steady []string
	for _, c := range o.Floors {
		if !c.Drifted() {
			steady = append(steady, fmt.Sprintf("cpus %v %.1f ns (before: %.1f)", c.CPUs, c.After, c.Before))
		}
	}
	if len(steady) > 0 {
		fmt.Fprintf(w, "sweep: handoff floor after the sweep: %s, within %.0f%%\n", strings.Join(steady, "; "), 100*FloorDrift)
	}
	for _, c := range o.Floors {
		if c.Drifted() {
			fmt.Fprintf(w, "sweep: WARNING: %s\n", c)
		}
	}
	for _, cpus := range o.Unmeasured {
		fmt.Fprintf(w, "sweep: WARNING: cpus %v: handoff floor not measured again within %v after the sweep (are the cpus busy?): whether the machine changed under the sweep is unknown\n", cpus, floorTimeout)
	}
}
