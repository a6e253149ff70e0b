package oracle

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/balanceflag"
	"github.com/contend/contend/bench/ksim"
)

// TestBalanceMissing: each balanceflag row outside names the mechanism the
// count's own figures point at: no SD_SERIALIZE domain on one node, the
// tick-stop decision where the guest seldom or nearly always stops its
// tick, and "not named" where the count cannot tell.
func TestBalanceMissing(t *testing.T) {
	count := func(nodes int, stops, idles float64, order string) CountResult {
		return CountResult{CPUs: 4, Nodes: nodes, HZ: 250, BalanceOrder: order,
			V: map[string]float64{"nohz-tick-stops/s": stops, "nohz-run-idle/s": idles, "busy-%": 60, "wakeups/s": 4000}}
	}
	rows := []modelRow{
		{"balancer passes per s (busy 60 %, newidle every 1 ticks)", 400, 520},
		{"    from nohz balancer walks per s (kicked)", 100, 100},
		{"  of which entering nohz.idle_cpus_mask per s", 50, 230},
		{"flag attempts per pass", 0.2, 0.27},
		{"  of which on idle cpus' behalf (nohz) per s", 59.3, 174},
	}
	for _, tc := range []struct {
		name string
		kc   CountResult
		row  modelRow
		want string
	}{
		{"one node, no flag", count(1, 60, 4000, "cmpxchg-first"), modelRow{"flag attempts per pass", 0, 1}, "no SD_SERIALIZE domain"},
		{"one node, passes under", count(1, 60, 4000, "cmpxchg-first"), modelRow{"  of which the cpus' own passes per s", 1000, 200}, "does not record the guest's LLCs"},
		{"tick kept", count(2, 60, 4000, "cmpxchg-first"), modelRow{"  tick stops per s (nohz_balance_enter_idle)", 60, 230}, "stopped its tick at 1.5 %"},
		{"walks follow the mask", count(2, 60, 4000, "cmpxchg-first"), modelRow{"  of which on idle cpus' behalf (nohz) per s", 30, 150}, "enter the mask 4.60x"},
		{"tick stopped at nearly every idle", count(2, 2800, 2900, "cmpxchg-first"), modelRow{"  tick stops per s (nohz_balance_enter_idle)", 2800, 230}, "still in the mask"},
		{"no own passes while tickless", count(2, 2800, 2900, "cmpxchg-first"), modelRow{"  of which the cpus' own passes per s", 350, 650}, "no tick and no balance pass of their own"},
		{"check-first attempts", count(2, 60, 4000, "check-first"), modelRow{"flag attempts per pass", 0.23, 0.14}, "never pull"},
		{"NI_RATE's visits", CountResult{CPUs: 4, Nodes: 2, Kernel: "7.3.4+deb13-amd64", BalanceOrder: "check-first+newidle", V: map[string]float64{}}, modelRow{"flag attempts per pass", 0.17, 0.87}, "always overloaded"},
		{"kicks without a runqueue", count(2, 2800, 2900, "cmpxchg-first"), modelRow{"    from nohz balancer walks per s (kicked)", 218, 124}, "rq->nr_running >= 2"},
		{"passes per walk", count(2, 60, 4000, "cmpxchg-first"), modelRow{"  of which on idle cpus' behalf (nohz) per s", 50, 150}, "per kicked walk the model passes over 1.50 idle cpus, the kernel 0.50"},
		{"kicks after mask entries", count(2, 60, 4000, "cmpxchg-first"), modelRow{"    from nohz balancer walks per s (kicked)", 100, 200}, "NOHZ_NEXT_KICK"},
		{"attempts of two rows within", count(2, 60, 4000, "check-first"), modelRow{"flag attempts per s", 100, 180}, "product of two rows within"},
		{"the kicks' losses", flags(kicks(count(2, 2800, 2900, "cmpxchg-first"), 1.61, 0.60, 0.56), 75, 32, 0.43), modelRow{"  of which on idle cpus' behalf (nohz) per s", 50, 150}, "1.61 other cpus were in nohz.idle_cpus_mask, 0.60 of them idle (37 %: the model takes it"},
		{"the kicks' walks", flags(kicks(count(2, 2800, 2900, "cmpxchg-first"), 1.61, 0.60, 0.56), 75, 32, 0.43), modelRow{"  of which on idle cpus' behalf (nohz) per s", 50, 150}, "75 % of the kicks found their own cpu idle when the IPI landed"},
		{"kicks without their flags", kicks(count(2, 2800, 2900, "cmpxchg-first"), 1.2, 1.0, 0.9), modelRow{"  of which on idle cpus' behalf (nohz) per s", 50, 150}, "not named; per kicked walk"},
		{"the newidle gate read", gate(count(2, 60, 4000, "cmpxchg-first"), 90), modelRow{"sched_balance_rq() calls per s, newly idle (CPU_NEWLY_IDLE)", 171, 9830}, "gate at 90 % of them, read at each walk's entry"},
		{"the newidle gate inlined", func() CountResult { c := count(2, 60, 4000, "check-first"); c.Kernel = "6.19.14+deb13-amd64"; return c }(), modelRow{"sched_balance_rq() calls per s, newly idle (CPU_NEWLY_IDLE)", 171, 290}, "not read on this kernel: from 6.19"},
		{"idle ticks over", func() CountResult {
			c := count(2, 232, 712, "check-first")
			c.CPUs, c.V["busy-%"], c.V["ticks/s"], c.V["idle-ticks/s"] = 8, 30, 1350, 778
			return c
		}(), modelRow{"  of which on idle cpus (task_tick_idle)", 778, 1400}, "fired 56 % of their idle tick slots (778 of 1400 per s"},
		{"the newidle gate mostly open", gate(count(2, 60, 4000, "cmpxchg-first"), 30), modelRow{"sched_balance_rq() calls per s, newly idle (CPU_NEWLY_IDLE)", 171, 9830}, "the walks past the gate: the guest's made 0.06"},
		{"CPU_IDLE calls, the on-behalf passes' excess", count(2, 2800, 2900, "cmpxchg-first"), modelRow{"sched_balance_rq() calls per s, idle cpus (lb_count CPU_IDLE)", 168, 319}, "less those passes (a call each, at least) the rest of the CPU_IDLE calls, the idle cpus' own, are 1.33x"},
		{"CPU_IDLE calls, tickless idles", count(2, 2800, 2900, "cmpxchg-first"), modelRow{"sched_balance_rq() calls per s, idle cpus (lb_count CPU_IDLE)", 120, 400}, "the passes on idle cpus' behalf are 2.93x (the on-behalf row, named there), and the rest, the idle cpus' own, 3.72x (the model 226 per s, the guest 61): the guest stopped its tick at 96.6 %"},
		{"unexplained", count(2, 60, 4000, "cmpxchg-first"), modelRow{"balancer passes per s (busy 60 %, newidle every 1 ticks)", 400, 700}, "not named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := balanceMissing(tc.kc, tc.row, rows); !strings.Contains(got, tc.want) {
				t.Errorf("balanceMissing = %q, want it to say %q", got, tc.want)
			}
		})
	}
}

// flags gives kc the kick records' flags: walks raised and balance
// walks, % of the kicks, and the passes per kick they would make.
func flags(kc CountResult, walk, balance, passes float64) CountResult {
	kc.V["kick-walk-%"], kc.V["kick-balance-walk-%"], kc.V["kick-passes/kick"] = walk, balance, passes
	return kc
}

// gate gives kc the idle entries' newidle gate, closed at gated %.
func gate(kc CountResult, gated float64) CountResult {
	kc = kicks(kc, 0, 0, 0)
	kc.V["newidle-gated-%"], kc.V["newidle-not-overloaded-%"], kc.V["newidle-avg-idle-us"], kc.V["newidle-cost-us"] = gated, 5, 268, 768
	return kc
}

// kicks gives kc the tick trace's kick figures.
func kicks(kc CountResult, masked, idle, due float64) CountResult {
	v := map[string]float64{"kick-masked/kick": masked, "kick-idle/kick": idle, "kick-idle-due/kick": due}
	for k, x := range kc.V {
		v[k] = x
	}
	kc.V = v
	return kc
}

// The inverse case: a guest that keeps its tick balances its idle cpus
// from it, where the simulation's idle cpus have none.
func TestBalanceMissingKeptTick(t *testing.T) {
	for _, tc := range []struct {
		rule       ksim.IdleTickRule
		want, idle string
	}{
		// Idles under half a tick after the idle's first tick: the
		// model's idle ticks are fresh idles (freshIdle).
		{ksim.IdleTickAfterTick, "got_tick", "fresh idle"},
		{ksim.IdleTickStop, "an event within a tick", "each stopping the tick"},
		{ksim.IdleTickGovernor, "by its governor", "whole ticks"},
	} {
		kc := CountResult{CPUs: 4, Nodes: 2, HZ: 250, IdleTick: tc.rule, IdleTickFrom: "sites-x.txt", V: map[string]float64{"nohz-tick-stops/s": 180, "nohz-run-idle/s": 17000, "busy-%": 17}}
		got := balanceMissing(kc, modelRow{"  of which the cpus' own passes per s", 734, 168}, nil)
		for _, w := range []string{"kept its tick at 98.9 %", tc.want, "average 195 µs", tc.idle} {
			if !strings.Contains(got, w) {
				t.Errorf("%v: balanceMissing = %q, want it to say %q", tc.rule, got, w)
			}
		}
	}
}

// TestBalanceMissingTicks: the tick rows and the rows the idle ticks
// explain name their mechanism from the count's own ticks: the emulator's
// lost ticks on a busy guest, idle cpus that tick on, the stop form's
// refused stops, the idle ticks that stopped no tick, the passes on
// behalf of idles longer than a tick, and the mask's entries per busy tick.
func TestBalanceMissingTicks(t *testing.T) {
	kc := func(rule ksim.IdleTickRule, busy, ticks, idleTicks, stops, idles float64) CountResult {
		return CountResult{CPUs: 4, Nodes: 2, HZ: 250, IdleTick: rule, IdleTickFrom: "sites-x.txt", V: map[string]float64{
			"busy-%": busy, "ticks/s": ticks, "idle-ticks/s": idleTicks, "nohz-tick-stops/s": stops, "nohz-run-idle/s": idles,
			"nohz-mask-entries/s": 300, "balance-softirqs/s": 660, "nohz-walks/s": 140}}
	}
	afterTick := kc(ksim.IdleTickAfterTick, 66, 924, 413, 66, 4863)
	for _, tc := range []struct {
		name string
		kc   CountResult
		row  modelRow
		want string
	}{
		{"lost ticks", kc(ksim.IdleTickAfterTick, 97, 680, 18, 3, 106), modelRow{"ticks per s (sched_tick)", 680, 1000}, "the emulator lost about 308 (31 %)"},
		{"lost ticks, passes over", kc(ksim.IdleTickAfterTick, 97, 680, 18, 3, 106), modelRow{"  of which the cpus' own passes per s", 200, 340}, "the emulator lost about 308"},
		{"lost ticks, idle row over", kc(ksim.IdleTickAfterTick, 97, 680, 18, 3, 106), modelRow{"  of which on idle cpus (task_tick_idle)", 18, 31}, "hrtimer_forward()"},
		{"idle cpus tick on", afterTick, modelRow{"  of which on idle cpus (task_tick_idle)", 413, 226}, "84 % of its idle tick slots fired"},
		{"stop form keeps a few", kc(ksim.IdleTickStop, 73, 622, 127, 3527, 3649), modelRow{"  of which on idle cpus (task_tick_idle)", 127, 0}, "kept the tick at 122 idle entries per s"},
		{"idle ticks that stopped no tick", afterTick, modelRow{"  tick stops per s (nohz_balance_enter_idle)", 66, 340}, "only 16 % of those stopped the tick"},
		{"passes for long idles", afterTick, modelRow{"  of which on idle cpus' behalf (nohz) per s", 28, 13}, "76 per s (16 % of its idle tick slots"},
		{"own walks per tick", afterTick, modelRow{"  of which the cpus' own passes per s", 500, 985}, "ran at 56 % of its ticks"},
		{"stop form's entries in busy ticks", kc(ksim.IdleTickStop, 53, 497, 113, 5834, 5996), modelRow{"  tick stops per s (nohz_balance_enter_idle)", 5834, 3420}, "rounded (6), in each busy tick (53 %"},
		{"newidle gate", func() CountResult {
			c := afterTick
			c.NewidleCost = []time.Duration{3 * time.Millisecond}
			return c
		}(), modelRow{"sched_balance_rq() calls per s, newly idle (CPU_NEWLY_IDLE)", 22, 0}, "under the lowest domain's max_newidle_lb_cost (the guest's, 3000 µs)"},
		{"mask per busy tick", kc(ksim.IdleTickStop, 73, 622, 127, 3527, 3649), modelRow{"  of which entering nohz.idle_cpus_mask per s", 300, 700}, "300 times per s over 495 busy ticks: 61 %"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := balanceMissing(tc.kc, tc.row, nil); !strings.Contains(got, tc.want) {
				t.Errorf("balanceMissing = %q, want it to say %q", got, tc.want)
			}
		})
	}
}

// A count's run length is its command line's -duration, in either form,
// or kernel count's default.
func TestRunLength(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want time.Duration
	}{
		{"kernel count -shape pipe -pairs 2 -levels 2 -duration 2s -o /tmp/out/k.results", 2 * time.Second},
		{"kernel count -duration=500ms", 500 * time.Millisecond},
		{"kernel count -shape pipe", 5 * time.Second},
		{"kernel count -duration", 5 * time.Second},
		{"kernel count -duration x", 5 * time.Second},
		{"", 5 * time.Second},
	} {
		if got := runLength(tc.cmd); got != tc.want {
			t.Errorf("runLength(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

// The counted kernel's newidle features by release: NI_RANDOM from
// 6.18.5's backport and v6.19, NI_RATE from v7.1.
func TestNewidleFeatures(t *testing.T) {
	for _, tc := range []struct {
		release      string
		random, rate bool
	}{
		{"6.12.118+deb12-amd64", false, false},
		{"6.18.4", false, false},
		{"6.18.15+deb13-amd64", true, false},
		{"6.19.14+deb13-amd64", true, false},
		{"7.0.13+deb13-amd64", true, false},
		{"7.2.12+deb13-amd64", true, true},
	} {
		if r, n := newidleFeatures(tc.release); r != tc.random || n != tc.rate {
			t.Errorf("newidleFeatures(%s) = %v, %v; want %v, %v", tc.release, r, n, tc.random, tc.rate)
		}
	}
}

// The warm-up: without the dice the window is one run; with them the
// window after sd_init()'s 50 % start has fewer newidle passes, so fewer
// flag attempts, than a window that holds the start.
func TestBalanceAfterWarmup(t *testing.T) {
	cfg := balanceflag.SimConfig{CPUs: 4, Sockets: 2, SNC: 1, SMT: 1, HZ: 250, Busy: 55, Newidle: 1, NewidlePerTick: 4,
		Duration: time.Second, CAS: 100 * time.Nanosecond, Seed: 1, Orders: []string{"check-first+newidle"}}
	one, err := balanceAfterWarmup(cfg, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := balanceflag.Simulate(cfg)
	if err != nil || one != ratesOf(tab.Rows[0]) {
		t.Errorf("without the dice: %+v, want one run's %+v (%v)", one, ratesOf(tab.Rows[0]), err)
	}
	cfg.NewidleRandom = true
	cold, err := balanceAfterWarmup(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := balanceAfterWarmup(cfg, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !(warm.cas < cold.cas) || warm.passes <= 0 {
		t.Errorf("with the dice: flag attempts %.1f/s after a warm-up, %.1f/s from the start; want fewer after", warm.cas, cold.cas)
	}
}

// TestIdlePull: the model's pull share is the guest's CPU_IDLE pulls over
// its idle ticks, capped at 1, where its idle ticks are fresh after the
// idle's first tick; none otherwise; the tick-stop line says so.
func TestIdlePull(t *testing.T) {
	kc := func(rule ksim.IdleTickRule, gained, idleTicks float64) CountResult {
		return CountResult{CPUs: 4, Nodes: 2, HZ: 250, IdleTick: rule, IdleTickFrom: "sites-x.txt", V: map[string]float64{
			"busy-%": 60, "nohz-run-idle/s": 5000, "nohz-tick-stops/s": 70, "ticks/s": 950, "idle-ticks/s": idleTicks, "idle-lb-gained/s": gained}}
	}
	for _, tc := range []struct {
		name string
		kc   CountResult
		want float64
	}{
		{"after-tick", kc(ksim.IdleTickAfterTick, 30, 400), 0.075},
		{"capped", kc(ksim.IdleTickAfterTick, 900, 400), 1},
		{"stop form", kc(ksim.IdleTickStop, 30, 400), 0},
		{"no pulls counted", kc(ksim.IdleTickAfterTick, 0, 400), 0},
	} {
		if got := idlePull(tc.kc); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: idlePull = %g, want %g", tc.name, got, tc.want)
		}
	}
	got := balanceMissing(kc(ksim.IdleTickAfterTick, 30, 400), modelRow{"  tick stops per s (nohz_balance_enter_idle)", 70, 330}, nil)
	if !strings.Contains(got, "at most 8 % of them pulled a task") {
		t.Errorf("balanceMissing = %q, want the pulls named", got)
	}
}

// TestBalanceMissingByIdleType: the passes by idle type name what the
// tick rows show: a busy cpu's passes per busy tick, the model's against
// the guest's, and its idle cpus' passes per idle tick.
func TestBalanceMissingByIdleType(t *testing.T) {
	kc := CountResult{CPUs: 4, Nodes: 2, HZ: 250, IdleTick: ksim.IdleTickAfterTick, V: map[string]float64{
		"busy-%": 60, "nohz-run-idle/s": 5000, "ticks/s": 900, "idle-ticks/s": 400}}
	rows := []modelRow{{"ticks per s (sched_tick)", 900, 1000}, {"  of which on idle cpus (task_tick_idle)", 400, 500}}
	for _, tc := range []struct {
		row  modelRow
		want string
	}{
		{modelRow{"sched_balance_rq() calls per s, busy cpus (CPU_NOT_IDLE)", 25, 1}, "pass at 0.2 % of their busy ticks, the guest's at 5.0 %"},
		{modelRow{"sched_balance_rq() calls per s, idle cpus (lb_count CPU_IDLE)", 340, 700}, "1.40 passes per idle tick, the guest's 0.85"},
	} {
		if got := balanceMissing(kc, tc.row, rows); !strings.Contains(got, tc.want) {
			t.Errorf("%s: balanceMissing = %q, want it to say %q", tc.row.name, got, tc.want)
		}
	}
}

// TestTickTraceInputs: the queued share and the state's correlation come
// from the count's tick trace where the guest's idle cpus tick on
// (after-tick with fresh idles for the first), bounded; none without a
// trace or under the stop form; the rows' lines say what the trace
// showed, or that there was none.
func TestTickTraceInputs(t *testing.T) {
	kc := func(rule ksim.IdleTickRule, trace map[string]float64) CountResult {
		v := map[string]float64{"busy-%": 60, "nohz-run-idle/s": 5000, "nohz-tick-stops/s": 70, "ticks/s": 950, "idle-ticks/s": 400}
		for k, x := range trace {
			v[k] = x
		}
		return CountResult{CPUs: 4, Nodes: 2, HZ: 250, IdleTick: rule, IdleTickFrom: "sites-x.txt", V: v}
	}
	traced := map[string]float64{"idle-tick-not-idle-%": 55, "tick-busy-corr": 0.4, "tick-stale-%": 15, "idle-tick-due-%": 93, "busy-tick-due-%": 58}
	for _, tc := range []struct {
		name         string
		kc           CountResult
		pull         float64
		queued, corr float64
	}{
		{"after-tick", kc(ksim.IdleTickAfterTick, traced), 0.05, 0.55, 0.4},
		{"queued capped by pull", kc(ksim.IdleTickAfterTick, traced), 0.6, 0.4, 0.4},
		{"corr bounded", kc(ksim.IdleTickAfterTick, map[string]float64{"tick-busy-corr": 0.99}), 0, 0, 0.95},
		{"negative corr", kc(ksim.IdleTickAfterTick, map[string]float64{"tick-busy-corr": -0.2}), 0, 0, 0},
		{"stop form", kc(ksim.IdleTickStop, traced), 0, 0, 0},
		{"no trace", kc(ksim.IdleTickAfterTick, nil), 0, 0, 0},
	} {
		if q, c := idleQueued(tc.kc, tc.pull), tickCorr(tc.kc); math.Abs(q-tc.queued) > 1e-9 || math.Abs(c-tc.corr) > 1e-9 {
			t.Errorf("%s: idleQueued %g, tickCorr %g; want %g, %g", tc.name, q, c, tc.queued, tc.corr)
		}
	}
	for _, tc := range []struct {
		name string
		kc   CountResult
		want float64
	}{
		{"after-tick", kc(ksim.IdleTickAfterTick, map[string]float64{"busy-tick-idle-entry-%": 60}), 0.6},
		{"stop form", kc(ksim.IdleTickStop, map[string]float64{"busy-tick-idle-entry-%": 60}), 0},
		{"entries under one a tick: Newidle's period stands", kc(ksim.IdleTickAfterTick, map[string]float64{"busy-tick-idle-entry-%": 60, "nohz-run-idle/s": 200}), 0},
		{"none followed: a share, not one in Newidle", kc(ksim.IdleTickAfterTick, map[string]float64{"busy-tick-idle-entry-%": 0}), minShortShare},
		{"no trace", kc(ksim.IdleTickAfterTick, nil), 0},
	} {
		if got := newidleShare(tc.kc); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: newidleShare %g, want %g", tc.name, got, tc.want)
		}
	}
	row := modelRow{"sched_balance_rq() calls per s, idle cpus (lb_count CPU_IDLE)", 300, 700}
	rows := []modelRow{{"  of which on idle cpus (task_tick_idle)", 400, 420}, row}
	if got := balanceMissing(kc(ksim.IdleTickAfterTick, traced), row, rows); !strings.Contains(got, "takes the tick trace's 55 % of idle ticks") || !strings.Contains(got, "15 % of its cpus' ticks a period apart read the jiffy") {
		t.Errorf("CPU_IDLE row with a trace: %q", got)
	}
	if got := balanceMissing(kc(ksim.IdleTickAfterTick, nil), row, rows); !strings.Contains(got, "the count has no tick trace") {
		t.Errorf("CPU_IDLE row without a trace: %q", got)
	}
	// Under the stop form the model takes no queued share: the line
	// must not say it does.
	if got := balanceMissing(kc(ksim.IdleTickStop, traced), row, rows); !strings.Contains(got, "does not take the tick trace's 55 %") || strings.Contains(got, "the model takes the tick trace's") {
		t.Errorf("CPU_IDLE row, stop form: %q", got)
	}
	// An under row whose two factors are each within says so.
	under := modelRow{"sched_balance_rq() calls per s, idle cpus (lb_count CPU_IDLE)", 300, 180}
	got := balanceMissing(kc(ksim.IdleTickAfterTick, traced), under, []modelRow{{"  of which on idle cpus (task_tick_idle)", 400, 300}, under})
	if !strings.Contains(got, "the passes per idle tick are within (the model 0.60, the guest 0.75: 0.80x) and so are the idle ticks (the model's 0.75x") {
		t.Errorf("CPU_IDLE row under, two factors within: %q", got)
	}
}

// TestAttemptsOverPasses: the attempts-per-pass row is named as the
// quotient of the attempts-per-s and passes rows where both are within
// and off opposite ways, and not where one is outside or both go the
// same way.
func TestAttemptsOverPasses(t *testing.T) {
	rows := func(attempts, passes float64) []modelRow {
		return []modelRow{{"balancer passes per s (busy 84 %)", 100, 100 * passes}, {"flag attempts per s", 10, 10 * attempts}, {"flag attempts per pass", 0.1, 0.1 * attempts / passes}}
	}
	if got := attemptsOverPasses(rows(1.43, 0.81)); !strings.Contains(got, "flag attempts per s (1.43x) over the balancer passes per s (0.81x)") {
		t.Errorf("1.43x over 0.81x: %q", got)
	}
	for _, c := range [][2]float64{{1.6, 0.9}, {1.3, 1.2}, {0.7, 0.8}} {
		if got := attemptsOverPasses(rows(c[0], c[1])); got != "" {
			t.Errorf("%v: %q, want none", c, got)
		}
	}
}
