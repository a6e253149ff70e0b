package reproduce

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench"
	_ "github.com/contend/contend/bench/all"
	"github.com/contend/contend/internal/fixture"
	"github.com/contend/contend/internal/results"
	"github.com/contend/contend/internal/sweep"
)

// Every experiment is a variant its scenario accepts, and every unit a claim
// reads is one the scenario reports: a renamed preset or unit fails here, not
// as a finding that quietly says "no results".
func TestExperiments(t *testing.T) {
	for _, e := range []*Env{testEnv(), {threads: 64, place: "compact", nodes: 1}} {
		for _, f := range findings(e) {
			for _, m := range f.measures() {
				if _, err := m.X.name(); err != nil {
					t.Errorf("finding %d: %s %q: %v", f.ID, m.X.Scenario, m.X.Variant, err)
					continue
				}
				spec, _ := bench.Lookup(m.X.Scenario)
				if m.Unit != nsPerOp && !slices.Contains(spec.Units, m.Unit) {
					t.Errorf("finding %d: %s reports no %s", f.ID, m.X.Scenario, m.Unit.Name)
				}
				if m.X.Label == "" {
					t.Errorf("finding %d: %s %q has no label", f.ID, m.X.Scenario, m.X.Variant)
				}
			}
		}
	}
}

// The names a finding looks results up by are the names the sweep writes,
// less the -GOMAXPROCS suffix.
func TestNamesMatchSweep(t *testing.T) {
	for _, topo := range []string{fixture.AMD8Nodes, fixture.NoNUMA} {
		e := NewEnv(fixture.Topology(t, topo), false)
		p, err := e.Plan()
		if err != nil {
			t.Fatalf("%s: Plan: %v", topo, err)
		}
		var names []string
		for _, j := range p.Jobs {
			names = append(names, stripProcs(j.Name))
		}
		for _, f := range findings(e) {
			if f.unmet(e) != "" {
				continue
			}
			for _, m := range f.measures() {
				n, _ := m.X.name()
				if !slices.Contains(names, n) {
					t.Errorf("%s: finding %d reads %s, which the plan does not run", topo, f.ID, n)
				}
			}
		}
	}
}

func TestStripProcs(t *testing.T) {
	for in, want := range map[string]string{
		"LoadAvg/preset=base/threads=2/place=spread-2":  "LoadAvg/preset=base/threads=2/place=spread",
		"LoadAvg/preset=base/threads=2/place=spread-64": "LoadAvg/preset=base/threads=2/place=spread",
		"LoadAvg/preset=base/threads=2/place=0..1":      "LoadAvg/preset=base/threads=2/place=0..1",
	} {
		if got := stripProcs(in); got != want {
			t.Errorf("stripProcs(%q) = %q, want %q", in, got, want)
		}
	}
}

// resultsText writes a reproduce run's results file as the sweep would: the
// configuration lines, then n runs of every experiment e's findings read,
// with medians from figs (ns/op as the runner writes it) and -procs names.
func resultsText(e *Env, figs figures, n, procs int, topology string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goos: linux\ncpu: Test CPU\nnodes: %d\ntopology: %s\ncpus: 0..1\nhypervisor: KVMKVMKVM\n\n", e.nodes, topology)
	byName := map[string][]Measure{}
	var order []string
	for _, f := range findings(e) {
		for _, m := range f.measures() {
			name, _ := m.X.name()
			if !slices.Contains(byName[name], m) {
				if byName[name] == nil {
					order = append(order, name)
				}
				byName[name] = append(byName[name], m)
			}
		}
	}
	for i := 0; i < n; i++ {
		for _, name := range order {
			fmt.Fprintf(&b, "Benchmark%s-%d 1000", name, procs)
			for _, m := range byName[name] {
				fmt.Fprintf(&b, " %v %s", runs(figs.of(m), n, 1)[i], m.Unit.Name)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// A results file judged anywhere: the Env comes from the file, the names
// match whatever GOMAXPROCS the run had, and ns/op survives benchfmt's
// tidying to sec/op.
func TestJudgeResultsFile(t *testing.T) {
	made := &Env{threads: 2, place: "spread", nodes: 2}
	figs := f2.with(figures{"base": 120, "rate": 100, "max": 150, "loopbound": 150, "nr_node_ids": 100})
	set, err := results.Parse(strings.NewReader(resultsText(made, figs, 6, 7, "fake-2")), "r.txt")
	if err != nil {
		t.Fatal(err)
	}
	e, err := EnvFromResults(set)
	if err != nil {
		t.Fatalf("EnvFromResults: %v", err)
	}
	if e.threads != 2 || e.place != "spread" || e.nodes != 2 || !e.fake {
		t.Errorf("Env from results = %d workers, place %s, %d nodes, fake %v; want 2, spread, 2, true", e.threads, e.place, e.nodes, e.fake)
	}
	for _, s := range []string{"Test CPU", "2 node(s) (topology fake-2)", "KVM", "2 workers, place=spread"} {
		if !strings.Contains(e.machine, s) {
			t.Errorf("machine %q lacks %q", e.machine, s)
		}
	}
	want := map[int]string{1: Yes, 2: Yes, 3: Yes, 4: Yes, 5: No, 6: No, 7: No}
	rows := e.Judge(set)
	if len(rows) != NumFindings() {
		t.Errorf("%d rows from the file, want %d", len(rows), NumFindings())
	}
	for _, r := range rows {
		if w, ok := want[r.ID]; ok {
			delete(want, r.ID)
			if r.Holds != w {
				t.Errorf("finding %d from the file: %s — %s\n\tmeasured: %s\n\twant %s", r.ID, r.Holds, r.Why, r.Measured, w)
			}
		}
	}
	for id := range want {
		t.Errorf("finding %d: no row from the file", id)
	}
}

// A run on one node of a bigger machine placed its workers compactly and
// skipped finding 3: judged from its file, finding 3 says why, not "no
// results".
func TestEnvFromResultsOneNodeUsed(t *testing.T) {
	text := strings.Replace(resultsText(&Env{threads: 2, place: "compact", nodes: 1}, nil, 6, 2, "real"), "nodes: 1", "nodes: 8", 1)
	set, err := results.Parse(strings.NewReader(text), "r.txt")
	if err != nil {
		t.Fatal(err)
	}
	e, err := EnvFromResults(set)
	if err != nil {
		t.Fatal(err)
	}
	judged := false
	for _, r := range e.Judge(set) {
		if r.ID != 3 {
			continue
		}
		judged = true
		if r.Holds != NA || !strings.Contains(r.Why, "one NUMA node") {
			t.Errorf("finding 3: %s — %s; want n/a for one node", r.Holds, r.Why)
		}
	}
	if !judged {
		t.Error("no row for finding 3")
	}
}

func TestEnvFromResultsErrors(t *testing.T) {
	two := resultsText(&Env{threads: 2, place: "compact", nodes: 1}, nil, 1, 2, "real")
	four := resultsText(&Env{threads: 4, place: "compact", nodes: 1}, nil, 1, 4, "real")
	for _, tt := range []struct {
		name, text, want string
	}{
		{"not reproduce's", "BenchmarkFoo/x=1-2 10 5 ns/op\n", "none of reproduce's experiments"},
		{"two sizings", two + four, "several sizings (threads=2/place=compact, threads=4/place=compact)"},
	} {
		set, err := results.Parse(strings.NewReader(tt.text), "r.txt")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := EnvFromResults(set); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: EnvFromResults error = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// The Markdown table has a row per finding, each with its criterion, and
// no cell breaks the table.
func TestMarkdown(t *testing.T) {
	e := testEnv()
	rows := e.judge(fill(findingByID(t, e, 1), figures{"base": 120, "rate": 100}, 6, 1, ""))
	md := Markdown(e, rows, "r.txt")
	_, full, ok := strings.Cut(md, "Each finding in full:")
	if !ok {
		t.Fatalf("no \"Each finding in full\" after the verdict table:\n%s", md)
	}
	if n := strings.Count(md[:len(md)-len(full)], "\n| "); n != NumFindings()+1 {
		t.Errorf("verdict table has %d rows, want %d:\n%s", n, NumFindings()+1, md)
	}
	lines := strings.Split(full, "\n")
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| #") {
			n++
			if c := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); c != 8 {
				t.Errorf("row has %d cell borders, want 8: %s", c, l)
			}
			if !strings.Contains(l, "*criterion: yes if") {
				t.Errorf("row lacks its criterion: %s", l)
			}
		}
	}
	if n != NumFindings() {
		t.Errorf("%d rows, want %d:\n%s", n, NumFindings(), md)
	}
	if !strings.Contains(md, "`r.txt`") {
		t.Errorf("Markdown does not name its results file:\n%s", md)
	}
}

// Whatever a results file holds, reading an Env from it returns one or an
// error, never a panic; an Env it returns can judge the file.
func FuzzEnvFromResults(f *testing.F) {
	f.Add(resultsText(&Env{threads: 2, place: "spread", nodes: 2}, nil, 1, 2, "fake-2"))
	f.Add("BenchmarkLoadAvg/preset=base/store=atomic/threads=x/place=-2 1 1 ns/op\n")
	f.Add("nodes: nope\ntopology: fake\nBenchmarkNodemask/iter=max/nodes=4/threads=1/place=compact 1 1 ns/op\n")
	f.Fuzz(func(t *testing.T, text string) {
		set, err := results.Parse(strings.NewReader(text), "f.txt")
		if err != nil {
			return
		}
		e, err := EnvFromResults(set)
		if err != nil {
			return
		}
		if e.threads < 0 {
			t.Errorf("negative worker count %d from %q", e.threads, text)
		}
		if rows := e.Judge(set); len(rows) != NumFindings() {
			t.Errorf("%d rows, want %d", len(rows), NumFindings())
		}
	})
}

// reproduce -quick holds its time by construction: on every fixture
// machine its runs add up to at most quickRuns, and it says when it
// shortened them. A count, not a timing: the runs' length is the plan's.
func TestQuickPlanFits(t *testing.T) {
	for _, topo := range []string{fixture.AMD8Nodes, fixture.NoNUMA} {
		p, err := NewEnv(fixture.Topology(t, topo), false).Plan()
		if err != nil {
			t.Fatalf("%s: Plan: %v", topo, err)
		}
		if total := time.Duration(p.Count*len(p.Jobs)) * p.Duration; total > quickRuns {
			t.Errorf("%s: -quick runs %d configurations × %d rounds × %v = %v, over %v", topo, len(p.Jobs), p.Count, p.Duration, total, quickRuns)
		}
		if _, d := sweep.Quick.Size(); p.Duration < d && len(p.Trimmed) == 0 {
			t.Errorf("%s: runs of %v, shorter than the preset's %v, and nothing says so", topo, p.Duration, d)
		}
		full, err := NewEnv(fixture.Topology(t, topo), true).Plan()
		if err != nil {
			t.Fatalf("%s: full Plan: %v", topo, err)
		}
		if _, d := sweep.Full.Size(); full.Duration != d || len(full.Trimmed) != 0 {
			t.Errorf("%s: the full run's runs are %v (trimmed %q), want the preset's %v untouched", topo, full.Duration, full.Trimmed, d)
		}
	}
}
