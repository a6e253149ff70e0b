package idlemask

import (
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// select_idle_core() case by case on an LLC of 8 CPUs (cores {0,1} {2,3}
// {4,5} {6,7}), every runqueue busy but those a case makes idle: gated by
// has_idle_cores, it probes each core's threads until one is busy, from the
// target's core round the LLC, returns the first wholly idle core, and
// clears the flag when it finds none.
func TestSelectIdleCore(t *testing.T) {
	for _, tt := range []struct {
		name          string
		flag          uint32
		target        int
		idle          []int
		cpu, probes   int
		flagAfter     uint32
		coreWritesAft int64
	}{
		{"has_idle_cores clear: no scan", 0, 0, []int{4, 5}, -1, 0, 0, 0},
		{"an idle core: the first thread of it", 1, 0, []int{4, 5}, 4, 4, 1, 0},
		{"idle cpus but no idle core: every core, the flag cleared", 1, 0, []int{3, 5, 6}, -1, 5, 0, 1},
		{"from the target's core, wrapping", 1, 3, []int{0, 1, 6, 7}, 6, 4, 1, 0},
		{"an idle core from its second thread: the core the loop is at", 1, 1, []int{0, 1}, 1, 2, 1, 0},
	} {
		s, ws := setup(t, "update=tickstop/scan=mask/busy=100/wake=0/llc=8/early=on/smt=2", 1)
		w := ws[0]
		for _, c := range tt.idle {
			s.llcs[0].rqs[c].state.Store(rqIdle)
		}
		w.idleCores.flag.Store(tt.flag)
		cpu, probes := w.idleCore(tt.target)
		if cpu != tt.cpu || probes != tt.probes || w.idleCores.flag.Load() != tt.flagAfter || w.coreWrites != tt.coreWritesAft {
			t.Errorf("%s: idleCore(%d) = cpu %d, %d probes, flag %d, %d writes; want %d, %d, %d, %d",
				tt.name, tt.target, cpu, probes, w.idleCores.flag.Load(), w.coreWrites, tt.cpu, tt.probes, tt.flagAfter, tt.coreWritesAft)
		}
	}
}

// __update_idle_core() at a switch to idle: has_idle_cores is set when the
// sibling is idle too, and written only when it was clear.
func TestUpdateIdleCore(t *testing.T) {
	for _, tt := range []struct {
		name        string
		flag        uint32
		siblingIdle bool
		want        uint32
		writes      int64
	}{
		{"sibling idle: set", 0, true, 1, 1},
		{"sibling busy: left clear", 0, false, 0, 0},
		{"already set: not written", 1, true, 1, 0},
	} {
		s, ws := setup(t, "update=laststate/busy=100/wake=0/llc=8/smt=2", 1)
		w := ws[0]
		if tt.siblingIdle {
			s.llcs[0].rqs[5].state.Store(rqIdle)
		}
		w.idleCores.flag.Store(tt.flag)
		w.idleEntry(4, s.llcs[0].rqs[4], &w.local[4])
		if got := w.idleCores.flag.Load(); got != tt.want || w.coreWrites != tt.writes {
			t.Errorf("%s: has_idle_cores %d, %d writes; want %d, %d", tt.name, got, w.coreWrites, tt.want, tt.writes)
		}
	}
}

// The whole SMT search in select_idle_sibling(): the idle core first, not
// charged to SIS_PROP; when the mask (v5's, empty here) finds nothing, the
// target's idle sibling (select_idle_smt()); else the busy target.
func TestIdleMaskSMTSearch(t *testing.T) {
	for _, tt := range []struct {
		name       string
		flag       uint32
		idle       []int
		landed     int
		coreFound  int64
		stackedOn0 int64
	}{
		{"an idle core", 1, []int{6, 7}, 6, 1, 0},
		{"no idle core, the sibling idle: select_idle_smt()", 1, []int{1, 4}, 1, 0, 0},
		{"has_idle_cores clear, the sibling idle", 0, []int{1, 6, 7}, 1, 0, 0},
		{"nothing: the target", 1, nil, 0, 0, 1},
	} {
		s, ws := setup(t, "update=tickstop/scan=mask/busy=100/wake=0/llc=8/early=on/smt=2", 1)
		w := ws[0]
		// prev and recent_used_cpu: the busy cpu 2, so no shortcut.
		for w.rqs[0].state.Load() == rqIdle || func() bool {
			r := w.rng
			p, rc := drawPrevRecent(bench.XorShift(&r), w.width)
			return p != 2 || rc != 2
		}() {
			w.next()
		}
		for _, c := range tt.idle {
			s.llcs[0].rqs[c].state.Store(rqIdle)
		}
		w.idleCores.flag.Store(tt.flag)
		got := w.placeWakee(0, &w.local[0])
		if got != tt.landed || w.coreFound != tt.coreFound || w.local[0].stacked != tt.stackedOn0 {
			t.Errorf("%s: landed on %d (core scan found %d, %d stacked on the target); want %d, %d, %d",
				tt.name, got, w.coreFound, w.local[0].stacked, tt.landed, tt.coreFound, tt.stackedOn0)
		}
	}
}

// smt= and kthread= are left out of the name at their defaults.
func TestIdleMaskSMTVariants(t *testing.T) {
	const base = "update=laststate/scan=mask/sis=prop/busy=90/wake=10/llc=48/tick=100/hz=1000"
	benchtest.CheckVariants(t, "idlemask", [][2]string{
		{"smt=1", base},
		{"smt=2", base + "/smt=2"},
		{"smt=2/early=on/prev=history", base + "/early=on/prev=history/smt=2"},
		{"smt=4", `!smt="4": unknown value (want 1|2)`},
		{"kthread=0", base},
		{"kthread=20/early=on/smt=2", base + "/early=on/smt=2/kthread=20"},
		{"kthread=101", `!kthread="101": out of range (want 0..100)`},
		{"smt=2/llc=7", "!smt=2 pairs cpus into cores: llc=7 is odd"},
	})
}
