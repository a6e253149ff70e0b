package ksim

import (
	"math"
	"testing"
)

// idleSet is an Idler over a set of CPU ids.
type idleSet map[int]bool

func (s idleSet) Idle(cpu int) bool { return s[cpu] }

func TestSelectIdleCPU(t *testing.T) {
	const inf = math.MaxInt
	mk := func(cpus ...int) []uint64 {
		w := make([]uint64, 3) // three words: boundaries at 63/64 and 127/128
		for _, c := range cpus {
			w[c/64] |= 1 << (c % 64)
		}
		return w
	}
	tests := []struct {
		cands  []int
		idle   []int
		start  int
		nr     int
		cpu    int
		probes int
		out    bool
	}{
		{[]int{1, 63, 64, 129}, []int{1, 129}, 100, inf, 129, 1, false},
		{[]int{1, 63, 64, 129}, []int{1, 129}, 0, inf, 1, 1, false},
		{[]int{1, 63, 64, 129}, []int{1, 129}, 2, inf, 129, 3, false},
		{[]int{1, 63, 64, 129}, []int{1}, 2, inf, 1, 4, false},    // wraps
		{[]int{1, 63, 64, 129}, nil, 64, inf, -1, 4, false},       // none idle: every candidate once
		{[]int{1, 63, 64, 129}, []int{63}, 64, inf, 63, 4, false}, // the start's word, below the start, last
		{[]int{1, 63, 64, 129}, []int{64}, 64, inf, 64, 1, false}, // the start itself first
		{[]int{128}, []int{128}, 129, inf, 128, 1, false},         // wrap into the last word
		{nil, []int{5}, 7, inf, -1, 0, false},                     // no candidates, no probes
		{[]int{2, 5, 7}, []int{2, 5, 7}, 127, inf, 2, 1, false},   // from 127 the wrap starts at 0
		{[]int{0, 127, 128}, []int{0, 127}, 128, inf, 0, 2, false},
		{[]int{0, 191}, []int{0, 191}, 192, inf, 0, 1, false}, // target+1 past the last cpu: from 0
		// SIS_PROP: "if (!--nr) return -1;" before each probe, so nr=4
		// probes at most 3 CPUs.
		{[]int{1, 2, 3, 4, 5}, nil, 0, 4, -1, 3, true},
		{[]int{1, 2, 3, 4, 5}, []int{4}, 0, 4, -1, 3, true},     // the idle one is the 4th: out of budget
		{[]int{1, 2, 3, 4, 5}, []int{3}, 0, 4, 3, 3, false},     // the 3rd: found on the last probe allowed
		{[]int{1, 2, 3}, nil, 0, 4, -1, 3, false},               // three candidates: the loop ends first
		{[]int{1, 2, 3, 4, 5}, nil, 0, 5, -1, 4, true},          // nr=5: four
		{[]int{1, 2, 3, 4, 5}, nil, 0, 6, -1, 5, false},         // nr=6: all five, then the loop ends
		{[]int{1, 2, 3, 4, 5}, []int{1}, 0, 1, -1, 0, true},     // nr=1 (SIS_UTIL's nr_idle_scan 0): nothing probed
		{[]int{1, 63, 64, 129}, nil, 100, 4, -1, 3, true},       // the budget spans the wrap: 129, 1, 63
		{[]int{1, 63, 64, 129}, []int{64}, 100, 4, -1, 3, true}, // 64 would be 4th
	}
	for _, tt := range tests {
		idle := idleSet{}
		for _, c := range tt.idle {
			idle[c] = true
		}
		cpu, probes, out := SelectIdleCPU(mk(tt.cands...), idle, tt.start, tt.nr)
		if cpu != tt.cpu || probes != tt.probes || out != tt.out {
			t.Errorf("SelectIdleCPU(%v, idle %v, start %d, nr %d) = %d, %d probes, out %v; want %d, %d, %v",
				tt.cands, tt.idle, tt.start, tt.nr, cpu, probes, out, tt.cpu, tt.probes, tt.out)
		}
	}
}

// SISPropNr worked by hand from v5.11's select_idle_cpu(): avg_idle/512
// against avg_scan_cost+1, times the LLC's weight.
func TestSISPropNr(t *testing.T) {
	tests := []struct {
		span, avgIdle, avgScanCost int64
		want                       int
	}{
		// A fresh rq (avg_idle 1 ms): 1000000/512 = 1953; 48*1953 =
		// 93744 > 4*301; 93744/301 = 311.
		{48, 1_000_000, 300, 311},
		// Busy: 10 us of average idle: 10000/512 = 19, 48*19 = 912,
		// not above 4*301 = 1204: nr = 4.
		{48, 10_000, 300, 4},
		// 100 us: 195*48 = 9360 > 404; 9360/101 = 92.
		{48, 100_000, 100, 92},
		// Never idle, never scanned: 0 against 4*1.
		{48, 0, 0, 4},
		// Under 512 ns of idle rounds to nothing.
		{4096, 511, 0, 4},
		// At the boundary: span_avg must exceed 4*avg_cost, not equal it.
		{4, 512 * 101, 100, 4},     // 404 = 4*101: nr = 4
		{2, 512 * 203, 100, 4},     // 406 > 404: 406/101 = 4, by division
		{4, 512 * 102, 100, 4},     // 408 > 404: 408/101 = 4
		{48, 512 * 10, 100, 4},     // 480 > 404: 480/101 = 4
		{48, 512 * 100, 100, 47},   // 4800/101 = 47
		{48, 1_000_000, 0, 93_744}, // no scan cost yet: 93744/1
		{1, 1_000_000, 0, 1953},    // an LLC of one
	}
	for _, tt := range tests {
		if got := SISPropNr(tt.span, tt.avgIdle, tt.avgScanCost); got != tt.want {
			t.Errorf("SISPropNr(span %d, avg_idle %d, avg_scan_cost %d) = %d, want %d", tt.span, tt.avgIdle, tt.avgScanCost, got, tt.want)
		}
	}
}

// update_idle_cpu_scan() worked by hand: x = sum_util/llc_weight, y = 1024
// - min(x²·pct²/(10000·1024), 1024), nr_idle_scan = y·llc_weight/1024.
func TestUpdateIdleCPUScan(t *testing.T) {
	for _, tt := range []struct {
		sumUtil  int64
		llc, pct int
		want     int
	}{
		{0, 4, 117, 4},          // idle: the whole LLC
		{4 * 512, 4, 117, 2},    // half: x 512, tmp 350, y 674, 4·674/1024 = 2
		{4 * 256, 4, 117, 3},    // a quarter: tmp 87, y 937: 3
		{4 * 870, 4, 117, 0},    // 85 %: tmp 1011, y 13: 0
		{4 * 1024, 4, 117, 0},   // full: tmp clamped to 1024
		{4 * 4096, 4, 117, 0},   // beyond (util_est): still 0
		{8 * 512, 8, 117, 5},    // half of 8: 8·674/1024 = 5
		{64 * 300, 64, 117, 56}, // x 300: tmp 120, y 904: 64·904/1024 = 56
		{-5, 4, 117, 4},         // no negative sums
	} {
		if got := UpdateIdleCPUScan(tt.sumUtil, tt.llc, tt.pct); got != tt.want {
			t.Errorf("UpdateIdleCPUScan(sum_util %d, llc %d, pct %d) = %d, want %d", tt.sumUtil, tt.llc, tt.pct, got, tt.want)
		}
	}
	if got := SISUtilNr(0); got != 1 {
		t.Errorf("SISUtilNr(0) = %d, want 1 (no probe)", got)
	}
}

// smtSet is an SMTView: cores of two threads 2k, 2k+1, all allowed but
// those in notAllowed.
type smtSet struct {
	idleSet
	notAllowed map[int]bool
}

func (s smtSet) SMTMask(cpu int) (int, int) { return cpu &^ 1, cpu | 1 }
func (s smtSet) Allowed(cpu int) bool       { return !s.notAllowed[cpu] }

// select_idle_core() and select_idle_smt() on cores {0,1} {2,3} {4,5}
// {6,7}: the core scan probes each core's threads until one is busy, from
// the target's round the LLC; select_idle_smt() the target's threads in id
// order, the target's own included.
func TestSelectIdleCoreSMT(t *testing.T) {
	for _, tt := range []struct {
		name          string
		idle          []int
		target        int
		core, cprobes int
		smt, sprobes  int
	}{
		{"an idle core", []int{4, 5}, 0, 4, 4, -1, 2},
		{"no idle core; the sibling idle after the busy target", []int{1, 3, 5}, 0, -1, 4, 1, 2},
		{"odd target: the sibling first", []int{2}, 3, -1, 5, 2, 1},
		{"wrapping from the target's core", []int{0, 1, 6, 7}, 3, 6, 4, -1, 2},
		{"the core the loop is at", []int{0, 1}, 1, 1, 2, 0, 1},
	} {
		v := smtSet{idleSet: idleSet{}}
		for _, c := range tt.idle {
			v.idleSet[c] = true
		}
		cpus := []uint64{0xff}
		core, cp := SelectIdleCore(cpus, v, tt.target, 8)
		smt, sp := SelectIdleSMT(v, tt.target)
		if core != tt.core || cp != tt.cprobes || smt != tt.smt || sp != tt.sprobes {
			t.Errorf("%s: SelectIdleCore = %d, %d probes; SelectIdleSMT = %d, %d probes; want %d, %d; %d, %d",
				tt.name, core, cp, smt, sp, tt.core, tt.cprobes, tt.smt, tt.sprobes)
		}
	}
	v := smtSet{idleSet: idleSet{1: true}, notAllowed: map[int]bool{1: true}}
	if smt, probes := SelectIdleSMT(v, 0); smt != -1 || probes != 1 {
		t.Errorf("an idle sibling not allowed: SelectIdleSMT = %d, %d probes; want -1, 1", smt, probes)
	}
}

// TestLLCScans: an LLC's budget is SIS_UTIL's from its cpus' run time
// at its last balance, none scanned before the first; a busy LLC scans
// no cpu, a half-idle one one, the other LLC as it was; each LLC's span
// is its own cpus.
func TestLLCScans(t *testing.T) {
	l := NewLLCScans(4, 2)
	if m, nr := l.Scan(1); m[0] != 0b0011 || nr != 1 {
		t.Errorf("before any balance: span %b, budget %d; want 11, 1 (no scan)", m[0], nr)
	}
	if m, _ := l.Scan(2); m[0] != 0b1100 {
		t.Errorf("LLC 1's span %b, want 1100", m[0])
	}
	const ms = 1_000_000
	l.Run(0, 0) // cpu 0 busy from 0, cpu 1 idle
	l.Balance(200*ms, 1)
	if _, nr := l.Scan(0); nr != 2 {
		t.Errorf("one busy cpu of two: budget %d, want 2 (nr_idle_scan 1)", nr)
	}
	l.Run(200*ms, 1)
	l.Balance(400*ms, 0)
	if _, nr := l.Scan(1); nr != 1 {
		t.Errorf("both busy: budget %d, want 1", nr)
	}
	l.Stop(400*ms, 0)
	l.Stop(400*ms, 1)
	if _, nr := l.Scan(3); nr != 1 {
		t.Errorf("LLC 1, never balanced: budget %d, want 1", nr)
	}
}

// TestLLCScansSibling: the scan for a wakee stacked on its waker's cpu,
// within the LLC's budget or without one, and what it met.
func TestLLCScansSibling(t *testing.T) {
	l := NewLLCScans(4, 2)
	var p Placements
	idle := idleSet{1: true}
	if c := l.Sibling(0, idle, 1, true, &p); c != -1 || p.NoScan != 1 || p.IdleMate != 1 {
		t.Errorf("budget 0 (never balanced), cpu 1 idle: %d, %+v; want -1, one no-scan, one idle mate", c, p)
	}
	if c := l.Sibling(0, idle, 1, false, &p); c != 1 || p.NoScan != 1 || p.IdleMate != 2 {
		t.Errorf("no budget to keep: %d, %+v; want cpu 1", c, p)
	}
	const ms = 1_000_000
	l.Run(0, 0)
	l.Balance(200*ms, 0) // cpu 0 busy, 1 idle: nr_idle_scan 1
	if c := l.Sibling(0, idle, 1, true, &p); c != 1 || p.NoScan != 1 {
		t.Errorf("a budget of one, cpu 1 idle: %d, %+v", c, p)
	}
	if c := l.Sibling(0, idleSet{2: true}, 1, true, &p); c != -1 || p.IdleMate != 3 {
		t.Errorf("only another LLC's cpu idle: %d, %+v; want -1, no idle mate", c, p)
	}
	if p.BusyMate != 1 || p.Unbudgeted != 1 {
		t.Errorf("%+v: want cpu 1 busy at the last scan only, one scan with no budget", p)
	}
}

// TestPlacements: a wakeup by where its wakee was and went.
func TestPlacements(t *testing.T) {
	var p Placements
	for _, w := range [][3]int{
		{0, 0, 0}, // stacked, stays
		{0, 0, 1}, // stacked, parts
		{1, 0, 0}, // split, joins
		{1, 0, 1}, // split, back to prev
		{1, 0, 2}, // split, elsewhere
	} {
		p.Place(w[0], w[1], w[2])
	}
	if want := (Placements{Wakes: 5, Stacked: 2, Parted: 1, Joined: 1}); p != want {
		t.Errorf("Placements = %+v, want %+v", p, want)
	}
}

// AnyMate looks at every cpu of the mask but the target, across words.
func TestAnyMate(t *testing.T) {
	llc := []uint64{1<<3 | 1<<5, 1 << 2} // cpus 3, 5 and 66
	for _, c := range []struct {
		target, want int
		found        bool
	}{{3, 66, true}, {66, 66, false}, {3, 5, true}, {5, 3, true}, {3, 3, false}, {3, 7, false}} {
		if got := AnyMate(llc, c.target, func(cpu int) bool { return cpu == c.want }); got != c.found {
			t.Errorf("AnyMate(target %d) for cpu %d = %v, want %v", c.target, c.want, got, c.found)
		}
	}
}
