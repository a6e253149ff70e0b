package bench

import "fmt"

// A Unit is a figure a scenario reports beside ns/op, declared once by the
// scenario as a package-level variable and used by value everywhere: by the
// scenario when it reports, by the results writer for its "Unit ...
// better=" line, by contend reproduce's findings when they look a figure up.
// A misspelt unit is then a compile error, not a finding that quietly says
// "no results".
type Unit struct {
	// Name is the benchmark unit, e.g. "shared-writes/op". It follows
	// the testing package's conventions: "/op" for per-operation counts,
	// "-%" for percentages.
	Name string
	// Better says which way the figure improves.
	Better Better
	// Doc is a line saying what the figure counts, for contend list.
	Doc string
}

func (u Unit) String() string { return u.Name }

// Better is the direction in which a unit improves.
type Better int8

const (
	// Check marks a figure that is neither a cost nor a goal but a
	// fairness check: two variants compared must agree on it (both
	// orders of the balance flag must do the same balancing work), so a
	// difference means the comparison is unfair, not that one side won.
	// Its results-file metadata is "role=check", and no better= line, so
	// benchstat prints no better/worse verdict for it.
	Check Better = 0
	// Lower is better: costs, counts of shared writes, errors.
	Lower Better = -1
	// Higher is better: throughput, hit rates.
	Higher Better = 1
)

// String returns the value of the unit's better= metadata: "lower",
// "higher", or "check".
func (b Better) String() string {
	switch b {
	case Lower:
		return "lower"
	case Higher:
		return "higher"
	case Check:
		return "check"
	}
	return fmt.Sprintf("better(%d)", int8(b))
}

// Units every run reports, whatever the scenario (Result.RunMetrics), in
// the order results carry them. Times are in seconds, with "sec" in the
// name: benchfmt rewrites a unit containing "ns" to "sec" only when the
// value is non-zero, which would split one figure over two units.
var (
	// WorkerCV is the coefficient of variation of the workers' operation
	// counts, in per cent. Results keep it so that old files compare;
	// tables leave it out by default (see WorkerMinMax).
	WorkerCV = Unit{Name: "worker-cv-%", Better: Lower,
		Doc: "coefficient of variation of the workers' operation counts, per cent"}
	// WorkerMinMax is the slowest worker's operations as a share of the
	// fastest's. Workers that progress evenly read near 100 whatever the
	// run, so its spread across runs is a few per cent of itself, where
	// worker-cv-% is a small number whose run-to-run ± reads in thousands
	// of per cent.
	WorkerMinMax = Unit{Name: "worker-min/max-%", Better: Higher,
		Doc: "the slowest worker's operations as a share of the fastest's, per cent (100: even progress)"}

	// Sampled latency of one operation (see Latency).
	LatencyP50 = Unit{Name: "p50-sec", Better: Lower,
		Doc: "median latency of one operation, seconds: one operation per ~50 µs batch timed alone"}
	LatencyP99 = Unit{Name: "p99-sec", Better: Lower,
		Doc: "99th percentile latency of one operation, seconds"}
	LatencyP999 = Unit{Name: "p99.9-sec", Better: Lower,
		Doc: "99.9th percentile latency of one operation, seconds"}
	LatencyMax = Unit{Name: "max-sec", Better: Lower,
		Doc: "slowest sampled operation, seconds"}
	// LatencyClock is what timing one operation alone costs: the median
	// time around an empty operation, which the runner subtracts from
	// every sample. A quantile below it is below what single-operation
	// timing resolves, so tables print "< clock" there instead of a figure
	// that is mostly the clock's jitter (ns/op times operations in bulk
	// and has no such floor).
	LatencyClock = Unit{Name: "clock-sec", Better: Check,
		Doc: "the cost of timing one operation alone, subtracted from each latency sample, seconds: latencies below it are below the clock"}

	// Disturbance: how far the run was from every worker having its CPU
	// to itself (see WorkerStats). Each is the worst worker's figure.
	Lost = Unit{Name: "lost-%", Better: Lower,
		Doc: "the most disturbed worker's share of its interval off its cpu (preempted, stolen by the hypervisor, asleep), per cent; above 2 the run is disturbed"}
	Wait = Unit{Name: "wait-%", Better: Lower,
		Doc: "the worst worker's run-queue wait, another task running on its cpu, as a share of its interval, per cent"}
	Steal = Unit{Name: "steal-%", Better: Lower,
		Doc: "hypervisor steal on the workers' cpus as a share of the run (worst cpu, 10 ms resolution), per cent"}
	Preempt = Unit{Name: "preempt/s", Better: Lower,
		Doc: "the most preempted worker's involuntary context switches per second"}
)

// RunUnits lists the units every run reports, whatever the scenario.
var RunUnits = []Unit{WorkerCV, WorkerMinMax, LatencyP50, LatencyP99, LatencyP999, LatencyMax, LatencyClock, Lost, Wait, Steal, Preempt}

// LatencyQuantiles are the sampled latency quantiles, whose figures below
// LatencyClock mean "below the clock".
var LatencyQuantiles = []Unit{LatencyP50, LatencyP99, LatencyP999}

// DetailUnits are the run units tables leave out unless asked for by name:
// the disturbance figures, which tables show as a note on the cells whose
// samples include a disturbed run instead, and two whose ± range is noise:
// worker-cv-% (see WorkerMinMax) and max-sec, a single sample per run; and
// clock-sec, which tables use to mark latencies below the clock.
var DetailUnits = []Unit{WorkerCV, LatencyMax, LatencyClock, Lost, Wait, Steal, Preempt}
