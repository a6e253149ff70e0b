package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/runs"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run one scenario configuration on pinned workers (fixed duration: made for perf record)",
		run:     runCmd,
	})
}

// runFlags are the flags that choose one configuration of a scenario.
type runFlags struct {
	topo          topoFlags
	variant       string
	threads       int
	place         string
	cpus          string
	oversubscribe bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.topo.register(fs)
	fs.StringVar(&f.variant, "variant", "", "scenario `variant`: key=value parts joined by / (see contend list)")
	fs.IntVar(&f.threads, "threads", 0, "number of pinned `workers` (default: 2, or the -cpus count)")
	fs.StringVar(&f.place, "place", "compact", "placement `policy`: compact, spread, cross, smt")
	fs.StringVar(&f.cpus, "cpus", "", "explicit cpu `list` such as 0,2,4-7 (overrides -place)")
	fs.BoolVar(&f.oversubscribe, "oversubscribe", false, "allow more workers than usable cpus (they time-share: results then measure the scheduler)")
}

// plan resolves the flags into a topology, a scenario and CPUs.
func (f *runFlags) plan(fs *flag.FlagSet, scenario string) (*runs.Plan, error) {
	place := f.place
	if f.cpus != "" {
		place = f.cpus
	}
	c := runs.Choice{Scenario: scenario, Variant: f.variant, Threads: f.threads, Place: place, Oversubscribe: f.oversubscribe}
	return runs.NewPlan(fs.Name(), c, func() (*affinity.Topology, error) { return f.topo.load(fs, true) })
}

func runCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "run", "SCENARIO [-variant V] [-threads N] [-place P | -cpus LIST] [-duration D | -ops N] [-count N] [-o FILE] [-fake-nodes K] [-json]")
	var rf runFlags
	rf.register(fs)
	duration := fs.Duration("duration", 2*time.Second, "how long to run (ignored with -ops)")
	ops := fs.Int64("ops", 0, "run a fixed total number of `operations` instead of a duration")
	count := fs.Int("count", 1, "run `N` times, one result each, as go test -count does")
	out := fs.String("o", "", "write the results to `file` (replaced whole once every run is done; if a run fails, the completed ones go to FILE.partial) instead of stdout")
	asJSON := fs.Bool("json", false, "print each result as one JSON object (workers, cpus, nodes, latency, disturbance) instead of the benchmark line")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("run: want exactly one scenario (one of %s), got %d arguments", strings.Join(bench.Names(), ", "), len(pos))
	}
	if *ops < 0 {
		return fmt.Errorf("run: -ops %d: must not be negative", *ops)
	}
	if *ops == 0 && (*duration <= 0 || *duration > 24*time.Hour) {
		return fmt.Errorf("run: -duration %v: want a duration above 0 and at most 24h", *duration)
	}
	// 0 is the default's stand-in (2, or the -cpus count) only unset: set,
	// it is refused, as sweep -threads 0 is.
	if flagSet(fs, "threads") && rf.threads < 1 {
		return fmt.Errorf("run: -threads %d: want at least 1 worker", rf.threads)
	}
	if *count < 1 || *count > 1000 {
		return fmt.Errorf("run: -count %d: want 1 to 1000 runs", *count)
	}
	p, err := rf.plan(fs, pos[0])
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return p.Run(stdout, stderr, runs.Options{Ops: *ops, Duration: *duration, Count: *count, Out: *out, JSON: *asJSON,
		Context: ctx, Command: os.Args, Run: benchRun})
}

// benchRun runs one configuration; tests replace it to make a run fail.
var benchRun = bench.Run
