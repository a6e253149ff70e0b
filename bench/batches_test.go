package bench

import (
	"math"
	"testing"

	"github.com/contend/contend/affinity"
)

// spinOpWorker's operation holds its CPU for op nanoseconds of the runner's
// clock, so a timed sample's true value is known.
type spinOpWorker struct{ op, n int64 }

func (w *spinOpWorker) Run(n int) {
	for range n {
		for t := Now(); Now()-t < w.op; {
		}
		w.n++
	}
}

// pinHere pins the test's goroutine to a CPU it may use and returns it with
// the probe batches checks it against.
func pinHere(t *testing.T) (WorkerInfo, *affinity.CPUProbe) {
	t.Helper()
	probe := affinity.Probe() // calibrates by pinning: before Pin
	cpus, err := affinity.ThreadCPUs()
	if err != nil || len(cpus) == 0 {
		t.Skipf("no cpu to pin to: %v", err)
	}
	undo, err := affinity.Pin(cpus[0])
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { undo() })
	return WorkerInfo{CPU: cpus[0]}, probe
}

// The first-batch rule: a worker that finds the stop flag already raised
// when it is released still runs one whole batch, and times its last
// operation, so that no run completes zero operations.
func TestBatchesRunFirstBatchAfterStop(t *testing.T) {
	info, probe := pinHere(t)
	for _, tt := range []struct {
		share      int64
		ops, check int64
	}{
		{5, 5, 0},                      // the share ends the run before the on-cpu check
		{math.MaxInt64, firstBatch, 1}, // a run for a duration: one whole batch
	} {
		var st runState
		st.stop.v.Store(true)
		wk := &noopWorker{}
		lat := new(Latency)
		before := Now()
		n, checks, end, err := batches(wk, info, probe, tt.share, &st, lat, 0)
		if err != nil || n != tt.ops || int64(wk.n) != tt.ops || checks != tt.check || lat.Count() != 1 {
			t.Errorf("share %d, stop raised: %d ops (worker ran %d), %d checks, %d samples, %v; want %d ops, %d checks, 1 sample",
				tt.share, n, wk.n, checks, lat.Count(), err, tt.ops, tt.check)
		}
		if after := Now(); end < before || end > after {
			t.Errorf("share %d: end %d outside the call [%d, %d]", tt.share, end, before, after)
		}
	}
}

// A sample is one operation, Run(1), less the clock's cost: not the batch,
// and not the clock. Operations of 20 µs come in batches of firstBatch (320
// µs, past targetBatch, so they do not grow).
func TestBatchesTimeOneOperation(t *testing.T) {
	info, probe := pinHere(t)
	const op = 20_000 // ns
	const batchesRun = 9
	run := func(clockCost int64) *Latency {
		var st runState
		wk := &spinOpWorker{op: op}
		lat := new(Latency)
		n, _, _, err := batches(wk, info, probe, batchesRun*firstBatch, &st, lat, clockCost)
		if err != nil || n != batchesRun*firstBatch || wk.n != n {
			t.Fatalf("%d ops (worker ran %d), %v; want %d", n, wk.n, err, batchesRun*firstBatch)
		}
		if lat.Count() != batchesRun || !st.stop.v.Load() {
			t.Fatalf("%d samples of %d batches, stop raised %v; want one a batch, and the finisher to raise stop",
				lat.Count(), batchesRun, st.stop.v.Load())
		}
		return lat
	}
	// A sample can only be lengthened (an interrupt, a preemption), never
	// shortened, so the median is at least the operation; timing the whole
	// batch would put it at 16 operations.
	if p50 := run(0).Quantile(0.5); p50 < op || p50 > 4*op {
		t.Errorf("p50 of a %d ns operation = %v ns, want [%d, %d]", op, p50, op, 4*op)
	}
	// The clock's cost is taken off every sample; more than the sample
	// leaves 0, never a negative bucket.
	if lat := run(math.MaxInt64 / 2); lat.Max() != 0 || lat.Quantile(1) != 0 {
		t.Errorf("samples less a clock cost larger than them: max %v, p100 %v; want 0", lat.Max(), lat.Quantile(1))
	}
}
