package sweep

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	_ "github.com/contend/contend/bench/atomicadd" // the plans here need one scenario
	"github.com/contend/contend/bench/configlist"
	"github.com/contend/contend/internal/fixture"
	"github.com/contend/contend/nodemask"
)

// The full preset on a big machine reaches every CPU, spreads one run over
// every node, and crosses the most distant pair of nodes.
func TestFullPlanCoversTheMachine(t *testing.T) {
	for _, tt := range []struct {
		name string
		topo *affinity.Topology
	}{
		{fixture.AMD4Sockets, fixture.Topology(t, fixture.AMD4Sockets)},
		{fixture.Intel2Pkg, fixture.Topology(t, fixture.Intel2Pkg)},
		{"sapphire-rapids-224", fixture.Synthetic(t, fixture.SapphireRapids224)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			topo := tt.topo
			p, err := Build(topo, Matrix{Preset: Full, Scenarios: atomicadd(t)})
			if err != nil {
				t.Fatal(err)
			}
			var cpus nodemask.Bitmap
			spreadAll, crossFar := false, false
			far := farthest(topo)
			for _, j := range p.Jobs {
				assigned := j.CPUs
				var nodes nodemask.Bitmap
				for _, c := range assigned {
					cpus.Set(c)
					nodes.Set(topo.NodeOf(c))
				}
				if j.Place.Policy == affinity.Spread && nodes.Weight() == len(topo.Nodes) {
					spreadAll = true
				}
				if j.Place.Policy == affinity.Cross && nodes.Weight() == 2 &&
					topo.Distance(nodes.First(), nodes.Bits()[1]) == far {
					crossFar = true
				}
			}
			if !cpus.Equal(topo.AllowedCPUs) {
				t.Errorf("full plan uses cpus %s, want every allowed cpu %s", cpus.String(), topo.AllowedCPUs.String())
			}
			if !spreadAll {
				t.Errorf("no spread run covers all %d nodes", len(topo.Nodes))
			}
			if !crossFar {
				t.Errorf("no cross run spans two nodes at the largest distance %d", far)
			}
			for _, want := range []int{1, 2, topo.AllowedCPUs.Weight()} {
				if !hasThreads(p, want) {
					t.Errorf("full plan has no run of %d workers", want)
				}
			}
		})
	}
}

func farthest(t *affinity.Topology) int {
	far := 0
	for _, a := range t.Nodes {
		for _, b := range t.Nodes {
			far = max(far, t.Distance(a.ID, b.ID))
		}
	}
	return far
}

func hasThreads(p *Plan, n int) bool {
	for _, j := range p.Jobs {
		if j.Threads == n {
			return true
		}
	}
	return false
}

// A plan prints every configuration with its CPUs and an estimated time, on
// a tree of another machine or on fake nodes, and runs nothing.
func TestPlanWrite(t *testing.T) {
	topo := fixture.Fake(t, fixture.NoNUMA, 2)
	p, err := Build(topo, Matrix{Preset: Full, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0"}})
	if err != nil {
		t.Fatal(err)
	}
	p.Floor = true
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"topology fake-2", "NOTE: topology fake-2",
		"atomicadd  line=shared/work=0  4        spread",
		"atomicadd  line=shared/work=0  4        cross    0-1    = compact", // every cpu in compact's order
		"estimated wall time: ", "handoff floor before and after for each of",
		fmt.Sprintf("%d configurations: %d runs a round; %d share another's run", p.Configurations(), len(p.Jobs), p.Configurations()-len(p.Jobs)),
		"threads: 1 (25%); 2 (one node, 50%); 3 (75%) compact,spread; 4 (one LLC, 100%)",
		"rounds: 6 to 10 of 150ms a configuration", " to ", "(every configuration stopping at 6 rounds, or running 10)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	// One floor per distinct set of two or more cpus, whatever the
	// workers' order or repeats.
	sets := map[string]bool{}
	for _, j := range p.Jobs {
		cpus := slices.Compact(slices.Sorted(slices.Values(j.CPUs)))
		if len(cpus) >= 2 {
			sets[fmt.Sprint(cpus)] = true
		}
	}
	if want := fmt.Sprintf("for each of %d cpu sets", len(sets)); !strings.Contains(out, want) {
		t.Errorf("plan lacks %q:\n%s", want, out)
	}
	// 6 to 10 rounds of every job: at least the runs themselves.
	if lo, hi := p.Estimate(); lo < time.Duration(6*len(p.Jobs))*p.Duration || hi < time.Duration(10*len(p.Jobs))*p.Duration || hi*6 > lo*10 {
		t.Errorf("Estimate() = %v to %v, want at least the runs' own %v to %v, the larger 10/6 of the smaller at most",
			lo, hi, time.Duration(6*len(p.Jobs))*p.Duration, time.Duration(10*len(p.Jobs))*p.Duration)
	}
}

func TestWorkerList(t *testing.T) {
	for _, tt := range []struct {
		cpus []int
		want string
	}{
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{0, 8, 1, 9}, "0,8,1,9"},
		{[]int{5}, "5"},
		{[]int{0, 1, 16, 17, 18}, "0-1,16-18"},
		{nil, ""},
	} {
		if got := workerList(tt.cpus); got != tt.want {
			t.Errorf("workerList(%v) = %q, want %q", tt.cpus, got, tt.want)
		}
	}
}

// BenchmarkPlan is the sweep planner at scale: the full preset on a
// 1024-CPU machine, expanded and printed.
func BenchmarkPlan(b *testing.B) {
	topo := fixture.Synthetic(b, fixture.Fake1024)
	specs := atomicadd(b)
	b.ReportAllocs()
	for b.Loop() {
		p, err := Build(topo, Matrix{Preset: Full, Scenarios: specs})
		if err != nil {
			b.Fatal(err)
		}
		p.Floor = true
		if err := p.Write(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// buildLists builds a quick matrix of atomicadd at the thread and
// placement lists given as the sweep command's flags give them.
func buildLists(topo *affinity.Topology, threads, places string) (*Plan, error) {
	ns, err := configlist.ParseThreads(threads, topo)
	if err != nil {
		return nil, fmt.Errorf("-threads: %w", err)
	}
	ps, err := configlist.ParsePlaces(places)
	if err != nil {
		return nil, fmt.Errorf("-place: %w", err)
	}
	specs, err := ParseScenarios("atomicadd")
	if err != nil {
		return nil, err
	}
	return Build(topo, Matrix{Preset: Quick, Scenarios: specs, Variants: []string{"line=shared/work=0"},
		Threads: ns, Places: ps, Oversubscribe: true})
}

// -threads and -place read the lists go test's CONTEND_THREADS and
// CONTEND_PLACE do (bench/configlist): max, ladder, cpu lists set apart by
// ";", and a one-line error naming the flag.
func TestBuildLists(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD8Nodes) // 16 cpus, 8 nodes of 2
	for _, tt := range []struct{ threads, places, want string }{
		{"max", "compact", "16/compact"},
		{"2, max", "spread;0-3", "2/spread 2/cpus:0..3 16/spread 16/cpus:0..3"}, // oversubscribed
		{"4,4", "compact,compact", "4/compact"},
		{"two", "compact", `!-threads: "two" is not a positive worker count`},
		{"2", "compact;", `!-place: affinity: unknown placement ""`},
	} {
		p, err := buildLists(topo, tt.threads, tt.places)
		if want, isErr := strings.CutPrefix(tt.want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Build(-threads %q -place %q) error = %v, want one line containing %q", tt.threads, tt.places, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("Build(-threads %q -place %q): %v", tt.threads, tt.places, err)
			continue
		}
		var got []string
		for _, j := range p.Jobs {
			got = append(got, fmt.Sprintf("%d/%s", j.Threads, j.Place))
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("Build(-threads %q -place %q) jobs = %s, want %s", tt.threads, tt.places, strings.Join(got, " "), tt.want)
		}
	}
}

// atomicadd is the scenario the plans here run.
func atomicadd(t testing.TB) []*bench.Spec {
	t.Helper()
	s, err := bench.Lookup("atomicadd")
	if err != nil {
		t.Fatal(err)
	}
	return []*bench.Spec{s}
}

// A preset names every part of the matrix it fills: the zero Preset is
// refused rather than read as one preset's variants and another's
// worker counts, and Quick and Full say their values.
func TestPreset(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD8Nodes) // 16 cpus, 8 nodes of 2
	if _, err := Build(topo, Matrix{Scenarios: atomicadd(t)}); err == nil || !strings.Contains(err.Error(), "no preset") {
		t.Errorf("Build without a preset: error %v, want no preset", err)
	}
	spec := atomicadd(t)[0]
	for _, tt := range []struct {
		p                     Preset
		name, threads, places string
		count                 int
		d                     time.Duration
		variants              []string
	}{
		{Quick, "quick", "[1 2]", "[compact]", 6, 100 * time.Millisecond, spec.Quick},
		{Full, "full", "[1 2 4 8 12 16]", "[compact spread cross smt]", 10, 150 * time.Millisecond, spec.Full},
	} {
		count, d := tt.p.Size()
		if tt.p.String() != tt.name || fmt.Sprint(tt.p.Threads(topo)) != tt.threads || fmt.Sprint(tt.p.Places(topo)) != tt.places ||
			count != tt.count || d != tt.d || !slices.Equal(tt.p.Variants(spec), tt.variants) {
			t.Errorf("%v: threads %v places %v size %d×%v variants %v; want %s %s %d×%v %v", tt.p, tt.p.Threads(topo), tt.p.Places(topo),
				count, d, tt.p.Variants(spec), tt.threads, tt.places, tt.count, tt.d, tt.variants)
		}
	}
}

// placeList is a -place value's placements.
func placeList(t *testing.T, s string) []affinity.Placement {
	t.Helper()
	ps, err := configlist.ParsePlaces(s)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// Configurations whose workers get the same cpus in the same order share
// one run; the same cpus in another order do not. On the 224-cpu box, the
// full preset's 1 worker is one run under every placement that hosts it,
// cross's 224 workers are compact's, and spread's alternate between the
// nodes, a run of their own.
func TestSharedRuns(t *testing.T) {
	topo := fixture.Synthetic(t, fixture.SapphireRapids224)
	p, err := Build(topo, Matrix{Preset: Full, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // threads/place → the place whose run it shares
	for _, j := range p.Jobs {
		got[fmt.Sprintf("%d/%s", j.Threads, j.Place)] = j.Place.String()
		for _, a := range j.Also {
			if !slices.Equal(a.CPUs, j.CPUs) || a.Threads != j.Threads || a.Variant != j.Variant || a.Name == j.Name {
				t.Errorf("%s shares %s's run with cpus %v, not %v", a.Name, j.Name, a.CPUs, j.CPUs)
			}
			got[fmt.Sprintf("%d/%s", a.Threads, a.Place)] = j.Place.String()
		}
	}
	for k, want := range map[string]string{
		"1/compact": "compact", "1/spread": "compact", "1/smt": "compact",
		"2/spread": "spread", "2/cross": "spread", "2/smt": "smt",
		"112/cross": "cross", "224/compact": "compact", "224/cross": "compact", "224/spread": "spread", "224/smt": "smt",
	} {
		if got[k] != want {
			t.Errorf("%s runs as %q, want %q", k, got[k], want)
		}
	}
	if _, ok := got["1/cross"]; ok {
		t.Errorf("cross runs 1 worker: it needs two")
	}
	if p.Configurations() != len(got) {
		t.Errorf("Configurations() = %d, want %d", p.Configurations(), len(got))
	}
}

// The full preset runs the seeds' rungs, every placement at the machine's
// own sizes and compact and spread between; the ladder's powers of two
// where they are cheap.
func TestFullRungs(t *testing.T) {
	for _, tt := range []struct {
		name string
		topo *affinity.Topology
		want string // threads:places, each once
	}{
		{"sapphire-rapids-224", fixture.Synthetic(t, fixture.SapphireRapids224),
			"1:compact,spread,smt 2:compact,spread,cross,smt 56:compact,spread 112:compact,spread,cross,smt 168:compact,spread 224:compact,spread,cross,smt"},
		{fixture.AMD4Sockets, fixture.Topology(t, fixture.AMD4Sockets), // the ladder's 4 is cheap
			"1:compact,spread,smt 2:compact,spread,cross,smt 4:compact 8:compact,spread,cross,smt 16:compact,spread 32:compact,spread 48:compact,spread 64:compact,spread,smt"},
	} {
		p, err := Build(tt.topo, Matrix{Preset: Full, Scenarios: atomicadd(t), Variants: []string{"line=shared/work=0"}})
		if err != nil {
			t.Fatal(err)
		}
		places := map[int][]string{}
		var threads []int
		for _, j := range p.Jobs {
			for _, c := range append([]Job{j}, j.Also...) {
				if places[c.Threads] == nil {
					threads = append(threads, c.Threads)
				}
				places[c.Threads] = append(places[c.Threads], c.Place.String())
			}
		}
		slices.Sort(threads)
		var parts []string
		for _, n := range threads {
			ps := places[n]
			slices.SortFunc(ps, func(a, b string) int { return policyIndex(a) - policyIndex(b) })
			parts = append(parts, fmt.Sprintf("%d:%s", n, strings.Join(ps, ",")))
		}
		if got := strings.Join(parts, " "); got != tt.want {
			t.Errorf("%s: full rungs\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

func policyIndex(s string) int { return slices.Index(affinity.Policies, affinity.Policy(s)) }

// Fit trims what answers the fewest of the seeds' questions first, says
// so, and refuses a budget even the least plan overruns.
func TestFit(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD4Sockets)
	build := func() *Plan {
		p, err := Build(topo, Matrix{Preset: Full, Scenarios: atomicadd(t)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := build()
	_, hi := full.Estimate()
	for _, tt := range []struct {
		budget  time.Duration
		trimmed []string // prefixes, in order
		err     string
	}{
		{hi + time.Second, nil, ""},
		{hi - time.Second, []string{"the ladder's rungs beyond the seeds' (4 threads): 4 configurations"}, ""},
		{hi * 7 / 10, []string{"the ladder's", "rounds: at most "}, ""},
		{hi / 2, []string{"the ladder's", "the 25% and 75% rungs (16, 48 threads)", "rounds: at most "}, ""},
		{time.Second, nil, "-budget 1s: the plan needs "},
	} {
		p := build()
		err := p.Fit(tt.budget)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Fit(%v) = %v, want one line with %q", tt.budget, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Fit(%v): %v", tt.budget, err)
			continue
		}
		if _, hi := p.Estimate(); hi > tt.budget {
			t.Errorf("Fit(%v): estimate up to %v", tt.budget, hi)
		}
		ok := len(p.Trimmed) == len(tt.trimmed)
		for i := range tt.trimmed {
			ok = ok && strings.HasPrefix(p.Trimmed[i], tt.trimmed[i])
		}
		if !ok {
			t.Errorf("Fit(%v) trimmed %q, want %q", tt.budget, p.Trimmed, tt.trimmed)
		}
	}
	if err := build().Fit(0); err == nil {
		t.Errorf("Fit(0): no error")
	}
	// Rounds already at MinRounds are not trimmed, and not said to be.
	p, err := Build(topo, Matrix{Preset: Full, Scenarios: atomicadd(t), Count: MinRounds})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Fit(time.Second); err == nil || strings.Contains(err.Error(), "rounds: at most") {
		t.Errorf("Fit(1s) of %d rounds = %v, want an error that trims no rounds", MinRounds, err)
	}
}

// A preset's adaptive rounds: its target unless the matrix says otherwise,
// none with fewer rounds than a 95% interval needs, and a target outside
// (0, 1) refused.
func TestBuildTarget(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD8Nodes)
	for _, tt := range []struct {
		count  int
		target float64
		want   string
	}{
		{0, 0, "10 rounds, target 0.02"},
		{6, 0, "6 rounds, target 0.02"},
		{5, 0, "5 rounds, target 0"},
		{0, NoTarget, "6 rounds, target 0"},
		{0, 0.05, "10 rounds, target 0.05"},
		{0, 1, "error"},
		{0, -0.5, "error"},
	} {
		p, err := Build(topo, Matrix{Preset: Quick, Scenarios: atomicadd(t), Count: tt.count, Target: tt.target})
		got := "error"
		if err == nil {
			got = fmt.Sprintf("%d rounds, target %g", p.Count, p.Target)
		}
		if got != tt.want {
			t.Errorf("Build(count %d, target %g) = %s (%v), want %s", tt.count, tt.target, got, err, tt.want)
		}
	}
}
