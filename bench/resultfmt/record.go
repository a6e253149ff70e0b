package resultfmt

import (
	"maps"
	"slices"

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
	return metadata(us...)
}

// AllUnits returns the unit metadata of every registered scenario's units,
// of every run's (bench.RunUnits) and of extra, sorted by unit.
func AllUnits(extra ...bench.Unit) []*benchfmt.UnitMetadata {
	us := slices.Clone(bench.RunUnits)
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
