package idlemask

import (
	"math"
	"slices"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// draw advances w's generator until the next wakeup's prev_cpu and
// recent_used_cpu satisfy ok, and returns them.
func draw(t *testing.T, w *worker, ok func(prev, recent int) bool) (prev, recent int) {
	t.Helper()
	for range 10000 {
		r := w.rng
		prev, recent = drawPrevRecent(bench.XorShift(&r), w.width)
		if ok(prev, recent) {
			return prev, recent
		}
		w.next()
	}
	t.Fatal("no draw of prev and recent_used_cpu fits")
	return 0, 0
}

// Each early return of select_idle_sibling() before the scan, and the scan
// after them, on an LLC of 8 CPUs woken from CPU 0 (the target), every
// runqueue busy but those a case makes idle.
func TestIdleMaskShortcuts(t *testing.T) {
	for _, tt := range []struct {
		name string
		// idle picks the CPUs to make idle from the draw.
		idle func(prev, recent int) []int
		fits func(prev, recent int) bool
		// want is the CPU the task is placed on, from the draw.
		want                  func(prev, recent int) int
		target, pr, rc, scans int64
	}{
		{"idle target", func(p, r int) []int { return []int{0, p, r} }, func(p, r int) bool { return true },
			func(p, r int) int { return 0 }, 1, 0, 0, 0},
		{"idle prev", func(p, r int) []int { return []int{p, r} }, func(p, r int) bool { return p != 0 },
			func(p, r int) int { return p }, 0, 1, 0, 0},
		{"idle recent_used_cpu", func(p, r int) []int { return []int{r} }, func(p, r int) bool { return p != 0 && r != 0 && r != p },
			func(p, r int) int { return r }, 0, 0, 1, 0},
		{"recent_used_cpu == prev, busy: no shortcut, the scan finds cpu 7", func(p, r int) []int { return []int{7} },
			func(p, r int) bool { return p != 0 && p == r && p != 7 }, func(p, r int) int { return 7 }, 0, 0, 0, 1},
		{"none idle among them: the scan, from the target", func(p, r int) []int { return []int{7} },
			func(p, r int) bool { return p != 0 && p != 7 && r != 7 }, func(p, r int) int { return 7 }, 0, 0, 0, 1},
	} {
		s, ws := setup(t, "update=always/scan=all/sis=none/busy=100/llc=8", 1)
		w := ws[0]
		w.early = true
		prev, recent := draw(t, w, tt.fits)
		for _, c := range tt.idle(prev, recent) {
			s.llcs[0].rqs[c].state.Store(rqIdle)
		}
		w.wakeup(0, &w.local[0])
		want := tt.want(prev, recent)
		got := []int64{w.sisTarget, w.sisPrev, w.sisRecent, w.probes, w.found}
		scanProbes := int64(0)
		if tt.scans > 0 {
			scanProbes = int64(want) + 1 // cpus 0 (the target) to want
		}
		if st := s.llcs[0].rqs[want].state.Load(); st != rqWoken || !slices.Equal(got, []int64{tt.target, tt.pr, tt.rc, scanProbes, 1}) {
			t.Errorf("%s (prev %d, recent %d): cpu %d state %d; target, prev, recent, scan probes, found = %v; want cpu %d woken, %v",
				tt.name, prev, recent, want, st, got, want, []int64{tt.target, tt.pr, tt.rc, scanProbes, 1})
		}
	}
}

// The target is select_idle_cpu()'s first candidate and spends a unit of
// SIS_PROP's nr: at nr = 4 the scan probes the target and two more CPUs,
// where early=off (the target left out) probed three others and found the
// idle CPU 3.
func TestIdleMaskTargetCharged(t *testing.T) {
	for _, early := range []bool{false, true} {
		s, ws := setup(t, "update=always/scan=all/sis=prop/busy=100/llc=48", 1)
		w, loc := ws[0], &ws[0].local[0]
		w.early = early
		draw(t, w, func(p, r int) bool { return p != 3 && r != 3 })
		s.llcs[0].rqs[3].state.Store(rqIdle)
		loc.avgIdle, loc.avgScanCost = 10_000, 300 // nr = 4
		w.wakeup(0, loc)
		wantFound, wantOut := int64(1), int64(0)
		if early {
			wantFound, wantOut = 0, 1
		}
		if w.probes != 3 || w.found != wantFound || w.budgetOut != wantOut {
			t.Errorf("early=%v at nr=4, cpu 3 idle: %d probes, found %d, out %d; want 3, %d, %d", early, w.probes, w.found, w.budgetOut, wantFound, wantOut)
		}
	}
}

// avg_scan_cost is kernel time: probes × the cost of one (at least one
// probe's worth), given or, with probe=auto, the timed scans' ratio.
func TestIdleMaskScanCost(t *testing.T) {
	w := &worker{scanNs: 50}
	for _, tt := range []struct{ probes, want int }{{0, 50}, {1, 50}, {7, 350}} {
		if got := w.scanCost(tt.probes); got != int64(tt.want) {
			t.Errorf("probe=50: scanCost(%d) = %d, want %d", tt.probes, got, tt.want)
		}
	}
	w = &worker{}
	if got := w.scanCost(5); got != 0 {
		t.Errorf("probe=auto before any timed scan: scanCost(5) = %d, want 0", got)
	}
	w.timedNs, w.timedProbes = 900, 12 // 75 ns a probe
	if got := w.scanCost(4); got != 300 {
		t.Errorf("probe=auto at 900 ns over 12 probes: scanCost(4) = %d, want 300", got)
	}
}

// early=, prev= and probe= are left out of the name at their defaults, the
// model before them, so recorded results keep their names.
func TestIdleMaskEarlyProbeVariants(t *testing.T) {
	const base = "update=laststate/scan=mask/sis=prop/busy=90/wake=10/llc=48/tick=100/hz=1000"
	benchtest.CheckVariants(t, "idlemask", [][2]string{
		{"early=off/probe=auto", base},
		{"early=on", base + "/early=on"},
		{"probe=75/early=on", base + "/early=on/probe=75"},
		{"probe=100000", base + "/probe=100000"},
		{"early=yes", `!early="yes": unknown value (want off|on)`},
		{"probe=0", "!probe=\"0\": out of range (want auto|1..100000)"},
		{"probe=50ns", `!probe="50ns": unknown value (want auto|1..100000)`},
		{"prev=draw", base},
		{"early=on/prev=history", base + "/early=on/prev=history"},
		{"probe=75/prev=history", base + "/prev=history/probe=75"},
		{"prev=recent", `!prev="recent": unknown value (want draw|history)`},
	})
}

// Finish reports how many wakeups a shortcut took (early=on only) and the
// cost per probe the budget was weighed with: probe= as given, or with
// probe=auto the timed scans' wall time per probe.
func TestIdleMaskEarlyMetrics(t *testing.T) {
	for _, tt := range []struct {
		variant string
		early   bool
		probe   float64 // sec/probe, 0: measured, only > 0 checked
	}{
		{"early=on/probe=75", true, 75e-9},
		{"early=off/probe=40", false, 40e-9},
		{"early=on", true, 0},
	} {
		s := benchtest.StartUnpinned[*idleMask](t, "idlemask", tt.variant+"/busy=50/wake=50/llc=8", 2)
		for range 200 {
			for _, w := range s.workers {
				w.Run(1)
			}
		}
		res := &bench.Result{Ops: 400}
		if err := s.Finish(res); err != nil {
			t.Fatal(err)
		}
		e, ok := res.Metric(Early.Name)
		if ok != tt.early || (ok && (e <= 0 || e > 100)) {
			t.Errorf("%s: %s = %v (reported %v), want reported %v, in (0, 100]", tt.variant, Early.Name, e, ok, tt.early)
		}
		p, ok := res.Metric(ProbeCost.Name)
		if !ok || p <= 0 || (tt.probe > 0 && math.Abs(p-tt.probe) > 1e-18) {
			t.Errorf("%s: %s = %v (reported %v), want %v", tt.variant, ProbeCost.Name, p, ok, tt.probe)
		}
	}
}
