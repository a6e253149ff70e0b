package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchfmt"

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
	warmup   int
	preheat  time.Duration
	home     string
	stat     string
	asJSON   bool
	asBench  bool
	list     bool
}

func (f *c2cFlags) register(fs *flag.FlagSet) {
	f.topo.register(fs)
	fs.StringVar(&f.mode, "mode", "rw", "handoff `mode`: rw (spin load, then store), cas (spin compare-and-swap), all, or a comma list")
	fs.StringVar(&f.cpus, "cpus", "", "cpu `list` to measure, such as 0-7 or 0,8,16 (default: every allowed cpu)")
	fs.StringVar(&f.pairs, "pairs", "auto", fmt.Sprintf("pair `selection`: all (every pair), sample (-per-class pairs of each topology class), auto (all up to %d cpus)", c2c.AllPairsMax))
	fs.IntVar(&f.perClass, "per-class", 3, "pairs per topology class when sampling")
	fs.IntVar(&f.samples, "samples", 300, "measured `samples` per pair")
	fs.IntVar(&f.rounds, "rounds", 1000, "round trips per sample: each sample's time is divided by 2×rounds")
	fs.IntVar(&f.warmup, "warmup", -1, "warm-up `samples` run and dropped before measuring (-1: samples/10)")
	fs.DurationVar(&f.preheat, "preheat", 0, "ping-pong unmeasured this long before the warm-up, so both cores reach full clock")
	fs.StringVar(&f.home, "home", "first", "`node` the line lives on: first (cpu_a's), second (cpu_b's) or a node id")
	fs.StringVar(&f.stat, "stat", "median", "`statistic` the matrix and the ns fields show: median or min of the samples")
	fs.BoolVar(&f.asJSON, "json", false, "print the results (or, with -list, the plan) as JSON")
	fs.BoolVar(&f.asBench, "bench", false, "print the results in Go benchmark format, one line per pair, for benchstat")
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
	case f.warmup < -1:
		return nil, cfg, fmt.Errorf("c2c: -warmup %d: want -1 (samples/10), 0 or more", f.warmup)
	case f.preheat < 0:
		return nil, cfg, fmt.Errorf("c2c: -preheat %v: must not be negative", f.preheat)
	case f.stat != "median" && f.stat != "min":
		return nil, cfg, fmt.Errorf("c2c: -stat %q: want median or min", f.stat)
	case f.asJSON && f.asBench:
		return nil, cfg, fmt.Errorf("c2c: -json and -bench: choose one output format")
	}
	cfg = c2c.Config{Samples: f.samples, Rounds: f.rounds, Preheat: f.preheat, Home: home, Stat: f.stat}
	switch f.warmup {
	case -1: // C2CConfig's zero: the default
	case 0:
		cfg.Warmup = -1
	default:
		cfg.Warmup = f.warmup
	}
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
	fs := newFlags(stdout, "c2c", "[-mode rw|cas|all] [-cpus LIST] [-pairs auto|all|sample] [-per-class K] [-samples N] [-rounds N] [-preheat D] [-home first|second|NODE] [-json | -bench] [-list] [-fake-nodes K]")
	var f c2cFlags
	f.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("c2c: unexpected argument %q", pos[0])
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
		return writePlan(stdout, t, plan, f.asJSON)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg.Context = ctx
	fmt.Fprintf(stderr, "c2c: %d pairs × %d mode(s) on cpus %s, %d samples of %d round trips each\n",
		len(plan.Pairs), len(modes), nodemask.BitmapOf(plan.CPUs...), cfg.Samples, cfg.Rounds)
	began := time.Now()
	var results []c2c.Result
	for _, m := range modes {
		cfg.Mode = m
		for _, p := range plan.Pairs {
			r, err := c2c.Measure(t, p.A, p.B, cfg)
			if err != nil {
				return err
			}
			results = append(results, *r)
		}
	}
	fmt.Fprintf(stderr, "c2c: done in %v\n", time.Since(began).Round(time.Millisecond))
	sum := c2c.Summarize(results, plan.Total)
	switch {
	case f.asJSON:
		return writeC2CJSON(stdout, t, plan, cfg, results, sum)
	case f.asBench:
		return writeC2CBench(stdout, t, cfg, results)
	}
	return writeC2CText(stdout, t, plan, cfg, results, sum)
}

// homeNote explains where the lines lived, in one line.
func homeNote(t *affinity.Topology, cfg c2c.Config, rs []c2c.Result) string {
	what := map[string]string{"first": "cpu_a's node", "second": "cpu_b's node"}[cfg.Home.Which]
	if what == "" {
		what = fmt.Sprintf("node %d", cfg.Home.Node)
	}
	switch {
	case t.IsFake():
		return fmt.Sprintf("home %s: NOT REAL on topology %s: fake nodes hold no memory; every line sat on real node(s) %s", what, t.Label(), memNodes(rs))
	case len(t.Nodes) == 1:
		return fmt.Sprintf("home %s: this machine has one node, so every line lived on node %d (placed by %s)", what, t.Nodes[0].ID, placedBy(rs))
	}
	var bad []string
	for _, r := range rs {
		if r.MemNode >= 0 && r.MemNode != r.HomeNode {
			bad = append(bad, fmt.Sprintf("%d,%d on node %d", r.CPUA, r.CPUB, r.MemNode))
		}
	}
	note := fmt.Sprintf("home %s (placed by %s, kernel reports node(s) %s)", what, placedBy(rs), memNodes(rs))
	if len(bad) > 0 {
		note += "; WARNING: lines not on their home: " + strings.Join(bad, ", ")
	}
	return note
}

func memNodes(rs []c2c.Result) string {
	var b nodemask.Bitmap
	unknown := false
	for _, r := range rs {
		if r.MemNode < 0 {
			unknown = true
			continue
		}
		b.Set(r.MemNode)
	}
	switch {
	case b.Empty():
		return "unknown (get_mempolicy refused)"
	case unknown:
		return b.String() + " (some unknown)"
	}
	return b.String()
}

func placedBy(rs []c2c.Result) string {
	var how []string
	for _, r := range rs {
		if !slices.Contains(how, r.Placed) {
			how = append(how, r.Placed)
		}
	}
	return strings.Join(how, " and ")
}

// writeC2CText prints the matrix (all pairs) or the pair list (sampled),
// then the class summary, for people.
func writeC2CText(w io.Writer, t *affinity.Topology, plan *c2c.Plan, cfg c2c.Config, rs []c2c.Result, sum []c2c.ClassSummary) error {
	fmt.Fprintf(w, "one-way handoff latency in ns: %s of %d samples of %d round trips per pair (sample time / 2×rounds), after %d warm-up samples and %v preheat\n",
		cfg.Stat, cfg.Samples, cfg.Rounds, max(cfg.Warmup, 0), cfg.Preheat)
	fmt.Fprintf(w, "topology %s, %s, cpus %s, pairs %s\n", t.Label(), machineName(t), nodemask.BitmapOf(plan.CPUs...), plan.Selection)
	fmt.Fprintf(w, "%s\n", homeNote(t, cfg, rs))
	for _, m := range c2c.Modes {
		var mrs []c2c.Result
		for _, r := range rs {
			if r.Mode == m {
				mrs = append(mrs, r)
			}
		}
		if len(mrs) == 0 {
			continue
		}
		fmt.Fprintln(w)
		if plan.Selection == c2c.All {
			writeMatrix(w, m, plan.CPUs, mrs)
		} else {
			writePairs(w, m, mrs)
		}
	}
	fmt.Fprintf(w, "\nclass summary (ns: median over pairs of each pair's %s; min: lowest sample of any pair)\n", cfg.Stat)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tclass\tpairs\tof\tns\tmin\tmax\texample\t")
	for _, s := range sum {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%d,%d\t\n", s.Mode, s.Class, s.Pairs, s.Total, s.NS, s.MinNS, s.MaxNS, s.Example[0], s.Example[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var unstable []string
	for _, r := range rs {
		if r.MedianNS > 1.25*r.MinNS {
			unstable = append(unstable, fmt.Sprintf("%s %d,%d (median %.1f, min %.1f)", r.Mode, r.CPUA, r.CPUB, r.MedianNS, r.MinNS))
		}
	}
	if len(unstable) > 0 {
		fmt.Fprintf(w, "\nWARNING: median more than 1.25× min, the pair's latency changed during its samples (a vCPU moved on the host? another load?): %s\n", strings.Join(unstable, "; "))
	}
	if t.Machine.Hypervisor {
		fmt.Fprintf(w, "NOTE: under a hypervisor, classes are the guest's view; the host may place or move vCPUs elsewhere\n")
	}
	return nil
}

func machineName(t *affinity.Topology) string {
	m := t.Machine
	name := m.Brand
	if name == "" {
		name = "unknown machine"
	}
	if m.Hypervisor {
		name += " under " + m.HypervisorVendor
	}
	return name
}

// writeMatrix prints the lower triangle: row cpu_b, column cpu_a (the pinger).
func writeMatrix(w io.Writer, m c2c.Mode, cpus []int, rs []c2c.Result) {
	ns := map[[2]int]float64{}
	for _, r := range rs {
		ns[[2]int{r.CPUA, r.CPUB}] = r.NS
	}
	fmt.Fprintf(w, "mode=%s: row cpu_b, column cpu_a (pings first)\n", m)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, a := range cpus[:len(cpus)-1] {
		fmt.Fprintf(tw, "%d\t", a)
	}
	fmt.Fprintln(tw)
	for i, b := range cpus[1:] {
		fmt.Fprintf(tw, "%d\t", b)
		for _, a := range cpus[:i+1] {
			fmt.Fprintf(tw, "%.1f\t", ns[[2]int{a, b}])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func writePairs(w io.Writer, m c2c.Mode, rs []c2c.Result) {
	fmt.Fprintf(w, "mode=%s\n", m)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cpu_a\tcpu_b\tclass\tns\tmin\tmedian\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.1f\t%.1f\t%.1f\t\n", r.CPUA, r.CPUB, r.Class, r.NS, r.MinNS, r.MedianNS)
	}
	tw.Flush()
}

// c2cJSON is contend c2c -json's document. Each pair carries cpu_a, cpu_b, ns
// and class, what contend plot draws a heatmap from.
type c2cJSON struct {
	Topology  string             `json:"topology"`
	Config    map[string]string  `json:"config"`
	Stat      string             `json:"stat"`
	Samples   int                `json:"samples"`
	Rounds    int                `json:"rounds"`
	Warmup    int                `json:"warmup"`
	Preheat   string             `json:"preheat"`
	Home      string             `json:"home"`
	HomeNote  string             `json:"home_note"`
	Selection c2c.Selection      `json:"selection"`
	CPUs      []int              `json:"cpus"`
	Pairs     []c2c.Result       `json:"pairs"`
	Classes   []c2c.ClassSummary `json:"classes"`
}

func writeC2CJSON(w io.Writer, t *affinity.Topology, plan *c2c.Plan, cfg c2c.Config, rs []c2c.Result, sum []c2c.ClassSummary) error {
	doc := c2cJSON{
		Topology: t.Label(), Config: map[string]string{},
		Stat: cfg.Stat, Samples: cfg.Samples, Rounds: cfg.Rounds, Warmup: max(cfg.Warmup, 0),
		Preheat: cfg.Preheat.String(), Home: cfg.Home.String(), HomeNote: homeNote(t, cfg, rs),
		Selection: plan.Selection, CPUs: plan.CPUs, Pairs: rs, Classes: sum,
	}
	for _, c := range c2cProvenance(t, cfg) {
		doc.Config[c.Key] = string(c.Value)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("c2c: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// c2cProvenance is the usual provenance plus how the pairs were measured.
func c2cProvenance(t *affinity.Topology, cfg c2c.Config) []benchfmt.Config {
	cfgs := append(results.Provenance(t), benchfmt.Config{Key: "date", Value: []byte(results.Date()), File: true})
	for _, kv := range [][2]string{
		{"c2c-samples", fmt.Sprint(cfg.Samples)},
		{"c2c-rounds", fmt.Sprint(cfg.Rounds)},
		{"c2c-preheat", cfg.Preheat.String()},
		{"c2c-home", cfg.Home.String()},
	} {
		cfgs = append(cfgs, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
	}
	return cfgs
}

func writeC2CBench(w io.Writer, t *affinity.Topology, cfg c2c.Config, rs []c2c.Result) error {
	bw := benchfmt.NewWriter(w)
	for _, u := range results.UnitMeta(c2c.MinHandoff) {
		if err := bw.Write(u); err != nil {
			return err
		}
	}
	prov := c2cProvenance(t, cfg)
	for i := range rs {
		if err := bw.Write(c2c.Record(&rs[i], prov)); err != nil {
			return err
		}
	}
	return nil
}

// c2cPlanJSON is contend c2c -list -json's document.
type c2cPlanJSON struct {
	Topology  string            `json:"topology"`
	Selection c2c.Selection     `json:"selection"`
	CPUs      []int             `json:"cpus"`
	Total     map[c2c.Class]int `json:"total_pairs"`
	Pairs     []c2cPlanPair     `json:"pairs"`
}

type c2cPlanPair struct {
	CPUA  int       `json:"cpu_a"`
	CPUB  int       `json:"cpu_b"`
	Class c2c.Class `json:"class"`
}

func writePlan(w io.Writer, t *affinity.Topology, p *c2c.Plan, asJSON bool) error {
	if asJSON {
		doc := c2cPlanJSON{Topology: t.Label(), Selection: p.Selection, CPUs: p.CPUs, Total: p.Total}
		for _, pr := range p.Pairs {
			doc.Pairs = append(doc.Pairs, c2cPlanPair{pr.A, pr.B, pr.Class})
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return fmt.Errorf("c2c: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintf(w, "c2c plan: topology %s, cpus %s, pairs %s: %d to measure\n", t.Label(), nodemask.BitmapOf(p.CPUs...), p.Selection, len(p.Pairs))
	if t.IsFake() {
		fmt.Fprintf(w, "classes come from the real topology: fake nodes are not hardware\n")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tpairs\tchosen")
	for _, c := range c2c.Classes {
		if p.Total[c] == 0 {
			continue
		}
		var chosen []string
		for _, pr := range p.Pairs {
			if pr.Class == c {
				chosen = append(chosen, fmt.Sprintf("%d,%d", pr.A, pr.B))
			}
		}
		if p.Selection == c2c.All {
			chosen = []string{fmt.Sprintf("all %d", len(chosen))}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c, p.Total[c], strings.Join(chosen, " "))
	}
	return tw.Flush()
}
