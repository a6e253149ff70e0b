package results

import (
	"math"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench"
)

// JSON is one result as contend run -json and sweep -json print it: one
// object per line (JSON Lines), for scripts that would otherwise parse
// tables. It carries what the Go benchmark format cannot: the CPUs and nodes
// of each worker, each worker's operations, latency and disturbance. The
// benchmark format stays the primary record; the metrics here are the same
// values, under the same unit names, as the result's benchmark line.
type JSON struct {
	Name       string             `json:"name"` // the full benchmark name, as results files carry it
	Scenario   string             `json:"scenario"`
	Variant    string             `json:"variant"`
	Keys       map[string]string  `json:"keys"` // the variant's key=value parts
	Threads    int                `json:"threads"`
	Place      string             `json:"place"`
	Topology   string             `json:"topology"` // real, or fake-K
	CPUs       []int              `json:"cpus"`
	Nodes      []int              `json:"nodes"`
	Ops        int64              `json:"ops"`
	ElapsedSec float64            `json:"elapsed_sec"`
	NsPerOp    float64            `json:"ns_per_op"`
	Metrics    map[string]float64 `json:"metrics"` // every unit of the benchmark line
	Latency    *JSONLatency       `json:"latency,omitempty"`
	Workers    []JSONWorker       `json:"workers"`
	// Disturbed says whether any worker lost more than
	// DisturbedPct of its interval; Warnings has one line per such worker.
	Disturbed    bool     `json:"disturbed"`
	DisturbedPct float64  `json:"disturbed_threshold_pct"`
	Warnings     []string `json:"warnings,omitempty"`
}

// JSONLatency is a latency histogram's summary, in seconds.
type JSONLatency struct {
	Samples      int64   `json:"samples"`
	ClockCostSec float64 `json:"clock_cost_sec,omitempty"` // subtracted from each sample
	P50Sec       float64 `json:"p50_sec"`
	P99Sec       float64 `json:"p99_sec"`
	P999Sec      float64 `json:"p99_9_sec"`
	MaxSec       float64 `json:"max_sec"`
	MeanSec      float64 `json:"mean_sec"`
}

// JSONWorker is what one worker saw (bench.WorkerStats).
type JSONWorker struct {
	Worker     int     `json:"worker"`
	CPU        int     `json:"cpu"`
	Node       int     `json:"node"`
	Ops        int64   `json:"ops"`
	OpsPerSec  float64 `json:"ops_per_sec"`
	WallSec    float64 `json:"wall_sec"`
	RunSec     float64 `json:"run_sec"`
	LostPct    float64 `json:"lost_pct"`
	WaitPct    float64 `json:"wait_pct"`
	StealPct   float64 `json:"steal_pct"`
	IrqSec     float64 `json:"irq_sec"`
	Preempted  int64   `json:"preemptions"`
	Slept      int64   `json:"voluntary_switches"`
	Timeslices int64   `json:"timeslices"`
	// Accounted is false where the kernel's per-thread accounting could
	// not be read: the disturbance figures are then 0, not measured.
	Accounted bool         `json:"accounted"`
	Disturbed bool         `json:"disturbed"`
	Cause     string       `json:"cause,omitempty"`
	Latency   *JSONLatency `json:"latency,omitempty"`
}

// NewJSON describes a result named name (Name's full benchmark name) of
// spec's scenario, run with threads workers placed by place on a topology
// labelled topo. rec is the result's benchmark-format record, whose values
// become Metrics (a sweep's carries handoffs/op too).
func NewJSON(spec *bench.Spec, name, place, topo string, res *bench.Result, rec *benchfmt.Result) *JSON {
	j := &JSON{
		Name: name, Scenario: spec.Name, Variant: res.Variant, Keys: map[string]string{},
		Threads: len(res.CPUs), Place: place, Topology: topo,
		CPUs: nonNil(res.CPUs), Nodes: nonNil(res.Nodes),
		Ops: res.Ops, ElapsedSec: res.Elapsed.Seconds(), NsPerOp: finite(res.NsPerOp()),
		Metrics:   map[string]float64{},
		Latency:   latencyJSON(res.Latency, 0),
		Workers:   []JSONWorker{},
		Disturbed: res.Disturbed(), DisturbedPct: bench.DisturbedPct, Warnings: res.Warnings(),
	}
	for _, part := range strings.Split(res.Variant, "/") {
		if k, v, ok := strings.Cut(part, "="); ok {
			j.Keys[k] = v
		}
	}
	if rec != nil {
		for _, v := range rec.Values {
			j.Metrics[OrigUnit(v)] = finite(OrigValue(v))
		}
	}
	for i := range res.Workers {
		w := &res.Workers[i]
		jw := JSONWorker{
			Worker: w.Index, CPU: w.CPU, Node: w.Node, Ops: w.Ops,
			WallSec: w.Wall.Seconds(), RunSec: w.Run.Seconds(),
			LostPct: w.LostPct(), WaitPct: w.WaitPct(), StealPct: w.StealPct(), IrqSec: w.Irq.Seconds(),
			Preempted: w.Preempted, Slept: w.Slept, Timeslices: w.Slices,
			Accounted: w.Accounted, Disturbed: w.Disturbed(),
			Latency: latencyJSON(w.Latency, w.ClockCost.Seconds()),
		}
		if w.Wall > 0 {
			jw.OpsPerSec = float64(w.Ops) / w.Wall.Seconds()
		}
		if jw.Disturbed {
			jw.Cause = w.Cause()
		}
		j.Workers = append(j.Workers, jw)
	}
	return j
}

func latencyJSON(h *bench.Latency, clockCost float64) *JSONLatency {
	if h == nil || h.Count() == 0 {
		return nil
	}
	return &JSONLatency{
		Samples: h.Count(), ClockCostSec: clockCost,
		P50Sec: h.Quantile(0.5) / 1e9, P99Sec: h.Quantile(0.99) / 1e9, P999Sec: h.Quantile(0.999) / 1e9,
		MaxSec: h.Max().Seconds(), MeanSec: h.Mean().Seconds(),
	}
}

// finite maps NaN and ±Inf, which JSON cannot carry, to 0.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

func nonNil(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}
