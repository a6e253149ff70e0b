package bench

import (
	"math"
	"slices"
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
	Nodes     []int         // node of each worker's CPU (fake nodes on a fake topology)
	Elapsed   time.Duration // from the release of the workers to the last one stopping
	Ops       int64         // operations completed by all workers together
	PerWorker []int64       // operations completed by each worker
	Metrics   []Metric      // the scenario's own (RunMetrics has the runner's)
	// Workers holds what each worker saw: its share of its CPU, what took
	// the rest, its sampled latencies.
	Workers []WorkerStats
	// Latency is every worker's latency samples together.
	Latency *Latency
	// FastProbe says whether on-CPU checks read the CPU without a system
	// call (RDTSCP's TSC_AUX or an rseq area) rather than calling getcpu.
	FastProbe bool
	// Probe names how they read it (affinity.ThreadProbe.Method; methods
	// joined by " + " if workers differed).
	Probe string
	// Checks counts the on-CPU checks that passed during the run.
	Checks int64
}

// AddMetric appends a scenario metric.
func (r *Result) AddMetric(u Unit, value float64) {
	r.Metrics = append(r.Metrics, Metric{Unit: u, Value: value})
}

// Metric returns the value of the metric whose unit is called name, the
// scenario's or the runner's (RunMetrics), and whether the run reported it.
func (r *Result) Metric(name string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Unit.Name == name {
			return m.Value, true
		}
	}
	for _, m := range r.RunMetrics() {
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

// Spread returns the slowest worker's operations as a share of the
// fastest's, in per cent (100: even progress), and false without
// operations.
func (r *Result) Spread() (float64, bool) {
	least, most, _ := r.Fairness()
	if most <= 0 {
		return 0, false
	}
	return 100 * float64(least) / float64(most), true
}

// Disturbed reports whether any worker lost more than DisturbedPct of its
// interval.
func (r *Result) Disturbed() bool {
	for i := range r.Workers {
		if r.Workers[i].Disturbed() {
			return true
		}
	}
	return false
}

// Warnings returns one line per disturbed worker, naming it, its CPU, what
// it lost and why.
func (r *Result) Warnings() []string {
	var ws []string
	for i := range r.Workers {
		if w := &r.Workers[i]; w.Disturbed() {
			ws = append(ws, w.Warning())
		}
	}
	return ws
}

// ClockCost returns the median of the workers' clock calibrations (see
// LatencyClock), if any worker made one.
func (r *Result) ClockCost() (time.Duration, bool) {
	var cs []time.Duration
	for i := range r.Workers {
		if c := r.Workers[i].ClockCost; c > 0 {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return 0, false
	}
	slices.Sort(cs)
	return cs[len(cs)/2], true
}

// RunMetrics returns the figures the runner measures in every run, in
// RunUnits order: the workers' spread, the latency percentiles (seconds),
// and the disturbance of the worst worker. A figure the run could not
// measure (no samples, no per-thread accounting) is left out rather than
// reported as 0.
func (r *Result) RunMetrics() []Metric {
	_, _, cv := r.Fairness()
	ms := []Metric{{WorkerCV, 100 * cv}}
	if s, ok := r.Spread(); ok {
		ms = append(ms, Metric{WorkerMinMax, s})
	}
	if h := r.Latency; h != nil && h.Count() > 0 {
		ms = append(ms,
			Metric{LatencyP50, h.Quantile(0.5) / 1e9},
			Metric{LatencyP99, h.Quantile(0.99) / 1e9},
			Metric{LatencyP999, h.Quantile(0.999) / 1e9},
			Metric{LatencyMax, h.Max().Seconds()})
		if c, ok := r.ClockCost(); ok {
			ms = append(ms, Metric{LatencyClock, c.Seconds()})
		}
	}
	if len(r.Workers) == 0 {
		return ms
	}
	accounted, scheduled, ticks := true, true, true
	var lost, wait, steal, preempt float64
	for i := range r.Workers {
		w := &r.Workers[i]
		accounted, scheduled, ticks = accounted && w.Accounted, scheduled && w.Scheduled, ticks && w.CPUTicks
		lost, wait, steal = max(lost, w.LostPct()), max(wait, w.WaitPct()), max(steal, w.StealPct())
		if w.Wall > 0 {
			preempt = max(preempt, float64(w.Preempted)/w.Wall.Seconds())
		}
	}
	if accounted {
		ms = append(ms, Metric{Lost, lost})
	}
	if scheduled {
		ms = append(ms, Metric{Wait, wait})
	}
	if ticks {
		ms = append(ms, Metric{Steal, steal})
	}
	if accounted {
		ms = append(ms, Metric{Preempt, preempt})
	}
	return ms
}
