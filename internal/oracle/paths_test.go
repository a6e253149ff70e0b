package oracle

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/loadavg"
	"github.com/contend/contend/counter"
	"github.com/contend/contend/internal/kernel"
)

// TestPathMissing: a by-path row outside names what its path lacks: the
// tick path the emulator's late ticks where the model runs its ticks on
// time (the server shape's seed workload, a trial's), the lateness's
// spread where the model's late ticks fall short of the count's
// lateness in periods, the stall's age where they do not, and says it
// cannot where the count has no lateness; the other path the model's
// missing attach and detach; an enqueue row the count's want of calls.
func TestPathMissing(t *testing.T) {
	row := loadavg.SimRow{Wakeups: 1000}
	row.Paths[counter.PathTick] = counter.PathStats{Updates: 2, Writes: 1}
	row.Paths[counter.PathEnqueue] = counter.PathStats{Updates: 200, Writes: 80}
	kc := func(extra map[string]float64) CountResult {
		v := map[string]float64{"wakeups/s": 16000, "ticks/s": 1000, "idle-ticks/s": 600, "enqueue-tg-writes/wakeup": 0.1, "tick-tg-writes/wakeup": 0.01}
		for k, x := range extra {
			v[k] = x
		}
		return CountResult{CPUs: 4, Levels: 2, V: v}
	}
	late := map[string]float64{"busy-tick-lateness-period-%": 40, "busy-tick-lateness-us": 250, "idle-tick-lateness-us": 60}
	tick := func(k float64) modelRow { return modelRow{"      by path: tick (entity_tick)", k, 0.001} }
	for _, tc := range []struct {
		name string
		kc   CountResult
		r    modelRow
		want []string
	}{
		{"late ticks, seed workload", kc(late), tick(0.01), []string{"the emulator's late ticks, not modelled:", "median 250 µs", "40 tick writes per cpu per s", "runs the seed's workload"}},
		{"late ticks, on time", kc(late), tick(0.01), []string{"the emulator's late ticks, not modelled:", "-ticks-on-time"}},
		{"late ticks, narrow", kc(late), tick(0.01), []string{"the emulator's late ticks' spread", "(120, those that found a group task running)", "lateness 20 % of the time, under the count's 40 %"}},
		{"late ticks, as wide", kc(late), tick(0.01), []string{"the stall's age at the tick, not modelled", "lateness 35 % of the time (the count's 40 %)"}},
		{"no trace", kc(nil), tick(0.01), []string{"not named:", "no tick trace", "0.002 update_tg_load_avg() calls per wakeup, 50 % of them writing"}},
		{"other", kc(nil), modelRow{"      by path: other (attach, detach, propagate)", 0.01, 0}, []string{"the model has no attach, detach or propagation"}},
		{"enqueue", kc(nil), modelRow{"      by path: enqueue (enqueue_task_fair)", 0.1, 0.08}, []string{"not named:", "enqueue path makes 0.200", "40 % of them writing, under the kernel's", "writes, not its calls"}},
		// 0.3 writes per wakeup in the guest, 0.2 calls in the model.
		{"enqueue, writes past the calls", kc(nil), modelRow{"      by path: enqueue (enqueue_task_fair)", 0.3, 0.08}, []string{"not named:", "under the kernel's 0.300 writes alone: the model calls this path too seldom"}},
	} {
		run := modelRun{kc: tc.kc, row: row}
		switch tc.name {
		case "late ticks, on time":
			run.cfg.Pairs = 2
		case "late ticks, narrow":
			run.cfg = loadavg.SimConfig{Pairs: 2, TickLate: 250 * time.Microsecond}
			run.row.LateTicks, run.row.LatePeriod = 120, 0.20
		case "late ticks, as wide":
			run.cfg = loadavg.SimConfig{Pairs: 2, TickLate: 250 * time.Microsecond}
			run.row.LateTicks, run.row.LatePeriod = 120, 0.35
		}
		got := pathMissing(run, tc.r)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
	}
	// The totals' lines: the two paths farthest apart, and their share
	// of the gap (|0.1-0.08| + |0.01-0.001| of that plus the others').
	g := pathGap(modelRun{kc: kc(nil), row: row})
	for _, w := range []string{"enqueue 0.100 → 0.080 and tick 0.010 → 0.001", "hold 100 % of the gap"} {
		if !strings.Contains(g, w) {
			t.Errorf("pathGap = %q, lacks %q", g, w)
		}
	}
	if g := pathGap(modelRun{kc: CountResult{V: map[string]float64{}}, row: row}); g != "" {
		t.Errorf("pathGap without paths = %q, want none", g)
	}
}

// TestPathWrites: the sampled update_load_avg() site's writes split by
// its callers' shares of the samples, every other tg->load_avg site by
// its host, the 1 ms tests not at all; none without samples.
func TestPathWrites(t *testing.T) {
	site := func(kind, fn, via string, bp int64) kernel.SiteCount {
		return kernel.SiteCount{Site: kernel.Site{Kind: kind, Func: fn, Via: via}, Breakpoint: bp, Kprobe: -1}
	}
	c := &kernel.Counted{Sites: []kernel.SiteCount{
		site("tg-load-avg", "update_load_avg", "", 1000),
		site("tg-load-avg", "task_tick_fair", "update_load_avg", 50),
		site("tg-load-avg", "__sched_balance_update_blocked_averages", "", 30),
		site("tg-load-avg", "attach_entity_cfs_rq", "", 5),
		site("tg-load-avg-limit", "task_tick_fair", "update_load_avg", 400),
	}, Callers: &kernel.Callers{By: map[string]uint64{"enqueue_entity": 60, "dequeue_entities": 30, "set_next_entity": 10}, Sampled: 100}}
	want := map[string]float64{"enqueue": 600, "dequeue": 300, "switch": 100, "tick": 50, "blocked": 30, "other": 5}
	got := pathWrites(c)
	if !maps.Equal(got, want) {
		t.Errorf("pathWrites = %v, want %v", got, want)
	}
	c.Callers = nil
	if got := pathWrites(c); got != nil {
		t.Errorf("pathWrites without callers = %v, want nil", got)
	}
}

// TestOverfilled: a per-second row under names the wakeups the model
// could not realise where, fed the count's rate, it would be within;
// not a per-wakeup row, not where the model realised the rate (within a
// tenth), not where it would stay outside even so.
func TestOverfilled(t *testing.T) {
	cfg := loadavg.SimConfig{CPUs: 4, Duration: time.Second}
	kc := CountResult{CPUs: 4, V: map[string]float64{"wakeups/s": 16000, "run-%": 55, "runnable-%": 70}}
	run := func(realised int64) modelRun {
		return modelRun{kc: kc, cfg: cfg, row: loadavg.SimRow{Wakeups: realised * 4, RunPct: 40, RunnablePct: 66}}
	}
	perSec := modelRow{"tg writes per cpu per s (all levels)", 1000, 600}
	for _, tc := range []struct {
		name     string
		run      modelRun
		r        modelRow
		want     string
		wantNone bool
	}{
		// Fed 4000 per cpu per s, realised 2800: 0.6 × 4000/2800 = 0.86.
		{"realised short", run(2800), perSec, "the model realised 2800 of the 4000 wakeups per cpu per s it was fed (70 %), at which this row would be 0.86x", false},
		{"realised the rate", run(3700), perSec, "", true},
		{"outside even at the fed rate", run(2800), modelRow{perSec.name, 1000, 300}, "", true},
		{"a per-wakeup row", run(2800), modelRow{"tg writes per workload wakeup (all sites)", 1, 0.6}, "", true},
		{"over", run(2800), modelRow{perSec.name, 600, 1000}, "", true},
	} {
		got := overfilled(tc.run, tc.r)
		if tc.wantNone != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestInputsBeforeFix: the inputs line flags a count made before kernel
// count read the workload's own threads, and only such a count.
func TestInputsBeforeFix(t *testing.T) {
	cfg := loadavg.SimConfig{CPUs: 4, Duration: time.Second, Pairs: 2, Variants: []string{"base"}}
	for _, tc := range []struct {
		date time.Time
		want bool
	}{{threadStatsFixed.Add(-time.Hour), true}, {threadStatsFixed.Add(time.Minute), false}, {time.Time{}, false}} {
		var b strings.Builder
		writePaths(&b, CountResult{Kernel: "6.1.0-57-amd64", Workload: "shape=pipe", CPUs: 4, Date: tc.date, V: map[string]float64{"wakeups/s": 1000}}, cfg, loadavg.SimRow{Wakeups: 1000})
		if got := strings.Contains(b.String(), "before kernel count read the workload's own threads"); got != tc.want {
			t.Errorf("date %v: flagged %v, want %v:\n%s", tc.date, got, tc.want, b.String())
		}
	}
}

// TestUndercounted: a line that names nothing, on a count made before
// kernel count read the workload's own threads, names those inputs with
// what they fed; a later count, an undated one, or a line that already
// names its mechanism is left as it is.
func TestUndercounted(t *testing.T) {
	cfg := loadavg.SimConfig{CPUs: 4, Pairs: 2, Gap: 2647 * time.Microsecond, Run: 0.354, Runnable: 0.53}
	for _, tc := range []struct {
		name string
		date time.Time
		why  string
		want string // "" for the line left as it is
	}{
		{"before the fix", threadStatsFixed.Add(-72 * time.Hour), "not named: nothing", "the count's own inputs, an undercount: counted 2026-12-02, before kernel count read the workload's own threads, so it fed the model 189 wakeups per cpu per s (a wakeup every 2.647ms on each cpu) and run and runnable shares of 35.4 % and 53.0 %"},
		{"after the fix", threadStatsFixed.Add(time.Minute), "not named: nothing", ""},
		{"undated", time.Time{}, "not named: nothing", ""},
		{"named already", threadStatsFixed.Add(-time.Hour), "the emulator's late ticks", ""},
	} {
		run := modelRun{kc: CountResult{CPUs: 4, Date: tc.date, V: map[string]float64{"wakeups/s": 756}}, cfg: cfg}
		got := undercounted(run, tc.why)
		switch {
		case tc.want == "" && got != tc.why:
			t.Errorf("%s: %q, want the line as it was", tc.name, got)
		case tc.want != "" && (!strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, "; beside it, nothing")):
			t.Errorf("%s: %q, want %q ... \"; beside it, nothing\"", tc.name, got, tc.want)
		}
	}
}

// TestServerShape: the server shape, which the model runs as the seed's
// coin workload, names that on a line that names nothing, and on the
// rows loadavgWhy would otherwise give to an older file; a pipe count,
// or a line already named, is left as it is.
func TestServerShape(t *testing.T) {
	server := modelRun{kc: CountResult{Shape: "server", Pairs: 3, CPUs: 4, V: map[string]float64{"wakeups/s": 6000, "nohz-run-idle/s": 6000, "run-%": 53.3}},
		cfg: loadavg.SimConfig{Tasks: 1}, row: loadavg.SimRow{Idle: 1, Events: 3}}
	pipe := server
	pipe.kc.Shape, pipe.cfg.Pairs = "pipe", 2
	want := "the server shape's transactions, not modelled: its 3 clients of one server thread"
	for _, tc := range []struct {
		name string
		got  string
		want string // "" for the line left as it was
	}{
		{"server, not named", serverShape(server, "not named: nothing"), want},
		{"server, named", serverShape(server, "the emulator's late ticks"), ""},
		{"pipe", serverShape(pipe, "not named: nothing"), ""},
		{"server, a total's row", loadavgWhy(server, modelRow{name: "tg writes per workload wakeup (all sites)", kernel: 1, model: 0.5}), want},
	} {
		if tc.want == "" && (strings.HasPrefix(tc.got, "the server shape") || strings.Contains(tc.got, "not modelled: its 3 clients")) {
			t.Errorf("%s: %q, want the line as it was", tc.name, tc.got)
		}
		if tc.want != "" && (!strings.HasPrefix(tc.got, tc.want) || !strings.Contains(tc.got, "idle 25 % of its event slots") || strings.Contains(tc.got, "older file")) {
			t.Errorf("%s: %q, want %q ...", tc.name, tc.got, tc.want)
		}
	}
}

// TestPlacementMissing: where the count has the pingers' sleeps and its
// idle entries per sleep are well under the model's, a line that names
// no mechanism names the pairs' placement, with the figures; a count
// from before the sleeps were read, or shares that agree, leave it be.
func TestPlacementMissing(t *testing.T) {
	cfg := loadavg.SimConfig{Pairs: 2, CPUs: 4, Duration: time.Second}
	row := loadavg.SimRow{Wakeups: 40000, IdlesPerCPUSec: 9000, Preempted: 400} // 0.9 idle entries per wakeup
	v := map[string]float64{"wakeups/s": 40000, "sleeps/wakeup": 1, "nohz-run-idle/s": 5000, "preemptions/wakeup": 0.64, "wakeup-migrations/wakeup": 0.005}
	run := modelRun{kc: CountResult{CPUs: 4, V: v}, cfg: cfg, row: row}
	got := placed(run, "not named: the count gives this path's writes")
	for _, w := range []string{"the pairs' placement, not modelled:", "slept 1.00 times per wakeup", "idle at 12 % of those sleeps", "the model's cpus made 90 idle entries per 100 wakeups", "preempted at 64 % of wakeups", "the model's 1 %", "0.5 % of them moved cpu", "; beside it, the count gives this path's writes"} {
		if !strings.Contains(got, w) {
			t.Errorf("placed = %q, lacks %q", got, w)
		}
	}
	if got := placed(run, "the emulator's late ticks, not modelled"); got != "the emulator's late ticks, not modelled" {
		t.Errorf("a named line became %q", got)
	}
	old := maps.Clone(v)
	delete(old, "sleeps/wakeup")
	if p := placementMissing(modelRun{kc: CountResult{CPUs: 4, V: old}, cfg: cfg, row: row}); p != "" {
		t.Errorf("a count without sleeps/wakeup: %q, want none", p)
	}
	agree := maps.Clone(v)
	agree["nohz-run-idle/s"] = 30000 // 0.75 per sleep: within 1.5x of 0.9
	if p := placementMissing(modelRun{kc: CountResult{CPUs: 4, V: agree}, cfg: cfg, row: row}); p != "" {
		t.Errorf("shares within the tolerance: %q, want none", p)
	}
	// The idle entries agree, the wakeups onto the waking cpu do not:
	// 86 % of the guest's, 10 % of the model's.
	agree["local-wakeups/wakeup"] = 0.86
	local := row
	local.LocalWakeups = 4000
	if p := placementMissing(modelRun{kc: CountResult{CPUs: 4, V: agree}, cfg: cfg, row: local}); !strings.Contains(p, "86 % of its wakeups landed on the waker's own cpu (nr_wakeups_local), the model's 10 %") {
		t.Errorf("local wakeups apart: %q", p)
	}
	local.LocalWakeups = 30000 // 75 %: within
	if p := placementMissing(modelRun{kc: CountResult{CPUs: 4, V: agree}, cfg: cfg, row: local}); p != "" {
		t.Errorf("both within: %q, want none", p)
	}
}

// TestIdleLeafMissing: the blocked paths under name the guest's idle
// stretches where its idle ticks found the leaf past a period over 1.5x
// as often as the model's, and not where the shares agree or the count
// has no leaf ages.
func TestIdleLeafMissing(t *testing.T) {
	row := loadavg.SimRow{Wakeups: 1000, IdleTicks: [2]int64{1000, 100}} // 10 %
	run := func(v map[string]float64) modelRun { return modelRun{kc: CountResult{CPUs: 4, V: v}, row: row} }
	got := idleLeafMissing(run(map[string]float64{"idle-tick-crossed-%": 50}))
	for _, w := range []string{"the guest's idle stretches, not modelled:", "at 50 % of them", "the model's at 10 %"} {
		if !strings.Contains(got, w) {
			t.Errorf("idleLeafMissing = %q, lacks %q", got, w)
		}
	}
	if got := idleLeafMissing(run(map[string]float64{"idle-tick-crossed-%": 14})); got != "" {
		t.Errorf("14 %% against 10 %%: %q, want none", got)
	}
	if got := idleLeafMissing(run(map[string]float64{})); got != "" {
		t.Errorf("no leaf ages: %q, want none", got)
	}
}

// TestIdleTicksWhy: the idle-tick row names the idles' lengths where the
// guest's idle entries and the model's are over 1.5x apart the way the
// row is off, and names nothing where they are not.
func TestIdleTicksWhy(t *testing.T) {
	run := func(e float64) modelRun {
		return modelRun{kc: CountResult{CPUs: 4, V: map[string]float64{"nohz-run-idle/s": 4 * e}}, row: loadavg.SimRow{IdlesPerCPUSec: 3000}}
	}
	if got := idleTicksWhy(run(1000), false); !strings.Contains(got, "the idles' lengths: the guest's cpus made 1000 idle entries per cpu per s against the model's 3000, fewer, so longer") {
		t.Errorf("under, fewer guest idles: %q", got)
	}
	for _, tc := range []struct {
		e    float64
		over bool
	}{{2500, false}, {1000, true}} {
		if got := idleTicksWhy(run(tc.e), tc.over); !strings.HasPrefix(got, "not named:") {
			t.Errorf("%v idle entries, over %v: %q, want not named", tc.e, tc.over, got)
		}
	}
}

// TestStackedRow: the wakeups-onto-the-waker's-cpu row stands for every
// pairs run of a count that read them, the model's share 0 included,
// and for no run of the seed's coin, which has no waker.
func TestStackedRow(t *testing.T) {
	kc := CountResult{CPUs: 4, V: map[string]float64{"ula-writes/enqueue": 0.1, "tg-writes/wakeup": 0.1, "wakeups/s": 1000, "enqueue/s": 1000, "local-wakeups/wakeup": 0.9}}
	row := loadavg.SimRow{Wakeups: 1000}
	find := func(rows []modelRow) *modelRow {
		for i := range rows {
			if strings.Contains(rows[i].name, "onto the waker's cpu") {
				return &rows[i]
			}
		}
		return nil
	}
	if r := find(pathRows(kc, row, true)); r == nil || r.kernel != 90 || r.model != 0 {
		t.Errorf("pairs, none local in the model: row %+v, want kernel 90, model 0", r)
	}
	if r := find(pathRows(kc, row, false)); r != nil {
		t.Errorf("the seed's coin: row %+v, want none", r)
	}
}

// TestStackedRowWhy: the stacked-wakeups row outside names the pairs'
// placement even where the model's cpus stop their tick far more often
// than the guest's (a reason for other rows under, not this one).
func TestStackedRowWhy(t *testing.T) {
	run := modelRun{
		kc:  CountResult{CPUs: 4, V: map[string]float64{"wakeups/s": 4000, "sleeps/wakeup": 1, "nohz-run-idle/s": 1000, "nohz-tick-stops/s": 40, "local-wakeups/wakeup": 0.99}},
		cfg: loadavg.SimConfig{Pairs: 3, CPUs: 4, Duration: time.Second},
		row: loadavg.SimRow{Wakeups: 4000, IdlesPerCPUSec: 900, LocalWakeups: 980, TickStopsPerCPUSec: 37},
	}
	got := loadavgWhy(run, modelRow{name: "  wakeups onto the waker's cpu (stacked), %", kernel: 99, model: 24.5})
	if !strings.HasPrefix(got, "the pairs' placement, not modelled") {
		t.Errorf("stacked row with the tick stops over: %q, want the pairs' placement", got)
	}
}

// TestWalkIdleShare: the masked cpus' idle share at the kicks, none
// where the count traced no kicks, a measured 0 kept above 0.
func TestWalkIdleShare(t *testing.T) {
	for _, tc := range []struct {
		v    map[string]float64
		want float64
	}{
		{map[string]float64{"kick-masked/kick": 1.61, "kick-idle/kick": 0.60}, 0.60 / 1.61},
		{map[string]float64{}, 0},
		{map[string]float64{"kick-masked/kick": 1, "kick-idle/kick": 0}, 1e-6},
	} {
		if got := walkIdleShare(CountResult{V: tc.v}); got != tc.want {
			t.Errorf("%v: %g, want %g", tc.v, got, tc.want)
		}
	}
}

// TestBlockedCompounding: a blocked path over is named by the model's
// softirqs, idle leaves and realised wakeups against the count's where
// their product leaves the row within ×1.5 of it, and not where it does
// not or the count lacks a figure.
func TestBlockedCompounding(t *testing.T) {
	run := modelRun{
		kc:  CountResult{CPUs: 4, V: map[string]float64{"balance-softirqs/s": 800, "idle-tick-crossed-%": 40, "wakeups/s": 8000}},
		cfg: loadavg.SimConfig{Duration: time.Second},
		// 240 softirqs per cpu per s (1.2x the count's 200), idle
		// leaves crossed at 48 % (1.2x), 1600 of 2000 wakeups per cpu
		// per s realised (1.25x per wakeup): 1.8x together.
		row: loadavg.SimRow{SoftirqsPerCPUSec: 240, IdleTicks: [2]int64{100, 48}, Wakeups: 6400},
	}
	got := blockedCompounding(run, modelRow{"      by path: blocked (update_blocked_averages' own)", 0.01, 0.02})
	for _, w := range []string{"compounding", "240 balance softirqs per cpu per s against the count's 200 (1.20x)", "48 % against 40 % (1.20x)", "1600 of the 2000 wakeups per cpu per s fed (1.25x per wakeup)", "together 1.80x of this row's 2.00x"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
	if got := blockedCompounding(run, modelRow{"      by path: blocked (update_blocked_averages' own)", 0.01, 0.03}); got != "" {
		t.Errorf("3.00x against 1.80x together: %q, want none", got)
	}
	delete(run.kc.V, "idle-tick-crossed-%")
	if got := blockedCompounding(run, modelRow{"      by path: blocked (update_blocked_averages' own)", 0.01, 0.02}); got != "" {
		t.Errorf("no idle-tick-crossed-%%: %q, want none", got)
	}
}

// TestGroupTickWhy: a tick path under is named from the count's group
// tick records against the model's: the crossings where their shares are
// over ×1.5 apart, the group's ticks where those are, else the writes per
// crossing; without the records, nothing, and without group-ticks/s a
// line that names nothing.
func TestGroupTickWhy(t *testing.T) {
	kc := CountResult{CPUs: 4, Levels: 2, V: map[string]float64{"group-tick-crossed-%": 60, "group-tick-leaf-age-us": 600, "group-ticks/s": 560}}
	row := loadavg.SimRow{GroupTicks: [2]int64{5600, 2800}, GroupAgeUs: 400} // 140 a cpu a s (4 cpus, 10 s), half crossed
	row.Paths[counter.PathTick] = counter.PathStats{Updates: 5600, Writes: 2000}
	run := modelRun{kc: kc, cfg: loadavg.SimConfig{Duration: 10 * time.Second}, row: row}
	// 120 writes per cpu per s over 140 ticks × 60 % × 2 levels: 71 %.
	got := groupTickWhy(run, 120)
	for _, w := range []string{"the writes per crossing:", "at 60 % of them, a median 600 µs old", "the model's at 50 %, 400 µs", "on 140 and 140 such ticks", "are 71 % of its crossings on 2 levels", "write 36 % of the time"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
	run.row.GroupTicks = [2]int64{5600, 800} // 14 % crossed against 60 %
	if got := groupTickWhy(run, 120); !strings.HasPrefix(got, "the crossings at the group's ticks:") {
		t.Errorf("crossings apart: %q", got)
	}
	run.row.GroupTicks = [2]int64{1400, 700} // 35 a cpu a s against 140: the ticks
	if got := groupTickWhy(run, 120); !strings.HasPrefix(got, "the group's ticks:") || !strings.Contains(got, "took 140 such ticks per cpu per s, the model's 35") {
		t.Errorf("ticks apart: %q", got)
	}
	delete(run.kc.V, "group-ticks/s")
	run.row.GroupTicks = [2]int64{5600, 2800}
	if got := groupTickWhy(run, 120); !strings.HasPrefix(got, "not named:") {
		t.Errorf("no group-ticks/s: %q, want a line that names nothing", got)
	}
	delete(run.kc.V, "group-tick-crossed-%")
	if got := groupTickWhy(run, 120); got != "" {
		t.Errorf("no records: %q, want none", got)
	}
}
