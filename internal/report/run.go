package report

import (
	"fmt"
	"io"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
)

// A Run is the configuration of one run that WriteRun describes beside its
// result: what contend run chose from its flags.
type Run struct {
	Scenario string             // the scenario's name
	CPUs     []int              // the workers' cpus, in worker order
	Place    string             // the placement, as -place spells it
	Topology *affinity.Topology // the machine, or its fake split
	Notes    []string           // the scenario's own lines (bench.Noter), printed as they are
}

// WriteRun prints one run for people, as contend run does on stderr:
// throughput, fairness, latency, the scenario's metrics and notes, the proof
// of pinning, and whether every worker had its CPU to itself.
func WriteRun(w io.Writer, r Run, res *bench.Result) {
	lo, hi, cv := res.Fairness()
	fmt.Fprintf(w, "%s %s: %d workers on cpus %v (place=%s, topology %s)\n",
		r.Scenario, res.Variant, len(r.CPUs), r.CPUs, r.Place, r.Topology.Label())
	fmt.Fprintf(w, "  %d ops in %v: %.4g ops/s, %.4g ns/op\n", res.Ops, res.Elapsed.Round(time.Microsecond), res.OpsPerSec(), res.NsPerOp())
	spread := ""
	if s, ok := res.Spread(); ok {
		spread = fmt.Sprintf(" (min/max %.1f%%)", s)
	}
	fmt.Fprintf(w, "  per worker: min %d, max %d ops%s, cv %.2f%%\n", lo, hi, spread, 100*cv)
	if h := res.Latency; h != nil && h.Count() > 0 {
		cc, _ := res.ClockCost()
		clock := cc.Seconds()
		fmt.Fprintf(w, "  latency of one op: p50 %s, p99 %s, p99.9 %s, max %s (%d ops timed, one per batch, less %s of clock reads; \"<\": below the clock)\n",
			Latency(h.Quantile(0.5)/1e9, clock), Latency(h.Quantile(0.99)/1e9, clock), Latency(h.Quantile(0.999)/1e9, clock),
			Seconds(h.Max().Seconds()), h.Count(), Seconds(clock))
	}
	for _, m := range res.Metrics {
		fmt.Fprintf(w, "  %s: %.4g (%s)\n", m.Unit, m.Value, BetterWords(m.Unit.Better))
	}
	for _, note := range r.Notes {
		fmt.Fprintf(w, "  %s\n", note)
	}
	how := res.Probe
	if how == "" {
		how = "getcpu"
	}
	fmt.Fprintf(w, "  pinning verified: %d on-cpu checks during the run (%s), none off-cpu\n", res.Checks, how)
	writeDisturbance(w, res)
	if r.Topology.FakeNodes > 0 {
		fmt.Fprintf(w, "  NOTE: topology fake-%d: nodes are a split of this machine's cpus, memory is not node-local\n", r.Topology.FakeNodes)
	}
}

// BetterWords says which way a unit improves, for people.
func BetterWords(b bench.Better) string {
	if b == bench.Check {
		return "a check: must match between the variants compared"
	}
	return b.String() + " is better"
}

// writeDisturbance says whether every worker had its CPU to itself: one
// line for an undisturbed run, naming the worst worker, or one WARNING line
// per worker that lost more than bench.DisturbedPct of its interval.
func writeDisturbance(w io.Writer, res *bench.Result) {
	if len(res.Workers) == 0 || !res.Workers[0].Accounted {
		fmt.Fprintf(w, "  cpu time: not accounted on this kernel (no per-thread run time), so disturbance is unknown\n")
		return
	}
	if !res.Disturbed() {
		worst := &res.Workers[0]
		for i := range res.Workers {
			if res.Workers[i].Lost() > worst.Lost() {
				worst = &res.Workers[i]
			}
		}
		fmt.Fprintf(w, "  undisturbed: no worker lost over %g%% of its time (worst: worker %d on cpu %d lost %.2f%%, %d preemptions, %d sleeps)\n",
			bench.DisturbedPct, worst.Index, worst.CPU, worst.LostPct(), worst.Preempted, worst.Slept)
		return
	}
	ws := res.Warnings()
	const most = 8
	for i, warning := range ws {
		if i == most {
			fmt.Fprintf(w, "  WARNING: ... and %d more disturbed workers (-json lists them all)\n", len(ws)-most)
			break
		}
		fmt.Fprintf(w, "  WARNING: %s (over %g%%: not this scenario alone)\n", warning, bench.DisturbedPct)
	}
}
