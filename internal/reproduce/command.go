package reproduce

import (
	"context"
	"fmt"
	"io"

	"github.com/contend/contend/internal/results"
	"github.com/contend/contend/internal/sweep"
)

// Output says where contend reproduce writes its verdicts, and how much.
type Output struct {
	MD      string // the Markdown table's file; "" for none (with -from)
	Verbose bool   // each finding's details after the verdict table (-v)
}

// RunAndJudge is contend reproduce's run: it runs plan (Env.Plan's, into
// the results file out, resuming it if asked), judges what the file then
// holds, adds the simulated verdicts at the seeds' sizes on budget of each
// simulation's kernel time, writes the Markdown table to o.MD and the text
// table to stdout, and says on stderr where both went.
func (e *Env) RunAndJudge(ctx context.Context, plan *sweep.Plan, out string, o Output, resume bool, budget SimBudget, stdout, stderr io.Writer) error {
	ran, err := plan.RunAll(ctx, out, resume, stderr, nil)
	if err != nil {
		return fmt.Errorf("reproduce: %w", err)
	}
	ran.WriteNotes(stderr, 20)
	ev, err := results.Read([]string{out})
	if err != nil {
		return fmt.Errorf("reproduce: %w", err)
	}
	if err := e.judgeAndWrite(stdout, stderr, ev, budget, o, out, false); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "reproduce: raw results in %s (benchstat reads them), Markdown table in %s\n", out, o.MD)
	return nil
}

// JudgeFile is contend reproduce -from: it judges the results file path as
// a reproduce run left it, with the Env the file records, and writes the
// Markdown table to o.MD when given.
func JudgeFile(stdout, stderr io.Writer, path string, o Output, budget SimBudget) error {
	ev, err := results.Read([]string{path})
	if err != nil {
		return fmt.Errorf("reproduce: -from: %w", err)
	}
	if done, err := judgeKernelCounts(stdout, ev); done || err != nil { // kernelrow.go
		return err
	}
	env, err := EnvFromResults(ev)
	if err != nil {
		return fmt.Errorf("reproduce: -from %s: %w", path, err)
	}
	return env.judgeAndWrite(stdout, stderr, ev, budget, o, path, true)
}

// judgeAndWrite judges ev, adds the simulated verdicts, writes the
// Markdown table (naming raw as its results) to o.MD unless it is "",
// saying so on stderr if sayMD, and writes the text table to stdout.
func (e *Env) judgeAndWrite(stdout, stderr io.Writer, ev *results.Set, budget SimBudget, o Output, raw string, sayMD bool) error {
	rows := e.Judge(ev)
	if budget != 0 {
		if budget < FullSims {
			fmt.Fprintf(stderr, "reproduce: simulating at the seeds' sizes on %.3g%% of each simulation's kernel time (-sim-share 1 runs the whole)\n", 100*float64(budget))
		}
		e.Simulate(rows, budget)
	}
	if o.MD != "" {
		if err := results.WriteFileAtomic(o.MD, []byte(Markdown(e, rows, raw))); err != nil {
			return fmt.Errorf("reproduce: -md: %w", err)
		}
		if sayMD {
			fmt.Fprintf(stderr, "reproduce: Markdown table in %s\n", o.MD)
		}
	}
	WriteText(stdout, e, rows, o.Verbose, o.MD)
	return nil
}
