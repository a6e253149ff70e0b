package ksim

import "testing"

// wake_wide() against sd_llc_size: on one-cpu LLCs (factor 1) a pair whose
// members each flipped once is already "wide".
func TestWakeWide(t *testing.T) {
	for _, tt := range []struct {
		waker, wakee uint32
		factor       int
		want         bool
	}{
		{0, 0, 1, false},
		{1, 0, 1, false},
		{1, 1, 1, true},
		{5, 1, 1, true},
		{1, 1, 4, false},
		{8, 2, 4, false},
		{8, 4, 4, false},
		{16, 4, 4, true},
		{4, 16, 4, true}, // master is the larger either way
	} {
		got := WakeWide(&WakeeFlips{Flips: tt.waker}, &WakeeFlips{Flips: tt.wakee}, tt.factor)
		if got != tt.want {
			t.Errorf("WakeWide(waker flips %d, wakee flips %d, factor %d) = %v, want %v", tt.waker, tt.wakee, tt.factor, got, tt.want)
		}
	}
}

// record_wakee(): a flip per change of wakee, halved once a second.
func TestRecordWakee(t *testing.T) {
	const hz = 100
	w := &WakeeFlips{Last: -1}
	for _, step := range []struct {
		jiffies int64
		p       int32
		want    uint32
	}{
		{1, 1, 1}, {2, 1, 1}, {3, 2, 2}, {4, 1, 3}, {50, 2, 4},
		{102, 2, 2}, // decay: 4 >> 1, same wakee
		{150, 1, 3},
		{203, 1, 1}, // decay again
	} {
		RecordWakee(w, step.p, step.jiffies, hz)
		if w.Flips != step.want {
			t.Fatalf("after waking task %d at jiffy %d: wakee_flips = %d, want %d", step.p, step.jiffies, w.Flips, step.want)
		}
	}
}

// fakeView is a FairView over a few CPUs given by hand: LLCs of llc
// consecutive CPUs, one affine domain over all of them.
type fakeView struct {
	llc          int
	idle         map[int]bool
	nr           map[int]int
	load         map[int]float64
	waker, wakee float64
	stats        map[int]LLCStats
	prev, recent int
	setRecent    int
	kthread      bool
	kthreadAsked bool
	cpus         []uint64
	nrScan       int
	pct          int
}

func (f *fakeView) Idle(c int) bool              { return f.idle[c] }
func (f *fakeView) SharesCache(a, b int) bool    { return a/f.llc == b/f.llc }
func (f *fakeView) Allowed(int) bool             { return true }
func (f *fakeView) PrevRecent() (int, int)       { return f.prev, f.recent }
func (f *fakeView) SetRecent(p int)              { f.setRecent = p }
func (f *fakeView) NrRunning(c int) int          { return f.nr[c] }
func (f *fakeView) PerCPUKthread() bool          { f.kthreadAsked = true; return f.kthread }
func (f *fakeView) CPULoad(c int) float64        { return f.load[c] }
func (f *fakeView) WakerLoad() float64           { return f.waker }
func (f *fakeView) WakeeLoad() float64           { return f.wakee }
func (f *fakeView) LLCSize(int) int              { return f.llc }
func (f *fakeView) IdleScan(int) ([]uint64, int) { return f.cpus, f.nrScan }
func (f *fakeView) AffineDomain(this, prev int) (int, bool) {
	return f.pct, true
}
func (f *fakeView) LLCStats(c int) (LLCStats, bool) {
	s, ok := f.stats[c/f.llc]
	return s, ok
}

// wake_affine_llc() line for line, on LLC statistics given by hand: the
// sync waker's load comes off this LLC, prev's capacity keeps the task,
// this LLC's pulls it, else the imbalance_pct comparison.
func TestWakeAffineLLC(t *testing.T) {
	const w = 1024
	stats := func(nr, load, capacity int64) LLCStats {
		return LLCStats{NrRunning: nr, Load: load, Capacity: capacity, HasCapacity: nr < 4}
	}
	for _, tt := range []struct {
		name       string
		prev, this LLCStats
		sync       bool
		want       bool
	}{
		{"this LLC idle once the sync waker leaves", stats(4, 4*w, 4*w), stats(1, w/2, 4*w), true, true},
		{"prev has capacity", stats(2, 2*w, 4*w), stats(2, 2*w, 4*w), false, false},
		{"this has capacity, prev full", stats(4, 4*w, 4*w), stats(1, w, 4*w), false, true},
		{"both full, equal: 112% margin keeps it", stats(4, 4*w, 4*w), stats(4, 4*w, 4*w), false, false},
		{"both full, prev far heavier", stats(8, 8*w, 4*w), stats(4, 4*w, 4*w), false, true},
	} {
		v := &fakeView{llc: 4, stats: map[int]LLCStats{0: tt.prev, 1: tt.this}, waker: w, wakee: w, pct: 125}
		cpu, affine := Linux413.WakeAffine(v, 125, 4, 0, tt.sync)
		if affine != tt.want || (affine && cpu != 4) || (!affine && cpu != 0) {
			t.Errorf("%s: wake_affine() = cpu %d, affine %v; want affine %v", tt.name, cpu, affine, tt.want)
		}
	}
	// No sd_llc_shared (the s390x guest): always no.
	v := &fakeView{llc: 1, waker: w, wakee: w}
	if _, affine := Linux413.WakeAffine(v, 125, 4, 0, true); affine {
		t.Error("wake_affine_llc() without sd_llc_shared = true, want false")
	}
}

// Each version's wake_affine() on the cases that tell them apart.
func TestWakeAffineVersions(t *testing.T) {
	for _, tt := range []struct {
		name   string
		k      Kernel
		v      fakeView
		sync   bool
		cpu    int
		affine bool
	}{
		{"basic: an idle waking cpu pulls", Next20170926, fakeView{llc: 1, idle: map[int]bool{5: true}}, false, 5, true},
		{"basic: a sync waker alone pulls", Next20170926, fakeView{llc: 1, nr: map[int]int{5: 1}}, true, 5, true},
		{"basic: a busy waker does not", Next20170926, fakeView{llc: 1, nr: map[int]int{5: 2}}, true, 3, false},
		{"6.1: idle waker across LLCs: wake_affine_weight() decides", Linux61,
			fakeView{llc: 4, idle: map[int]bool{5: true}, load: map[int]float64{3: 2048, 5: 0}, wakee: 512}, false, 5, true},
		{"6.1: idle waker within the LLC, idle prev: prev", Linux61,
			fakeView{llc: 8, idle: map[int]bool{3: true, 5: true}}, false, 3, true},
		{"6.1: idle waker within the LLC, busy prev: the waker", Linux61,
			fakeView{llc: 8, idle: map[int]bool{5: true}}, false, 5, true},
		// d8fcb81f1acf: a busy waker, an idle prev whose blocked load
		// makes it look heavier. 5.10's wake_affine_weight() pulls;
		// from 5.11 wake_affine_idle() keeps prev (and counts it affine).
		{"5.10: idle prev, heavier by blocked load: pulled", Linux510,
			fakeView{llc: 4, idle: map[int]bool{3: true}, nr: map[int]int{5: 2}, load: map[int]float64{3: 2048, 5: 1024}, wakee: 100}, false, 5, true},
		{"6.1: idle prev, heavier by blocked load: kept", Linux61,
			fakeView{llc: 4, idle: map[int]bool{3: true}, nr: map[int]int{5: 2}, load: map[int]float64{3: 2048, 5: 1024}, wakee: 100}, false, 3, true},
		{"6.1: lighter prev keeps it", Linux61,
			fakeView{llc: 4, nr: map[int]int{5: 2}, load: map[int]float64{3: 1024, 5: 2048}, wakee: 512}, false, 3, false},
	} {
		v := tt.v
		cpu, affine := tt.k.WakeAffine(&v, 117, 5, 3, tt.sync)
		if cpu != tt.cpu || affine != tt.affine {
			t.Errorf("%s: wake_affine() = cpu %d, affine %v; want %d, %v", tt.name, cpu, affine, tt.cpu, tt.affine)
		}
	}
}

// select_idle_sibling()'s shortcuts by version: 4.13 has target and prev;
// 5.11 the per-cpu kthread and recent_used_cpu set on a hit; 6.1 sets it
// on every wakeup that reaches the test.
func TestSISShortcut(t *testing.T) {
	for _, tt := range []struct {
		name      string
		k         Kernel
		v         fakeView
		this      int
		target    int
		cpu       int
		s         Shortcut
		setRecent int // -1: left alone
	}{
		{"target idle", Linux413, fakeView{llc: 8, idle: map[int]bool{2: true}, prev: 1}, 2, 2, 2, ShortTarget, -1},
		{"prev idle, same LLC", Linux413, fakeView{llc: 8, idle: map[int]bool{1: true}, prev: 1}, 2, 2, 1, ShortPrev, -1},
		{"prev idle, other LLC", Linux413, fakeView{llc: 4, idle: map[int]bool{5: true}, prev: 5}, 2, 2, -1, NoShortcut, -1},
		{"4.13: no recent_used_cpu", Linux413, fakeView{llc: 8, idle: map[int]bool{4: true}, prev: 1, recent: 4}, 2, 2, -1, NoShortcut, -1},
		{"5.11: recent idle, set on the hit", Linux511, fakeView{llc: 8, idle: map[int]bool{4: true}, prev: 1, recent: 4}, 2, 2, 4, ShortRecent, 1},
		{"5.11: recent busy, left", Linux511, fakeView{llc: 8, prev: 1, recent: 4}, 2, 2, -1, NoShortcut, -1},
		{"6.1: recent busy, set anyway", Linux61, fakeView{llc: 8, prev: 1, recent: 4}, 2, 2, -1, NoShortcut, 1},
		{"recent == prev: no", Linux61, fakeView{llc: 8, idle: map[int]bool{}, prev: 4, recent: 4}, 2, 2, -1, NoShortcut, 4},
		{"kthread on prev, alone", Linux511, fakeView{llc: 8, prev: 2, recent: 2, kthread: true, nr: map[int]int{2: 1}}, 2, 2, 2, ShortKthread, -1},
		{"kthread on prev, another queued", Linux511, fakeView{llc: 8, prev: 2, recent: 2, kthread: true, nr: map[int]int{2: 2}}, 2, 2, -1, NoShortcut, -1},
		{"4.13: no kthread case", Linux413, fakeView{llc: 8, prev: 2, recent: 2, kthread: true, nr: map[int]int{2: 1}}, 2, 2, -1, NoShortcut, -1},
	} {
		v := tt.v
		v.setRecent = -1
		cpu, s := tt.k.SISShortcut(&v, tt.this, tt.target)
		if cpu != tt.cpu || s != tt.s || v.setRecent != tt.setRecent {
			t.Errorf("%s: SISShortcut = cpu %d, shortcut %d, recent set to %d; want %d, %d, %d", tt.name, cpu, s, v.setRecent, tt.cpu, tt.s, tt.setRecent)
		}
	}
}

// select_idle_sibling() past the shortcuts: no sd_llc keeps the target;
// the scan starts at the target (4.13) or after it (6.1), within its
// budget, and falls back to the target.
func TestSelectIdleSibling(t *testing.T) {
	all := []uint64{0xff}
	for _, tt := range []struct {
		name   string
		k      Kernel
		v      fakeView
		cpu    int
		probes int
		out    bool
	}{
		{"no sd_llc", Linux61, fakeView{llc: 1, prev: 2, idle: map[int]bool{6: true}, cpus: all, nrScan: NoBudget}, 2, 0, false},
		{"4.13 probes the target again", Linux413, fakeView{llc: 8, prev: 2, idle: map[int]bool{6: true}, cpus: all, nrScan: NoBudget}, 6, 5, false},
		{"6.1 starts after it", Linux61, fakeView{llc: 8, prev: 2, recent: 2, idle: map[int]bool{6: true}, cpus: all, nrScan: NoBudget}, 6, 4, false},
		{"6.1, SIS_UTIL 2: two probes", Linux61, fakeView{llc: 8, prev: 2, recent: 2, idle: map[int]bool{6: true}, cpus: all, nrScan: SISUtilNr(2)}, 2, 2, true},
		{"6.1, SIS_UTIL 0: none", Linux61, fakeView{llc: 8, prev: 2, recent: 2, idle: map[int]bool{3: true}, cpus: all, nrScan: SISUtilNr(0)}, 2, 0, true},
		{"nothing idle: every cpu, the target last, then the target", Linux61, fakeView{llc: 8, prev: 2, recent: 2, cpus: all, nrScan: NoBudget}, 2, 8, false},
	} {
		v := tt.v
		cpu, s, probes, out := tt.k.SelectIdleSibling(&v, 2, 2)
		if cpu != tt.cpu || s != NoShortcut || probes != tt.probes || out != tt.out {
			t.Errorf("%s: SelectIdleSibling = cpu %d (shortcut %d), %d probes, out %v; want %d, %d, %v", tt.name, cpu, s, probes, out, tt.cpu, tt.probes, tt.out)
		}
	}
}

// select_task_rq_fair(): a wide wakeup skips wake_affine(); a wakeup on
// prev's own cpu too; otherwise wake_affine()'s cpu is the target.
func TestSelectTaskRqFair(t *testing.T) {
	v := &fakeView{llc: 1, idle: map[int]bool{5: true}, nr: map[int]int{3: 1}, prev: 3, recent: 3, pct: 117}
	waker, wakee := &WakeeFlips{Last: -1}, &WakeeFlips{}
	pl := Next20170926.SelectTaskRqFair(v, waker, wakee, 7, 1, 100, 5, 3, false)
	if pl.CPU != 5 || !pl.Attempted || !pl.Affine || pl.Target != 5 || pl.Wide || pl.Shortcut != ShortTarget {
		t.Errorf("an idle waker, basic: %+v; want cpu 5 by wake_affine, target idle", pl)
	}
	if waker.Flips != 1 || waker.Last != 7 {
		t.Errorf("record_wakee(): waker flips %d, last %d; want 1, 7", waker.Flips, waker.Last)
	}
	// Both sides flipping at least sd_llc_size (1) times: wide.
	waker.Flips, wakee.Flips = 3, 1
	pl = Next20170926.SelectTaskRqFair(v, waker, wakee, 8, 2, 100, 5, 3, false)
	if !pl.Wide || pl.Attempted || pl.Target != 3 || pl.CPU != 3 {
		t.Errorf("a wide wakeup: %+v; want no wake_affine(), prev", pl)
	}
	pl = Next20170926.SelectTaskRqFair(v, &WakeeFlips{Last: -1}, &WakeeFlips{}, 9, 3, 100, 3, 3, false)
	if pl.Attempted || pl.CPU != 3 {
		t.Errorf("a wakeup on prev's cpu: %+v; want no wake_affine(), prev", pl)
	}
}
