package reproduce

import (
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/bench/loadavg"
	"github.com/contend/contend/internal/reproduce/rankstat"
)

// Made-up runs. runs(m, n, w) returns n runs whose median is exactly m: m
// plus offsets of w/8, 2w/8, ... on either side. Binary fractions keep every
// median, ratio and pairwise difference exact, so a row can sit on a
// threshold, not merely near it. w=1 gives tight runs (any two medians 1%
// apart are fully separated: p=0.002 at 6+6); w=100 gives runs spread ±37%,
// which no 20% change separates.
func runs(m float64, n int, w float64) []float64 {
	var xs []float64
	for i := 1; len(xs) < n; i++ {
		xs = append(xs, m+float64(i)*w/8)
		if len(xs) < n {
			xs = append(xs, m-float64(i)*w/8)
		}
	}
	slices.Sort(xs)
	return xs
}

// figures gives a measure's median by experiment label (ns/op) or by
// "label unit"; measures it does not name get 100.
type figures map[string]float64

func (fs figures) of(m Measure) float64 {
	if v, ok := fs[m.X.Label+" "+m.Unit.Name]; ok {
		return v
	}
	if v, ok := fs[m.X.Label]; ok && m.Unit == nsPerOp {
		return v
	}
	return 100
}

// fill makes the samples every measure of f reads.
func fill(f *Finding, figs figures, n int, w float64, drop string) sampleSet {
	s := sampleSet{}
	for _, m := range f.measures() {
		if m.X.Label == drop {
			continue
		}
		s[key(m)] = runs(figs.of(m), n, w)
	}
	return s
}

func testEnv() *Env {
	return &Env{threads: 2, place: "spread", nodes: 2, machine: "test machine"}
}

func findingByID(t *testing.T, e *Env, id int) *Finding {
	t.Helper()
	for _, f := range findings(e) {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no finding %d", id)
	return nil
}

// sameEdge is the shift that puts the upper end of the 90% interval of
// 6+6 tight runs exactly at +5% of 100.
func sameEdge(t *testing.T) float64 {
	_, _, hi, ok := rankstat.ShiftCI(runs(100, 6, 1), runs(100, 6, 1), rankstat.EquivLevel)
	if !ok {
		t.Fatal("no interval for 6+6 runs")
	}
	return 100*sameMargin - hi
}

type verdictRow struct {
	name string
	figs figures
	n    int     // runs per measure; 0 means 6
	w    float64 // spread; 0 means 1
	drop string  // an experiment label whose results are missing
	env  func(*Env)
	want string
	// whyHas, if set, must appear in the verdict's explanation.
	whyHas string
}

// The verdict table: for every finding, rows on each side of each
// threshold, the null (every fix a copy of its before-variant), the
// opposite effect, noise, too few runs and missing results.
func verdictTable(t *testing.T) map[int][]verdictRow {
	edge := sameEdge(t)
	return map[int][]verdictRow{
		1: {
			{name: "at yes", figs: figures{"base": 120, "rate": 100}, want: Yes},
			{name: "tg_weight at its slack", figs: figures{"base": 120, "rate": 100, "base tgweight-err-%": 1, "rate tgweight-err-%": 1 + 10}, want: Yes},
			{name: "tg_weight beyond its slack", figs: figures{"base": 120, "rate": 100, "base tgweight-err-%": 1, "rate tgweight-err-%": 1 + 10.125}, want: No, whyHas: "tg_weight error"},
			{name: "under yes", figs: figures{"base": 119.875, "rate": 100}, want: Partly},
			{name: "at partly", figs: figures{"base": 105, "rate": 100}, want: Partly},
			{name: "under partly", figs: figures{"base": 104.875, "rate": 100}, want: No},
			{name: "null: writes cut by construction, time the same", figs: figures{
				"base " + loadavg.CfsRqWritesPerSec.Name: 1e7, "rate " + loadavg.CfsRqWritesPerSec.Name: 1000}, want: No},
			{name: "opposite", figs: figures{"base": 100, "rate": 120}, want: No},
			{name: "noise", figs: figures{"base": 120, "rate": 100}, w: 100, want: No},
			{name: "too few runs", figs: figures{"base": 200, "rate": 100}, n: 3, want: NA, whyHas: "too few runs"},
			{name: "missing", figs: figures{"base": 200, "rate": 100}, drop: "rate", want: NA, whyHas: "no results"},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA, whyHas: "one usable cpu"},
		},
		2: {
			{name: "null: the additions are copies of rate, so nothing was skipped", want: No, whyHas: "reads per event"},
			{name: "the additions do their jobs and cost nothing", figs: f2, want: Yes},
			{name: "skip at +5%", figs: f2.with(figures{"rate+skip": 100 + edge}), want: Yes},
			{name: "skip beyond +5%", figs: f2.with(figures{"rate+skip": 100 + edge + 0.125}), want: Partly},
			{name: "node at −5%", figs: f2.with(figures{"rate+skip+node": 100 - edge}), want: Yes},
			{name: "node beyond −5%", figs: f2.with(figures{"rate+skip+node": 100 - edge - 0.125}), want: Partly},
			{name: "node reads one line, as on one node", figs: f2.with(figures{"rate+skip+node read-lines/op": 100}), want: No, whyHas: "counter lines read per event"},
			{name: "skip lets tg_weight drift", figs: f2.with(figures{"rate tgweight-err-%": 1, "rate+skip tgweight-err-%": 11.125}), want: No, whyHas: "tg_weight error"},
			{name: "opposite: both gain 20%", figs: f2.with(figures{"rate+skip": 80, "rate+skip+node": 80}), want: No},
			{name: "both cost 10%", figs: f2.with(figures{"rate+skip": 110, "rate+skip+node": 110}), want: No},
			{name: "noise cannot show sameness", figs: f2, w: 100, want: No},
			{name: "too few runs", figs: f2, n: 2, want: NA, whyHas: "too few runs"},
			{name: "missing", figs: f2, drop: "rate+skip+node", want: NA},
		},
		3: {
			{name: "at yes", figs: figures{"base": 120.75, "node": 105, "rate": 100}, want: Yes},
			{name: "read side free", figs: figures{"base": 120.75, "node": 105, "node, paced read-path-%": 1}, want: Partly},
			{name: "read side on the profile floor", figs: figures{"base": 120.75, "node": 105, "node, paced read-path-%": 2.375}, want: Yes},
			{name: "under yes", figs: figures{"base": 120.625, "node": 105, "rate": 100}, want: Partly},
			{name: "at partly", figs: figures{"base": 110.25, "node": 105, "rate": 105}, want: Partly},
			{name: "under partly", figs: figures{"base": 110.125, "node": 105, "rate": 100}, want: No},
			{name: "null: node a copy of base", figs: figures{"base": 105, "node": 105, "rate": 100,
				"base shared-writes/op": 0.8, "node shared-writes/op": 0}, want: No},
			{name: "opposite: node slower (fake-2)", figs: figures{"base": 100, "node": 127, "rate": 70}, want: No},
			{name: "opposite on fake nodes says why", figs: figures{"base": 100, "node": 127, "rate": 70},
				env: func(e *Env) { e.fake = true }, want: No, whyHas: "fake nodes"},
			{name: "one node", env: func(e *Env) { e.nodes = 1 }, want: NA, whyHas: "one NUMA node"},
			{name: "missing", drop: "node", want: NA},
		},
		4: {
			// The factor of 256 is the complete patch's (iter=nr_node_ids);
			// the first diff's loop bound alone (loopbound) is shown, not
			// judged.
			{name: "the complete patch saves", figs: figures{"max": 150, "loopbound": 150, "nr_node_ids": 100}, want: Yes},
			{name: "faster by skipping nodes", figs: figures{"max": 150, "loopbound": 150, "nr_node_ids": 100, "nr_node_ids bits-scanned/op": 3}, want: No, whyHas: "bits tested per walk"},
			{name: "the first diff saving too changes nothing", figs: figures{"max": 150, "loopbound": 100, "nr_node_ids": 100}, want: Yes},
			{name: "complete patch under yes", figs: figures{"max": 150, "loopbound": 150, "nr_node_ids": 100.125}, want: Partly},
			{name: "complete patch under partly", figs: figures{"max": 150, "loopbound": 100, "nr_node_ids": 145}, want: No},
			{name: "null: bits by arithmetic, time the same", figs: figures{
				"max bits-scanned/op": 1024, "loopbound bits-scanned/op": 4, "nr_node_ids bits-scanned/op": 4}, want: No},
			{name: "opposite", figs: figures{"max": 100, "loopbound": 150, "nr_node_ids": 150}, want: No},
			{name: "noise", figs: figures{"max": 150, "loopbound": 100, "nr_node_ids": 100}, w: 200, want: No},
			{name: "too few runs", figs: figures{"max": 300}, n: 3, want: NA},
			{name: "missing", drop: "max", want: NA},
		},
		5: {
			{name: "at yes", figs: figures{"cmpxchg-first": 105, "check-first": 100}, want: Yes},
			{name: "under yes", figs: figures{"cmpxchg-first": 104.875, "check-first": 100}, want: Partly},
			{name: "at partly", figs: figures{"cmpxchg-first": 102, "check-first": 100}, want: Partly},
			{name: "under partly", figs: figures{"cmpxchg-first": 101.875, "check-first": 100}, want: No},
			{name: "null: cmpxchg cut by the interval, time the same", figs: figures{
				"cmpxchg-first cas/op": 1, "check-first cas/op": 0.0159}, want: No},
			{name: "opposite", figs: figures{"cmpxchg-first": 100, "check-first": 105}, want: No},
			{name: "fair at 10% apart", figs: figures{"cmpxchg-first": 105, "check-first": 100,
				"cmpxchg-first stops/op": 10, "check-first stops/op": 11}, want: Yes},
			{name: "unfair beyond 10%", figs: figures{"cmpxchg-first": 105, "check-first": 100,
				"cmpxchg-first stops/op": 10, "check-first stops/op": 11.125}, want: NA, whyHas: "unfair"},
			{name: "balances at 90%", figs: figures{"cmpxchg-first": 105, "check-first": 100,
				"cmpxchg-first balances/op": 10, "check-first balances/op": 9}, want: Yes},
			{name: "cheaper by balancing less", figs: figures{"cmpxchg-first": 105, "check-first": 100,
				"cmpxchg-first balances/op": 10, "check-first balances/op": 8.875}, want: No, whyHas: "balances per tick"},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA},
			{name: "missing", drop: "check-first", want: NA},
		},
		6: {
			{name: "at yes", figs: f6.with(figures{imScanAll.label: 123, imScanMask.label: 100, imNoFilter.label: 105, imLastState.label: 100}), want: Yes},
			{name: "filter does not pay", figs: f6.with(figures{imScanAll.label: 123, imScanMask.label: 100, imNoFilter.label: 100, imLastState.label: 100}), want: Partly},
			{name: "search under yes", figs: f6.with(figures{imScanAll.label: 122.875, imScanMask.label: 100, imNoFilter.label: 105, imLastState.label: 100}), want: Partly},
			{name: "search at partly", figs: f6.with(figures{imScanAll.label: 105, imScanMask.label: 100}), want: Partly},
			{name: "search under partly", figs: f6.with(figures{imScanAll.label: 104.875, imScanMask.label: 100, imNoFilter.label: 105, imLastState.label: 100}), want: No},
			{name: "null: fewer cpus scanned by construction", figs: figures{
				imScanAll.label + " cpus-scanned/op": 12.3, imScanMask.label + " cpus-scanned/op": 1}, want: No},
			{name: "opposite", figs: f6.with(figures{imScanAll.label: 100, imScanMask.label: 123, imNoFilter.label: 100, imLastState.label: 105}), want: No},
			{name: "missing", drop: imLastState.label, want: NA},
			// The review's case: v5's mask empty, so no scan, nothing
			// found, and faster for it; every failed search stacks
			// its task on the busy target, so the wait grows.
			{name: "faster by never searching", figs: f6.with(figures{imScanAll.label: 246, imScanMask.label: 100, imNoFilter.label: 105, imLastState.label: 100,
				imScanAll.label + " found-idle-%": 31.8, imScanMask.label + " found-idle-%": 0,
				imScanAll.label + " wait-sec/wakeup": 100, imScanMask.label + " wait-sec/wakeup": 110.125}), want: No, whyHas: "seconds waited per wakeup"},
			// Found-idle and wrong picks are shown, not gated on: the
			// v5 mask leaves short-idle cpus out on purpose, which the
			// model cannot price (the old guards, which these rows
			// failed, judged the mask by it).
			{name: "finds idle less, waits no longer", figs: f6.with(figures{imScanAll.label: 123, imScanMask.label: 100, imNoFilter.label: 105, imLastState.label: 100,
				imScanAll.label + " found-idle-%": 40, imScanMask.label + " found-idle-%": 20}), want: Yes},
			{name: "misplaces more, waits no longer", figs: f6.with(figures{imScanAll.label: 123, imScanMask.label: 100, imNoFilter.label: 105, imLastState.label: 100,
				imScanAll.label + " wrong-%": 0, imScanMask.label + " wrong-%": 10.125}), want: Yes},
			{name: "cheaper without probing fewer", figs: f6.with(figures{imScanAll.label: 123, imScanMask.label: 100, imNoFilter.label: 105, imLastState.label: 100,
				imScanMask.label + " cpus-scanned/op": 100}), want: No, whyHas: "cpus scanned per event"},
			{name: "filter cheaper without fewer writes", figs: f6.with(figures{imScanAll.label: 123, imScanMask.label: 100, imNoFilter.label: 105, imLastState.label: 100,
				imLastState.label + " mask-writes/op": 100}), want: No, whyHas: "mask writes per event"},
		},
		7: {
			{name: "at yes", figs: figures{"base/store=falseshare": 105, "base": 100}, want: Yes},
			{name: "under yes", figs: figures{"base/store=falseshare": 104.875, "base": 100}, want: Partly},
			{name: "at partly", figs: figures{"base/store=falseshare": 102, "base": 100}, want: Partly},
			{name: "under partly", figs: figures{"base/store=falseshare": 101.875, "base": 100}, want: No},
			{name: "null", want: No},
			{name: "opposite", figs: figures{"base/store=falseshare": 100, "base": 105}, want: No},
			{name: "cheaper by writing less", figs: figures{"base/store=falseshare": 105, "base": 100, "base shared-writes/op": 89.875}, want: No, whyHas: "shared-line writes"},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA},
		},
		8: {
			{name: "at yes", figs: figures{bfPB + " flag-%": 10, bfPA + " flag-%": 1}, want: Yes},
			{name: "under yes", figs: figures{bfPB + " flag-%": 10, bfPA + " flag-%": 1.0078125}, want: Partly},
			{name: "at partly", figs: figures{bfPB + " flag-%": 4, bfPA + " flag-%": 2}, want: Partly},
			{name: "under partly", figs: figures{bfPB + " flag-%": 3.984375, bfPA + " flag-%": 2}, want: No},
			{name: "null: cmpxchg cut by construction, share the same", figs: figures{
				bfPB + " cas/op": 1, bfPA + " cas/op": 0.001}, want: No},
			{name: "opposite", figs: figures{bfPB + " flag-%": 1, bfPA + " flag-%": 10}, want: No},
			{name: "unfair", figs: figures{bfPB + " flag-%": 10, bfPA + " flag-%": 1,
				bfPB + " stops/op": 10, bfPA + " stops/op": 8}, want: NA, whyHas: "walks stopped per tick differ"},
			{name: "noise", figs: figures{bfPB + " flag-%": 300, bfPA + " flag-%": 100}, w: 1000, want: No},
			{name: "at the profile floor", figs: figures{bfPB + " flag-%": 2.375, bfPA + " flag-%": 0.125}, want: Yes},
			{name: "under the profile floor", figs: figures{bfPB + " flag-%": 2.25, bfPA + " flag-%": 0.125}, want: No, whyHas: "95% CI from 1.88, below 2"},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA},
		},
		9: {
			{name: "at yes", figs: f9.with(figures{wkB: 116, wkA: 100, wkBM: 27000, wkAM: 2000}), want: Yes},
			{name: "migrations under yes", figs: f9.with(figures{wkB: 116, wkA: 100, wkBM: 26999, wkAM: 2000}), want: Partly},
			{name: "time under yes", figs: f9.with(figures{wkB: 115.875, wkA: 100, wkBM: 27000, wkAM: 2000}), want: Partly},
			{name: "at partly", figs: f9.with(figures{wkB: 105, wkA: 100, wkBM: 4000, wkAM: 2000}), want: Partly},
			{name: "under partly", figs: f9.with(figures{wkB: 104.875, wkA: 100, wkBM: 4000, wkAM: 2000}), want: No},
			{name: "faster, migrations the same", figs: f9.with(figures{wkB: 200, wkA: 100}), want: No},
			{name: "migrations up, as this model's patch pulls sync wakeups", figs: f9.with(figures{wkBM: 0, wkAM: 27000}), want: No},
			{name: "opposite", figs: f9.with(figures{wkB: 100, wkA: 116, wkBM: 27000, wkAM: 2000}), want: No},
			// A policy that never moves a wakee: no migrations, no
			// pulls, cheaper runs, no wakeup sent to the waking cpu,
			// and every wakee queued behind prev's running task.
			{name: "fewer migrations by never pulling", figs: figures{wkB: 200, wkA: 100, wkBM: 27000, wkAM: 0}, want: No, whyHas: "affine wakeups"},
			{name: "fewer migrations by stacking wakees", figs: f9.with(figures{wkB: 200, wkA: 100, wkBM: 27000, wkAM: 0,
				wkB + " wait-sec/wakeup": 100, wkA + " wait-sec/wakeup": 110.125}), want: No, whyHas: "seconds from wakeup to running"},
			{name: "wait at its margin", figs: f9.with(figures{wkB: 116, wkA: 100, wkBM: 27000, wkAM: 2000,
				wkB + " wait-sec/wakeup": 100, wkA + " wait-sec/wakeup": 110}), want: Yes},
			// On the guest without LLCs no pre-patch wakeup migrates:
			// a cut that is not the balancer's is not the patch's.
			{name: "cut not from the balancer", figs: f9.with(figures{wkB: 116, wkA: 100, wkBM: 27000, wkAM: 2000,
				wkA + " balance-migrations/5s": 100}), want: No, whyHas: "balancer migrations"},
			// Throughput is an outcome priced by estimates: shown, not
			// gated on (the old guard, which this row failed, judged
			// the prices, not the mechanism).
			{name: "throughput down, mechanism kept", figs: f9.with(figures{wkB: 116, wkA: 100, wkBM: 27000, wkAM: 2000,
				wkB + " tps": 5000, wkA + " tps": 4749.875}), want: Yes},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA},
			{name: "missing", drop: "patched", want: NA},
		},
		10: {
			{name: "at yes", figs: figures{laPBR: 13.75, laPRR: 2, laPBW: 10.75, laPRW: 2}, want: Yes},
			{name: "reads under yes", figs: figures{laPBR: 13.75, laPRR: 2.0078125, laPBW: 10.75, laPRW: 2}, want: Partly},
			{name: "at partly", figs: figures{laPBR: 4, laPRR: 2, laPBW: 4, laPRW: 2}, want: Partly},
			{name: "under partly", figs: figures{laPBR: 4, laPRR: 2.0078125, laPBW: 4, laPRW: 2}, want: No},
			{name: "not in the profile before", figs: figures{laPBR: 1.5, laPRR: 0.125, laPBW: 1.5, laPRW: 0.125}, want: No, whyHas: "below 2"},
			{name: "null: writes cut by construction, shares the same", figs: figures{laPBR: 13.75, laPRR: 13.75, laPBW: 10.75, laPRW: 10.75}, want: No},
			{name: "opposite", figs: figures{laPBR: 2, laPRR: 13.75, laPBW: 2, laPRW: 10.75}, want: No},
			{name: "unfair", figs: figures{laPBR: 13.75, laPRR: 2, laPBW: 10.75, laPRW: 2,
				"rate, paced " + loadavg.LoadMoves.Name: 80}, want: NA, whyHas: "unfair"},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA},
			{name: "missing", drop: "rate, paced", want: NA},
		},
		11: {
			{name: "at yes", figs: figures{cmL: 264, cmB: 100, cmG: 304, cmN: 100}, want: Yes},
			{name: "byte under yes", figs: figures{cmL: 262, cmB: 100, cmG: 304, cmN: 100}, want: Partly},
			{name: "node under yes", figs: figures{cmL: 264, cmB: 100, cmG: 300, cmN: 100}, want: Partly},
			{name: "under partly", figs: figures{cmL: 104.875, cmB: 100, cmG: 304, cmN: 100}, want: No},
			{name: "opposite", figs: figures{cmL: 100, cmB: 264, cmG: 100, cmN: 304}, want: No},
			{name: "too few runs", figs: figures{cmL: 264, cmB: 100, cmG: 304, cmN: 100}, n: 3, want: NA, whyHas: "too few runs"},
			{name: "one node: the byte store alone", figs: figures{cmL: 264, cmB: 100}, env: func(e *Env) { e.nodes, e.place = 1, "compact" }, want: Yes, whyHas: "per-node split is n/a here"},
			{name: "one node, null", env: func(e *Env) { e.nodes, e.place = 1, "compact" }, want: No, whyHas: "n/a here"},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA, whyHas: "one usable cpu"},
			{name: "missing", figs: figures{cmL: 264, cmB: 100, cmG: 304, cmN: 100}, drop: cmB, want: NA, whyHas: "no results"},
		},
		12: {
			{name: "at yes", figs: figures{rqB: 104.84375, rqA: 100}, want: Yes},
			{name: "under yes", figs: figures{rqB: 104.75, rqA: 100}, want: Partly},
			{name: "at partly", figs: figures{rqB: 102, rqA: 100}, want: Partly},
			{name: "under partly", figs: figures{rqB: 101.875, rqA: 100}, want: No},
			{name: "opposite", figs: figures{rqB: 100, rqA: 110}, want: No},
			{name: "noise", figs: figures{rqB: 110, rqA: 100}, w: 100, want: No},
			{name: "unfair", figs: figures{rqB: 110, rqA: 100, rqB + " wakeups/op": 10, rqA + " wakeups/op": 11.25}, want: NA, whyHas: "unfair"},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA, whyHas: "one usable cpu"},
			{name: "missing", figs: figures{rqB: 110, rqA: 100}, drop: rqA, want: NA, whyHas: "no results"},
		},
		13: {
			{name: "at yes", figs: figures{lcS: 125, lcR: 100}, want: Yes},
			{name: "under yes", figs: figures{lcS: 124.875, lcR: 100}, want: Partly},
			{name: "at partly", figs: figures{lcS: 105, lcR: 100}, want: Partly},
			{name: "under partly", figs: figures{lcS: 104.875, lcR: 100}, want: No},
			{name: "null: writes the same by construction", want: No},
			{name: "opposite", figs: figures{lcS: 100, lcR: 125}, want: No},
			{name: "unfair", figs: figures{lcS: 125, lcR: 100, "rate/clock=sched_clock load-moves/op": 10, "rate/clock=rq_clock load-moves/op": 11.25}, want: NA, whyHas: "unfair"},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA, whyHas: "one usable cpu"},
			{name: "missing", figs: figures{lcS: 125, lcR: 100}, drop: "rate/clock=rq_clock", want: NA, whyHas: "no results"},
		},
		14: {
			{name: "at yes", figs: figures{"nohz.nr_cpus": 105, "mask weight": 100}, want: Yes},
			{name: "under yes", figs: figures{"nohz.nr_cpus": 104.875, "mask weight": 100}, want: Partly},
			{name: "at partly", figs: figures{"nohz.nr_cpus": 102, "mask weight": 100}, want: Partly},
			{name: "under partly", figs: figures{"nohz.nr_cpus": 101.875, "mask weight": 100}, want: No},
			{name: "null: writes halved by construction, time the same", figs: figures{"nohz.nr_cpus nohz-writes/op": 2, "mask weight nohz-writes/op": 1}, want: No},
			{name: "opposite", figs: figures{"nohz.nr_cpus": 100, "mask weight": 110}, want: No},
			{name: "noise", figs: figures{"nohz.nr_cpus": 110, "mask weight": 100}, w: 100, want: No},
			{name: "one cpu", env: func(e *Env) { e.threads = 1 }, want: NA, whyHas: "one usable cpu"},
			{name: "missing", figs: figures{"nohz.nr_cpus": 110, "mask weight": 100}, drop: "mask weight", want: NA, whyHas: "no results"},
		},
	}
}

// The rate limit's clock experiments' write-path shares.
const (
	lcS = "rate/clock=sched_clock write-path-%"
	lcR = "rate/clock=rq_clock write-path-%"
)

// The rqlayout experiments' labels.
const (
	rqB = "before the reorder"
	rqA = "after the reorder"
)

// The cpumask experiments' labels.
const (
	cmG = "global mask"
	cmN = "per-node masks"
	cmL = "per-LLC masks"
	cmB = "per-LLC bytes"
)

// f2 is finding 2's additions doing their jobs: skip reads tg->load_avg
// less often than rate, node reads a line per node.
var f2 = figures{"rate+skip reads/op": 50, "rate+skip+node read-lines/op": 200}

// with returns fs with more's figures added (or replacing its own).
func (fs figures) with(more figures) figures {
	out := figures{}
	for k, v := range fs {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// The paced tg->load_avg experiments' figures.
const (
	laPBR = "base, paced read-path-%"
	laPBW = "base, paced write-path-%"
	laPRR = "rate, paced read-path-%"
	laPRW = "rate, paced write-path-%"
)

// The wakeup experiments' labels, for ns/op, and with migrations/5s.
const (
	wkB  = "pre-patch"
	wkA  = "patched"
	wkBM = "pre-patch migrations/5s"
	wkAM = "patched migrations/5s"
)

// f9 is finding 9's patch doing its job: more wakeups sent to the waking
// cpu, fewer balancer migrations (the guest without LLCs).
var f9 = figures{wkA + " affine-wakeups/5s": 200, wkA + " balance-migrations/5s": 50}

// f6 is finding 6's mechanisms at work: v5's mask probes fewer runqueues,
// the filter writes the mask less often.
var f6 = figures{imScanMask.label + " cpus-scanned/op": 50, imLastState.label + " mask-writes/op": 50}

// The paced balance-flag experiments' labels.
const (
	bfPB = "cmpxchg-first, paced"
	bfPA = "check-first, paced"
)

func TestVerdicts(t *testing.T) {
	table := verdictTable(t)
	reached := map[int]map[string]bool{}
	for _, f := range findings(testEnv()) {
		rows, ok := table[f.ID]
		if !ok {
			t.Errorf("finding %d has no verdict table", f.ID)
			continue
		}
		reached[f.ID] = map[string]bool{}
		for _, tt := range rows {
			e := testEnv()
			if tt.env != nil {
				tt.env(e)
			}
			n, w := tt.n, tt.w
			if n == 0 {
				n = 6
			}
			if w == 0 {
				w = 1
			}
			f := findingByID(t, e, f.ID)
			r := f.judge(e, fill(f, tt.figs, n, w, tt.drop))
			reached[f.ID][r.Holds] = true
			if r.Holds != tt.want || !strings.Contains(r.Why, tt.whyHas) {
				t.Errorf("finding %d, %s: %s — %s\n\tmeasured: %s\n\twant %s (why containing %q)", f.ID, tt.name, r.Holds, r.Why, r.Measured, tt.want, tt.whyHas)
			}
		}
	}
	// Every finding reaches every verdict it defines.
	for _, f := range findings(testEnv()) {
		want := []string{Yes, No, NA}
		if len(f.Partly) > 0 {
			want = append(want, Partly)
		}
		for _, v := range want {
			if !reached[f.ID][v] {
				t.Errorf("finding %d: no row reaches %q", f.ID, v)
			}
		}
	}
}

// On null data — every fix's runs copies of its baseline's — no finding
// says yes or partly: one that claims an effect finds none, and the one that
// claims none (finding 2) finds that its additions did not do their jobs.
func TestNullData(t *testing.T) {
	e := testEnv()
	for _, f := range findings(e) {
		r := f.judge(e, fill(f, nil, 10, 1, ""))
		if r.Holds != No {
			t.Errorf("finding %d on null data: %s — %s; want no", f.ID, r.Verdict(), r.Why)
		}
	}
}

// Every finding says what its fix must keep doing, or why nothing can be
// traded away: the table's mechanism column is never empty.
func TestEveryFindingHasAMechanism(t *testing.T) {
	for _, f := range findings(testEnv()) {
		if len(f.Mechanism) == 0 && f.MechanismNote == "" {
			t.Errorf("finding %d has neither a guard nor a note on its mechanism", f.ID)
		}
		for _, g := range f.Mechanism {
			if g.Doing == "" {
				t.Errorf("finding %d: guard %q does not say what the fix would win by not doing", f.ID, g.What)
			}
		}
	}
}

// winning makes data on which every claim of f's yes holds with room to
// spare and every guard is kept; the checks' sides agree.
func winning(f *Finding) sampleSet {
	s := fill(f, nil, 10, 1, "")
	set := func(m Measure, v float64) { s[key(m)] = runs(v, 10, 1) }
	// Preconditions first: a Lower claim's before may be an AtLeast's
	// measure.
	for _, c := range f.Yes {
		if c.Kind == AtLeast {
			set(c.After, 2*c.Min+10)
		}
	}
	for _, c := range f.Yes {
		switch c.Kind {
		case Lower:
			set(c.After, rankstat.Median(s.values(c.Before))/(2*c.Min))
		case Higher:
			set(c.After, rankstat.Median(s.values(c.Before))*2*c.Min)
		}
	}
	for _, g := range f.Mechanism {
		switch g.Kind {
		case Fewer:
			set(g.After, 50)
		case More:
			set(g.After, 200)
		case Floor:
			set(g.After, g.Min)
		case Ceiling:
			set(g.After, g.Min)
		}
	}
	return s
}

// breaking makes g fail on s: the fix does less of its job than the guard
// allows, by the smallest step the test's figures can take.
func breaking(s sampleSet, g Guard) {
	set := func(m Measure, v float64) { s[key(m)] = runs(v, 10, 1) }
	var b float64
	if !g.onOne() {
		b = rankstat.Median(s.values(g.Before))
	}
	switch g.Kind {
	case NotBelow:
		set(g.After, g.Min*b-0.125)
	case NotAbove:
		set(g.After, g.Min*b+0.125)
	case NoWorseBy:
		set(g.After, b+g.Min+0.125)
	case Fewer, More:
		set(g.After, b)
	case Floor:
		set(g.After, g.Min-0.125)
	case Ceiling:
		set(g.After, g.Min+0.125)
	}
}

// A fix that wins every claim but does less of the job its guard keeps is
// "no (wins by not ...)", naming that job; the same data with the guard
// kept is "yes". This fails on any finding whose fix could win by not
// working (finding 6's empty mask, before the guards).
func TestBrokenMechanism(t *testing.T) {
	e := testEnv()
	for _, f := range findings(e) {
		if r := f.judge(e, winning(f)); r.Holds != Yes {
			t.Errorf("finding %d winning with its mechanism kept: %s — %s\n\tmechanism: %s", f.ID, r.Verdict(), r.Why, r.Mechanism)
		}
		for _, g := range f.Mechanism {
			s := winning(f)
			breaking(s, g)
			r := f.judge(e, s)
			if r.Holds != No || r.WinsByNot != g.Doing || !strings.Contains(r.Mechanism, "NOT kept") {
				t.Errorf("finding %d, %s broken: %s — %s\n\tmechanism: %s\n\twant no (wins by not %s)", f.ID, g.What, r.Verdict(), r.Why, r.Mechanism, g.Doing)
			}
		}
	}
}

// A finding whose experiments left no results (an interrupted run, say) is
// reported as not measured, never judged on missing numbers.
func TestMissingResults(t *testing.T) {
	e := testEnv()
	rows := e.judge(sampleSet{})
	if len(rows) != NumFindings() {
		t.Fatalf("%d rows, want %d", len(rows), NumFindings())
	}
	for _, r := range rows {
		if r.Holds != NA || r.Measured != "no results" || !strings.Contains(r.Why, "no results for") {
			t.Errorf("finding %d on no results: measured %q, holds %q (%s); want no results, n/a here", r.ID, r.Measured, r.Holds, r.Why)
		}
	}
}

// Shown figures are printed and marked, and decide nothing: the null rows
// above give them seed-like values and still get "no".
func TestShownMarked(t *testing.T) {
	e := testEnv()
	f := findingByID(t, e, 1)
	r := f.judge(e, fill(f, figures{"base " + loadavg.CfsRqWritesPerSec.Name: 1e7, "rate " + loadavg.CfsRqWritesPerSec.Name: 1000}, 6, 1, ""))
	if !strings.Contains(r.Measured, "1e+07 → 1e+03 (by construction)") {
		t.Errorf("measured = %q, want the writes shown by construction", r.Measured)
	}
}

// Every finding words its criterion: what yes, partly and no meant.
func TestCriterion(t *testing.T) {
	for _, f := range findings(testEnv()) {
		c := f.Criterion()
		if !strings.HasPrefix(c, "yes if ") || !strings.Contains(c, "else no") || strings.Contains(c, "\n") {
			t.Errorf("finding %d criterion %q: want one line, yes if ...; else no", f.ID, c)
		}
		if len(f.Partly) > 0 && !strings.Contains(c, "partly if") {
			t.Errorf("finding %d criterion %q does not say what partly means", f.ID, c)
		}
		for _, cl := range f.claims() {
			if !strings.Contains(c, cl.criterion()) {
				t.Errorf("finding %d criterion %q lacks %q", f.ID, c, cl.criterion())
			}
		}
	}
}
