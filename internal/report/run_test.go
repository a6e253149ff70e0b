package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/fixture"
)

// TestWriteRun holds contend run's description of a run to its golden
// bytes, on synthetic results: undisturbed, disturbed (more workers than
// the eight WARNING lines it names), unaccounted, on a fake split.
func TestWriteRun(t *testing.T) {
	topo := fixture.Topology(t, "16amd64-8n2c")
	fake := fixture.Fake(t, "16amd64-8n2c", 2)
	worker := func(i int, lost time.Duration) bench.WorkerStats {
		return bench.WorkerStats{Index: i, CPU: i, Ops: 1000 + int64(i), Wall: time.Second, Run: time.Second - lost,
			Wait: lost, Preempted: int64(i), Slept: 1, Accounted: true, Scheduled: true}
	}
	result := func(lost ...time.Duration) *bench.Result {
		r := &bench.Result{Variant: "line=shared/work=0", Elapsed: time.Second + 1234*time.Microsecond, Probe: "rseq cpu_id", Checks: 42}
		for i, l := range lost {
			r.CPUs = append(r.CPUs, i)
			r.Workers = append(r.Workers, worker(i, l))
			r.PerWorker = append(r.PerWorker, 1000+int64(i))
			r.Ops += 1000 + int64(i)
		}
		r.AddMetric(bench.Unit{Name: "shared-writes/op", Better: bench.Lower}, 1)
		r.AddMetric(bench.Unit{Name: "sum-ok", Better: bench.Check}, 1)
		return r
	}
	unaccounted := result(0, 0)
	unaccounted.Workers[0].Accounted = false
	unaccounted.Probe = ""
	var b bytes.Buffer
	for _, tc := range []struct {
		r   Run
		res *bench.Result
	}{
		{Run{Scenario: "atomicadd", CPUs: []int{0, 1}, Place: "compact", Topology: topo}, result(0, 5*time.Millisecond)},
		{Run{Scenario: "atomicadd", CPUs: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Place: "spread", Topology: topo, Notes: []string{"a note of the scenario's"}},
			result(300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond,
				300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond, 0)},
		{Run{Scenario: "atomicadd", CPUs: []int{0, 1}, Place: "cpus:0..1", Topology: fake}, unaccounted},
	} {
		WriteRun(&b, tc.r, tc.res)
	}
	golden(t, "run.golden", b.String())
	if got := strings.Count(b.String(), "WARNING: worker"); got != 8 {
		t.Errorf("%d WARNING lines of workers, want the 8 it names before the count", got)
	}
}
