package sweep

import (
	"context"
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
)

// Handoffs is ns/op over the CPU set's measured core-to-core handoff floor:
// line transfers per operation, a figure that compares across machines whose
// transfers cost 20 or 200 ns.
var Handoffs = bench.Unit{Name: "handoffs/op", Better: bench.Lower,
	Doc: "ns/op over the cpu set's core-to-core handoff time: line transfers per operation"}

// Run executes the plan into the results file out: the whole matrix once,
// then again, Count times, so that slow drifts of the machine spread over
// all configurations instead of landing on one. Results are written one by
// one and made durable before the next run (results.File); with resume, the
// results out (or out.partial) already holds are not run again. progress
// receives a progress bar on a terminal, lines otherwise. It returns how
// many results the file holds.
func (p *Plan) Run(ctx context.Context, out string, resume bool, progress io.Writer) (int, error) {
	rf, err := results.Open(out, resume)
	if err != nil {
		return 0, err
	}
	cfg := append(results.Provenance(p.Topology), benchfmt.Config{Key: "date", Value: []byte(results.Date()), File: true})
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
		return 0, err
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
			if err := p.runJob(ctx, j, rf, cfg); err != nil {
				rf.Abandon()
				if ctx.Err() != nil {
					return rf.Len(), fmt.Errorf("interrupted: %d results kept in %s (valid benchmark format); rerun with -resume -o %s to continue", rf.Len(), rf.Partial(), out)
				}
				return rf.Len(), fmt.Errorf("%s: %w (results so far kept in %s)", j.Name, err, rf.Partial())
			}
			bar.done()
		}
	}
	if err := rf.Commit(); err != nil {
		return rf.Len(), err
	}
	return rf.Len(), nil
}

// runJob runs one configuration once and writes its result.
func (p *Plan) runJob(ctx context.Context, j Job, rf *results.File, cfg []benchfmt.Config) error {
	scen, err := j.Spec.New(j.Variant)
	if err != nil {
		return err
	}
	cpus, err := j.Place.Assign(p.Topology, j.Threads, p.Oversubscribe)
	if err != nil {
		return err
	}
	if err := p.measureFloor(ctx, cpus); err != nil {
		return err
	}
	res, err := bench.Run(scen, bench.Config{Topology: p.Topology, CPUs: cpus, Duration: p.Duration, Context: ctx})
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err() // a run cut short is not a sample
	}
	rec := results.Record(j.Name, res, cfg)
	if f := p.floors[fmt.Sprint(res.CPUs)]; f != nil {
		rec.Values = append(rec.Values, benchfmt.Value{Value: f.Handoffs(res.NsPerOp()), Unit: Handoffs.Name})
	}
	return rf.Write(rec)
}
