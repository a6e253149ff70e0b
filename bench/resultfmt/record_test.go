package resultfmt_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	_ "github.com/contend/contend/bench/all"
	"github.com/contend/contend/bench/resultfmt"
)

// twoWorkers is a two-worker run of atomicadd whose second worker lost a
// second of its two to another task.
func twoWorkers(t *testing.T) (*bench.Spec, *bench.Result) {
	t.Helper()
	spec, err := bench.Lookup("atomicadd")
	if err != nil {
		t.Fatal(err)
	}
	res := &bench.Result{
		Variant: "line=shared/work=0", CPUs: []int{0, 1}, Nodes: []int{0, 0},
		Elapsed: 2 * time.Second, Ops: 30_000_000, PerWorker: []int64{20_000_000, 10_000_000},
		Latency: new(bench.Latency),
	}
	res.AddMetric(bench.Unit{Name: "shared-writes/op", Better: bench.Lower}, 1)
	for i, lost := range []time.Duration{10 * time.Millisecond, time.Second} {
		h := new(bench.Latency)
		for k := range int64(1000) {
			h.Record(40 + k%50)
		}
		res.Latency.Merge(h)
		res.Workers = append(res.Workers, bench.WorkerStats{
			Index: i, CPU: i, Ops: res.PerWorker[i],
			Wall: 2 * time.Second, Run: 2*time.Second - lost, Wait: lost - time.Millisecond,
			Preempted: 5, Slept: 20, Slices: 25, Latency: h, ClockCost: 30 * time.Nanosecond,
			Accounted: true, Scheduled: true, CPUTicks: true,
		})
	}
	return spec, res
}

// A run's name is go test's sub-benchmark name with go test's -GOMAXPROCS
// suffix, and its record carries ns/op, the scenario's metrics and the
// runner's, with the operations as iterations.
func TestNameAndRecord(t *testing.T) {
	spec, res := twoWorkers(t)
	procs := fmt.Sprintf("-%d", affinity.ProcsAtStart())
	name := resultfmt.Name(spec, res.Variant, 2, "compact")
	if want := "AtomicAdd/line=shared/work=0/threads=2/place=compact" + procs; name != want {
		t.Errorf("Name = %q, want %q", name, want)
	}
	if got := resultfmt.WithProcs("C2C/mode=pingpong"); got != "C2C/mode=pingpong"+procs {
		t.Errorf("WithProcs = %q, want the -GOMAXPROCS suffix", got)
	}
	cfg := []benchfmt.Config{{Key: "goos", Value: []byte("linux"), File: true}}
	r := resultfmt.Record(name, res, cfg)
	if r.Name.String() != name || r.Iters != 30_000_000 || len(r.Config) != 1 {
		t.Errorf("Record: name %q iters %d config %v", r.Name, r.Iters, r.Config)
	}
	if ns, ok := r.Value("ns/op"); !ok || ns != res.NsPerOp() {
		t.Errorf("Record ns/op = %v, %v; want %v, elapsed over ops", ns, ok, res.NsPerOp())
	}
	for _, u := range []string{"shared-writes/op", "lost-%", "p99-sec"} {
		if _, ok := r.Value(u); !ok {
			t.Errorf("Record lacks %s", u)
		}
	}
}

// unitLines writes metadata as a results file writes it.
func unitLines(t *testing.T, us []*benchfmt.UnitMetadata) []string {
	t.Helper()
	var b bytes.Buffer
	w := benchfmt.NewWriter(&b)
	for _, u := range us {
		if err := w.Write(u); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// A result's Unit lines and a sweep's are written alike: one line per unit,
// sorted, better= for a cost, role=check for a fairness check; a result's
// are among the sweep's.
func TestUnits(t *testing.T) {
	_, res := twoWorkers(t)
	check := bench.Unit{Name: "balances/op", Better: bench.Check}
	res.AddMetric(check, 3)
	got := unitLines(t, resultfmt.Units(res))
	want := []string{
		"Unit balances/op role=check",
		"Unit clock-sec role=check",
		"Unit cpu-ns/op better=lower",
		"Unit lost-% better=lower",
		"Unit max-sec better=lower",
		"Unit p50-sec better=lower",
		"Unit p99-sec better=lower",
		"Unit p99.9-sec better=lower",
		"Unit preempt/s better=lower",
		"Unit shared-writes/op better=lower",
		"Unit steal-% better=lower",
		"Unit wait-% better=lower",
		"Unit worker-cv-% better=lower",
		"Unit worker-min/max-% better=higher",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Units =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	all := unitLines(t, resultfmt.AllUnits(check))
	if !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Errorf("AllUnits is not one sorted line per unit:\n%s", strings.Join(all, "\n"))
	}
	for _, l := range got {
		if !slices.Contains(all, l) {
			t.Errorf("AllUnits lacks %q", l)
		}
	}
}

// cpu-ns/op is ns/op less the workers' time off their cpus: two workers of
// 2 s each, one off its cpu 10 ms and the other 1 s, ran 2.99 s of 4.
func TestCPUNsPerOp(t *testing.T) {
	_, res := twoWorkers(t)
	got, ok := resultfmt.CPUNsPerOp(res)
	if want := res.NsPerOp() * 2.99 / 4; !ok || math.Abs(got-want) > 1e-9 {
		t.Errorf("CPUNsPerOp = %v, %v; want %v", got, ok, want)
	}
	r := resultfmt.Record("X", res, nil)
	if v, ok := r.Value("cpu-ns/op"); !ok || v != got {
		t.Errorf("Record cpu-ns/op = %v, %v; want %v", v, ok, got)
	}
	res.Workers[1].Accounted = false // no schedstat: no figure
	if _, ok := resultfmt.CPUNsPerOp(res); ok {
		t.Error("CPUNsPerOp without the run time accounted: ok")
	}
	if _, ok := resultfmt.Record("X", res, nil).Value("cpu-ns/op"); ok {
		t.Error("Record has cpu-ns/op without the run time accounted")
	}
}
