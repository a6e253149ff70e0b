package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/sweep"
	"github.com/contend/contend/nodemask"
)

func init() {
	register(&command{
		name:    "sweep",
		summary: "run a matrix of scenarios × variants × threads × placements, in rounds until each configuration's 95% interval is within -ci (at most -count), into a results file (the quick preset unless -full); -plan shows it first, -budget fits it",
		run:     sweepCmd,
	})
}

func sweepCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "sweep", "[-quick | -full] [-scenarios LIST] [-variant LIST] [-threads LIST] [-place LIST] [-cpus LIST] [-count N] [-ci PCT] [-budget D] [-duration D] [-o FILE] [-resume [-retry-failed]] [-oversubscribe] [-no-floor] [-no-table] [-json] [-fake-nodes K] [-plan [-sysfs ROOT]]")
	var pf presetFlags
	pf.register(fs,
		"the quick preset, the default: every scenario's quick variants at 1 and 2 threads, compact, 6 to 10 rounds of 100ms (under a minute on 2 cpus)",
		"the full preset instead of the quick one: the seeds' experiments at 1, 2, one LLC, one node and 25/50/75/100% of the cpus (every placement at the machine's own sizes, compact and spread between; the ladder's powers of two where cheap), 6 to 10 rounds of 150ms")
	ci := percentFlag(2)
	fs.Var(&ci, "ci", "stop a configuration once the 95% confidence interval of its ns/op median is within ±`PCT`% of it (2 or 2%; after 6 rounds, the fewest with one; at most -count); 0: every configuration runs -count rounds (6 quick, 10 full)")
	budget := fs.Duration("budget", 0, "fit the plan to this `duration` (even if no configuration stops early): drop the ladder's extra rungs, then rounds down to 6, then the 25% and 75% rungs, saying what it trimmed")
	var mf matrixFlags
	mf.register(fs)
	planOnly := fs.Bool("plan", false, "print the matrix (every configuration with its cpus) and the estimated wall time, and run nothing; works with -sysfs")
	out := fs.String("o", "", "results `file` (default out/sweep-<time>.txt)")
	resume := fs.Bool("resume", false, "continue an interrupted sweep: skip results the file (or FILE.partial) already holds, and configurations it records as failed")
	retryFailed := fs.Bool("retry-failed", false, "with -resume, run again the configurations the file records as failed")
	oversubscribe := fs.Bool("oversubscribe", false, "allow more workers than usable cpus")
	noTable := fs.Bool("no-table", false, "do not print the summary at the end")
	noFloor := fs.Bool("no-floor", false, "do not measure the core-to-core handoff floor before and after (no handoffs/op, no check that the machine stayed the same)")
	asJSON := fs.Bool("json", false, "print each result as one JSON object (workers, cpus, nodes, latency, disturbance) as it is written, instead of the summary at the end")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *retryFailed && !*resume {
		return fmt.Errorf("sweep: -retry-failed needs -resume (a new sweep has no failures to retry)")
	}
	t, err := pf.topology(fs, !*planOnly)
	if err != nil {
		return err
	}
	m, err := pf.matrix(fs, t, &mf, *oversubscribe)
	if err != nil {
		return err
	}
	switch {
	case ci >= 100: // Set refused the rest of what is not a percentage
		return fmt.Errorf("sweep: -ci %v: want a percentage of the median from 0 (off) to below 100", &ci)
	case ci == 0:
		m.Target = sweep.NoTarget
	case flagSet(fs, "ci"):
		m.Target = float64(ci) / 100
	}
	if flagSet(fs, "budget") && *budget <= 0 {
		return fmt.Errorf("sweep: -budget %v: want a positive duration", *budget)
	}
	plan, err := sweep.Build(t, m)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	plan.Floor = !*noFloor
	if *budget > 0 {
		if err := plan.Fit(*budget); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		for _, tr := range plan.Trimmed {
			if !*planOnly { // the plan says it
				fmt.Fprintf(stderr, "sweep: -budget %v: trimmed %s\n", *budget, tr)
			}
		}
	}
	if *planOnly {
		return plan.Write(stdout)
	}
	if *out == "" {
		*out = defaultOut("sweep")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	plan.Command = os.Args
	plan.RetryFailed = *retryFailed
	var js io.Writer
	if *asJSON {
		js = stdout
	}
	// A failed configuration does not end the sweep (FailedError): the
	// file is complete without it, so the notes and the table still come,
	// and the exit status says it failed.
	o, err := plan.RunAll(ctx, *out, *resume, stderr, js)
	var failed *sweep.FailedError
	if err != nil && !errors.As(err, &failed) {
		return fmt.Errorf("sweep: %w", err)
	}
	plan.WriteOutcome(stderr, o, *out)
	if !*noTable && !*asJSON && o.Results > 0 {
		// The answer first: a summary, and where every table is.
		if err := report.SummarizeFile(stdout, *out); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
	}
	if failed != nil {
		return fmt.Errorf("sweep: %w", failed)
	}
	return nil
}

// matrixFlags are the flags sweep and ab share that choose the matrix's
// scenarios, variants, worker counts and placements.
type matrixFlags struct{ scenarios, variants, threads, places string }

func (f *matrixFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scenarios, "scenarios", "all", "comma-separated `scenarios`, or all")
	fs.StringVar(&f.variants, "variant", "", "`variants` to run, separated by commas (one scenario only; default: the preset's)")
	// -variants, the older spelling, still works; the flag list shows
	// -variant alone (hiddenFlag).
	fs.Var(hiddenFlag{fs.Lookup("variant").Value}, "variants", "")
	fs.StringVar(&f.threads, "threads", "", "comma-separated worker `counts`; max is every usable cpu, ladder 1, 2, 4, ... all of them (default: the preset's)")
	fs.StringVar(&f.places, "place", "", "comma-separated `placements`, a cpu list set apart by ';' (compact,spread;0-3) (default: the preset's)")
}

func (f *matrixFlags) lists() sweep.Lists {
	return sweep.Lists{Scenarios: f.scenarios, Variants: f.variants, Threads: f.threads, Places: f.places}
}

// presetFlags are the flags sweep and reproduce share: the machine, the
// preset, what overrides its size, and the cpus to use.
type presetFlags struct {
	topo        topoFlags
	quick, full bool
	count       int
	duration    time.Duration
	cpus        string
}

func (f *presetFlags) register(fs *flag.FlagSet, quickHelp, fullHelp string) {
	f.topo.register(fs)
	fs.BoolVar(&f.quick, "quick", false, quickHelp)
	fs.BoolVar(&f.full, "full", false, fullHelp)
	fs.IntVar(&f.count, "count", 0, "run each configuration `N` times, at most N with sweep's adaptive rounds (default 10; with sweep -ci 0 and in reproduce, 6 quick, 10 full)")
	fs.DurationVar(&f.duration, "duration", 0, "length of one run (default 100ms quick, 150ms full)")
	fs.StringVar(&f.cpus, "cpus", "", "use only these cpus, a `list` such as 0-7 (default: every allowed cpu)")
}

// topology checks the flags and returns the topology they ask for,
// restricted to -cpus. -count and -duration are checked only when set: zero
// means the preset's.
func (f *presetFlags) topology(fs *flag.FlagSet, forRun bool) (*affinity.Topology, error) {
	if f.quick && f.full {
		return nil, fmt.Errorf("%s: -quick and -full exclude each other", fs.Name())
	}
	if flagSet(fs, "count") && f.count < 1 {
		return nil, fmt.Errorf("%s: -count %d: need at least 1", fs.Name(), f.count)
	}
	if flagSet(fs, "duration") && (f.duration <= 0 || f.duration > time.Hour) {
		return nil, fmt.Errorf("%s: -duration %v: want a duration above 0 and at most 1h", fs.Name(), f.duration)
	}
	t, err := f.topo.load(fs, forRun)
	if err != nil || f.cpus == "" {
		return t, err
	}
	set, err := nodemask.ParseList(f.cpus)
	if err != nil {
		return nil, fmt.Errorf("%s: -cpus %q: %w", fs.Name(), f.cpus, err)
	}
	w, err := t.Within(set)
	if err != nil {
		return nil, fmt.Errorf("%s: -cpus %s: %w", fs.Name(), f.cpus, err)
	}
	return w, nil
}

// matrix is the preset's matrix on t as the selection flags narrow it,
// with -count, -duration and -oversubscribe applied (zero count and
// duration: the preset's).
func (f *presetFlags) matrix(fs *flag.FlagSet, t *affinity.Topology, mf *matrixFlags, oversubscribe bool) (sweep.Matrix, error) {
	preset := sweep.Quick
	if f.full {
		preset = sweep.Full
	}
	m, err := sweep.ParseMatrix(t, preset, mf.lists())
	if err != nil {
		return m, fmt.Errorf("%s: %w", fs.Name(), err)
	}
	m.Count, m.Duration, m.Oversubscribe = f.count, f.duration, oversubscribe
	return m, nil
}

// defaultOut names the results file of a sweep, ab or reproduce run
// started now, in out/, which it creates: a directory the user names with
// -o must exist (results.Open), this one is contend's own.
func defaultOut(cmd string) string {
	os.MkdirAll("out", 0o777) // if it fails, opening the file says why
	return fmt.Sprintf("out/%s-%s.txt", cmd, time.Now().Format("20060102-150405"))
}
