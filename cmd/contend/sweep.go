package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/internal/results"
)

func init() {
	register(&command{
		name:    "sweep",
		summary: "run a matrix of scenarios × variants × threads × placements, -count times, into a results file",
		run:     sweepCmd,
	})
}

// A job is one configuration of the matrix.
type job struct {
	spec    *bench.Spec
	variant string // as given; the canonical form comes from the scenario
	threads int
	place   affinity.Placement
	name    string // full benchmark name
}

// sweepPlan is a matrix expanded into jobs, in the order they run.
type sweepPlan struct {
	topo     *affinity.Topology
	jobs     []job
	count    int
	duration time.Duration
	// floor asks for each CPU set's core-to-core handoff floor, so that
	// results also read as handoffs/op: line transfers per operation,
	// comparable across machines whose transfers cost 20 or 200 ns.
	floor        bool
	floors       map[string]*c2c.Floor
	floorSkipped []string
}

func sweepCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "sweep", "[-quick | -full] [-scenarios LIST] [-variants LIST] [-threads LIST] [-place LIST] [-count N] [-duration D] [-o FILE] [-resume]")
	var tf topoFlags
	tf.register(fs)
	quick := fs.Bool("quick", false, "the quick preset: every scenario's quick variants at 2 threads, compact, count 6, 100ms a run (about a minute on 2 cpus)")
	full := fs.Bool("full", false, "the full preset: the seeds' experiments at every thread count the machine allows, every placement, count 10, 1s a run")
	scenarios := fs.String("scenarios", "all", "comma-separated `scenarios`, or all")
	variants := fs.String("variants", "", "`variants` to run, separated by commas (one scenario only; default: the preset's)")
	threads := fs.String("threads", "", "comma-separated worker `counts` (default: the preset's)")
	places := fs.String("place", "", "comma-separated `placements` (default: the preset's)")
	count := fs.Int("count", 0, "run each configuration `N` times (default 6 quick, 10 full)")
	duration := fs.Duration("duration", 0, "length of one run (default 100ms quick, 1s full)")
	out := fs.String("o", "", "results `file` (default out/sweep-<time>.txt)")
	resume := fs.Bool("resume", false, "continue an interrupted sweep: skip results the file (or FILE.partial) already holds")
	oversubscribe := fs.Bool("oversubscribe", false, "allow more workers than usable cpus")
	noTable := fs.Bool("no-table", false, "do not print the results table at the end")
	noFloor := fs.Bool("no-floor", false, "do not measure the core-to-core handoff floor (no handoffs/op)")
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
	t, err := tf.load(fs, true)
	if err != nil {
		return err
	}
	plan, err := buildPlan(t, matrixSpec{
		preset: preset, scenarios: *scenarios, variants: *variants, threads: *threads,
		places: *places, count: *count, duration: *duration, oversubscribe: *oversubscribe,
	})
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if *out == "" {
		*out = fmt.Sprintf("out/sweep-%s.txt", time.Now().Format("20060102-150405"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	plan.floor = !*noFloor
	n, err := plan.run(ctx, *out, *resume, *oversubscribe, stderr)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	fmt.Fprintf(stderr, "sweep: %d results in %s (topology %s)\n", n, *out, t.Label())
	if note := plan.floorNote(); note != "" {
		fmt.Fprintf(stderr, "sweep: handoff floor %s; handoffs/op = ns/op over the floor\n", note)
	}
	if *noTable {
		return nil
	}
	return sweepTable(stdout, stderr, *out)
}

// sweepTable prints a finished sweep's results grouped for reading, with the
// same code as contend table.
func sweepTable(stdout, stderr io.Writer, path string) error {
	c, ok := commands["table"]
	if !ok {
		return nil
	}
	return c.run(stdout, stderr, []string{path})
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

// matrixSpec is what the user asked for, before expansion.
type matrixSpec struct {
	preset                               string
	scenarios, variants, threads, places string
	count                                int
	duration                             time.Duration
	oversubscribe                        bool
}

// buildPlan expands a matrix into jobs. Configurations the machine cannot
// host (a cross placement on one node, more workers than CPUs) are dropped
// from presets with a note, but are errors when the user named them.
func buildPlan(t *affinity.Topology, m matrixSpec) (*sweepPlan, error) {
	p := &sweepPlan{topo: t, count: m.count, duration: m.duration}
	if p.count == 0 {
		p.count = map[string]int{"quick": 6, "full": 10}[m.preset]
	}
	if p.duration == 0 {
		p.duration = map[string]time.Duration{"quick": 100 * time.Millisecond, "full": time.Second}[m.preset]
	}
	var specs []*bench.Spec
	if m.scenarios == "all" || m.scenarios == "" {
		for _, n := range bench.Names() {
			s, _ := bench.Lookup(n)
			specs = append(specs, s)
		}
	} else {
		for _, n := range strings.Split(m.scenarios, ",") {
			s, err := bench.Lookup(n)
			if err != nil {
				return nil, fmt.Errorf("-scenarios: %w", err)
			}
			specs = append(specs, s)
		}
	}
	if m.variants != "" && len(specs) != 1 {
		return nil, errors.New("-variants needs exactly one scenario in -scenarios")
	}
	allowed := t.AllowedCPUs.Weight()
	var threads []int
	userThreads := m.threads != ""
	if userThreads {
		for _, f := range strings.Split(m.threads, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("-threads: %q is not a positive worker count", f)
			}
			threads = append(threads, n)
		}
	} else if m.preset == "quick" {
		threads = []int{min(2, allowed)}
	} else {
		for n := 1; n < allowed; n *= 2 {
			threads = append(threads, n)
		}
		threads = append(threads, allowed)
	}
	var places []affinity.Placement
	userPlaces := m.places != ""
	if userPlaces {
		for _, f := range strings.Split(m.places, ";") {
			for _, g := range splitPlaces(f) {
				pl, err := affinity.ParsePlacement(g)
				if err != nil {
					return nil, fmt.Errorf("-place: %w", err)
				}
				places = append(places, pl)
			}
		}
	} else if m.preset == "quick" {
		places = []affinity.Placement{{Policy: affinity.Compact}}
	} else {
		// Spread and cross differ from compact only across nodes; on one
		// node they would rerun compact under other names.
		multiNode := 0
		for _, n := range t.Nodes {
			if !n.CPUs.And(t.AllowedCPUs).Empty() {
				multiNode++
			}
		}
		for _, pol := range affinity.Policies {
			if multiNode < 2 && (pol == affinity.Spread || pol == affinity.Cross) {
				continue
			}
			places = append(places, affinity.Placement{Policy: pol})
		}
	}
	for _, s := range specs {
		vs := s.Quick
		if m.preset == "full" {
			vs = s.Full
		}
		if m.variants != "" {
			vs = strings.Split(m.variants, ",")
		}
		for _, v := range vs {
			scen, err := s.New(v)
			if err != nil {
				return nil, fmt.Errorf("-variants: %w", err)
			}
			for _, n := range threads {
				if n < s.MinWorkers {
					if userThreads && len(specs) == 1 {
						return nil, fmt.Errorf("-threads %d: %s needs at least %d workers", n, s.Name, s.MinWorkers)
					}
					continue
				}
				for _, pl := range places {
					if _, err := pl.Assign(t, n, m.oversubscribe); err != nil {
						if userThreads && userPlaces {
							return nil, err
						}
						continue // this machine cannot host it; presets skip it
					}
					p.jobs = append(p.jobs, job{spec: s, variant: v, threads: n, place: pl,
						name: results.Name(s, scen.Variant(), n, pl.String())})
				}
			}
		}
	}
	if len(p.jobs) == 0 {
		return nil, errors.New("the matrix is empty on this machine (too few cpus or nodes for the asked threads and placements)")
	}
	return p, nil
}

// splitPlaces splits a -place value at commas that separate placements, but
// not inside cpu lists: "compact,spread" is two, "0,2,4-7" is one.
func splitPlaces(s string) []string {
	if s == "" || strings.ContainsAny(s[:1], "0123456789") {
		return []string{s}
	}
	return strings.Split(s, ",")
}

// run executes the plan: the whole matrix once, then again, count times, so
// that slow drifts of the machine spread over all configurations instead of
// landing on one.
func (p *sweepPlan) run(ctx context.Context, out string, resume, oversubscribe bool, progress io.Writer) (int, error) {
	rf, err := results.Open(out, resume)
	if err != nil {
		return 0, err
	}
	cfg := append(results.Provenance(p.topo), benchfmt.Config{Key: "date", Value: []byte(results.Date()), File: true})
	var units []benchfmt.Record
	for _, u := range results.AllUnits() {
		units = append(units, u)
	}
	if p.floor {
		units = append(units, &benchfmt.UnitMetadata{
			UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: "handoffs/op", Key: "better"},
			OrigUnit:        "handoffs/op", Value: "lower"})
	}
	if err := rf.Write(units...); err != nil {
		rf.Abandon()
		return 0, err
	}
	total := p.count * len(p.jobs)
	bar := newProgress(progress, total)
	written := 0
	for round := range p.count {
		for _, j := range p.jobs {
			if rf.Done(j.name) > round {
				bar.skip()
				continue
			}
			bar.start(j.name)
			res, err := p.runJob(ctx, j, oversubscribe)
			if ctx.Err() != nil {
				bar.finish()
				rf.Abandon()
				return written, fmt.Errorf("interrupted: %d results kept in %s (valid benchmark format); rerun with -resume -o %s to continue", rf.Len(), rf.Partial(), out)
			}
			if err != nil {
				bar.finish()
				rf.Abandon()
				return written, fmt.Errorf("%s: %w (results so far kept in %s)", j.name, err, rf.Partial())
			}
			rec := results.Record(j.name, res, cfg)
			if f := p.floors[fmt.Sprint(res.CPUs)]; f != nil {
				rec.Values = append(rec.Values, benchfmt.Value{Value: f.Handoffs(res.NsPerOp()), Unit: "handoffs/op"})
			}
			if err := rf.Write(rec); err != nil {
				bar.finish()
				rf.Abandon()
				return written, err
			}
			written++
			bar.done()
		}
	}
	bar.finish()
	if err := rf.Commit(); err != nil {
		return written, err
	}
	return rf.Len(), nil
}

func (p *sweepPlan) runJob(ctx context.Context, j job, oversubscribe bool) (*bench.Result, error) {
	scen, err := j.spec.New(j.variant)
	if err != nil {
		return nil, err
	}
	cpus, err := j.place.Assign(p.topo, j.threads, oversubscribe)
	if err != nil {
		return nil, err
	}
	if err := p.measureFloor(ctx, cpus); err != nil {
		return nil, err
	}
	return bench.Run(scen, bench.Config{Topology: p.topo, CPUs: cpus, Duration: p.duration, Context: ctx})
}

// measureFloor measures the handoff floor of a CPU set the first time a job
// uses it. Sets of one CPU (or one CPU repeated) have no transfers to measure.
func (p *sweepPlan) measureFloor(ctx context.Context, cpus []int) error {
	key := fmt.Sprint(cpus)
	if _, done := p.floors[key]; !p.floor || done {
		return nil
	}
	distinct := map[int]bool{}
	for _, c := range cpus {
		distinct[c] = true
	}
	if len(distinct) < 2 {
		return nil
	}
	var set []int
	for _, c := range cpus {
		if distinct[c] {
			set = append(set, c)
			delete(distinct, c)
		}
	}
	if p.floors == nil {
		p.floors = map[string]*c2c.Floor{}
	}
	// A ping-pong needs both CPUs at once: on CPUs busy with other work
	// every handoff waits for a time slice, and the floor would take
	// minutes and mean nothing. Give up after a few seconds and say so.
	fctx, cancel := context.WithTimeout(ctx, floorTimeout)
	defer cancel()
	f, err := c2c.MeasureFloor(p.topo, set, c2c.Config{Context: fctx})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case fctx.Err() != nil:
		p.floorSkipped = append(p.floorSkipped, fmt.Sprintf("cpus %v: not measured within %v (are the cpus busy?), no handoffs/op", set, floorTimeout))
		p.floors[key] = nil
		return nil
	case err != nil:
		return fmt.Errorf("measuring the handoff floor of cpus %v: %w", set, err)
	}
	p.floors[key] = f
	return nil
}

// floorTimeout bounds one handoff-floor measurement; on idle CPUs it takes a
// few milliseconds.
const floorTimeout = 5 * time.Second

// floorNote describes the floors a sweep measured, for the end of the run.
func (p *sweepPlan) floorNote() string {
	var parts []string
	for key, f := range p.floors {
		if f != nil {
			parts = append(parts, fmt.Sprintf("cpus %s: %.1f ns (%s, median, cheapest class %.1f ns)", key, f.NS, f.Mode, f.MinNS))
		}
	}
	parts = append(parts, p.floorSkipped...)
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
