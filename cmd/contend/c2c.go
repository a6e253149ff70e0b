package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/internal/results"
	"github.com/contend/contend/nodemask"
)

func init() {
	register(&command{
		name:    "c2c",
		summary: "measure core-to-core latency: one-way cache-line handoff between pinned cpu pairs, by topology class",
		run:     c2cCmd,
	})
}

// c2cFlags are contend c2c's flags.
type c2cFlags struct {
	topo     topoFlags
	mode     string
	cpus     string
	pairs    string
	perClass int
	samples  int
	rounds   int
	warmup   c2c.Warmup
	preheat  time.Duration
	home     string
	stat     c2c.Stat
	asJSON   bool
	asBench  bool
	list     bool
	out      string
}

func (f *c2cFlags) register(fs *flag.FlagSet) {
	f.topo.register(fs)
	fs.StringVar(&f.mode, "mode", "rw", "handoff `mode`: rw (spin load, then store), cas (spin compare-and-swap), all, or a comma list")
	fs.StringVar(&f.cpus, "cpus", "", "cpu `list` to measure, such as 0-7 or 0,8,16 (default: every allowed cpu)")
	fs.StringVar(&f.pairs, "pairs", "auto", fmt.Sprintf("pair `selection`: all (every pair), sample (-per-class pairs of each topology class), auto (all up to %d cpus)", c2c.AllPairsMax))
	fs.IntVar(&f.perClass, "per-class", 3, "pairs per topology class when sampling")
	fs.IntVar(&f.samples, "samples", 300, "measured `samples` per pair")
	fs.IntVar(&f.rounds, "rounds", 1000, "round trips per sample: each sample's time is divided by 2×rounds")
	fs.Var(&f.warmup, "warmup", "warm-up `samples` run and dropped before measuring: auto (samples/10), none (0) or a count")
	fs.DurationVar(&f.preheat, "preheat", 0, "ping-pong unmeasured this long before the warm-up, so both cores reach full clock")
	fs.StringVar(&f.home, "home", "first", "`node` the line lives on: first (cpu_a's), second (cpu_b's) or a node id")
	f.stat = c2c.Median
	fs.Var(&f.stat, "stat", "`statistic` the matrix and the ns fields show: median or min of the samples")
	fs.BoolVar(&f.asJSON, "json", false, "print the results (or, with -list, the plan) as JSON")
	fs.BoolVar(&f.asBench, "bench", false, "print the results in Go benchmark format, one line per pair, for benchstat")
	fs.StringVar(&f.out, "o", "", "write the output to `file` (replaced whole when the measurement is done) instead of stdout")
	fs.BoolVar(&f.list, "list", false, "print the pairs that would be measured and their classes, and measure nothing (works with -sysfs)")
}

// config checks the measurement flags and returns them as a bench config.
func (f *c2cFlags) config(fs *flag.FlagSet) ([]c2c.Mode, c2c.Config, error) {
	var cfg c2c.Config
	modes, err := c2c.ParseModes(f.mode)
	if err != nil {
		return nil, cfg, fmt.Errorf("c2c: -mode: %w", err)
	}
	home, err := c2c.ParseHome(f.home)
	if err != nil {
		return nil, cfg, fmt.Errorf("c2c: -home: %w", err)
	}
	switch {
	case f.samples < 1:
		return nil, cfg, fmt.Errorf("c2c: -samples %d: need at least 1", f.samples)
	case f.rounds < 1:
		return nil, cfg, fmt.Errorf("c2c: -rounds %d: need at least 1", f.rounds)
	case f.preheat < 0:
		return nil, cfg, fmt.Errorf("c2c: -preheat %v: must not be negative", f.preheat)
	case f.asJSON && f.asBench:
		return nil, cfg, fmt.Errorf("c2c: -json and -bench: choose one output format")
	}
	// The flags hold the library's own values: no translation here.
	cfg = c2c.Config{Samples: f.samples, Rounds: f.rounds, Warmup: f.warmup, Preheat: f.preheat, Home: home, Stat: f.stat}
	cfg, err = cfg.WithDefaults()
	if err != nil {
		return nil, cfg, fmt.Errorf("c2c: %w", err)
	}
	return modes, cfg, nil
}

// plan resolves the topology and the pairs.
func (f *c2cFlags) plan(fs *flag.FlagSet) (*affinity.Topology, *c2c.Plan, error) {
	t, err := f.topo.load(fs, !f.list)
	if err != nil {
		return nil, nil, err
	}
	cpus := t.AllowedCPUs.Bits()
	if f.cpus != "" {
		set, err := nodemask.ParseList(f.cpus)
		if err != nil {
			return nil, nil, fmt.Errorf("c2c: -cpus %q: %w", f.cpus, err)
		}
		cpus = set.Bits()
	}
	p, err := c2c.NewPlan(t, cpus, c2c.Selection(f.pairs), f.perClass)
	if err != nil {
		what := "-cpus " + f.cpus
		if f.cpus == "" {
			what = "allowed cpus " + t.AllowedCPUs.String()
		}
		return nil, nil, fmt.Errorf("c2c: %s -pairs %s -per-class %d: %w", what, f.pairs, f.perClass, err)
	}
	return t, p, nil
}

func c2cCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "c2c", "[-mode rw|cas|all] [-cpus LIST] [-pairs auto|all|sample] [-per-class K] [-samples N] [-rounds N] [-preheat D] [-home first|second|NODE] [-json | -bench] [-o FILE] [-list] [-fake-nodes K]")
	var f c2cFlags
	f.register(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	modes, cfg, err := f.config(fs)
	if err != nil {
		return err
	}
	t, plan, err := f.plan(fs)
	if err != nil {
		return err
	}
	if f.list {
		return c2c.WritePlan(stdout, t, plan, cfg, len(modes), f.asJSON)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg.Context = ctx
	fmt.Fprintf(stderr, "c2c: %d pairs × %d mode(s) on cpus %s, %d samples of %d round trips each\n",
		len(plan.Pairs), len(modes), nodemask.BitmapOf(plan.CPUs...), cfg.Samples, cfg.Rounds)
	began := time.Now()
	rs, err := c2c.MeasurePlan(t, plan, modes, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "c2c: done in %v\n", time.Since(began).Round(time.Millisecond))
	sum := c2c.Summarize(rs, plan.Total)
	w, commit, _ := results.Output(stdout, "c2c", f.out)
	switch {
	case f.asJSON:
		err = c2c.WriteJSON(w, t, plan, cfg, rs, sum, os.Args)
	case f.asBench:
		err = c2c.WriteBench(w, t, cfg, rs, os.Args)
	default:
		err = c2c.WriteText(w, t, plan, cfg, rs, sum)
	}
	if err != nil {
		return err
	}
	return commit()
}
