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
		"estimated wall time: ", "handoff floor before and after for each of",
		fmt.Sprintf("%d configurations × 10 rounds", len(p.Jobs)),
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
	// 10 rounds of 1 s runs: at least the runs themselves.
	if est := p.Estimate(); est < time.Duration(10*len(p.Jobs))*time.Second {
		t.Errorf("Estimate() = %v, less than the runs' own %v", est, time.Duration(10*len(p.Jobs))*time.Second)
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
		{Full, "full", "[1 2 4 8 16]", "[compact spread cross smt]", 10, time.Second, spec.Full},
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
