package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/internal/results"
)

// The runner must never hand the main thread to a worker (see benchtest).
func init() { runtime.LockOSThread() }

// RunAll runs every job Count times on the CPUs the job carries, measures
// one floor per CPU set whatever the workers' order, writes handoffs/op
// over that floor, and prints one JSON object per result.
func TestRunAll(t *testing.T) {
	topo, err := affinity.Host()
	if err != nil {
		t.Fatal(err)
	}
	cpus := topo.AllowedCPUs.Bits()
	if len(cpus) < 2 {
		t.Skip("needs 2 cpus")
	}
	a, b := cpus[0], cpus[1]
	defer func(f func(*affinity.Topology, []int, c2c.Config) (*c2c.Floor, error)) { floorOf = f }(floorOf)
	var measured [][]int
	floorOf = func(_ *affinity.Topology, cpus []int, _ c2c.Config) (*c2c.Floor, error) {
		measured = append(measured, cpus)
		return &c2c.Floor{CPUs: cpus, NS: 40, MinNS: 40}, nil
	}
	// Two workers on a and b, then four sharing them: one set.
	p, err := Build(topo, Matrix{Scenarios: "atomicadd", Variants: "line=shared/work=0", Threads: "2,4",
		Places: fmt.Sprintf("%d,%d", a, b), Count: 2, Duration: 5 * time.Millisecond, Oversubscribe: true})
	if err != nil {
		t.Fatal(err)
	}
	p.Floor = true
	if len(p.Jobs) != 2 || len(p.Jobs[1].CPUs) != 4 {
		t.Fatalf("jobs %+v, want two, the second of four workers", p.Jobs)
	}
	out := filepath.Join(t.TempDir(), "r.txt")
	var js bytes.Buffer
	o, err := p.RunAll(context.Background(), out, false, &bytes.Buffer{}, &js)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint([][]int{{a, b}, {a, b}}); fmt.Sprint(measured) != want {
		t.Errorf("floors measured on %v, want %s: once before, once after, for the one set", measured, want)
	}
	if o.Ran != 4 || o.Results != 4 || len(o.Floors) != 1 {
		t.Errorf("outcome: %d ran, %d results, floors %+v; want 4, 4, one", o.Ran, o.Results, o.Floors)
	}
	rs, err := results.Read([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Results) != 4 {
		t.Fatalf("%d results, want 4", len(rs.Results))
	}
	for _, r := range rs.Results {
		sec, _ := r.Value("sec/op")
		h, ok := r.Value("handoffs/op")
		if want := sec * 1e9 / 40; !ok || math.Abs(h-want) > 1e-9*want {
			t.Errorf("%s: handoffs/op %v (%v), want ns/op over the 40 ns floor, %v", r.Name, h, ok, sec*1e9/40)
		}
		if r.GetConfig("pkg") != p.Jobs[0].Spec.Package || r.GetConfig("cpu") == "" {
			t.Errorf("%s: pkg %q, cpu %q: want the scenario's package and the provenance", r.Name, r.GetConfig("pkg"), r.GetConfig("cpu"))
		}
	}
	dec := json.NewDecoder(&js)
	n := 0
	for ; dec.More(); n++ {
		var j results.JSON
		if err := dec.Decode(&j); err != nil {
			t.Fatal(err)
		}
		if _, ok := j.Metrics["handoffs/op"]; !ok || j.Name != p.Jobs[n%2].Name || j.Threads != p.Jobs[n%2].Threads {
			t.Errorf("JSON %d: %s, threads %d, metrics %v; want job %d's, with handoffs/op", n, j.Name, j.Threads, j.Metrics, n%2)
		}
	}
	if n != 4 {
		t.Errorf("%d JSON objects, want 4", n)
	}
}
