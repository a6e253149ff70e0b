package idlemask

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// imSetup builds an idlemask scenario and its workers without the runner or a
// topology (so all workers are of one real LLC): a test can drive events and
// hooks itself, deterministically.
func imSetup(t testing.TB, variant string, workers int) (*idleMask, []*imWorker) {
	t.Helper()
	s := benchtest.StartUnpinned[*idleMask](t, "idlemask", variant, workers)
	return s, s.workers
}

// imFlush is a quiescent flush: one scheduler tick on every simulated CPU,
// with no events in between.
func imFlush(s *idleMask) {
	for _, w := range s.workers {
		for c := w.lo; c < w.hi; c++ {
			w.schedulerTick(c, w.rqs[c])
		}
	}
}

// imStale returns the CPUs of simulated LLC 0 whose mask bit disagrees with
// their runqueue: busy CPUs in the mask, and idle CPUs missing from it.
func imStale(s *idleMask) (busyInMask, idleMissing []int) {
	llc := s.llcs[0]
	for c, rq := range llc.rqs {
		bit := llc.mask[c/64].Load()>>(c%64)&1 != 0
		idle := rq.idle.Load() != 0
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
	const def = "update=laststate/scan=mask/busy=90/wake=10/llc=48/tick=100"
	tests := [][2]string{
		{"", def},
		{"update=always", "update=always/scan=mask/busy=90/wake=10/llc=48/tick=100"},
		{"tick=1/llc=1/wake=0/busy=0/scan=all/update=none", "update=none/scan=all/busy=0/wake=0/llc=1/tick=1"},
		{"busy=100/wake=100/llc=4096/tick=1000000", "update=laststate/scan=mask/busy=100/wake=100/llc=4096/tick=1000000"},
		{"update=lazy", `!unknown update "lazy" (want always, laststate, tick, none)`},
		{"scan=idle", `!unknown scan "idle" (want mask, all)`},
		{"update=none", "!update=none keeps no mask for scan=mask to read"},
		{"busy=101", "!busy=101 out of range [0, 100]"},
		{"busy=-1", "!busy=-1 out of range [0, 100]"},
		{"busy=90%", `!busy="90%" is not an integer`},
		{"wake=101", "!wake=101 out of range [0, 100]"},
		{"llc=0", "!llc=0 out of range [1, 4096]"},
		{"llc=4097", "!llc=4097 out of range [1, 4096]"},
		{"tick=0", "!tick=0 out of range [1, 1000000]"},
		{"tick=x", `!tick="x" is not an integer`},
		{"hz=250", `!unknown variant key "hz"`},
		{"scan", "!malformed variant part"},
	}
	benchtest.CheckVariants(t, "idlemask", tests)
}

func TestIMPlan(t *testing.T) {
	tests := []struct {
		real  []int
		width int
		want  []imShare
		nllc  int
	}{
		{[]int{-1}, 48, []imShare{{0, 0, 48}}, 1},
		{[]int{-1, -1}, 48, []imShare{{0, 0, 24}, {0, 24, 48}}, 1},
		{[]int{0, 0, 0}, 48, []imShare{{0, 0, 16}, {0, 16, 32}, {0, 32, 48}}, 1},
		{[]int{0, 0}, 3, []imShare{{0, 0, 1}, {0, 1, 3}}, 1},
		{[]int{0}, 1, []imShare{{0, 0, 1}}, 1},
		// Two real LLCs never share a mask.
		{[]int{0, 1, 0, 1}, 48, []imShare{{0, 0, 24}, {1, 0, 24}, {0, 24, 48}, {1, 24, 48}}, 2},
		// More workers than llc=: one CPU each over several simulated LLCs.
		{[]int{0, 0, 0}, 2, []imShare{{0, 0, 2}, {1, 0, 1}, {1, 1, 2}}, 2},
		{[]int{5, 5, 5, 5, 5}, 1, []imShare{{0, 0, 1}, {1, 0, 1}, {2, 0, 1}, {3, 0, 1}, {4, 0, 1}}, 5},
	}
	for _, tt := range tests {
		got, n := imPlan(tt.real, tt.width)
		if !slices.Equal(got, tt.want) || n != tt.nllc {
			t.Errorf("imPlan(%v, %d) = %v, %d; want %v, %d", tt.real, tt.width, got, n, tt.want, tt.nllc)
		}
	}
	// Every simulated CPU has exactly one owner, whatever the shape.
	for workers := 1; workers <= 9; workers++ {
		for width := 1; width <= 11; width++ {
			real := make([]int, workers)
			for i := range real {
				real[i] = i % 3
			}
			shares, n := imPlan(real, width)
			owners := make([][]int, n)
			for i := range owners {
				owners[i] = make([]int, width)
			}
			for _, sh := range shares {
				if sh.hi <= sh.lo {
					t.Errorf("imPlan(%v, %d): empty share %v", real, width, sh)
				}
				for c := sh.lo; c < sh.hi; c++ {
					owners[sh.llc][c]++
				}
			}
			for l, os := range owners {
				for c, k := range os {
					if k != 1 {
						t.Errorf("imPlan(%v, %d): llc %d cpu %d has %d owners", real, width, l, c, k)
					}
				}
			}
		}
	}
}

// The hooks, one CPU driven by hand: idle entries (i), busy events (b, an
// idle exit when the CPU was idle) and ticks (t). The write counts are the
// policies' definitions; the final bit shows which are stale until a tick.
func TestIdleMaskHooks(t *testing.T) {
	tests := []struct {
		update  string
		events  string
		writes  int64
		bit     bool  // the mask bit after the events
		flushed int64 // writes after a further tick
	}{
		// Three idle entries, an exit, a tick, another idle period.
		{"always", "iiibtib", 7, false, 8},
		{"laststate", "iiibtib", 3, true, 4},
		{"tick", "iiibtib", 5, true, 6},
		{"none", "iiibtib", 0, false, 0},
		// A tick that finds the CPU idle: only always writes for it.
		{"always", "it", 2, true, 3},
		{"laststate", "it", 1, true, 1},
		{"tick", "it", 1, true, 1},
		// Busy ticks with the bit already clear: the filter saves them.
		{"always", "ttt", 3, false, 4},
		{"laststate", "ttt", 0, false, 0},
		{"tick", "ttt", 3, false, 4},
		// Long idle with many re-entries: uperf's "80 times between two ticks".
		{"always", strings.Repeat("i", 80) + "b", 81, false, 82},
		{"laststate", strings.Repeat("i", 80) + "b", 1, true, 2},
		{"tick", strings.Repeat("i", 80) + "b", 80, true, 81},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("update=%s/events=%.8s", tt.update, tt.events), func(t *testing.T) {
			scan := "mask"
			if tt.update == "none" {
				scan = "all"
			}
			s, ws := imSetup(t, "update="+tt.update+"/scan="+scan+"/llc=2/busy=100", 1)
			w, c := ws[0], 0
			rq := w.rqs[c]
			if rq.idle.Load() != 0 || s.llcs[0].mask[0].Load() != 0 {
				t.Fatal("busy=100 should start every CPU busy with an empty mask")
			}
			bit := func() bool { return s.llcs[0].mask[0].Load()&1 != 0 }
			for i, e := range tt.events {
				switch e {
				case 'i':
					w.idleEntry(c, rq)
				case 'b':
					if rq.idle.Load() != 0 {
						w.idleExit(c, rq)
					}
				case 't':
					w.schedulerTick(c, rq)
				}
				if tt.update == "always" && bit() != (rq.idle.Load() != 0) {
					t.Errorf("update=always: after event %d (%c) the bit is %v, the cpu idle %v", i, e, bit(), rq.idle.Load() != 0)
				}
			}
			if w.writes != tt.writes || bit() != tt.bit {
				t.Errorf("after %q: %d writes, bit %v; want %d, %v", tt.events, w.writes, bit(), tt.writes, tt.bit)
			}
			w.schedulerTick(c, rq)
			if w.writes != tt.flushed {
				t.Errorf("after %q and a tick: %d writes, want %d", tt.events, w.writes, tt.flushed)
			}
			if tt.update != "none" && bit() != (rq.idle.Load() != 0) {
				t.Errorf("after %q and a tick: bit %v, cpu idle %v; the tick must leave the mask exact", tt.events, bit(), rq.idle.Load() != 0)
			}
		})
	}
}

func TestSelectIdleCPU(t *testing.T) {
	const width = 130 // three words: boundaries at 63/64 and 127/128
	mk := func(cpus ...int) []uint64 {
		w := make([]uint64, 3)
		for _, c := range cpus {
			w[c/64] |= 1 << (c % 64)
		}
		return w
	}
	rqs := make([]*imCPU, width)
	for i := range rqs {
		rqs[i] = new(imCPU)
	}
	tests := []struct {
		cands  []int
		idle   []int
		target int
		cpu    int
		probes int
	}{
		{[]int{1, 63, 64, 129}, []int{1, 129}, 100, 129, 1},
		{[]int{1, 63, 64, 129}, []int{1, 129}, 0, 1, 1},
		{[]int{1, 63, 64, 129}, []int{1, 129}, 2, 129, 3},
		{[]int{1, 63, 64, 129}, []int{1}, 2, 1, 4},     // wraps
		{[]int{1, 63, 64, 129}, nil, 64, -1, 4},        // none idle: every candidate once
		{[]int{1, 63, 64, 129}, []int{63}, 64, 63, 4},  // the target's word, below the target, last
		{[]int{1, 63, 64, 129}, []int{64}, 64, 64, 1},  // the target itself first
		{[]int{128}, []int{128}, 129, 128, 1},          // wrap into the last word
		{nil, []int{5}, 7, -1, 0},                      // no candidates, no probes
		{[]int{2, 5, 7}, []int{2, 5, 7}, 127, 2, 1},    // from 127 the wrap starts at 0
		{[]int{0, 127, 128}, []int{0, 127}, 128, 0, 2}, // 128 busy, wrap to 0
	}
	for _, tt := range tests {
		for _, rq := range rqs {
			rq.idle.Store(0)
		}
		for _, c := range tt.idle {
			rqs[c].idle.Store(1)
		}
		cpu, probes := selectIdleCPU(mk(tt.cands...), rqs, tt.target)
		if cpu != tt.cpu || probes != tt.probes {
			t.Errorf("selectIdleCPU(%v, idle %v, target %d) = %d, %d probes; want %d, %d",
				tt.cands, tt.idle, tt.target, cpu, probes, tt.cpu, tt.probes)
		}
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
		s, ws := imSetup(t, "update=laststate/busy=100/llc=8/scan="+tt.scan, 1)
		s.workers[0].auditEvery = 1
		w := ws[0]
		llc := s.llcs[0]
		for _, c := range tt.mask {
			llc.mask[0].Or(1 << c)
		}
		for _, c := range tt.idle {
			llc.rqs[c].idle.Store(1)
		}
		w.wakeup(0)
		got := []int64{w.probes, w.found, w.staleWakeups, w.missed, w.wakeups}
		want := []int64{tt.probes, tt.found, tt.stale, tt.missed, 1}
		if !slices.Equal(got, want) {
			t.Errorf("scan=%s, mask %v, idle %v: probes, found, stale, missed, wakeups = %v, want %v",
				tt.scan, tt.mask, tt.idle, got, want)
		}
		res := &bench.Result{Ops: 0}
		w.events = 0
		s.update = imNone // the hand-made mask is inconsistent on purpose
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

// The mask after a run, driven deterministically by one worker: exact for
// always; for laststate and tick a superset of the idle CPUs, stale (busy CPUs
// still in it) until a quiescent flush, and exact after it.
func TestIdleMaskStaleUntilTick(t *testing.T) {
	for _, update := range []string{"always", "laststate", "tick"} {
		t.Run("update="+update, func(t *testing.T) {
			s, ws := imSetup(t, "update="+update+"/busy=90/wake=10/llc=48/tick=100", 1)
			ws[0].Run(20_000)
			if err := s.check(); err != nil {
				t.Fatal(err)
			}
			busyInMask, idleMissing := imStale(s)
			if len(idleMissing) > 0 {
				t.Errorf("idle cpus %v are missing from the mask", idleMissing)
			}
			if update == "always" && len(busyInMask) > 0 {
				t.Errorf("update=always: busy cpus %v in the mask", busyInMask)
			}
			if update != "always" && len(busyInMask) == 0 {
				t.Errorf("update=%s: no busy cpu in the mask before the tick; the model should show the staleness", update)
			}
			imFlush(s)
			if busyInMask, idleMissing = imStale(s); len(busyInMask)+len(idleMissing) > 0 {
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
	run := func(variant string) imCounts {
		_, ws := imSetup(t, variant, 2)
		for range 10 {
			ws[0].Run(2000)
			ws[1].Run(2000)
		}
		var c imCounts
		c.add(&ws[0].imCounts)
		c.add(&ws[1].imCounts)
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
	mask := run("update=always/scan=mask/busy=90")
	all := run("update=always/scan=all/busy=90")
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
	_, a := imSetup(t, "update=tick/busy=70/wake=30", 1)
	_, b := imSetup(t, "update=tick/busy=70/wake=30", 1)
	a[0].Run(5000)
	b[0].Run(5000)
	if a[0].imCounts != b[0].imCounts {
		t.Errorf("two runs of the same worker: %+v and %+v", a[0].imCounts, b[0].imCounts)
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
		{"laststate", func(s *idleMask, idle, busy int) { s.llcs[0].mask[0].And(^uint64(1 << idle)) }, "is idle but not in the mask"},
		{"tick", func(s *idleMask, idle, busy int) { s.llcs[0].mask[0].And(^uint64(1 << idle)) }, "is idle but not in the mask"},
		{"laststate", func(s *idleMask, idle, busy int) { s.llcs[0].rqs[busy].last = 1 }, "last_idle_state 1"},
	}
	for _, tt := range tests {
		s, ws := imSetup(t, "update="+tt.update+"/busy=50/llc=16", 1)
		ws[0].Run(100)
		imFlush(s)
		idle, busy := -1, -1
		for c, rq := range s.llcs[0].rqs {
			if rq.idle.Load() != 0 {
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
	s, ws := imSetup(t, "", 1)
	ws[0].Run(10)
	if err := s.Finish(&bench.Result{Ops: 11}); err == nil || !strings.Contains(err.Error(), "10 events") {
		t.Errorf("Finish with a wrong op count: error = %v, want one naming the 10 events", err)
	}
}

func TestIdleMaskDoesNotAllocate(t *testing.T) {
	for _, v := range []string{"update=always/scan=mask/wake=50", "update=laststate/scan=all/wake=50/llc=200"} {
		_, ws := imSetup(t, v, 1)
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
	} {
		t.Run(v, func(t *testing.T) {
			s := benchtest.New(t, "idlemask", v)
			res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: ops})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("writes/op %.3f scanned/op %.3f found %.1f%% wrong %.1f%%", benchtest.Metric(t, res, MaskWrites),
				benchtest.Metric(t, res, CPUsScanned), benchtest.Metric(t, res, FoundIdle), benchtest.Metric(t, res, Wrong))
		})
	}
}

// The shared words and the runqueue lines sit alone on their lines.
func TestIdleMaskLayout(t *testing.T) {
	var rq imCPU
	if off, size := unsafe.Offsetof(rq.idle), unsafe.Sizeof(rq); off < imPad || size-off < imPad {
		t.Errorf("imCPU: idle at %d of %d bytes, want %d bytes of pad on each side", off, size, imPad)
	}
	var w imWorker
	if off := unsafe.Offsetof(w.imCounts); off != imPad {
		t.Errorf("imWorker: first field at %d, want %d", off, imPad)
	}
	if tail := unsafe.Sizeof(w) - (unsafe.Offsetof(w.scanMask) + unsafe.Sizeof(w.scanMask)); tail < imPad {
		t.Errorf("imWorker: %d bytes after the last field, want at least %d", tail, imPad)
	}
	for _, width := range []int{1, 64, 65, 4096} {
		llc := newIMLLC(width)
		first := uintptr(unsafe.Pointer(&llc.mask[0]))
		start := uintptr(unsafe.Pointer(&llc.buf[0]))
		end := uintptr(unsafe.Pointer(unsafe.SliceData(llc.buf))) + uintptr(len(llc.buf))*8
		last := uintptr(unsafe.Pointer(&llc.mask[len(llc.mask)-1])) + 8
		if first-start < imPad || end-last < imPad || len(llc.mask) != (width+63)/64 {
			t.Errorf("newIMLLC(%d): %d words with %d bytes before and %d after, want %d words padded by %d",
				width, len(llc.mask), first-start, end-last, (width+63)/64, imPad)
		}
	}
}

func FuzzIdleMaskVariant(f *testing.F) {
	for _, seed := range []string{
		"", "update=always", "update=none/scan=all", "update=none", "busy=101", "llc=0", "tick=0",
		"wake=100/busy=0", "llc=4096/tick=1", "a=b/c", "scan=all/scan=mask",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, variant string) {
		s, err := newIdleMask(variant)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("newIdleMask(%q) error has more than one line: %q", variant, err)
			}
			return
		}
		again, err := newIdleMask(s.Variant())
		if err != nil || again.Variant() != s.Variant() {
			t.Errorf("newIdleMask(%q).Variant() = %q, which parses to %v, %v", variant, s.Variant(), again, err)
		}
	})
}
