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
	"github.com/contend/contend/internal/results"
	"github.com/contend/contend/internal/sweep"
	"github.com/contend/contend/nodemask"
)

func init() {
	register(&command{
		name:    "sweep",
		summary: "run a matrix of scenarios × variants × threads × placements, -count times, into a results file (the quick preset unless -full); -plan shows it first",
		run:     sweepCmd,
	})
}

func sweepCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "sweep", "[-quick | -full] [-scenarios LIST] [-variant LIST] [-threads LIST] [-place LIST] [-cpus LIST] [-count N] [-duration D] [-o FILE] [-resume] [-json] [-plan]")
	var tf topoFlags
	tf.register(fs)
	quick := fs.Bool("quick", false, "the quick preset, the default: every scenario's quick variants at 1 and 2 threads, compact, count 6, 100ms a run (under a minute on 2 cpus)")
	full := fs.Bool("full", false, "the full preset instead of the quick one: the seeds' experiments at 1, 2, 4, ... every usable cpu and one node's worth, every placement, count 10, 1s a run")
	scenarios := fs.String("scenarios", "all", "comma-separated `scenarios`, or all")
	var variants string
	fs.StringVar(&variants, "variant", "", "`variants` to run, separated by commas (one scenario only; default: the preset's)")
	fs.StringVar(&variants, "variants", "", "the same as -variant")
	cpus := fs.String("cpus", "", "use only these cpus, a `list` such as 0-7 (default: every allowed cpu)")
	planOnly := fs.Bool("plan", false, "print the matrix (every configuration with its cpus) and the estimated wall time, and run nothing; works with -sysfs")
	threads := fs.String("threads", "", "comma-separated worker `counts` (default: the preset's)")
	places := fs.String("place", "", "comma-separated `placements` (default: the preset's)")
	count := fs.Int("count", 0, "run each configuration `N` times (default 6 quick, 10 full)")
	duration := fs.Duration("duration", 0, "length of one run (default 100ms quick, 1s full)")
	out := fs.String("o", "", "results `file` (default out/sweep-<time>.txt)")
	resume := fs.Bool("resume", false, "continue an interrupted sweep: skip results the file (or FILE.partial) already holds")
	oversubscribe := fs.Bool("oversubscribe", false, "allow more workers than usable cpus")
	noTable := fs.Bool("no-table", false, "do not print the results table at the end")
	noFloor := fs.Bool("no-floor", false, "do not measure the core-to-core handoff floor before and after (no handoffs/op, no check that the machine stayed the same)")
	asJSON := fs.Bool("json", false, "print each result as one JSON object (workers, cpus, nodes, latency, disturbance) as it is written, instead of the table at the end")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("sweep: unexpected argument %q", pos[0])
	}
	if *quick && *full {
		return errors.New("sweep: -quick and -full exclude each other")
	}
	preset := "quick"
	if *full {
		preset = "full"
	}
	if err := checkRunSize(fs, *count, *duration); err != nil {
		return err
	}
	t, err := tf.load(fs, !*planOnly)
	if err != nil {
		return err
	}
	if t, err = within(fs, t, *cpus); err != nil {
		return err
	}
	plan, err := sweep.Build(t, sweep.Matrix{
		Preset: preset, Scenarios: *scenarios, Variants: variants, Threads: *threads,
		Places: *places, Count: *count, Duration: *duration, Oversubscribe: *oversubscribe,
	})
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	plan.Floor = !*noFloor
	if *planOnly {
		return plan.Write(stdout)
	}
	if *out == "" {
		*out = fmt.Sprintf("out/sweep-%s.txt", time.Now().Format("20060102-150405"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	plan.Command = os.Args
	var js io.Writer
	if *asJSON {
		js = stdout
	}
	o, err := plan.RunAll(ctx, *out, *resume, stderr, js)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	fmt.Fprintf(stderr, "sweep: %d results in %s (topology %s)\n", o.Results, *out, t.Label())
	if note := plan.FloorNote(); note != "" {
		fmt.Fprintf(stderr, "sweep: handoff floor %s; handoffs/op = ns/op over the floor\n", note)
	}
	o.WriteNotes(stderr, 20)
	if *noTable || *asJSON {
		return nil
	}
	return printTable(stdout, *out)
}

// within restricts t to the -cpus list, when one was given.
func within(fs *flag.FlagSet, t *affinity.Topology, list string) (*affinity.Topology, error) {
	if list == "" {
		return t, nil
	}
	set, err := nodemask.ParseList(list)
	if err != nil {
		return nil, fmt.Errorf("%s: -cpus %q: %w", fs.Name(), list, err)
	}
	w, err := t.Within(set)
	if err != nil {
		return nil, fmt.Errorf("%s: -cpus %s: %w", fs.Name(), list, err)
	}
	return w, nil
}

// printTable prints a finished sweep's results as contend table does.
func printTable(stdout io.Writer, path string) error {
	rs, err := results.Read([]string{path})
	if err != nil {
		return err
	}
	var sf statFlags
	sf.row, sf.col, sf.filter, sf.ignore, sf.confidence = ".fullname", "/threads@num", "*", "date", 0.95
	rep, err := report.Build(rs, sf.opts(0, false))
	if err != nil {
		return err
	}
	return rep.WriteText(stdout)
}

// checkRunSize checks the -count and -duration flags that sweep and
// reproduce share, when the user set them (zero means the preset's).
func checkRunSize(fs *flag.FlagSet, count int, duration time.Duration) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["count"] && count < 1 {
		return fmt.Errorf("%s: -count %d: need at least 1", fs.Name(), count)
	}
	if set["duration"] && (duration <= 0 || duration > time.Hour) {
		return fmt.Errorf("%s: -duration %v: want a duration between 0 and 1h", fs.Name(), duration)
	}
	return nil
}
