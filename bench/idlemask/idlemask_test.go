package idlemask

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/bench/ksim"
)

// setup builds an idlemask scenario and its workers without the runner or a
// topology (so all workers are of one real LLC): a test can drive events and
// hooks itself, deterministically. The scan cost that feeds SIS_PROP is
// testScanNs per probe instead of a timing, so the budget is reproducible.
func setup(t testing.TB, variant string, workers int) (*idleMask, []*worker) {
	t.Helper()
	s := benchtest.StartUnpinned[*idleMask](t, "idlemask", variant, workers)
	for _, w := range s.workers {
		w.scanNs = testScanNs
	}
	return s, s.workers
}

// testScanNs is the deterministic scan cost per probe of setup's
// workers: about what a remote runqueue probe costs.
const testScanNs = 50

// flush is a quiescent flush: one scheduler tick on every simulated CPU,
// with no events in between.
func flush(s *idleMask) {
	for _, w := range s.workers {
		for c := w.lo; c < w.hi; c++ {
			w.schedulerTick(c, w.rqs[c])
		}
	}
}

// stale returns the CPUs of simulated LLC 0 whose mask bit disagrees with
// their runqueue: busy CPUs in the mask, and idle CPUs missing from it.
func stale(s *idleMask) (busyInMask, idleMissing []int) {
	llc := s.llcs[0]
	for c, rq := range llc.rqs {
		bit := llc.mask[c/64].Load()>>(c%64)&1 != 0
		idle := rq.state.Load() == rqIdle
		switch {
		case bit && !idle:
			busyInMask = append(busyInMask, c)
		case idle && !bit:
			idleMissing = append(idleMissing, c)
		}
	}
	return busyInMask, idleMissing
}

func TestIdleMaskVariants(t *testing.T) {
	const def = "update=laststate/scan=mask/sis=prop/busy=90/wake=10/llc=48/tick=100/hz=1000"
	tests := [][2]string{
		{"", def},
		{"update=always", "update=always/scan=mask/sis=prop/busy=90/wake=10/llc=48/tick=100/hz=1000"},
		{"update=tickstop/hz=250", "update=tickstop/scan=mask/sis=prop/busy=90/wake=10/llc=48/tick=100/hz=250"},
		{"sis=none/update=tick", "update=tick/scan=mask/sis=none/busy=90/wake=10/llc=48/tick=100/hz=1000"},
		{"tick=1/llc=1/wake=0/busy=0/scan=all/update=none", "update=none/scan=all/sis=prop/busy=0/wake=0/llc=1/tick=1/hz=1000"},
		{"busy=100/wake=100/llc=4096/tick=1000000", "update=laststate/scan=mask/sis=prop/busy=100/wake=100/llc=4096/tick=1000000/hz=1000"},
		{"update=lazy", `!update="lazy": unknown value (want always|laststate|tickstop|tick|none)`},
		{"update=v5", `!update="v5": unknown value (want always|laststate|tickstop|tick|none)`},
		{"scan=idle", `!scan="idle": unknown value (want mask|all)`},
		{"sis=on", `!sis="on": unknown value (want prop|none)`},
		{"sis=PROP", `!sis="PROP": unknown value (want prop|none)`},
		{"hz=100", `!hz="100": unknown value (want 1000|250)`},
		{"hz=300", `!hz="300": unknown value (want 1000|250)`},
		{"hz=1000Hz", `!hz="1000Hz": unknown value (want 1000|250)`},
		{"update=none", "!update=none keeps no mask for scan=mask to read"},
		{"busy=101", "!busy=\"101\": out of range (want 0..100)"},
		{"busy=-1", "!busy=\"-1\": out of range (want 0..100)"},
		{"busy=90%", `!busy="90%": not an integer`},
		{"wake=101", "!wake=\"101\": out of range (want 0..100)"},
		{"llc=0", "!llc=\"0\": out of range (want 1..4096)"},
		{"llc=4097", "!llc=\"4097\": out of range (want 1..4096)"},
		{"tick=0", "!tick=\"0\": out of range (want 1..1000000)"},
		{"tick=x", `!tick="x": not an integer`},
		{"place=compact", `!unknown variant key "place"`},
		{"scan", "!malformed variant part"},
		{"update=tickstop/nohz=counter", "update=tickstop/scan=mask/sis=prop/busy=90/wake=10/llc=48/tick=100/hz=1000/nohz=counter"},
		{"nohz=weight/update=tickstop", "update=tickstop/scan=mask/sis=prop/busy=90/wake=10/llc=48/tick=100/hz=1000/nohz=weight"},
		{"nohz=none", def},
		{"nohz=counter", "!nohz=counter needs update=tickstop"},
		{"update=tickstop/nohz=nr_cpus", `!nohz="nr_cpus": unknown value (want none|counter|weight)`},
	}
	benchtest.CheckVariants(t, "idlemask", tests)
}

func TestIMPlan(t *testing.T) {
	tests := []struct {
		real  []int
		width int
		want  []share
		nllc  int
	}{
		{[]int{-1}, 48, []share{{0, 0, 48}}, 1},
		{[]int{-1, -1}, 48, []share{{0, 0, 24}, {0, 24, 48}}, 1},
		{[]int{0, 0, 0}, 48, []share{{0, 0, 16}, {0, 16, 32}, {0, 32, 48}}, 1},
		{[]int{0, 0}, 3, []share{{0, 0, 1}, {0, 1, 3}}, 1},
		{[]int{0}, 1, []share{{0, 0, 1}}, 1},
		// Two real LLCs never share a mask.
		{[]int{0, 1, 0, 1}, 48, []share{{0, 0, 24}, {1, 0, 24}, {0, 24, 48}, {1, 24, 48}}, 2},
		// More workers than llc=: one CPU each over several simulated LLCs.
		{[]int{0, 0, 0}, 2, []share{{0, 0, 2}, {1, 0, 1}, {1, 1, 2}}, 2},
		{[]int{5, 5, 5, 5, 5}, 1, []share{{0, 0, 1}, {1, 0, 1}, {2, 0, 1}, {3, 0, 1}, {4, 0, 1}}, 5},
	}
	for _, tt := range tests {
		got, n := planShares(tt.real, tt.width)
		if !slices.Equal(got, tt.want) || n != tt.nllc {
			t.Errorf("planShares(%v, %d) = %v, %d; want %v, %d", tt.real, tt.width, got, n, tt.want, tt.nllc)
		}
	}
	// Every simulated CPU has exactly one owner, whatever the shape.
	for workers := 1; workers <= 9; workers++ {
		for width := 1; width <= 11; width++ {
			real := make([]int, workers)
			for i := range real {
				real[i] = i % 3
			}
			shares, n := planShares(real, width)
			owners := make([][]int, n)
			for i := range owners {
				owners[i] = make([]int, width)
			}
			for _, sh := range shares {
				if sh.hi <= sh.lo {
					t.Errorf("planShares(%v, %d): empty share %v", real, width, sh)
				}
				for c := sh.lo; c < sh.hi; c++ {
					owners[sh.llc][c]++
				}
			}
			for l, os := range owners {
				for c, k := range os {
					if k != 1 {
						t.Errorf("planShares(%v, %d): llc %d cpu %d has %d owners", real, width, l, c, k)
					}
				}
			}
		}
	}
}

// The hooks, one CPU driven by hand: idle entries (i), busy events (b, an
// idle exit when the CPU was idle) and ticks (t). The write counts are the
// policies' definitions; the final bit shows which are stale until a tick.
// update=tickstop sets nothing while the governor expects short idle
// (predicted below a tick) and behaves as laststate once it expects long
// idle.
func TestIdleMaskHooks(t *testing.T) {
	tests := []struct {
		update  string
		long    bool // the governor expects idle periods of a tick or more
		events  string
		writes  int64
		bit     bool  // the mask bit after the events
		flushed int64 // writes after a further tick
	}{
		// Three idle entries, an exit, a tick, another idle period.
		{"always", false, "iiibtib", 7, false, 8},
		{"laststate", false, "iiibtib", 3, true, 4},
		{"tickstop", false, "iiibtib", 0, false, 0},
		{"tickstop", true, "iiibtib", 3, true, 4},
		{"tick", false, "iiibtib", 5, true, 6},
		{"none", false, "iiibtib", 0, false, 0},
		// A tick that finds the CPU idle: only always writes for it.
		{"always", false, "it", 2, true, 3},
		{"laststate", false, "it", 1, true, 1},
		{"tickstop", true, "it", 1, true, 1},
		{"tick", false, "it", 1, true, 1},
		// Busy ticks with the bit already clear: the filter saves them.
		{"always", false, "ttt", 3, false, 4},
		{"laststate", false, "ttt", 0, false, 0},
		{"tickstop", false, "ttt", 0, false, 0},
		{"tick", false, "ttt", 3, false, 4},
		// Long idle with many re-entries: uperf's "80 times between two ticks".
		{"always", false, strings.Repeat("i", 80) + "b", 81, false, 82},
		{"laststate", false, strings.Repeat("i", 80) + "b", 1, true, 2},
		{"tickstop", false, strings.Repeat("i", 80) + "b", 0, false, 0},
		{"tickstop", true, strings.Repeat("i", 80) + "b", 1, true, 2},
		{"tick", false, strings.Repeat("i", 80) + "b", 80, true, 81},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("update=%s/long=%v/events=%.8s", tt.update, tt.long, tt.events), func(t *testing.T) {
			scan := "mask"
			if tt.update == "none" {
				scan = "all"
			}
			s, ws := setup(t, "update="+tt.update+"/scan="+scan+"/llc=2/busy=100", 1)
			w, c := ws[0], 0
			rq, loc := w.rqs[c], &w.local[c]
			if rq.state.Load() != rqBusy || s.llcs[0].mask[0].Load() != 0 {
				t.Fatal("busy=100 should start every CPU busy with an empty mask")
			}
			bit := func() bool { return s.llcs[0].mask[0].Load()&1 != 0 }
			for i, e := range tt.events {
				switch e {
				case 'i':
					if tt.long {
						// The governor expects a tick or more,
						// whatever the hand-driven periods
						// (which take no time) taught it:
						// eight idles of ten ticks, and this
						// sleep ten ticks long.
						for range 8 {
							loc.gov.Select(w.tickNs, -1, true)
							loc.gov.Woke(10*w.tickNs, false)
						}
						loc.clock.Advance(10 * w.tickNs)
					}
					w.idleEntry(c, rq, loc)
				case 'b':
					if loc.idling {
						w.idleExit(c, rq, loc)
					}
				case 't':
					w.schedulerTick(c, rq)
				}
				if tt.update == "always" && bit() != (rq.state.Load() == rqIdle) {
					t.Errorf("update=always: after event %d (%c) the bit is %v, the cpu state %d", i, e, bit(), rq.state.Load())
				}
			}
			if w.writes != tt.writes || bit() != tt.bit {
				t.Errorf("after %q: %d writes, bit %v; want %d, %v", tt.events, w.writes, bit(), tt.writes, tt.bit)
			}
			w.schedulerTick(c, rq)
			if w.writes != tt.flushed {
				t.Errorf("after %q and a tick: %d writes, want %d", tt.events, w.writes, tt.flushed)
			}
			if tt.update != "none" && (tt.update != "tickstop" || tt.long) && bit() != (rq.state.Load() == rqIdle) {
				t.Errorf("after %q and a tick: bit %v, cpu state %d; the tick must leave the mask exact", tt.events, bit(), rq.state.Load())
			}
		})
	}
}

// The governor of update=tickstop learns from the idle periods it sees
// (menu's get_typical_interval() over the last eight): one idle of ten
// ticks among short ones is an outlier and the tick is kept; after eight
// of them in a row the typical interval is ten ticks, so the next idle entry stops
// the tick and v5 sets the bit; three short periods then give a typical
// interval under a tick again (the long ones dropped as outliers).
func TestIdleMaskTickStopLearns(t *testing.T) {
	s, ws := setup(t, "update=tickstop/llc=1/busy=100/tick=1", 1)
	w, rq, loc := ws[0], ws[0].rqs[0], &ws[0].local[0]
	bit := func() bool { return s.llcs[0].mask[0].Load()&1 != 0 }
	idleFor := func(ticks int64) {
		w.idleEntry(0, rq, loc)
		loc.clock.Advance(ticks * w.tickNs)
		w.idleExit(0, rq, loc)
	}
	w.idleEntry(0, rq, loc)
	if bit() || loc.tickStopped {
		t.Fatalf("first idle entry with no history: bit %v, tick stopped %v; want neither", bit(), loc.tickStopped)
	}
	loc.clock.Advance(10 * w.tickNs)
	w.idleExit(0, rq, loc)
	w.idleEntry(0, rq, loc)
	if bit() || loc.tickStopped {
		t.Errorf("after one idle of ten ticks among zeros: bit %v, tick stopped %v; want neither (an outlier)", bit(), loc.tickStopped)
	}
	w.idleExit(0, rq, loc) // an idle of no time: a short interval
	for range 8 {
		idleFor(10)
	}
	w.idleEntry(0, rq, loc)
	if !bit() || !loc.tickStopped || rq.last != 1 {
		t.Errorf("after eight idles of ten ticks: bit %v, tick stopped %v, last %d; want the bit set", bit(), loc.tickStopped, rq.last)
	}
	w.idleExit(0, rq, loc)
	w.schedulerTick(0, rq)
	for range 3 {
		idleFor(0)
	}
	w.schedulerTick(0, rq)
	if bit() || loc.tickStopped {
		t.Errorf("after short idle periods: bit %v, tick stopped %v; want the tick kept and the bit clear", bit(), loc.tickStopped)
	}
}

// Each simulated CPU's clock moves by one event's share of a tick, and its
// tick comes every tick= events of its own, at either HZ.
func TestIdleMaskKernelClock(t *testing.T) {
	for _, tt := range []struct {
		variant string
		tickNs  int64
		gap     int64
	}{
		{"tick=100/hz=1000", 1_000_000, 10_000},
		{"tick=100/hz=250", 4_000_000, 40_000},
		{"tick=3/hz=1000", 1_000_000, 333_333},
	} {
		_, ws := setup(t, "update=always/busy=50/wake=0/llc=4/"+tt.variant, 1)
		w := ws[0]
		if w.tickNs != tt.tickNs || w.gap != tt.gap {
			t.Errorf("%s: tick %d ns, event %d ns; want %d, %d", tt.variant, w.tickNs, w.gap, tt.tickNs, tt.gap)
		}
		first := make([]int64, 4)
		for i := range first {
			first[i] = w.local[i].nextTick
		}
		const rounds = 1000
		w.Run(4 * rounds) // rounds events on each of the 4 CPUs
		for i, loc := range w.local {
			if loc.clock.Now() != rounds*tt.gap {
				t.Errorf("%s: cpu %d clock %d, want %d", tt.variant, i, loc.clock.Now(), rounds*tt.gap)
			}
			ticks := (loc.nextTick - first[i]) / tt.tickNs
			if want := (rounds*tt.gap-first[i])/tt.tickNs + 1; ticks != want {
				t.Errorf("%s: cpu %d ticked %d times in %d ns, want %d", tt.variant, i, ticks, loc.clock.Now(), want)
			}
		}
	}
}

// The idlemask's Idle, as ksim.SelectIdleCPU reads it: a CPU with a woken
// task queued is not idle. (The loop and the SIS_PROP budget are ksim's,
// tested there.)
func TestIdleMaskIdle(t *testing.T) {
	w := &worker{rqs: []*runqueue{new(runqueue), new(runqueue), new(runqueue)}}
	w.rqs[0].state.Store(rqIdle)
	w.rqs[1].state.Store(rqWoken)
	w.rqs[2].state.Store(rqBusy)
	for c, want := range []bool{true, false, false} {
		if got := w.Idle(c); got != want {
			t.Errorf("Idle(%d) = %v, want %v", c, got, want)
		}
	}
	cpus := []uint64{0b111}
	if cpu, probes, _ := ksim.SelectIdleCPU(cpus, w, 1, ksim.NoBudget); cpu != 0 || probes != 3 {
		t.Errorf("SelectIdleCPU from cpu 1 over idle 0, woken 1, busy 2 = cpu %d, %d probes; want 0, 3", cpu, probes)
	}
}

// A wakeup's score: probes, found, stale candidates, and misses caught by the
// audit, against a mask made stale by hand.
func TestIdleMaskWakeupScores(t *testing.T) {
	tests := []struct {
		scan   string
		mask   []int
		idle   []int
		probes int64
		found  int64
		stale  int64
		missed int64
	}{
		{"mask", []int{2, 3, 5}, []int{5}, 3, 1, 1, 0}, // 2 and 3 are stale
		{"mask", []int{5}, []int{5}, 1, 1, 0, 0},       // exact
		{"mask", []int{0, 5}, []int{0, 5}, 1, 1, 0, 0}, // the waker (0) is no candidate
		{"mask", []int{2}, []int{5}, 1, 0, 1, 0},       // stale, and 5 missed: wrong once
		{"mask", nil, []int{5}, 0, 0, 0, 1},            // missed only
		{"mask", nil, nil, 0, 0, 0, 0},                 // nothing idle: a right "none"
		{"all", []int{2, 3, 5}, []int{5}, 5, 1, 0, 0},  // 1..5, the mask unread
		{"all", nil, nil, 7, 0, 0, 0},                  // every other CPU
	}
	for _, tt := range tests {
		s, ws := setup(t, "update=laststate/sis=none/busy=100/llc=8/scan="+tt.scan, 1)
		s.workers[0].auditEvery = 1
		w := ws[0]
		llc := s.llcs[0]
		for _, c := range tt.mask {
			llc.mask[0].Or(1 << c)
		}
		for _, c := range tt.idle {
			llc.rqs[c].state.Store(rqIdle)
		}
		w.wakeup(0, &w.local[0])
		got := []int64{w.probes, w.found, w.placed, w.staleWakeups, w.missed, w.wakeups}
		want := []int64{tt.probes, tt.found, tt.found, tt.stale, tt.missed, 1}
		if !slices.Equal(got, want) {
			t.Errorf("scan=%s, mask %v, idle %v: probes, found, placed, stale, missed, wakeups = %v, want %v",
				tt.scan, tt.mask, tt.idle, got, want)
		}
		res := &bench.Result{Ops: 0}
		w.events = 0
		s.update = updateNone // the hand-made mask is inconsistent on purpose
		if err := s.Finish(res); err != nil {
			t.Fatal(err)
		}
		wrong := 0.0
		if tt.stale+tt.missed > 0 {
			wrong = 100
		}
		if got := benchtest.Metric(t, res, Wrong); got != wrong {
			t.Errorf("scan=%s, mask %v, idle %v: wrong-%% = %v, want %v", tt.scan, tt.mask, tt.idle, got, wrong)
		}
	}
}

// The woken task is placed on the CPU found: that CPU is busy from then on,
// while its bit stays set until its tick, so the next search the mask sends
// there finds it busy. Without placement the second wakeup would find the
// same CPU idle again and nothing would ever look stale.
func TestIdleMaskPlacementMakesStaleBits(t *testing.T) {
	for _, update := range []string{"laststate", "tick", "always"} {
		s, ws := setup(t, "update="+update+"/sis=none/busy=100/llc=8", 1)
		w, llc := ws[0], s.llcs[0]
		// CPU 5 goes idle by its own hooks, so the mask holds it.
		w.idleEntry(5, llc.rqs[5], &w.local[5])
		w.wakeup(0, &w.local[0])
		if w.found != 1 || w.placed != 1 || llc.rqs[5].state.Load() != rqWoken {
			t.Fatalf("update=%s: first wakeup: found %d, placed %d, cpu 5 state %d; want cpu 5 found and woken",
				update, w.found, w.placed, llc.rqs[5].state.Load())
		}
		w.wakeup(0, &w.local[0])
		stale, bit := w.staleWakeups, llc.mask[0].Load()>>5&1 != 0
		switch update {
		case "always":
			// The exact mask: the waker cleared the bit as it placed.
			if stale != 0 || bit || w.probes != 1 {
				t.Errorf("update=always: second wakeup: %d stale, bit %v, %d probes in all; want the bit gone and no probe", stale, bit, w.probes)
			}
		default:
			if stale != 1 || !bit || w.found != 1 || w.probes != 2 {
				t.Errorf("update=%s: second wakeup: %d stale, bit %v, found %d, %d probes in all; want the stale bit probed and nothing found",
					update, stale, bit, w.found, w.probes)
			}
		}
		// Its owner's next event runs the woken task: an idle exit.
		// The tick then clears the stale bit.
		w.cur = 5
		w.busyT, w.wakeT = 1<<32, 0 // every event busy
		w.Run(1)
		if llc.rqs[5].state.Load() != rqBusy || w.local[5].idling {
			t.Errorf("update=%s: after cpu 5's next event: state %d, idling %v; want busy", update, llc.rqs[5].state.Load(), w.local[5].idling)
		}
		w.schedulerTick(5, llc.rqs[5])
		if llc.mask[0].Load()>>5&1 != 0 {
			t.Errorf("update=%s: the tick left cpu 5's stale bit", update)
		}
	}
}

// SIS_PROP in a wakeup: a waker whose avg_idle is short gets nr=4 and probes
// three CPUs of a full scan, and the cut-short scan leaves avg_scan_cost
// alone; a completed scan feeds it.
func TestIdleMaskBudget(t *testing.T) {
	s, ws := setup(t, "update=always/scan=all/busy=100/llc=48", 1)
	w, loc := ws[0], &ws[0].local[0]
	s.llcs[0].rqs[40].state.Store(rqIdle)
	loc.avgIdle, loc.avgScanCost = 10_000, 300 // nr = 4
	w.wakeup(0, loc)
	if w.probes != 3 || w.found != 0 || w.budgetOut != 1 || loc.avgScanCost != 300 {
		t.Errorf("nr=4 over 47 busy-first candidates: %d probes, found %d, out %d, avg_scan_cost %d; want 3, 0, 1, 300 (unchanged)",
			w.probes, w.found, w.budgetOut, loc.avgScanCost)
	}
	loc.avgIdle = 1_000_000 // nr = 311: the scan reaches cpu 40
	w.wakeup(0, loc)
	if w.found != 1 || w.budgetOut != 1 || w.probes != 3+40 {
		t.Errorf("nr=311: found %d, out %d, probes %d; want cpu 40 found after 40 probes", w.found, w.budgetOut, w.probes)
	}
	if want := int64(300 + (40*testScanNs-300)/8); loc.avgScanCost != want {
		t.Errorf("after a 40-probe scan: avg_scan_cost %d, want %d", loc.avgScanCost, want)
	}
	// The mask search finds the idle CPU on its first probe even at nr=4:
	// the gain the patch is for.
	s, ws = setup(t, "update=always/scan=mask/busy=100/llc=48", 1)
	w, loc = ws[0], &ws[0].local[0]
	w.idleEntry(40, s.llcs[0].rqs[40], &w.local[40])
	loc.avgIdle, loc.avgScanCost = 10_000, 300
	w.wakeup(0, loc)
	if w.probes != 1 || w.found != 1 || w.budgetOut != 0 {
		t.Errorf("scan=mask at nr=4: %d probes, found %d, out %d; want 1, 1, 0", w.probes, w.found, w.budgetOut)
	}
}

// The idle periods an exit ends feed rq->avg_idle, capped at 1 ms.
func TestIdleMaskAvgIdle(t *testing.T) {
	_, ws := setup(t, "update=laststate/busy=100/llc=1", 1)
	w, rq, loc := ws[0], ws[0].rqs[0], &ws[0].local[0]
	if loc.avgIdle != avgIdleMax {
		t.Fatalf("avg_idle starts at %d, want 2*sysctl_sched_migration_cost = %d", loc.avgIdle, avgIdleMax)
	}
	w.idleEntry(0, rq, loc)
	loc.clock.Advance(200_000)
	w.idleExit(0, rq, loc)
	if want := int64(1_000_000 - 100_000); loc.avgIdle != want {
		t.Errorf("after 200 us idle: avg_idle %d, want %d", loc.avgIdle, want)
	}
	w.idleEntry(0, rq, loc)
	loc.clock.Advance(50_000_000)
	w.idleExit(0, rq, loc)
	if loc.avgIdle != avgIdleMax {
		t.Errorf("after 50 ms idle: avg_idle %d, want the cap %d", loc.avgIdle, avgIdleMax)
	}
}

// The mask after a run, driven deterministically by one worker: exact for
// always; for laststate and tick a superset of the idle CPUs, stale (busy CPUs
// still in it) until a quiescent flush, and exact after it; for tickstop,
// at busy=90 with idle periods far shorter than a tick, nearly empty.
func TestIdleMaskStaleUntilTick(t *testing.T) {
	for _, update := range []string{"always", "laststate", "tick", "tickstop"} {
		t.Run("update="+update, func(t *testing.T) {
			s, ws := setup(t, "update="+update+"/busy=90/wake=10/llc=48/tick=100", 1)
			ws[0].Run(20_000)
			if err := s.check(); err != nil {
				t.Fatal(err)
			}
			busyInMask, idleMissing := stale(s)
			switch update {
			case "always":
				if len(busyInMask)+len(idleMissing) > 0 {
					t.Errorf("update=always: busy cpus %v in the mask, idle %v missing", busyInMask, idleMissing)
				}
			case "tickstop":
				if len(idleMissing) == 0 || ws[0].writes != 0 {
					t.Errorf("update=tickstop: %d writes, idle cpus missing %v: want no tick ever stopped at 10 us idle periods", ws[0].writes, idleMissing)
				}
				return
			default:
				if len(idleMissing) > 0 {
					t.Errorf("idle cpus %v are missing from the mask", idleMissing)
				}
				if len(busyInMask) == 0 {
					t.Errorf("update=%s: no busy cpu in the mask before the tick; the model should show the staleness", update)
				}
			}
			flush(s)
			if busyInMask, idleMissing = stale(s); len(busyInMask)+len(idleMissing) > 0 {
				t.Errorf("after a flush: busy in mask %v, idle missing %v; want an exact mask", busyInMask, idleMissing)
			}
		})
	}
}

// The counts behind the claims, deterministic for a fixed seed: the
// filter and the tick make laststate write less than always (by far at
// busy=50 and 90; the gap closes as idle entries get rare), and a mask
// that is exact probes far fewer runqueues than the full scan when most CPUs
// are busy. These are counts, not times.
func TestIdleMaskCounts(t *testing.T) {
	run := func(variant string) counts {
		_, ws := setup(t, variant, 2)
		for range 10 {
			ws[0].Run(2000)
			ws[1].Run(2000)
		}
		var c counts
		c.add(&ws[0].counts)
		c.add(&ws[1].counts)
		return c
	}
	for _, busy := range []string{"50", "90", "99"} {
		always := run("update=always/busy=" + busy)
		last := run("update=laststate/busy=" + busy)
		tick := run("update=tick/busy=" + busy)
		if !(last.writes*2 < always.writes && last.writes < tick.writes) {
			t.Errorf("busy=%s: writes always %d, laststate %d, tick %d: want laststate under half of always and under tick",
				busy, always.writes, last.writes, tick.writes)
		}
		t.Logf("busy=%s: writes always %d, laststate %d, tick %d", busy, always.writes, last.writes, tick.writes)
	}
	// Without the budget, so that the full scan can find what the exact
	// mask finds.
	mask := run("update=always/scan=mask/sis=none/busy=90")
	all := run("update=always/scan=all/sis=none/busy=90")
	if mask.probes*3 > all.probes {
		t.Errorf("busy=90: probes scan=mask %d, scan=all %d: want the exact mask under a third", mask.probes, all.probes)
	}
	if mask.found != all.found {
		// Same seeds, same events: the exact mask finds exactly when
		// the full scan does.
		t.Errorf("busy=90: found scan=mask %d, scan=all %d; an exact mask must find an idle cpu whenever there is one", mask.found, all.found)
	}
}

// Runs are reproducible: the same variant and worker gives the same counts.
func TestIdleMaskDeterministic(t *testing.T) {
	_, a := setup(t, "update=tick/busy=70/wake=30", 1)
	_, b := setup(t, "update=tick/busy=70/wake=30", 1)
	a[0].Run(5000)
	b[0].Run(5000)
	if a[0].counts != b[0].counts {
		t.Errorf("two runs of the same worker: %+v and %+v", a[0].counts, b[0].counts)
	}
}

// Finish must reject a mask that breaks the policy's invariant.
func TestIdleMaskFinishChecks(t *testing.T) {
	tests := []struct {
		update string
		spoil  func(s *idleMask, idle, busy int)
		want   string
	}{
		{"always", func(s *idleMask, idle, busy int) { s.llcs[0].mask[0].Or(1 << busy) }, "mask bit true, cpu idle false"},
		{"always", func(s *idleMask, idle, busy int) { s.llcs[0].mask[0].And(^uint64(1 << idle)) }, "mask bit false, cpu idle true"},
		{"always", func(s *idleMask, idle, busy int) { s.llcs[0].rqs[idle].state.Store(rqPlacing) }, "a waker still holds the runqueue"},
		{"laststate", func(s *idleMask, idle, busy int) { s.llcs[0].mask[0].And(^uint64(1 << idle)) }, "is idle but not in the mask"},
		{"tick", func(s *idleMask, idle, busy int) { s.llcs[0].mask[0].And(^uint64(1 << idle)) }, "is idle but not in the mask"},
		{"laststate", func(s *idleMask, idle, busy int) { s.llcs[0].rqs[busy].last = 1 }, "last_idle_state 1"},
		{"tickstop", func(s *idleMask, idle, busy int) { s.llcs[0].rqs[busy].last = 1 }, "last_idle_state 1"},
		{"tickstop", func(s *idleMask, idle, busy int) { s.local(0, idle).tickStopped = true }, "idle with its tick stopped but not in the mask"},
	}
	for _, tt := range tests {
		s, ws := setup(t, "update="+tt.update+"/busy=50/llc=16", 1)
		ws[0].Run(100)
		flush(s)
		idle, busy := -1, -1
		for c, rq := range s.llcs[0].rqs {
			if rq.state.Load() == rqIdle {
				idle = c
			} else {
				busy = c
			}
		}
		if idle < 0 || busy < 0 {
			t.Fatalf("want an idle and a busy cpu at busy=50, got idle %d busy %d", idle, busy)
		}
		if err := s.Finish(&bench.Result{Ops: 100}); err != nil {
			t.Fatalf("update=%s: Finish on a consistent mask: %v", tt.update, err)
		}
		tt.spoil(s, idle, busy)
		if err := s.Finish(&bench.Result{Ops: 100}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("update=%s: Finish on a spoiled mask: error = %v, want one containing %q", tt.update, err, tt.want)
		}
	}
	s, ws := setup(t, "", 1)
	ws[0].Run(10)
	if err := s.Finish(&bench.Result{Ops: 11}); err == nil || !strings.Contains(err.Error(), "10 events") {
		t.Errorf("Finish with a wrong op count: error = %v, want one naming the 10 events", err)
	}
}

func TestIdleMaskDoesNotAllocate(t *testing.T) {
	for _, v := range []string{"update=always/scan=mask/wake=50", "update=laststate/scan=all/wake=50/llc=200", "update=tickstop/wake=50",
		"update=laststate/wake=50/early=on/prev=history/smt=2/kthread=50"} {
		_, ws := setup(t, v, 1)
		ws[0].scanNs = 0 // the timed scans too
		if allocs := testing.AllocsPerRun(20, func() { ws[0].Run(1000) }); allocs != 0 {
			t.Errorf("%s: Run(1000) allocates %v times, want 0", v, allocs)
		}
	}
}

// Through the pinned runner with two workers writing one mask word and
// reading each other's runqueues: the race detector checks the shared words
// are only touched atomically, and Finish checks each policy's invariant.
func TestIdleMaskRun(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	ops := int64(200_000)
	if testing.Short() {
		ops = 40_000
	}
	for _, v := range []string{
		"update=always/scan=mask/busy=50/wake=30/tick=10",
		"update=laststate/scan=mask/busy=50/wake=30/tick=10",
		"update=tick/scan=mask/busy=50/wake=30/tick=10/llc=130",
		"update=none/scan=all/busy=50/wake=30/llc=3",
		"update=tickstop/scan=mask/busy=20/wake=30/tick=1/hz=250",
		"update=always/scan=all/sis=none/busy=90/wake=50",
		"update=always/scan=mask/busy=50/wake=30/tick=10/early=on",
		"update=laststate/scan=mask/busy=50/wake=30/tick=10/early=on/probe=50",
		"update=tickstop/scan=mask/busy=50/wake=30/tick=10/early=on/prev=history",
		"update=laststate/scan=mask/busy=50/wake=30/tick=10/early=on/smt=2/kthread=30/prev=history",
	} {
		t.Run(v, func(t *testing.T) {
			s := benchtest.New(t, "idlemask", v)
			res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: ops})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("writes/op %.3f scanned/op %.3f found %.1f%% wrong %.1f%% budget-out %.1f%%", benchtest.Metric(t, res, MaskWrites),
				benchtest.Metric(t, res, CPUsScanned), benchtest.Metric(t, res, FoundIdle), benchtest.Metric(t, res, Wrong),
				benchtest.Metric(t, res, BudgetOut))
		})
	}
}

// The shared words and the runqueue lines sit alone on their lines.
func TestIdleMaskLayout(t *testing.T) {
	var rq runqueue
	if off, size := unsafe.Offsetof(rq.state), unsafe.Sizeof(rq); off < bench.LinePad || size-off < bench.LinePad {
		t.Errorf("runqueue: state at %d of %d bytes, want %d bytes of pad on each side", off, size, bench.LinePad)
	}
	var w worker
	if off := unsafe.Offsetof(w.counts); off != bench.LinePad {
		t.Errorf("worker: first field at %d, want %d", off, bench.LinePad)
	}
	if tail := unsafe.Sizeof(w) - (unsafe.Offsetof(w.sisProp) + unsafe.Sizeof(w.sisProp)); tail < bench.LinePad {
		t.Errorf("worker: %d bytes after the last field, want at least %d", tail, bench.LinePad)
	}
	for _, width := range []int{1, 64, 65, 4096} {
		llc := newSharedLLC(width)
		first := uintptr(unsafe.Pointer(&llc.mask[0]))
		start := uintptr(unsafe.Pointer(&llc.buf[0]))
		end := uintptr(unsafe.Pointer(unsafe.SliceData(llc.buf))) + uintptr(len(llc.buf))*8
		last := uintptr(unsafe.Pointer(&llc.mask[len(llc.mask)-1])) + 8
		if first-start < bench.LinePad || end-last < bench.LinePad || len(llc.mask) != (width+63)/64 {
			t.Errorf("newSharedLLC(%d): %d words with %d bytes before and %d after, want %d words padded by %d",
				width, len(llc.mask), first-start, end-last, (width+63)/64, bench.LinePad)
		}
	}
}

func FuzzIdleMaskVariant(f *testing.F) {
	for _, seed := range []string{
		"", "update=always", "update=none/scan=all", "update=none", "busy=101", "llc=0", "tick=0",
		"wake=100/busy=0", "llc=4096/tick=1", "a=b/c", "scan=all/scan=mask",
		"update=tickstop/sis=none/hz=250", "sis=x", "hz=100", "update=tickstop/nohz=counter", "nohz=weight",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, variant string) {
		s, err := newIdleMask(variant)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "idlemask: ") {
				t.Errorf("newIdleMask(%q) error is not one line naming the scenario: %q", variant, err)
			}
			return
		}
		again, err := newIdleMask(s.Variant())
		if err != nil || again.Variant() != s.Variant() {
			t.Errorf("newIdleMask(%q).Variant() = %q, which parses to %v, %v", variant, s.Variant(), again, err)
		}
	})
}

// Issue 28, forced: under update=always a waker claims an idle CPU for its
// task and, before its clear of the CPU's mask bit lands, the CPU's owner
// takes an event on it. Had the claim published the queued task at once, the
// owner would run it and go idle again (setting its bit), and the waker's
// late clear would leave an idle CPU out of the exact mask: "llc 0 cpu 0:
// mask bit false, cpu idle true after the run". The hooks stop the waker
// between its claim and its clear, run the owner's event, and let the waker
// go on only once the owner has finished its event or is waiting for the
// runqueue, so the interleaving is the same on every run; the race detector
// checks the rest. The check must pass after each step.
func TestIdleMaskAlwaysPlacementRace(t *testing.T) {
	tests := []struct {
		name  string
		busy  string // the owner's draw: 0 goes (stays) idle, 100 runs a task
		waits bool   // the owner's event must wait for the waker
	}{
		// The event sees the runqueue held, not a queued task: it
		// re-enters idle, and the task runs at the next event.
		{"owner-reenters-idle", "0", false},
		// Switching to a task of its own needs the runqueue.
		{"owner-runs-own-task", "100", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ws := setup(t, "update=always/scan=mask/sis=none/wake=0/llc=2/busy="+tt.busy, 2)
			owner, waker := ws[0], ws[1]
			for _, w := range ws {
				for i := range w.local {
					w.local[i].nextTick = math.MaxInt64 // no tick repairs the mask
				}
			}
			const c = 0
			if rq := owner.rqs[c]; !owner.local[c].idling {
				owner.idleEntry(c, rq, &owner.local[c])
			}
			if err := s.check(); err != nil || owner.rqs[c].state.Load() != rqIdle {
				t.Fatalf("before the wakeup: cpu %d state %d, check: %v; want idle and a consistent mask", c, owner.rqs[c].state.Load(), err)
			}

			claimed, resume, held := make(chan struct{}), make(chan struct{}), make(chan struct{})
			waker.placeHook = func(int) { close(claimed); <-resume }
			owner.heldHook = func() { close(held) }
			placed, ran := make(chan struct{}), make(chan struct{})
			go func() { defer close(placed); waker.place(c) }()
			<-claimed
			go func() { defer close(ran); owner.Run(1) }()
			waited := false
			select {
			case <-ran: // the owner's event did not need the runqueue
			case <-held: // it waits for the waker, as on rq->lock
				waited = true
			}
			close(resume)
			<-placed
			<-ran
			if err := s.check(); err != nil {
				t.Fatalf("after the racing event: %v", err)
			}
			if waker.placed != 1 || waited != tt.waits {
				t.Errorf("the waker placed %d tasks, want 1; the owner waited for the runqueue: %v, want %v", waker.placed, waited, tt.waits)
			}
			// The owner's next event runs the task if it has not yet;
			// then no task is queued and the mask must be exact.
			owner.Run(1)
			if err := s.check(); err != nil {
				t.Fatal(err)
			}
			if busyIn, idleOut := stale(s); len(busyIn)+len(idleOut) > 0 || owner.rqs[c].state.Load() == rqWoken {
				t.Errorf("after the owner's next event: busy cpus in the mask %v, idle cpus out of it %v, cpu %d state %d", busyIn, idleOut, c, owner.rqs[c].state.Load())
			}
		})
	}
}
