package c2c

import (
	"fmt"
	"slices"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/resultfmt"
	"golang.org/x/perf/benchfmt"
)

// A Result is one pair's one-way handoff latency. Its JSON carries what a
// heatmap needs: cpu_a, cpu_b, ns and class.
type Result struct {
	CPUA     int     `json:"cpu_a"` // pings first
	CPUB     int     `json:"cpu_b"`
	Mode     Mode    `json:"mode"`
	Class    Class   `json:"class"`
	NS       float64 `json:"ns"`   // the statistic named by Stat
	Stat     Stat    `json:"stat"` // median or min
	MinNS    float64 `json:"min_ns"`
	MedianNS float64 `json:"median_ns"`
	Samples  int     `json:"samples"`
	Rounds   int     `json:"rounds"` // round trips per sample
	// HomeNode is the node the line was asked to live on, in the
	// topology's numbering; HomeReal is false on a fake topology, whose
	// nodes hold no memory of their own.
	HomeNode int  `json:"home_node"`
	HomeReal bool `json:"home_real"`
	// MemNode is the node the kernel says holds the line's page
	// (get_mempolicy), -1 when it would not say.
	MemNode int `json:"mem_node"`
	// Placed says how the page was put there: "mbind" or "first-touch".
	Placed string `json:"placed"`
	// Checks counts on-CPU checks that passed, both ends together.
	Checks int64 `json:"checks"`
	// Probe says how the checks read the cpu (affinity.ThreadProbe's
	// Method): "RDTSCP TSC_AUX", "rseq cpu_id" or "getcpu", or the
	// pinger's and the answerer's joined by " + " when they differ.
	Probe string `json:"probe"`
}

// setStats computes a result's statistics from per-sample one-way latencies.
func (r *Result) setStats(samples []float64, stat Stat) {
	r.MinNS = slices.Min(samples)
	r.MedianNS = median(samples)
	r.Stat = stat
	r.NS = r.MedianNS
	if stat == Min {
		r.NS = r.MinNS
	}
}

// benchName is the benchmark name of a pair's result, without the
// -GOMAXPROCS suffix: the go test sub-benchmark name (mode, class) followed by
// the pair, so `benchstat -ignore cpu_a,cpu_b` folds the pairs of a class
// into samples of one configuration and compares it with go test output.
func benchName(r *Result) string {
	return fmt.Sprintf("C2C/mode=%s/class=%s/cpu_a=%d/cpu_b=%d", r.Mode, r.Class, r.CPUA, r.CPUB)
}

// record converts a pair's result to a benchmark-format result: ns/op is
// the median one-way handoff, min-sec/op the minimum, whatever r.Stat says,
// so that files compare with go test -bench C2C output. Iters is the number
// of handoffs measured.
func record(r *Result, cfg []benchfmt.Config) *benchfmt.Result {
	return &benchfmt.Result{
		Config: slices.Clone(cfg),
		Name:   benchfmt.Name(resultfmt.WithProcs(benchName(r))),
		Iters:  2 * r.Samples * r.Rounds,
		Values: []benchfmt.Value{
			{Value: r.MedianNS, Unit: "ns/op"},
			{Value: r.MinNS / 1e9, Unit: MinHandoff.Name},
		},
	}
}

// MinHandoff is the unit of record's second figure: the fastest sample's
// one-way handoff, in seconds. (As min-ns/op, benchfmt would read it as
// min-sec/op when non-zero and leave a zero as min-ns/op: one figure in two
// tables.)
var MinHandoff = bench.Unit{Name: "min-sec/op", Better: bench.Lower,
	Doc: "the fastest sample's one-way handoff, seconds"}
