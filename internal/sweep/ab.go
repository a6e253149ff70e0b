package sweep

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench/resultfmt"
	"github.com/contend/contend/internal/results"
)

// Interleaved A/B runs: what contend ab does, and what contend compare
// -fail-on can judge (report.Gate).
//
// Two sweeps of the same binary minutes apart on a shared host disagree by
// more than any interval either reports (the LoadAvg base read 261.7 ns,
// then 76.7 ns), so a gate on two sweeps fails A/A runs. RunAB measures both
// sides in one session instead: each round runs every configuration once
// on each side, back to back, so the drift of the host falls on both alike,
// and the two runs of a round are a pair. Which side runs first alternates
// from one round to the next (and from one configuration to the next), so
// that an effect of going second (a warm cache, a frequency step) falls on
// each side in half the rounds. A round's pair is written only once both
// runs succeeded, so the file holds whole pairs in round order.
//
// The file is the sweep's kind (results.File: each pair written whole and
// fsynced, renamed over the path only when complete), its results carrying
// the configuration keys "session" (one id for the whole run, which tells
// compare the columns were interleaved) and "side" (old or new).

// A Side is one of the two things an A/B run compares.
type Side struct {
	// Name is the side's "side" key: old or new.
	Name string
	// Run runs configuration j once for d and returns its result (its
	// name and session keys are RunAB's to set).
	Run func(ctx context.Context, j Job, d time.Duration) (*benchfmt.Result, error)
}

// An ABOutcome is what an A/B run saw besides its results.
type ABOutcome struct {
	Session string
	Pairs   int               // whole pairs written
	Failed  []results.Failure // configurations that ran no further round
	Took    time.Duration
}

// RunAB runs every job of the plan Count rounds on both sides into the
// results file out, under the session id session. progress gets a line per
// round. A run that fails ends its configuration (its pairs so far stay);
// an interrupt (ctx) keeps the partial file and returns an error.
func (p *Plan) RunAB(ctx context.Context, out, session string, sides [2]Side, progress io.Writer) (*ABOutcome, error) {
	o := &ABOutcome{Session: session}
	began := time.Now()
	defer func() { o.Took = time.Since(began) }()
	rf, err := results.Open(out, false)
	if err != nil {
		return o, err
	}
	var units []benchfmt.Record
	for _, u := range resultfmt.AllUnits() {
		units = append(units, u)
	}
	if err := rf.Write(units...); err != nil {
		rf.Abandon()
		return o, err
	}
	// The file's command is the ab run's (Plan.Command), not each side's
	// own contend run; the side's contend line (its binary's commit) stays.
	var command string
	for _, c := range resultfmt.FileConfig(p.Topology, p.Command) {
		if c.Key == "command" {
			command = string(c.Value)
		}
	}
	failed := map[string]bool{}
	for round := range p.Count {
		fmt.Fprintf(progress, "ab: round %d of %d (%d configurations × old, new)\n", round+1, p.Count, len(p.Jobs))
		for k, j := range p.Jobs {
			if failed[j.Name] {
				continue
			}
			order := sides
			if (round+k)%2 == 1 {
				order = [2]Side{sides[1], sides[0]}
			}
			var pair []benchfmt.Record
			var ferr error
			for _, s := range order {
				rec, err := s.Run(ctx, j, p.Duration)
				if ctx.Err() != nil {
					rf.Abandon()
					return o, fmt.Errorf("interrupted: %d pairs kept in %s (valid benchmark format)", o.Pairs, rf.Partial())
				}
				if err != nil {
					ferr = fmt.Errorf("%s: %w", s.Name, err)
					break
				}
				if command != "" {
					setFileConfig(rec, "command", command)
				}
				setFileConfig(rec, results.SessionKey, session)
				setFileConfig(rec, results.SideKey, s.Name)
				for _, c := range append([]Job{j}, j.Also...) {
					r := rec.Clone()
					r.Name = benchfmt.Name(c.Name)
					pair = append(pair, r)
				}
			}
			if ferr != nil {
				f := results.Failure{Name: j.Name, Round: round + 1, Msg: strings.ReplaceAll(ferr.Error(), "\n", "; ")}
				if err := rf.Fail(f); err != nil {
					rf.Abandon()
					return o, err
				}
				fmt.Fprintf(progress, "ab: FAILED %s (round %d): %s\n", f.Name, f.Round, f.Msg)
				o.Failed = append(o.Failed, f)
				failed[j.Name] = true
				continue
			}
			if err := rf.Write(pair...); err != nil {
				rf.Abandon()
				return o, err
			}
			o.Pairs++
		}
	}
	if err := rf.Commit(); err != nil {
		return o, err
	}
	return o, nil
}

// setFileConfig sets a file configuration key of r, which the results file
// writes as a "key: value" line (SetConfig's keys are internal, unwritten).
func setFileConfig(r *benchfmt.Result, key, value string) {
	r.SetConfig(key, value)
	if i, ok := r.ConfigIndex(key); ok {
		r.Config[i].File = true
	}
}
