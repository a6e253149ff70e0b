package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/resultfmt"
	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/results"
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
type plan struct {
	topo  *affinity.Topology
	spec  *bench.Spec
	scen  bench.Scenario
	place affinity.Placement
	cpus  []int
}

func (f *runFlags) plan(fs *flag.FlagSet, scenario string) (*plan, error) {
	spec, err := bench.Lookup(scenario)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fs.Name(), err)
	}
	scen, err := spec.New(f.variant)
	if err != nil {
		return nil, fmt.Errorf("%s: -variant: %w", fs.Name(), err)
	}
	t, err := f.topo.load(fs, true)
	if err != nil {
		return nil, err
	}
	placeArg := f.place
	if f.cpus != "" {
		placeArg = f.cpus
	}
	place, err := affinity.ParsePlacement(placeArg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fs.Name(), err)
	}
	threads := f.threads
	if threads == 0 {
		threads = max(2, spec.MinWorkers)
		if place.Policy == affinity.List {
			threads = place.CPUs.Weight()
		}
	}
	if threads < spec.MinWorkers {
		return nil, fmt.Errorf("%s: -threads %d: %s needs at least %d workers", fs.Name(), threads, spec.Name, spec.MinWorkers)
	}
	cpus, err := place.Assign(t, threads, f.oversubscribe)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fs.Name(), err)
	}
	return &plan{topo: t, spec: spec, scen: scen, place: place, cpus: cpus}, nil
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
		return fmt.Errorf("run: -duration %v: want a duration between 0 and 24h", *duration)
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
	w, commit, keep := results.Output(stdout, "run", *out)
	o := &runOutput{p: p, w: w, bw: benchfmt.NewWriter(w), stderr: stderr, asJSON: *asJSON,
		// One provenance for every run of the command, as a sweep has.
		cfg: resultfmt.WithPackage(resultfmt.FileConfig(p.topo, os.Args), p.spec.Package)}
	cfg := bench.Config{Topology: p.topo, CPUs: p.cpus, Ops: *ops, Duration: *duration, Context: ctx}
	for i := range *count {
		res, err := benchRun(p.scen, cfg)
		if err != nil {
			// The runs that completed are results: keep them.
			if partial, kerr := keep(); kerr != nil || partial != "" {
				return fmt.Errorf("run %s: %w (%s)", p.spec.Name, err, results.KeptNote(len(o.recs), partial, kerr))
			}
			return fmt.Errorf("run %s: %w", p.spec.Name, err)
		}
		if err := o.write(res, i == 0); err != nil {
			return err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err := commit(); err != nil {
		return err
	}
	// Several runs of one configuration: their median and its interval,
	// after the runs' own reports.
	if len(o.recs) > 1 {
		where := *out
		if where == "" {
			where = "the results on stdout"
		}
		fmt.Fprintln(stderr)
		return report.SummarizeRecords(stderr, o.recs, where)
	}
	return nil
}

// benchRun runs one configuration; tests replace it to make a run fail.
var benchRun = bench.Run

// runOutput is where contend run's results go: benchmark lines or JSON to
// w, a summary for people to stderr.
type runOutput struct {
	p      *plan
	w      io.Writer
	bw     *benchfmt.Writer
	stderr io.Writer
	asJSON bool
	cfg    []benchfmt.Config
	recs   []*benchfmt.Result // every run's record, for the closing summary
}

// write writes one run's result and its summary; the first result of the
// command is preceded by its units' metadata.
func (o *runOutput) write(res *bench.Result, first bool) error {
	p := o.p
	name := resultfmt.Name(p.spec, res.Variant, len(p.cpus), p.place.String())
	rec := resultfmt.Record(name, res, o.cfg)
	var err error
	if o.asJSON {
		err = json.NewEncoder(o.w).Encode(results.NewJSON(p.spec, name, p.place.String(), p.topo.Label(), res, rec))
	} else {
		err = results.WriteRecord(o.bw, res, rec, first)
	}
	if err != nil {
		return err
	}
	o.recs = append(o.recs, rec)
	var notes []string
	if n, ok := p.scen.(bench.Noter); ok {
		notes = n.Notes()
	}
	report.WriteRun(o.stderr, report.Run{Scenario: p.spec.Name, CPUs: p.cpus, Place: p.place.String(), Topology: p.topo, Notes: notes}, res)
	return nil
}
