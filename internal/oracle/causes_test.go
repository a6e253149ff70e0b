package oracle

import (
	"maps"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/internal/kernel"
	"github.com/contend/contend/internal/kernel/schedstat"
)

// TestWriteTextCauses: the passes by cause, one line each, the
// uncounted ones with why; the cpus' own passes are every pass less the
// nohz balancer's, and the results carry both.
func TestWriteTextCauses(t *testing.T) {
	k := countFixture()
	k.Balances, k.BalanceProbe = 400, "sched_balance_domains"
	k.BalanceCauses = []kernel.Cause{
		{Name: "softirq", At: "sched_balance_softirq", Hits: 420},
		{Name: "kick", Hits: -1, Why: "not in kallsyms (inlined): kick_ilb"},
		{Name: "idle-stop-asks", At: "tick_nohz_idle_stop_tick", Hits: 332},
		{Name: "idle-retains", At: "tick_nohz_idle_retain_tick", Hits: 8448},
		{Name: "on-behalf", At: "_nohz_idle_balance.isra.0+0x2d0", Hits: 40},
	}
	var b strings.Builder
	if err := WriteText(&b, k); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  softirq: 420 (210/s) at sched_balance_softirq: SCHED_SOFTIRQ runs",
		"  kick: not counted: not in kallsyms (inlined): kick_ilb",
		"  idle-stop-asks: 332 (166/s) at tick_nohz_idle_stop_tick: tick_nohz_idle_stop_tick calls: the idle loop asking to stop the tick",
		"  idle-retains: 8448 (4224/s) at tick_nohz_idle_retain_tick: tick_nohz_idle_retain_tick calls: the idle loop keeping the tick",
		"  on-behalf: 40 (20/s) at _nohz_idle_balance.isra.0+0x2d0: passes _nohz_idle_balance runs for an idle cpu",
		"  own passes: 360 (180/s, 90 % of the passes)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("count text lacks %q:\n%s", want, b.String())
		}
	}
	path := t.TempDir() + "/k.txt"
	if err := WriteResults(path, k, nil); err != nil {
		t.Fatal(err)
	}
	f, _ := os.ReadFile(path)
	if !strings.Contains(string(f), " 210 balance-softirqs/s 166 idle-stop-asks/s 4224 idle-retains/s 20 nohz-balances/s 180 own-balances/s") || strings.Contains(string(f), "nohz-kicks/s") {
		t.Errorf("results lack the causes' units, or carry the uncounted kick's:\n%s", f)
	}
}

// TestWriteModelTableCauses holds the balanceflag rows by cause against
// the lab's oracle-2n counts with the per-cause probes
// (testdata/count-oracle-2n-causes.txt: 6.1 then 6.12, pipe, 2 pairs,
// 2 s): each kernel gets both rows, and on each side the own passes and
// the nohz balancer's add up to the passes row (the kernel's by how the
// count derives them, the model's by how it counts its walks).
func TestWriteModelTableCauses(t *testing.T) {
	counts, err := ReadCounts("testdata/count-oracle-2n-causes.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 2 {
		t.Fatalf("%d counts in the file, want 2 (6.1, 6.12)", len(counts))
	}
	for _, kc := range counts {
		rows := balanceRows(kc, ModelOptions{Duration: time.Second})
		if len(rows) != 7 || !strings.Contains(rows[3].name, "walks per s (kicked)") || !strings.Contains(rows[4].name, "tick stops") {
			t.Fatalf("%s: %d balanceflag rows, want 7 (passes, own, on behalf, their kicked walks, tick stops, attempts, per pass)", kc.Kernel, len(rows))
		}
		if w := rows[3]; w.kernel <= 0 || w.model <= 0 {
			t.Errorf("%s: kicked walks kernel %.1f, model %.1f: want both", kc.Kernel, w.kernel, w.model)
		}
		pass, own, nohz := rows[0], rows[1], rows[2]
		if !strings.Contains(own.name, "own") || !strings.Contains(nohz.name, "behalf") {
			t.Fatalf("%s: rows 1 and 2 are %q and %q, want the own and the on-behalf passes", kc.Kernel, own.name, nohz.name)
		}
		for _, side := range []struct {
			name          string
			all, own, oth float64
		}{{"kernel", pass.kernel, own.kernel, nohz.kernel}, {"model", pass.model, own.model, nohz.model}} {
			if d := side.own + side.oth - side.all; d > 1e-6*side.all || d < -1e-6*side.all {
				t.Errorf("%s %s: own %.1f + on behalf %.1f = %.1f passes/s, want the passes row's %.1f", kc.Kernel, side.name, side.own, side.oth, side.own+side.oth, side.all)
			}
			if side.oth <= 0 || side.own <= 0 {
				t.Errorf("%s %s: own %.1f, on behalf %.1f: want both", kc.Kernel, side.name, side.own, side.oth)
			}
		}
	}
}

// TestLBValues: the balancer's passes and pulls per idle type, summed over
// the domains, per second; none without a schedstat change.
func TestLBValues(t *testing.T) {
	c := &kernel.Counted{Counted: &kernel.Load{Seconds: 2}, LB: &schedstat.Stats{Version: 15, Domains: []schedstat.Domain{
		{LBCount: [3]uint64{100, 10, 400}, LBGained: [3]uint64{6, 1, 20}},
		{LBCount: [3]uint64{50, 4, 200}, LBGained: [3]uint64{2, 0, 8}},
	}}}
	got := map[string]float64{}
	for _, v := range lbValues(c) {
		got[v.Unit] = v.Value
	}
	want := map[string]float64{"idle-lb/s": 75, "idle-lb-gained/s": 4, "busy-lb/s": 7, "busy-lb-gained/s": 0.5, "newidle-lb/s": 300, "newidle-lb-gained/s": 14}
	if !maps.Equal(got, want) {
		t.Errorf("lbValues = %v, want %v", got, want)
	}
	if vs := lbValues(&kernel.Counted{Counted: &kernel.Load{Seconds: 2}}); vs != nil {
		t.Errorf("lbValues without schedstats = %v, want none", vs)
	}
}

// The tick trace's values: shares always, rates only where the ring
// buffer lost nothing (else the trace holds the run's end only), the
// idle entries' only where they were traced.
func TestTickValues(t *testing.T) {
	tt := &kernel.TickTrace{Ticks: 2000, Idle: 800, IdleNotIdle: 400, IdleQueued: 300, IdleDue: 720, BusyDue: 600,
		Slots: [3]int{200, 1500, 100}, States: [2][2]int{{750, 250}, {250, 550}}, IdleEntries: 10000, BusyEntry: [2]int{400, 600}, BusyRun: [2]int{300, 100},
		BusyLateUs: 250, IdleLateUs: 60, BusyLatePeriod: 0.4, QueuedLeaf: 200, QueuedCrossed: 50, QueuedAgeUs: 48, IdleLeaf: 400, IdleCrossed: 180}
	c := &kernel.Counted{Counted: &kernel.Load{Seconds: 2}, Ticks: tt}
	vals := func() map[string]float64 {
		got := map[string]float64{}
		for _, v := range tickValues(c) {
			got[v.Unit] = v.Value
		}
		return got
	}
	want := map[string]float64{"traced-ticks/s": 1000, "idle-tick-not-idle-%": 50, "idle-tick-queued-%": 37.5, "idle-tick-due-%": 90,
		"busy-tick-due-%": 50, "tick-stale-%": 200.0 / 18, "tick-busy-corr": 0.75 - 250.0/800, "traced-idle-entries/s": 5000, "busy-tick-idle-entry-%": 60, "busy-tick-late-%": 25,
		"busy-tick-lateness-us": 250, "idle-tick-lateness-us": 60, "busy-tick-lateness-period-%": 40,
		"queued-tick-crossed-%": 25, "queued-tick-leaf-age-us": 48, "idle-tick-crossed-%": 45}
	if got := vals(); len(got) != len(want) {
		t.Errorf("tickValues = %v, want %v", got, want)
	} else {
		for k, w := range want {
			if math.Abs(got[k]-w) > 1e-9 {
				t.Errorf("%s = %g, want %g", k, got[k], w)
			}
		}
	}
	tt.Lost = 5
	if got := vals(); got["traced-ticks/s"] != 0 || got["traced-idle-entries/s"] != 0 || got["idle-tick-not-idle-%"] != 50 {
		t.Errorf("tickValues with records lost = %v, want the shares and no rates", got)
	}
	if vs := tickValues(&kernel.Counted{Counted: &kernel.Load{Seconds: 2}}); vs != nil {
		t.Errorf("tickValues without a trace = %v", vs)
	}
}

// TestThreadValues: the pingers' figures per wakeup, none for a count
// that read no sleeps (before 2026-12-05 12:00).
func TestThreadValues(t *testing.T) {
	got := map[string]float64{}
	for _, v := range threadValues(kernel.ThreadStats{Wakeups: 1000, Sleeps: 999, Preempted: 640, Waits: 1640, WakeupsMigrated: 5, Affine: 150, Local: 860}) {
		got[v.Unit] = v.Value
	}
	want := map[string]float64{"sleeps/wakeup": 0.999, "preemptions/wakeup": 0.64, "waits/wakeup": 1.64, "wakeup-migrations/wakeup": 0.005, "affine-wakeups/wakeup": 0.15, "local-wakeups/wakeup": 0.86}
	if len(got) != len(want) {
		t.Errorf("threadValues = %v, want %v", got, want)
	}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-12 {
			t.Errorf("%s = %g, want %g", k, got[k], w)
		}
	}
	if vs := threadValues(kernel.ThreadStats{Wakeups: 1000}); vs != nil {
		t.Errorf("no sleeps read: %v, want none", vs)
	}
}

// TestWakeValuesMoves: a count whose wake trace took the move records
// reports the balancer's moves per wakeup, the cold share and the share
// off the partner's cpu; one without them reports none of the three.
func TestWakeValuesMoves(t *testing.T) {
	keys := func(c *kernel.Counted) map[string]float64 {
		m := map[string]float64{}
		for _, v := range wakeValues(c) {
			m[v.Unit] = v.Value
		}
		return m
	}
	c := &kernel.Counted{Wakes: &kernel.WakeTrace{Wakes: 200, Moves: &kernel.MoveTrace{Balanced: 4, Hot: 1, FromPartner: 2}}}
	got := keys(c)
	if got["balance-moves/wakeup"] != 0.02 || got["balance-moves-cold-%"] != 75 || got["balance-moves-off-partner-%"] != 50 {
		t.Errorf("with move records: %v", got)
	}
	c.Wakes.Moves = &kernel.MoveTrace{}
	if got := keys(c); got["balance-moves/wakeup"] != 0 || len(got) == 0 {
		t.Errorf("move records with no move: %v", got)
	} else if _, ok := got["balance-moves-cold-%"]; ok {
		t.Errorf("a cold share of no moves: %v", got)
	}
	c.Wakes.Moves = nil
	for k := range keys(c) {
		if strings.HasPrefix(k, "balance-moves") {
			t.Errorf("no move records, yet %s", k)
		}
	}
}
