package reproduce

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
	"github.com/contend/contend/internal/sweep"
)

// Env is what the experiments are sized for: the machine, and whether
// this is a quick or a full run.
type Env struct {
	topo    *affinity.Topology
	full    bool
	threads int    // workers for the contended experiments
	place   string // their placement
	nodes   int    // nodes with usable cpus
}

func NewEnv(t *affinity.Topology, full bool) *Env {
	e := &Env{topo: t, full: full, place: "compact"}
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

// An Experiment is one configuration a finding needs.
type Experiment struct {
	scenario, variant string
	threads           int
	place             string
}

// Plan gathers every finding's experiments into one sweep, so that the
// configurations interleave across the rounds like any sweep's.
func (e *Env) Plan() (*sweep.Plan, error) {
	p := &sweep.Plan{Topology: e.topo, Count: 6, Duration: 100 * time.Millisecond}
	if e.full {
		p.Count, p.Duration = 10, time.Second
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
			if !seen[j.Name] {
				seen[j.Name] = true
				p.Jobs = append(p.Jobs, j)
			}
		}
	}
	if len(p.Jobs) == 0 {
		return nil, errors.New("no finding can be reproduced on this machine")
	}
	return p, nil
}

func (e *Env) job(x Experiment) (sweep.Job, error) {
	spec, err := bench.Lookup(x.scenario)
	if err != nil {
		return sweep.Job{}, err
	}
	pl, err := affinity.ParsePlacement(x.place)
	if err != nil {
		return sweep.Job{}, err
	}
	return sweep.NewJob(e.topo, spec, x.variant, x.threads, pl, false)
}

// stat is the summary of one experiment's unit.
type stat = results.Summary

// get summarizes an experiment's unit ("sec/op" for ns/op: benchfmt tidies
// units); nil when the run has no such result.
func (e *Env) get(ev *results.Set, x Experiment, unit string) *stat {
	j, err := e.job(x)
	if err != nil {
		return nil
	}
	var vals []float64
	for _, r := range ev.ByName(j.Name) {
		if v, ok := r.Value(unit); ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	return results.Summarize(vals, nil, nil, 0.95)
}

// significant reports whether a and b differ by the U-test at α = 0.05, as
// benchstat decides "~".
func significant(a, b *stat) (bool, float64) {
	c := b.Compare(nil, a)
	return c.P < c.Alpha, c.P
}

// A Row of the findings table.
type Row struct {
	id       int
	finding  string
	seed     string
	measured string
	holds    string // "yes", "partly", "no", "n/a here"
	why      string
}

// Judge reads a reproduce run's results, one row per finding.
func (e *Env) Judge(ev *results.Set) []Row {
	var rows []Row
	for _, f := range findings {
		r := Row{id: f.id, finding: f.title, seed: f.seed}
		if why := f.applies(e); why != "" {
			r.measured, r.holds, r.why = "not run", "n/a here", why
		} else {
			r.measured, r.holds, r.why = f.judge(e, ev)
		}
		rows = append(rows, r)
	}
	return rows
}

func (e *Env) machine() string {
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

func WriteText(w io.Writer, e *Env, rows []Row) {
	fmt.Fprintf(w, "contend reproduce — %s\n\n", e.machine())
	for _, r := range rows {
		fmt.Fprintf(w, "%d. %s\n", r.id, r.finding)
		fmt.Fprintf(w, "   seed:     %s\n", r.seed)
		fmt.Fprintf(w, "   measured: %s\n", r.measured)
		fmt.Fprintf(w, "   holds:    %s — %s\n\n", r.holds, r.why)
	}
	fmt.Fprintf(w, "Figures are medians ± the 95%% confidence interval over the runs; \"~\" means not significant (Mann-Whitney U, α=0.05), as in benchstat.\n")
}

func Markdown(e *Env, rows []Row, raw string) string {
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
