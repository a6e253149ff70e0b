package wakeup

import (
	"testing"

	"github.com/contend/contend/bench"
)

// The patched wake_affine()'s three cases: an idle waking cpu, a sync
// wakeup whose waker is the only task running there, and otherwise no.
func TestWakeAffineBasic(t *testing.T) {
	for _, tt := range []struct {
		idle, sync bool
		nr         int64
		want       bool
		why        string
	}{
		{true, false, 0, true, "idle_cpu(this_cpu): run now on the waking cpu"},
		{true, true, 0, true, "idle, and sync too"},
		{false, true, 1, true, "sync, and the waker is the only task running"},
		{false, true, 2, false, "sync, but another task is queued behind the waker"},
		{false, false, 1, false, "not sync: the waker keeps running, so 'otherwise meh'"},
		{false, false, 3, false, "busy and not sync"},
	} {
		if got := wakeAffineBasic(tt.idle, tt.sync, tt.nr); got != tt.want {
			t.Errorf("wakeAffineBasic(idle=%v, sync=%v, nr_running=%d) = %v, want %v: %s", tt.idle, tt.sync, tt.nr, got, tt.want, tt.why)
		}
	}
}

// The pre-patch wake_affine_llc(), case by case; the figures are worked by
// hand from the 4.13 code with every task at nice0Load and imbalance_pct 125
// (prev_eff_load's factor 112).
func TestWakeAffineLLC(t *testing.T) {
	// stats of an LLC of size cpus with n runnable tasks, as llcStatsOf
	// makes them.
	stats := func(n, size int64) llcStats {
		return llcStats{nrRunning: n, load: n * nice0Load, capacity: size * nice0Load, hasCapacity: n < size}
	}
	for _, tt := range []struct {
		prev, this llcStats
		sync       bool
		current    int64
		want       bool
		why        string
	}{
		{stats(1, 1), stats(1, 1), true, 2 * nice0Load, true, "sync: the waker's load exceeds this LLC's: 'considered idle'"},
		{stats(0, 1), stats(1, 1), true, nice0Load, false, "prev has capacity and no more running than here: stay"},
		{stats(1, 4), stats(1, 4), false, nice0Load, false, "prev has capacity (1 < 4) and 1 < 1+1: stay"},
		{stats(4, 4), stats(1, 4), false, nice0Load, true, "prev full, this has capacity and 1+1 < 4: come here"},
		// One cpu an LLC, each busy: the load comparison,
		// 100·(this+task) ≤ 112·(prev−task).
		{stats(2, 1), stats(1, 1), true, nice0Load, true, "sync: 100·(0+1) ≤ 112·(2−1)"},
		{stats(1, 1), stats(1, 1), true, nice0Load, false, "sync: 100·(0+1) > 112·(1−1)"},
		{stats(2, 1), stats(1, 1), false, nice0Load, false, "not sync: 100·(1+1) > 112·(2−1)"},
		{stats(3, 1), stats(1, 1), false, nice0Load, true, "not sync: 100·(1+1) ≤ 112·(3−1): the shorter queue, within 12%"},
		{stats(3, 1), stats(2, 1), false, nice0Load, false, "not sync: 100·(2+1) > 112·(3−1)"},
	} {
		if got := wakeAffineLLC(tt.prev, tt.this, tt.sync, tt.current, nice0Load, affineImbalancePct); got != tt.want {
			t.Errorf("wakeAffineLLC(prev %+v, this %+v, sync=%v) = %v, want %v: %s", tt.prev, tt.this, tt.sync, got, tt.want, tt.why)
		}
	}
}

// sisCounts is the part of counts select_idle_sibling keeps.
type sisCounts struct{ calls, target, prev, scans, found, probes int64 }

func sisOf(c *counts) sisCounts {
	return sisCounts{c.sisCalls, c.sisTarget, c.sisPrev, c.sisScans, c.sisFound, c.probes}
}

// Each early return of select_idle_sibling(), and the scan after them, on
// two LLCs: cpus 0, 1, 2 and 4 share LLC 0, cpu 3 has LLC 1. The waking cpu
// runs its waker, so it is never idle; another cpu is idle when nothing
// is queued on it.
func TestSelectIdleSibling(t *testing.T) {
	llc := []int32{0, 0, 0, 1, 0}
	for _, tt := range []struct {
		me, prev, target int32
		queued           []int32 // cpus with a woken task queued
		want             int32
		sis              sisCounts
		why              string
	}{
		{0, 1, 2, nil, 2, sisCounts{1, 1, 0, 0, 0, 0}, "the target is idle"},
		{0, 1, 0, nil, 1, sisCounts{1, 0, 1, 0, 0, 0}, "the target (the waker's cpu) is busy; prev is idle and shares its LLC"},
		{0, 3, 0, nil, 1, sisCounts{1, 0, 0, 1, 1, 2}, "prev is idle but on another LLC: the scan probes the target, then finds cpu 1"},
		{0, 1, 0, []int32{1}, 2, sisCounts{1, 0, 0, 1, 1, 3}, "prev is busy: the scan probes the target, cpu 1 (busy), then finds cpu 2"},
		{0, 0, 0, []int32{1, 2, 4}, 0, sisCounts{1, 0, 0, 1, 0, 4}, "nothing idle: the target, after probing all 4 cpus of its LLC"},
		{2, 4, 4, []int32{4}, 0, sisCounts{1, 0, 0, 1, 1, 2}, "prev == target, busy: no prev shortcut; wrap order from 4 is 0"},
		{2, 3, 3, nil, 3, sisCounts{1, 1, 0, 0, 0, 0}, "prev == target on another LLC, idle: the target"},
	} {
		s, ws := setup(t, "wake=idle/lines=1/mig=0/tasks=1", llc, make([]int32, len(llc)))
		for _, c := range tt.queued {
			s.rqs[c].nr.Store(1)
		}
		w := ws[tt.me]
		w.wake = wakeBasic
		if got := w.selectIdleSibling(tt.prev, tt.target); got != tt.want || sisOf(&w.counts) != tt.sis {
			t.Errorf("cpu %d: select_idle_sibling(prev %d, target %d) with %v queued = %d, counts %+v; want %d, %+v: %s",
				tt.me, tt.prev, tt.target, tt.queued, got, sisOf(&w.counts), tt.want, tt.sis, tt.why)
		}
	}
}

// select_task_rq_fair()'s wakeup path for both kernel policies on the hand
// machine (cpus 0 and 1 share LLC 0; cpus 2 and 3 have an LLC each), woken
// from cpu 0: wake_affine() when the task last ran elsewhere, then
// select_idle_sibling() around its answer.
func TestSelectTaskRq(t *testing.T) {
	for _, tt := range []struct {
		wake       policy
		prev       int32
		sync       bool
		queued     []int32 // woken tasks queued, one per entry
		want       int32
		tries, yes int64
		why        string
	}{
		{wakeBasic, 3, true, nil, 1, 1, 1, "sync, the waker alone: affine; the waker's cpu is busy, so the idle sibling"},
		{wakeBasic, 3, true, []int32{0}, 3, 1, 0, "sync, but a task queued behind the waker: prev, which is idle"},
		{wakeBasic, 3, false, nil, 3, 1, 0, "not sync: prev"},
		{wakeBasic, 0, true, nil, 1, 0, 0, "the task last ran here: no wake_affine(); the target is busy, the scan finds cpu 1"},
		{wakeLLCStats, 1, true, nil, 1, 1, 0, "prev shares the waker's LLC: no, and prev is idle"},
		{wakeLLCStats, 2, true, nil, 2, 1, 0, "prev's LLC is one cpu: no sd_llc_shared, so get_llc_stats() fails and wake_affine_llc() says no"},
		{wakeLLCStats, 2, true, []int32{2, 2}, 2, 1, 0, "two queued on prev, but still no LLC statistics: no; prev is busy and alone in its LLC"},
		{wakeLLCStats, 3, false, []int32{3}, 3, 1, 0, "not sync, one queued on prev: no statistics, no"},
	} {
		s, ws := setup(t, "wake=idle/lines=1/mig=0/tasks=1", handLLC, handNode)
		for _, c := range tt.queued {
			s.rqs[c].nr.Add(1)
		}
		w := ws[0]
		w.wake = tt.wake
		got := w.selectTaskRq(tt.prev, tt.sync)
		if got != tt.want || w.affineTries != tt.tries || w.affine != tt.yes {
			t.Errorf("%s: prev %d, sync %v, queued %v: placed on %d, wake_affine %d calls %d yes; want %d, %d, %d: %s",
				policyName(tt.wake), tt.prev, tt.sync, tt.queued, got, w.affineTries, w.affine, tt.want, tt.tries, tt.yes, tt.why)
		}
	}
}

// The kernel policies on a workload, through the variant keys: sync= sets
// the share of WF_SYNC wakeups; on LLCs of one cpu the patched policy pulls
// every sync away wakeup to its waker (the waker alone on its cpu) and the
// home waker pulls it back, so about 2×mig% of wakeups migrate, while
// without sync it keeps every task at prev; the pre-patch comparison keeps
// the task at prev, whose LLC has capacity (its waker between wakeups).
// Finish's bookkeeping holds for both.
func TestKernelPolicies(t *testing.T) {
	const n = 4
	llc := []int32{0, 1, 2, 3}
	for _, tt := range []struct {
		variant        string
		lo, hi         float64 // migrations per wakeup
		syncLo, syncHi float64
	}{
		{"wake=basic/lines=1/mig=10/sync=100/llc=1", 0.17, 0.21, 1, 1},
		{"wake=basic/lines=1/mig=10/sync=0/llc=1", 0, 0, 0, 0},
		{"wake=basic/lines=1/mig=10/sync=50/llc=1", 0.08, 0.11, 0.48, 0.52},
		{"wake=llcstats/lines=1/mig=10/sync=100/llc=1", 0, 0.001, 1, 1},
	} {
		s, ws := setup(t, tt.variant, llc, make([]int32, n))
		drive(ws, 20000, 1)
		c := total(s)
		mig := float64(c.migrations) / float64(c.wakeups)
		sync := float64(c.syncWakeups) / float64(c.wakeups)
		if mig < tt.lo || mig > tt.hi || sync < tt.syncLo || sync > tt.syncHi || c.sisCalls != c.wakeups {
			t.Errorf("%s: %.4f migrations a wakeup (want %.3f..%.3f), %.3f sync (want %.2f..%.2f), %d select_idle_sibling calls for %d wakeups",
				tt.variant, mig, tt.lo, tt.hi, sync, tt.syncLo, tt.syncHi, c.sisCalls, c.wakeups)
		}
		res := finish(t, s, c.attempts)
		for _, u := range []bench.Unit{Affine, SISEarly, SISProbes} {
			if _, ok := res.Metric(u.Name); !ok {
				t.Errorf("%s: no %s", tt.variant, u.Name)
			}
		}
	}
	// The model's own policies report no kernel decisions.
	s, ws := setup(t, "wake=affine/lines=1", llc, make([]int32, n))
	drive(ws, 100, 1)
	if res := finish(t, s, total(s).attempts); len(res.Metrics) > 0 {
		if _, ok := res.Metric(Affine.Name); ok {
			t.Errorf("wake=affine reports %s", Affine.Name)
		}
	}
}
