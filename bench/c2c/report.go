package c2c

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/resultfmt"
	"github.com/contend/contend/nodemask"
	"golang.org/x/perf/benchfmt"
)

// homeNote explains where the lines lived, in one line.
func homeNote(t *affinity.Topology, cfg Config, rs []Result) string {
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

func memNodes(rs []Result) string {
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

// pinningNote says, in one line, how often and how the ends were found on
// their cpus: a result exists only if every check passed.
func pinningNote(rs []Result) string {
	var checks int64
	var how []string
	for _, r := range rs {
		checks += r.Checks
		if r.Probe != "" && !slices.Contains(how, r.Probe) {
			how = append(how, r.Probe)
		}
	}
	if len(how) == 0 {
		how = []string{"unknown"}
	}
	return fmt.Sprintf("pinning verified: %d on-cpu checks, after every sample at both ends (%s), none off-cpu", checks, strings.Join(how, ", "))
}

func placedBy(rs []Result) string {
	var how []string
	for _, r := range rs {
		if !slices.Contains(how, r.Placed) {
			how = append(how, r.Placed)
		}
	}
	return strings.Join(how, " and ")
}

// WriteText prints the matrix (all pairs) or the pair list (sampled),
// then the class summary, for people.
func WriteText(w io.Writer, t *affinity.Topology, plan *Plan, cfg Config, rs []Result, sum []ClassSummary) error {
	fmt.Fprintf(w, "one-way handoff latency in ns: %s of %d samples of %d round trips per pair (sample time / 2×rounds), after %d warm-up samples and %v preheat\n",
		cfg.Stat, cfg.Samples, cfg.Rounds, cfg.Warmup.Samples(), cfg.Preheat)
	fmt.Fprintf(w, "topology %s, %s, cpus %s, pairs %s\n", t.Label(), machineName(t), nodemask.BitmapOf(plan.CPUs...), plan.Selection)
	fmt.Fprintf(w, "%s\n", homeNote(t, cfg, rs))
	fmt.Fprintf(w, "%s\n", pinningNote(rs))
	for _, m := range Modes {
		var mrs []Result
		for _, r := range rs {
			if r.Mode == m {
				mrs = append(mrs, r)
			}
		}
		if len(mrs) == 0 {
			continue
		}
		fmt.Fprintln(w)
		var err error
		if plan.Selection == All {
			err = writeMatrix(w, m, plan.CPUs, mrs)
		} else {
			err = writePairs(w, m, mrs)
		}
		if err != nil {
			return err
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
		name += " under " + affinity.HypervisorName(m.HypervisorVendor)
	}
	return name
}

// writeMatrix prints the lower triangle: row cpu_b, column cpu_a (the pinger).
func writeMatrix(w io.Writer, m Mode, cpus []int, rs []Result) error {
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
	return tw.Flush()
}

func writePairs(w io.Writer, m Mode, rs []Result) error {
	fmt.Fprintf(w, "mode=%s\n", m)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cpu_a\tcpu_b\tclass\tns\tmin\tmedian\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.1f\t%.1f\t%.1f\t\n", r.CPUA, r.CPUB, r.Class, r.NS, r.MinNS, r.MedianNS)
	}
	return tw.Flush()
}

// jsonReport is contend c2c -json's document. Each pair carries cpu_a, cpu_b, ns
// and class, what contend plot draws a heatmap from.
type jsonReport struct {
	Topology  string            `json:"topology"`
	Config    map[string]string `json:"config"`
	Stat      Stat              `json:"stat"`
	Samples   int               `json:"samples"`
	Rounds    int               `json:"rounds"`
	Warmup    int               `json:"warmup"`
	Preheat   string            `json:"preheat"`
	Home      string            `json:"home"`
	HomeNote  string            `json:"home_note"`
	Selection Selection         `json:"selection"`
	CPUs      []int             `json:"cpus"`
	Pairs     []Result          `json:"pairs"`
	Classes   []ClassSummary    `json:"classes"`
}

// WriteJSON writes the measurement as one JSON document; command is the
// command line that made it, for its provenance.
func WriteJSON(w io.Writer, t *affinity.Topology, plan *Plan, cfg Config, rs []Result, sum []ClassSummary, command []string) error {
	doc := jsonReport{
		Topology: t.Label(), Config: map[string]string{},
		Stat: cfg.Stat, Samples: cfg.Samples, Rounds: cfg.Rounds, Warmup: cfg.Warmup.Samples(),
		Preheat: cfg.Preheat.String(), Home: cfg.Home.String(), HomeNote: homeNote(t, cfg, rs),
		Selection: plan.Selection, CPUs: plan.CPUs, Pairs: rs, Classes: sum,
	}
	for _, c := range provenance(t, cfg, command) {
		doc.Config[c.Key] = string(c.Value)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("c2c: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// provenance is the usual provenance plus how the pairs were measured.
func provenance(t *affinity.Topology, cfg Config, command []string) []benchfmt.Config {
	// The pkg line of BenchmarkC2C's package (this one), as go test -bench
	// ./bench/c2c writes it, and the command line that made the results.
	cfgs := resultfmt.WithPackage(resultfmt.FileConfig(t, command), reflect.TypeFor[Plan]().PkgPath())
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

// WriteBench writes each pair's result in the Go benchmark format, as
// BenchmarkC2C names it; command is the command line that made them.
func WriteBench(w io.Writer, t *affinity.Topology, cfg Config, rs []Result, command []string) error {
	bw := benchfmt.NewWriter(w)
	for _, u := range resultfmt.UnitMeta(MinHandoff) {
		if err := bw.Write(u); err != nil {
			return err
		}
	}
	prov := provenance(t, cfg, command)
	for i := range rs {
		if err := bw.Write(record(&rs[i], prov)); err != nil {
			return err
		}
	}
	return nil
}

// jsonPlan is contend c2c -list -json's document.
type jsonPlan struct {
	Topology  string         `json:"topology"`
	Selection Selection      `json:"selection"`
	CPUs      []int          `json:"cpus"`
	Total     map[Class]int  `json:"total_pairs"`
	Pairs     []jsonPlanPair `json:"pairs"`
	Modes     int            `json:"modes"`
	// EstimatedSeconds is Plan.Estimate: pessimistic, from typical
	// handoff times per class.
	EstimatedSeconds float64 `json:"estimated_seconds"`
}

type jsonPlanPair struct {
	CPUA  int   `json:"cpu_a"`
	CPUB  int   `json:"cpu_b"`
	Class Class `json:"class"`
}

func WritePlan(w io.Writer, t *affinity.Topology, p *Plan, cfg Config, modes int, asJSON bool) error {
	est := p.Estimate(cfg, modes)
	if asJSON {
		doc := jsonPlan{Topology: t.Label(), Selection: p.Selection, CPUs: p.CPUs, Total: p.Total,
			Modes: modes, EstimatedSeconds: est.Seconds()}
		for _, pr := range p.Pairs {
			doc.Pairs = append(doc.Pairs, jsonPlanPair{pr.A, pr.B, pr.Class})
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return fmt.Errorf("c2c: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintf(w, "c2c plan: topology %s, cpus %s, pairs %s: %d to measure × %d mode(s), about %s at %d samples of %d round trips (a pessimistic estimate from typical handoff times per class)\n",
		t.Label(), nodemask.BitmapOf(p.CPUs...), p.Selection, len(p.Pairs), modes, roundEstimate(est), cfg.Samples, cfg.Rounds)
	if t.IsFake() {
		fmt.Fprintf(w, "classes come from the real topology: fake nodes are not hardware\n")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tpairs\tchosen")
	for _, c := range Classes {
		if p.Total[c] == 0 {
			continue
		}
		var chosen []string
		for _, pr := range p.Pairs {
			if pr.Class == c {
				chosen = append(chosen, fmt.Sprintf("%d,%d", pr.A, pr.B))
			}
		}
		if p.Selection == All {
			chosen = []string{fmt.Sprintf("all %d", len(chosen))}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c, p.Total[c], strings.Join(chosen, " "))
	}
	return tw.Flush()
}

// roundEstimate rounds an estimate to what is worth saying: seconds below
// ten minutes, minutes above.
func roundEstimate(d time.Duration) time.Duration {
	if d < 10*time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}
