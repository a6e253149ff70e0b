package sweep

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/resultfmt"
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
	// Failed lists the configurations whose run failed in this sweep (a
	// scenario's broken invariant, a CPU gone offline, a worker found off
	// its CPU), in the order they ran: a run that configurations share
	// (Job.Also) fails each of them, as the file records a failure line
	// for each, so Failed and every total of failures count
	// configurations, as they say. FailedRuns is how many runs failed.
	// A configuration that failed runs no further round. Skipped lists
	// the failures an earlier sweep recorded in the file, one per
	// configuration, whose run this one did not make again.
	Failed, Skipped []results.Failure
	FailedRuns      int
	// Rounds says, with adaptive rounds, how far each job's rounds went
	// (its "# rounds:" line in the file), in the order they stopped; Target
	// is the plan's.
	Rounds []results.Convergence
	Target float64
	// Took is the sweep's wall time; Estimated what Plan.Estimate's
	// model gives for the runs this sweep made (and its floors), to check
	// the plan's estimate against.
	Took, Estimated time.Duration
	// Planned is Plan.Estimate's range, made before the sweep ran.
	Planned [2]time.Duration
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
	cfg := resultfmt.FileConfig(p.Topology, p.Command)
	// One session id per invocation: a sweep runs its whole matrix each
	// round, so its configurations are interleaved and compare can gate
	// on them (results.SessionKey); a resumed sweep is another session.
	cfg = append(cfg, benchfmt.Config{Key: results.SessionKey, Value: []byte(results.NewSession()), File: true})
	cfgs := map[*bench.Spec][]benchfmt.Config{}
	for _, j := range p.Jobs {
		if cfgs[j.Spec] == nil {
			cfgs[j.Spec] = resultfmt.WithPackage(cfg, j.Spec.Package)
		}
	}
	var units []benchfmt.Record
	extra := []bench.Unit{}
	if p.Floor {
		extra = append(extra, Handoffs)
	}
	for _, u := range resultfmt.AllUnits(extra...) {
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
	began := time.Now()
	o.Target = p.Target
	o.Planned[0], o.Planned[1] = p.Estimate()
	failed := map[string]bool{}  // configurations not to run again
	stopped := map[string]bool{} // configurations whose confidence interval is within Target
	for round := range p.Count {
		for _, j := range p.Jobs {
			if stopped[j.Name] {
				continue // off the bar's total already
			}
			if rf.Done(j.Name) > round || failed[j.Name] {
				bar.skip()
				continue
			}
			if f, ok := rf.Failed(j.Name); ok && !p.RetryFailed {
				o.Skipped = append(o.Skipped, f)
				for _, a := range j.Also {
					if f, ok := rf.Failed(a.Name); ok {
						o.Skipped = append(o.Skipped, f)
					}
				}
				failed[j.Name] = true
				bar.skip()
				continue
			}
			if c, ok := p.convergence(rf.Samples(j.Name)); ok && c.Converged {
				if !roundsRecorded(rf, j.Name, c) {
					if err := p.recordRounds(rf, o, j, c); err != nil {
						rf.Abandon()
						o.Results = rf.Len()
						return o, fmt.Errorf("%s: %w (results so far kept in %s)", j.Name, err, rf.Partial())
					}
				}
				stopped[j.Name] = true
				bar.drop(p.Count - round)
				continue
			}
			bar.start(j.Name)
			o.Estimated += p.runCost(j)
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
				for _, c := range append([]Job{j}, j.Also...) {
					f.Name = c.Name
					o.Failed = append(o.Failed, f)
				}
				o.FailedRuns++
				f.Name = j.Name
				failed[j.Name] = true
				bar.fail(f)
				continue
			}
			err = p.write(rf, enc, j, res, rec)
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
	// What did not converge ran every round: say how far it got. Without
	// a target (-ci 0), a configuration whose rounds line an adaptive
	// sweep wrote may have run further since: its line says how far it
	// got now, against the target it recorded, as a stale one would not.
	for _, j := range p.Jobs {
		if failed[j.Name] || stopped[j.Name] {
			continue
		}
		c, ok := p.convergence(rf.Samples(j.Name))
		if r, had := rf.Converged(j.Name); !ok && had {
			c, ok = convergenceAt(rf.Samples(j.Name), r.Target), true
		}
		if !ok || roundsRecorded(rf, j.Name, c) {
			continue
		}
		if err := p.recordRounds(rf, o, j, c); err != nil {
			rf.Abandon()
			o.Results = rf.Len()
			return o, fmt.Errorf("%s: %w (results so far kept in %s)", j.Name, err, rf.Partial())
		}
	}
	o.Results = rf.Len()
	if err := rf.Commit(); err != nil {
		return o, err
	}
	bar.finish()
	o.Estimated += 2 * time.Duration(len(p.floors)) * floorEstimate
	defer func() { o.Took = time.Since(began) }()
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
	rec := resultfmt.Record(j.Name, res, cfg)
	if key, _ := cpuSet(j.CPUs); p.floors[key] != nil {
		rec.Values = append(rec.Values, benchfmt.Value{Value: p.floors[key].Handoffs(res.NsPerOp()), Unit: Handoffs.Name})
	}
	return res, rec, nil
}

// write records one run's result into the results file under j's name and
// under the name of each configuration that shares the run (Job.Also),
// after a "# shared:" line naming those the file does not yet say share
// it (all of them the first time; those of a file written under a plan
// that did not share the run, resumed under one that does), and, when enc
// is not nil, as a JSON object each.
func (p *Plan) write(rf *results.File, enc *json.Encoder, j Job, res *bench.Result, rec *benchfmt.Result) error {
	recs := []benchfmt.Record{rec}
	var also []string
	for _, a := range j.Also {
		c := *rec
		c.Name = benchfmt.Name(a.Name)
		recs = append(recs, &c)
		if run, ok := rf.SharedRun(a.Name); !ok || run != j.Name {
			also = append(also, a.Name)
		}
	}
	if len(also) > 0 {
		if err := rf.Share(results.Shared{Name: j.Name, Also: also}); err != nil {
			return err
		}
	}
	if err := rf.Write(recs...); err != nil {
		return err
	}
	if enc == nil {
		return nil
	}
	for i, c := range append([]Job{j}, j.Also...) {
		if err := enc.Encode(results.NewJSON(c.Spec, c.Name, c.Place.String(), p.Topology.Label(), res, recs[i].(*benchfmt.Result))); err != nil {
			return err
		}
	}
	return nil
}

// recordFailure writes a failed run into the results file, under j's name
// and those of the configurations sharing its run, and, when enc is not
// nil, as a JSON object each.
func (p *Plan) recordFailure(rf *results.File, enc *json.Encoder, j Job, f results.Failure) error {
	for _, c := range append([]Job{j}, j.Also...) {
		f := f
		f.Name = c.Name
		if err := rf.Fail(f); err != nil {
			return err
		}
		if enc == nil {
			continue
		}
		if err := enc.Encode(failureJSON{Failure: f, Failed: true, Scenario: c.Spec.Name, Variant: c.Variant,
			Threads: c.Threads, Place: c.Place.String(), Topology: p.Topology.Label()}); err != nil {
			return err
		}
	}
	return nil
}

// convergence says how far samples (a job's sec/op so far) are from the
// plan's Target: the half-width of the 95% confidence interval of their
// median over the median, the larger side, computed as contend table
// computes the ± it prints (results.Summarize), so that a job stopped here
// shows a ± within the target. Converged needs MinRounds samples, below
// which no 95% interval exists. ok is false without adaptive rounds or
// samples.
func (p *Plan) convergence(samples []float64) (c results.Convergence, ok bool) {
	if p.Target <= 0 || len(samples) == 0 {
		return c, false
	}
	return convergenceAt(samples, p.Target), true
}

// convergenceAt is how far samples are from target (above 0).
func convergenceAt(samples []float64, target float64) results.Convergence {
	c := results.Convergence{Rounds: len(samples), Target: target, CI: ciShare(samples)}
	c.Converged = len(samples) >= MinRounds && c.CI <= target
	return c
}

// ciShare is the half-width of the 95% confidence interval of the median of
// xs, the larger side, as a share of the median: what contend table prints
// as ±; +Inf where no interval exists.
func ciShare(xs []float64) float64 {
	s := results.Summarize(xs, nil, nil, 0.95)
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || s.Center == 0 {
		return math.Inf(1)
	}
	return max(s.Hi/s.Center-1, 1-s.Lo/s.Center)
}

// roundsRecorded reports whether the file's last rounds line for name
// already says c. A resumed sweep may have gone further than the one that
// wrote it (a larger -count, another -ci): then c needs a line of its own,
// which readers take over the earlier one.
func roundsRecorded(rf *results.File, name string, c results.Convergence) bool {
	r, ok := rf.Converged(name)
	return ok && r.Rounds == c.Rounds && r.Converged == c.Converged && math.Abs(r.Target-c.Target) < 1e-9
}

// recordRounds writes a job's rounds line, and one for each configuration
// sharing its run, and notes it in o.
func (p *Plan) recordRounds(rf *results.File, o *Outcome, j Job, c results.Convergence) error {
	for _, cfg := range append([]Job{j}, j.Also...) {
		c := c
		c.Name = cfg.Name
		if err := rf.Converge(c); err != nil {
			return err
		}
	}
	c.Name = j.Name
	o.Rounds = append(o.Rounds, c)
	return nil
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
	o.writeRounds(w, max)
	if o.Ran > 0 && o.Estimated > 0 {
		planned := o.Planned[1].Round(100 * time.Millisecond).String()
		if o.Planned[0] != o.Planned[1] {
			planned = o.Planned[0].Round(100*time.Millisecond).String() + " to " + planned
		}
		fmt.Fprintf(w, "sweep: took %s; the plan estimated %s, and %s for the %d runs made (took %+.0f%% of that)\n",
			o.Took.Round(100*time.Millisecond), planned, o.Estimated.Round(100*time.Millisecond), o.Ran+o.FailedRuns,
			100*(o.Took.Seconds()/o.Estimated.Seconds()-1))
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

// writeRounds says how far the adaptive rounds went: how many
// configurations stopped within the target after how many rounds, and
// which did not (at most max of them, then a count).
func (o *Outcome) writeRounds(w io.Writer, max int) {
	if len(o.Rounds) == 0 {
		return
	}
	if o.Target <= 0 {
		// No target (-ci 0): the lines are an adaptive sweep's, brought up
		// to date by the rounds this one added.
		fmt.Fprintf(w, "sweep: %d of the runs an earlier adaptive sweep had stopped went further (no target: -ci 0); their \"# rounds:\" lines now say how far, against that sweep's target\n", len(o.Rounds))
		return
	}
	within := map[int]int{}
	var counts []int
	var not []results.Convergence
	for _, c := range o.Rounds {
		if !c.Converged {
			not = append(not, c)
			continue
		}
		if within[c.Rounds] == 0 {
			counts = append(counts, c.Rounds)
		}
		within[c.Rounds]++
	}
	slices.Sort(counts)
	var parts []string
	for _, n := range counts {
		parts = append(parts, fmt.Sprintf("%d after %d rounds", within[n], n))
	}
	fmt.Fprintf(w, "sweep: %d of %d runs (configurations sharing a run counted once) within ±%g%% of the median (95%% confidence): %s\n",
		len(o.Rounds)-len(not), len(o.Rounds), 100*o.Target, orNone(strings.Join(parts, ", ")))
	if len(not) == 0 {
		return
	}
	fmt.Fprintf(w, "sweep: %d NOT within ±%g%% after their last round (tables mark them; the file's \"# rounds:\" lines say how far each got):\n", len(not), 100*o.Target)
	slices.SortStableFunc(not, func(a, b results.Convergence) int { return cmp.Compare(b.CI, a.CI) })
	for i, c := range not {
		if i == max {
			fmt.Fprintf(w, "  ... and %d more\n", len(not)-max)
			break
		}
		fmt.Fprintf(w, "  %s: ±%s after %d rounds\n", c.Name, pctString(c.CI), c.Rounds)
	}
}

// pctString writes a share as a percentage, to one decimal below 10%,
// "∞" where infinite.
func pctString(x float64) string {
	switch {
	case math.IsInf(x, 0):
		return "∞"
	case x < 0.1:
		return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(100*x, 'f', 0, 64) + "%"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// WriteOutcome writes what contend sweep says once RunAll is done: how many
// results went to the file out, the handoff floor, and the notes
// (WriteNotes, at most 20 of each kind).
func (p *Plan) WriteOutcome(w io.Writer, o *Outcome, out string) {
	fmt.Fprintf(w, "sweep: %d results in %s (topology %s)\n", o.Results, out, p.Topology.Label())
	if note := p.FloorNote(); note != "" {
		fmt.Fprintf(w, "sweep: handoff floor %s; handoffs/op = ns/op over the floor\n", note)
	}
	o.WriteNotes(w, 20)
}
