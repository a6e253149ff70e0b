package resultfmt

import (
	"maps"
	"slices"
	"time"

	"github.com/contend/contend/bench"
	"golang.org/x/perf/benchfmt"
)

// Record converts a result to a benchmark-format result. Iters is the number
// of completed operations, as testing.B reports b.N.
func Record(name string, res *bench.Result, cfg []benchfmt.Config) *benchfmt.Result {
	r := &benchfmt.Result{
		Config: append([]benchfmt.Config(nil), cfg...),
		Name:   benchfmt.Name(name),
		Iters:  int(res.Ops),
	}
	r.Values = append(r.Values, benchfmt.Value{Value: res.NsPerOp(), Unit: "ns/op"})
	if v, ok := CPUNsPerOp(res); ok {
		r.Values = append(r.Values, benchfmt.Value{Value: v, Unit: CPUTime.Name})
	}
	for _, m := range res.Metrics {
		r.Values = append(r.Values, benchfmt.Value{Value: m.Value, Unit: m.Unit.Name})
	}
	for _, m := range res.RunMetrics() {
		r.Values = append(r.Values, benchfmt.Value{Value: m.Value, Unit: m.Unit.Name})
	}
	return r
}

// Units returns the unit metadata lines of a result's units (its metrics
// and run metrics), so that benchstat knows which way is better.
func Units(res *bench.Result) []*benchfmt.UnitMetadata {
	var us []bench.Unit
	for _, m := range res.Metrics {
		us = append(us, m.Unit)
	}
	for _, m := range res.RunMetrics() {
		us = append(us, m.Unit)
	}
	if _, ok := CPUNsPerOp(res); ok {
		us = append(us, CPUTime)
	}
	return metadata(us...)
}

// CPUTime is the time per operation the workers spent on their cpus: ns/op
// less the time they were off them (preempted, waiting to run, stolen by
// the hypervisor), as perf stat's task-clock counts time. On a shared host
// ns/op swings with the load (a 1-worker atomicadd at work=100 read 224 to
// 1421 ns/op in one minute, its worker off its cpu 34% to 89% of the time)
// while this stays within a few per cent (146 to 162 ns), so it is the
// figure a gate can hold a change to there; where nothing disturbs a run
// the two agree.
var CPUTime = bench.Unit{Name: "cpu-ns/op", Better: bench.Lower,
	Doc: "time per operation on the workers' cpus: ns/op times their run time over their wall time (task-clock), which other tasks' load does not move"}

// CPUNsPerOp is res's CPUTime: ns/op times the workers' run time over their
// wall time, summed over the workers. ok is false where the runner could
// not account the workers' run time (no schedstat).
func CPUNsPerOp(res *bench.Result) (float64, bool) {
	var run, wall time.Duration
	for i := range res.Workers {
		w := &res.Workers[i]
		if !w.Accounted || w.Wall <= 0 {
			return 0, false
		}
		run += w.Wall - w.Lost()
		wall += w.Wall
	}
	if wall <= 0 || res.Ops == 0 {
		return 0, false
	}
	return res.NsPerOp() * float64(run) / float64(wall), true
}

// AllUnits returns the unit metadata of every registered scenario's units,
// of every run's (bench.RunUnits) and of extra, sorted by unit.
func AllUnits(extra ...bench.Unit) []*benchfmt.UnitMetadata {
	us := append(slices.Clone(bench.RunUnits), CPUTime)
	for _, s := range bench.Specs() {
		us = append(us, s.Units...)
	}
	return metadata(append(us, extra...)...)
}

// metadata returns the metadata lines of units, one unit each (the last
// given of a name), sorted by unit: the one writer of Unit lines behind
// Units and AllUnits.
func metadata(units ...bench.Unit) []*benchfmt.UnitMetadata {
	byName := map[string]bench.Unit{}
	for _, u := range units {
		byName[u.Name] = u
	}
	var us []*benchfmt.UnitMetadata
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		us = append(us, UnitMeta(byName[n])...)
	}
	return us
}

// UnitMeta returns the metadata lines of one unit: "Unit X better=lower" for
// a cost, "Unit X role=check" for a fairness check, which has no better
// side.
func UnitMeta(u bench.Unit) []*benchfmt.UnitMetadata {
	key, value := "better", u.Better.String()
	if u.Better == bench.Check {
		key, value = "role", "check"
	}
	return []*benchfmt.UnitMetadata{{
		UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.Name, Key: key},
		OrigUnit:        u.Name,
		Value:           value,
	}}
}
