package bench

import (
	"math"
	"time"

	"github.com/aclements/go-moremath/stats"
)

// A Metric is a scenario-specific figure reported beside ns/op.
type Metric struct {
	Unit  Unit
	Value float64 // already divided per operation where the unit says so
}

// Result is what a run measured.
type Result struct {
	Variant   string
	CPUs      []int
	Elapsed   time.Duration // from the release of the workers to the last one stopping
	Ops       int64         // operations completed by all workers together
	PerWorker []int64       // operations completed by each worker
	Metrics   []Metric
	// FastProbe says whether on-CPU checks used RDTSCP's TSC_AUX (true) or
	// getcpu.
	FastProbe bool
	// Checks counts the on-CPU checks that passed during the run.
	Checks int64
}

// AddMetric appends a scenario metric.
func (r *Result) AddMetric(u Unit, value float64) {
	r.Metrics = append(r.Metrics, Metric{Unit: u, Value: value})
}

// Metric returns the value of the metric whose unit is called name, and
// whether the run reported it.
func (r *Result) Metric(name string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Unit.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// NsPerOp is elapsed time over completed operations: the cost of one
// operation of the whole machine, the inverse of throughput.
func (r *Result) NsPerOp() float64 {
	if r.Ops == 0 {
		return math.NaN()
	}
	return float64(r.Elapsed.Nanoseconds()) / float64(r.Ops)
}

// OpsPerSec is the aggregate throughput.
func (r *Result) OpsPerSec() float64 {
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// Fairness summarizes how evenly the workers progressed: the fewest and most
// operations of any worker, and the coefficient of variation (sample standard
// deviation over mean). A lock or line that one CPU keeps winning shows up
// here before it shows in ns/op.
func (r *Result) Fairness() (least, most int64, cv float64) {
	if len(r.PerWorker) == 0 {
		return 0, 0, 0
	}
	least, most = r.PerWorker[0], r.PerWorker[0]
	xs := make([]float64, len(r.PerWorker))
	for i, n := range r.PerWorker {
		least, most = min(least, n), max(most, n)
		xs[i] = float64(n)
	}
	s := stats.Sample{Xs: xs}
	if len(xs) < 2 || s.Mean() == 0 {
		return least, most, 0
	}
	return least, most, s.StdDev() / s.Mean()
}
