package results_test

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/resultfmt"
	"github.com/contend/contend/internal/fixture"
	"github.com/contend/contend/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden testdata/*.json files")

// jsonResult is a two-worker run whose second worker shared its CPU with
// another task, with known latency samples.
func jsonResult() (*bench.Spec, *bench.Result) {
	spec, err := bench.Lookup("atomicadd")
	if err != nil {
		panic(err)
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
			h.Record(40 + k%50 + 1000*int64(i)*(k/999))
		}
		res.Latency.Merge(h)
		res.Workers = append(res.Workers, bench.WorkerStats{
			Index: i, CPU: i, Ops: res.PerWorker[i],
			Wall: 2 * time.Second, Run: 2*time.Second - lost, Wait: lost - time.Millisecond,
			Preempted: 5 + 200*int64(i), Slept: 20, Slices: 25 + 200*int64(i),
			Latency: h, ClockCost: 30 * time.Nanosecond,
			Accounted: true, Scheduled: true, CPUTicks: true,
		})
	}
	return spec, res
}

// The JSON of a result is a golden file: scripts read it, so its shape
// changes only on purpose (go test -update rewrites it).
func TestJSONGolden(t *testing.T) {
	spec, res := jsonResult()
	name := "AtomicAdd/line=shared/work=0/threads=2/place=compact-2"
	rec := resultfmt.Record(name, res, nil)
	got, err := json.MarshalIndent(results.NewJSON(spec, name, "compact", "real", res, rec), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	fixture.Golden(t, filepath.Join("testdata", "json", "run.json"), got, *update)
	if *update {
		return
	}
	var back results.JSON
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Disturbed || len(back.Warnings) != 1 || back.Workers[1].Cause == "" || back.Workers[0].Disturbed {
		t.Errorf("worker 1 lost half its time: disturbed %v, warnings %q, causes %q, %q",
			back.Disturbed, back.Warnings, back.Workers[0].Cause, back.Workers[1].Cause)
	}
	if back.Metrics["ns/op"] != res.NsPerOp() || back.Metrics["lost-%"] != 50 || back.Keys["line"] != "shared" {
		t.Errorf("metrics %v, keys %v; want ns/op %v, lost-%% 50, line=shared", back.Metrics, back.Keys, res.NsPerOp())
	}
}

// A results file says whether a run was disturbed through its lost-% and
// its length (sec/op × operations), by the runner's own rule.
func TestDisturbed(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"BenchmarkX 1000000 10 ns/op 0.3 lost-%", false},
		{"BenchmarkX 1000000 10 ns/op 30 lost-%", true},
		{"BenchmarkX 10 10 ns/op 30 lost-%", false}, // 100 ns run: 30 ns lost
		{"BenchmarkX 1000000 10 ns/op", false},
		{"BenchmarkX 1000000 10 ns/op 30 lost-% 0 wait-%", true},
	} {
		rs, err := results.Parse(strings.NewReader(tt.line+"\n"), "x")
		if err != nil {
			t.Fatal(err)
		}
		if got := results.Disturbed(rs.Results[0]); got != tt.want {
			t.Errorf("Disturbed(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
