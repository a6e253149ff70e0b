package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
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
	// Failed lists the runs of this sweep that failed (a scenario's
	// broken invariant, a CPU gone offline, a worker found off its CPU),
	// in the order they ran; a configuration that failed runs no further
	// round. Skipped lists the failures an earlier sweep recorded in the
	// file, whose configurations this one did not run again.
	Failed, Skipped []results.Failure
}

// A FailedError is RunAll's error when the sweep ran to the end but some
// configurations failed: the results file is complete, holds the other
// configurations' results and each failure as a comment line.
type FailedError struct {
	File     string
	Failures []results.Failure // this sweep's, then the skipped ones
}

func (e *FailedError) Error() string {
	f := e.Failures[0]
	more := ""
	if n := len(e.Failures) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	return fmt.Sprintf("%s failed: %s (round %d): %s%s; the other results are in %s, with the failures as comment lines",
		configurations(len(e.Failures)), f.Name, f.Round, f.Msg, more, e.File)
}

// configurations is "1 configuration", "2 configurations".
func configurations(n int) string {
	if n == 1 {
		return "1 configuration"
	}
	return fmt.Sprintf("%d configurations", n)
}

// FailRun, when a test sets it, is asked after each run that succeeded
// whether to fail it instead, as a broken invariant would: it exercises a
// sweep's failure path without a scenario that breaks. round is 1-based.
// Nil outside tests.
var FailRun func(name string, round int) error

// failureJSON is a failed run as -json prints it, among the results'
// objects: "failed" and "error" tell it from a result.
type failureJSON struct {
	results.Failure        // name, round, error
	Failed          bool   `json:"failed"`
	Scenario        string `json:"scenario"`
	Variant         string `json:"variant"`
	Threads         int    `json:"threads"`
	Place           string `json:"place"`
	Topology        string `json:"topology"`
}

// A Disturbed names a disturbed run and says what disturbed it.
type Disturbed struct {
	Name     string
	Round    int      // 1-based
	Warnings []string // bench.Result.Warnings
	Lost     float64  // the most disturbed worker's lost-%
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
//
// A run that fails does not end the sweep: its failure is recorded in the
// file (results.File.Fail) and in js, the configuration runs no further
// round, and the others go on; the complete file is committed and the
// error is a *FailedError. A resumed sweep does not run again what the
// file records as failed unless RetryFailed. Only an interrupt (ctx) or a
// results file that cannot be written ends a sweep early, keeping the
// partial file for -resume.
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
	failed := map[string]bool{} // configurations not to run again
	for round := range p.Count {
		for _, j := range p.Jobs {
			if rf.Done(j.Name) > round || failed[j.Name] {
				bar.skip()
				continue
			}
			if f, ok := rf.Failed(j.Name); ok && !p.RetryFailed {
				o.Skipped = append(o.Skipped, f)
				failed[j.Name] = true
				bar.skip()
				continue
			}
			bar.start(j.Name)
			res, rec, err := p.runJob(ctx, j, cfgs[j.Spec], round+1)
			if err != nil && ctx.Err() != nil {
				rf.Abandon()
				o.Results = rf.Len()
				return o, fmt.Errorf("interrupted: %d results kept in %s (valid benchmark format); rerun with -resume -o %s to continue", rf.Len(), rf.Partial(), out)
			}
			if err != nil {
				// One line, as the file keeps it (errors.Join's lines folded).
				f := results.Failure{Name: j.Name, Round: round + 1, Msg: strings.ReplaceAll(err.Error(), "\n", "; ")}
				if err := p.recordFailure(rf, enc, j, f); err != nil {
					rf.Abandon()
					o.Results = rf.Len()
					return o, fmt.Errorf("%s: %w (results so far kept in %s)", j.Name, err, rf.Partial())
				}
				o.Failed = append(o.Failed, f)
				failed[j.Name] = true
				bar.fail(f)
				continue
			}
			err = rf.Write(rec)
			if err == nil && enc != nil {
				err = enc.Encode(results.NewJSON(j.Spec, j.Name, j.Place.String(), p.Topology.Label(), res, rec))
			}
			if err != nil {
				rf.Abandon()
				o.Results = rf.Len()
				return o, fmt.Errorf("%s: %w (results so far kept in %s)", j.Name, err, rf.Partial())
			}
			o.Ran++
			if res.Disturbed() {
				o.Disturbed = append(o.Disturbed, Disturbed{Name: j.Name, Round: round + 1, Warnings: res.Warnings(), Lost: worstLost(res)})
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
	if len(o.Failed)+len(o.Skipped) > 0 {
		return o, &FailedError{File: out, Failures: append(slices.Clip(o.Failed), o.Skipped...)}
	}
	return o, nil
}

// runJob runs one configuration once, round (1-based) of the sweep, on the
// CPUs the job was given, and returns its result and its record with the
// configuration lines cfg. Any error is the run's: the caller tells an
// interrupt from a failed run.
func (p *Plan) runJob(ctx context.Context, j Job, cfg []benchfmt.Config, round int) (*bench.Result, *benchfmt.Result, error) {
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
	if FailRun != nil {
		if err := FailRun(j.Name, round); err != nil {
			return nil, nil, err
		}
	}
	rec := results.Record(j.Name, res, cfg)
	if key, _ := cpuSet(j.CPUs); p.floors[key] != nil {
		rec.Values = append(rec.Values, benchfmt.Value{Value: p.floors[key].Handoffs(res.NsPerOp()), Unit: Handoffs.Name})
	}
	return res, rec, nil
}

// recordFailure writes a failed run into the results file and, when enc is
// not nil, as a JSON object.
func (p *Plan) recordFailure(rf *results.File, enc *json.Encoder, j Job, f results.Failure) error {
	if err := rf.Fail(f); err != nil {
		return err
	}
	if enc == nil {
		return nil
	}
	return enc.Encode(failureJSON{Failure: f, Failed: true, Scenario: j.Spec.Name, Variant: j.Variant,
		Threads: j.Threads, Place: j.Place.String(), Topology: p.Topology.Label()})
}

// WriteNotes writes what a finished sweep saw besides its results, for
// people: the disturbed runs (at most max, then a count), and any CPU set
// whose handoff floor changed under the sweep.
func (o *Outcome) WriteNotes(w io.Writer, max int) {
	if n := len(o.Failed); n > 0 {
		fmt.Fprintf(w, "sweep: %s FAILED and ran no further round (each failure is a \"# failed:\" line in the results file; sweep -resume -retry-failed runs them again):\n", configurations(n))
		writeFailures(w, o.Failed, max)
	}
	if n := len(o.Skipped); n > 0 {
		fmt.Fprintf(w, "sweep: %s failed in an earlier sweep and were not run again (sweep -resume -retry-failed runs them):\n", configurations(n))
		writeFailures(w, o.Skipped, max)
	}
	if n := len(o.Disturbed); n > 0 {
		fmt.Fprintf(w, "sweep: %d of %d runs were disturbed (a worker lost over %g%% of its time); tables mark the cells they land in, and contend table -unit lost-%% or sweep -json lists every one:\n", n, o.Ran, bench.DisturbedPct)
		writeDisturbed(w, o.Disturbed)
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

// writeDisturbed summarises disturbed runs for people: per scenario, how
// many and the worst, with its warnings. The whole list is in -json and, as
// lost-%, in the results file.
func writeDisturbed(w io.Writer, ds []Disturbed) {
	var order []string
	count := map[string]int{}
	worst := map[string]Disturbed{}
	for _, d := range ds {
		sc, _, _ := strings.Cut(d.Name, "/")
		if count[sc] == 0 {
			order = append(order, sc)
		}
		count[sc]++
		if wd, seen := worst[sc]; !seen || d.Lost > wd.Lost {
			worst[sc] = d
		}
	}
	for _, sc := range order {
		d := worst[sc]
		runs := "runs"
		if count[sc] == 1 {
			runs = "run"
		}
		fmt.Fprintf(w, "  %s: %d %s; the worst, %s (round %d): %s\n", sc, count[sc], runs, strings.TrimPrefix(d.Name, sc+"/"), d.Round, strings.Join(d.Warnings, "; "))
	}
}

// worstLost is the most disturbed worker's lost-% (0 without accounting).
func worstLost(res *bench.Result) float64 {
	lost := 0.0
	for i := range res.Workers {
		lost = max(lost, res.Workers[i].LostPct())
	}
	return lost
}

// writeFailures lists failures, one a line, at most max of them and then a
// count; failures with the same message (a CPU gone offline fails every
// configuration on it alike) are listed once, with their configurations.
func writeFailures(w io.Writer, fs []results.Failure, max int) {
	var msgs []string
	by := map[string][]results.Failure{}
	for _, f := range fs {
		if by[f.Msg] == nil {
			msgs = append(msgs, f.Msg)
		}
		by[f.Msg] = append(by[f.Msg], f)
	}
	for i, m := range msgs {
		if i == max {
			rest := 0
			for _, m := range msgs[max:] {
				rest += len(by[m])
			}
			fmt.Fprintf(w, "  ... and %d more (sweep -json or the file's \"# failed:\" lines show all)\n", rest)
			break
		}
		g := by[m]
		names := fmt.Sprintf("%s (round %d)", g[0].Name, g[0].Round)
		if len(g) > 1 {
			names += fmt.Sprintf(" and %d more", len(g)-1)
		}
		fmt.Fprintf(w, "  %s: %s\n", names, m)
	}
}
