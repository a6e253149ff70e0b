package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
)

func init() {
	register(&command{
		name:    "reproduce",
		summary: "replay the seeds' findings on this machine and print one table: finding, seed figure, measured, holds?",
		run:     reproduceCmd,
	})
}

func reproduceCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "reproduce", "[-quick | -full] [-fake-nodes K] [-o FILE] [-md FILE] [-resume]")
	var tf topoFlags
	tf.register(fs)
	quick := fs.Bool("quick", false, "a few minutes on 2 cpus: count 6, 100ms a run, at most 4 workers (the default)")
	full := fs.Bool("full", false, "count 10, 1s a run, every allowed cpu as a worker")
	out := fs.String("o", "", "raw results `file`, benchmark format (default out/reproduce-<time>.txt)")
	md := fs.String("md", "", "Markdown table `file` (default: the results file with .md)")
	resume := fs.Bool("resume", false, "continue an interrupted reproduce run from its results file")
	count := fs.Int("count", 0, "runs per configuration (default 6 quick, 10 full)")
	duration := fs.Duration("duration", 0, "length of one run (default 100ms quick, 1s full)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("reproduce: unexpected argument %q", pos[0])
	}
	if *quick && *full {
		return errors.New("reproduce: -quick and -full exclude each other")
	}
	if err := checkRunSize(fs, *count, *duration); err != nil {
		return err
	}
	t, err := tf.load(fs, true)
	if err != nil {
		return err
	}
	env := newReproEnv(t, *full)
	plan, err := env.plan()
	if err != nil {
		return fmt.Errorf("reproduce: %w", err)
	}
	if *count > 0 {
		plan.count = *count
	}
	if *duration > 0 {
		plan.duration = *duration
	}
	if *out == "" {
		*out = fmt.Sprintf("out/reproduce-%s.txt", time.Now().Format("20060102-150405"))
	}
	if *md == "" {
		*md = strings.TrimSuffix(*out, filepath.Ext(*out)) + ".md"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := plan.run(ctx, *out, *resume, false, stderr); err != nil {
		return fmt.Errorf("reproduce: %w", err)
	}
	ev, err := loadEvidence(*out)
	if err != nil {
		return fmt.Errorf("reproduce: %w", err)
	}
	rows := env.judge(ev)
	if err := results.WriteFileAtomic(*md, []byte(markdownTable(env, rows, *out))); err != nil {
		return fmt.Errorf("reproduce: -md: %w", err)
	}
	textTableOf(stdout, env, rows)
	fmt.Fprintf(stderr, "reproduce: raw results in %s (benchstat reads them), Markdown table in %s\n", *out, *md)
	return nil
}

// reproEnv is what the experiments are sized for: the machine, and whether
// this is a quick or a full run.
type reproEnv struct {
	topo    *affinity.Topology
	full    bool
	threads int    // workers for the contended experiments
	place   string // their placement
	nodes   int    // nodes with usable cpus
}

func newReproEnv(t *affinity.Topology, full bool) *reproEnv {
	e := &reproEnv{topo: t, full: full, place: "compact"}
	for _, n := range t.Nodes {
		if !n.CPUs.And(t.AllowedCPUs).Empty() {
			e.nodes++
		}
	}
	e.threads = t.AllowedCPUs.Weight()
	if !full {
		e.threads = min(e.threads, 4)
	}
	if e.nodes >= 2 {
		e.place = "spread"
	}
	return e
}

// An experiment is one configuration a finding needs.
type experiment struct {
	scenario, variant string
	threads           int
	place             string
}

// plan gathers every finding's experiments into one sweep, so that the
// configurations interleave across the -count rounds like any sweep's.
func (e *reproEnv) plan() (*sweepPlan, error) {
	p := &sweepPlan{topo: e.topo, count: 6, duration: 100 * time.Millisecond, floor: false}
	if e.full {
		p.count, p.duration = 10, time.Second
	}
	seen := map[string]bool{}
	for _, f := range findings {
		if why := f.applies(e); why != "" {
			continue
		}
		for _, x := range f.experiments(e) {
			j, err := e.job(x)
			if err != nil {
				return nil, fmt.Errorf("finding %d: %w", f.id, err)
			}
			if !seen[j.name] {
				seen[j.name] = true
				p.jobs = append(p.jobs, j)
			}
		}
	}
	if len(p.jobs) == 0 {
		return nil, errors.New("no finding can be reproduced on this machine")
	}
	return p, nil
}

func (e *reproEnv) job(x experiment) (job, error) {
	spec, err := bench.Lookup(x.scenario)
	if err != nil {
		return job{}, err
	}
	scen, err := spec.New(x.variant)
	if err != nil {
		return job{}, err
	}
	pl, err := affinity.ParsePlacement(x.place)
	if err != nil {
		return job{}, err
	}
	if _, err := pl.Assign(e.topo, x.threads, false); err != nil {
		return job{}, err
	}
	return job{spec: spec, variant: x.variant, threads: x.threads, place: pl,
		name: results.Name(spec, scen.Variant(), x.threads, pl.String())}, nil
}

// evidence holds a reproduce run's results by full benchmark name.
type evidence struct {
	byName map[string][]*benchfmt.Result
}

func loadEvidence(path string) (*evidence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ev := &evidence{byName: map[string][]*benchfmt.Result{}}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			ev.byName[rec.Name.String()] = append(ev.byName[rec.Name.String()], rec.Clone())
		}
	}
	return ev, r.Err()
}

// stat is the benchstat summary of one configuration's unit.
type stat struct {
	sample *benchmath.Sample
	sum    benchmath.Summary
}

func (s *stat) String() string {
	return fmt.Sprintf("%.4g %s", s.sum.Center, s.sum.PctRangeString())
}

// get summarizes an experiment's unit ("sec/op" for ns/op: benchfmt tidies
// units); nil when the run has no such result.
func (e *reproEnv) get(ev *evidence, x experiment, unit string) *stat {
	j, err := e.job(x)
	if err != nil {
		return nil
	}
	var vals []float64
	for _, r := range ev.byName[j.name] {
		if v, ok := r.Value(unit); ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	s := benchmath.NewSample(vals, &benchmath.DefaultThresholds)
	return &stat{sample: s, sum: benchmath.AssumeNothing.Summary(s, 0.95)}
}

// significant reports whether a and b differ by the U-test at α = 0.05, as
// benchstat decides "~".
func significant(a, b *stat) (bool, float64) {
	c := benchmath.AssumeNothing.Compare(a.sample, b.sample)
	return c.P < c.Alpha, c.P
}

// A row of the findings table.
type row struct {
	id       int
	finding  string
	seed     string
	measured string
	holds    string // "yes", "partly", "no", "n/a here"
	why      string
}

func (e *reproEnv) judge(ev *evidence) []row {
	var rows []row
	for _, f := range findings {
		r := row{id: f.id, finding: f.title, seed: f.seed}
		if why := f.applies(e); why != "" {
			r.measured, r.holds, r.why = "not run", "n/a here", why
		} else {
			r.measured, r.holds, r.why = f.judge(e, ev)
		}
		rows = append(rows, r)
	}
	return rows
}

func (e *reproEnv) machine() string {
	m := e.topo.Machine
	smt := "no SMT"
	for _, c := range e.topo.CPUs {
		if c.Online && c.Siblings.Weight() > 1 {
			smt = "SMT"
			break
		}
	}
	hv := ""
	if m.Hypervisor {
		hv = ", under " + hypervisorName(m.HypervisorVendor)
	}
	return fmt.Sprintf("%s: %d allowed cpus, %d node(s) (topology %s), %s%s; %d workers, place=%s",
		m.Brand, e.topo.AllowedCPUs.Weight(), len(e.topo.Nodes), e.topo.Label(), smt, hv, e.threads, e.place)
}

func hypervisorName(v string) string {
	switch v {
	case "KVMKVMKVM":
		return "KVM"
	case "":
		return "a hypervisor"
	}
	return v
}

func textTableOf(w io.Writer, e *reproEnv, rows []row) {
	fmt.Fprintf(w, "contend reproduce — %s\n\n", e.machine())
	for _, r := range rows {
		fmt.Fprintf(w, "%d. %s\n", r.id, r.finding)
		fmt.Fprintf(w, "   seed:     %s\n", r.seed)
		fmt.Fprintf(w, "   measured: %s\n", r.measured)
		fmt.Fprintf(w, "   holds:    %s — %s\n\n", r.holds, r.why)
	}
	fmt.Fprintf(w, "Figures are medians ± the 95%% confidence interval over the runs; \"~\" means not significant (Mann-Whitney U, α=0.05), as in benchstat.\n")
}

func markdownTable(e *reproEnv, rows []row, raw string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**contend reproduce** on %s\n\n", e.machine())
	b.WriteString("| # | finding | seed's figure | this machine | holds here? |\n|---|---|---|---|---|\n")
	esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | **%s**: %s |\n", r.id, esc(r.finding), esc(r.seed), esc(r.measured), r.holds, esc(r.why))
	}
	fmt.Fprintf(&b, "\nMedians ± 95%% CI; \"~\" = not significant (U-test, α=0.05). Raw results: `%s` (benchstat reads it).\n", raw)
	return b.String()
}
