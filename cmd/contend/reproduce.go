package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/contend/contend/internal/reproduce"
)

func init() {
	register(&command{
		name:    "reproduce",
		summary: "replay the seeds' findings on this machine, or judge a reproduce run's results file (-from): one table of finding, verdict and reason, and a tally (-v: each finding's criterion, figures and simulation)",
		run:     reproduceCmd,
	})
}

func reproduceCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "reproduce", "[-quick | -full] [-fake-nodes K] [-cpus LIST] [-o FILE] [-md FILE] [-resume [-retry-failed]] [-sim-share F] [-v] | -from FILE [-md FILE] [-sim-share F] [-v]")
	var pf presetFlags
	pf.register(fs,
		"under 30s on 2 cpus: count 6, runs of at most 100ms shortened to 12s of runs in all, at most 4 workers (the default)",
		"count 10, 1s a run, every allowed cpu as a worker")
	out := fs.String("o", "", "raw results `file`, benchmark format (default out/reproduce-<time>.txt)")
	md := fs.String("md", "", "Markdown table `file` (default: the results file with .md)")
	resume := fs.Bool("resume", false, "continue an interrupted reproduce run from its results file (configurations it records as failed are not run again)")
	retryFailed := fs.Bool("retry-failed", false, "with -resume, run again the configurations the results file records as failed")
	from := fs.String("from", "", "judge this reproduce run's results `file` without running anything (the machine, worker count and placement come from the file)")
	verbose := fs.Bool("v", false, "after the verdict table, each finding's seed figure, criterion, measured figures, mechanism and simulation at the seed's size with its assumptions (the Markdown table has them too)")
	simShare := fs.Float64("sim-share", -1, "share of each simulation's kernel time to run when judging the findings that have one at the seed's machine size, 0 (none) to 1 (default 0.25 with -quick, 1 with -full or -from)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *simShare != -1 && (*simShare < 0 || *simShare > 1) {
		return fmt.Errorf("reproduce: -sim-share %g: want a share of each simulation's kernel time from 0 (none) to 1 (the whole)", *simShare)
	}
	if *from != "" {
		if err := onlyJudging(fs); err != nil {
			return err
		}
		return reproduce.JudgeFile(stdout, stderr, *from, reproduce.Output{MD: *md, Verbose: *verbose}, simBudget(*simShare, reproduce.FullSims))
	}
	if *retryFailed && !*resume {
		return fmt.Errorf("reproduce: -retry-failed needs -resume (a new run has no failures to retry)")
	}
	t, err := pf.topology(fs, true)
	if err != nil {
		return err
	}
	env := reproduce.NewEnv(t, pf.full)
	plan, err := env.Plan()
	if err != nil {
		return fmt.Errorf("reproduce: %w", err)
	}
	if pf.count > 0 {
		plan.Count = pf.count
	}
	if pf.duration > 0 {
		plan.Duration = pf.duration
	} else {
		for _, tr := range plan.Trimmed {
			fmt.Fprintln(stderr, "reproduce: "+tr)
		}
	}
	if *out == "" {
		*out = defaultOut("reproduce")
	}
	if *md == "" {
		*md = strings.TrimSuffix(*out, filepath.Ext(*out)) + ".md"
	}
	plan.Command = os.Args
	plan.RetryFailed = *retryFailed
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	budget := reproduce.QuickSims
	if pf.full {
		budget = reproduce.FullSims
	}
	return env.RunAndJudge(ctx, plan, *out, reproduce.Output{MD: *md, Verbose: *verbose}, *resume, simBudget(*simShare, budget), stdout, stderr)
}

// simBudget is -sim-share's budget, or def where it was not given.
func simBudget(share float64, def reproduce.SimBudget) reproduce.SimBudget {
	if share == -1 {
		return def
	}
	return reproduce.SimBudget(share)
}

// onlyJudging refuses flags that configure a run beside -from, which runs
// nothing.
func onlyJudging(fs *flag.FlagSet) error {
	var runFlags []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "from" && f.Name != "md" && f.Name != "sim-share" && f.Name != "v" {
			runFlags = append(runFlags, "-"+f.Name)
		}
	})
	if len(runFlags) == 0 {
		return nil
	}
	verb := "applies"
	if len(runFlags) > 1 {
		verb = "apply"
	}
	return fmt.Errorf("reproduce: -from judges a results file without running; %s only %s to a run", strings.Join(runFlags, ", "), verb)
}
