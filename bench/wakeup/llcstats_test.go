package wakeup

import (
	"strings"
	"testing"
)

// The machine of the LLC statistics cases: cpus 0 and 1 share LLC 0, cpus 2
// and 3 LLC 1, so that both LLCs have a sched_domain_shared. With tasks=1,
// task k starts on cpu k.
var twoLLC = []int32{0, 0, 1, 1}

// A replay of the pre-patch wake_affine() deciding from a stale snapshot:
// cpu 0 wakes the task that last ran on cpu 2, after the two LLCs'
// balances took their snapshots and the runqueues then changed. The
// snapshot policy decides from what the balance saw; stats=live, from the
// runqueues now; and the two disagree both ways.
func TestStaleLLCStats(t *testing.T) {
	for _, tt := range []struct {
		name         string
		atBalance    []int32 // woken tasks queued when the balances ran, one per entry
		atWakeup     []int32 // ... when cpu 0 wakes the task
		balance      bool    // whether the balances ran at all
		snap, live   bool    // wake_affine()'s answer from the snapshot, from the runqueues
		place        int32   // where select_task_rq put it, from the snapshot
		nrSeen, nrOf int64   // the snapshot of LLC 1 wake_affine_llc() read; LLC 0's
		why          string
	}{
		{"busy then drained", []int32{2, 3}, nil, true, true, false, 1, 3, 1,
			"LLC 1 was full at its balance (cpu 2's waker and a task queued on each cpu: 3 of 2), so 'this cache has capacity, come here' (1+1 < 3), " +
				"though it has drained since and the live figures say stay; the waker's cpu is busy, so its idle sibling"},
		{"idle then filled", nil, []int32{2, 2, 3}, true, false, true, 2, 1, 1,
			"LLC 1 had capacity at its balance (cpu 2's waker alone), so stay, though 3 tasks are queued there now and the live figures say come here (1+1 < 3)"},
		{"before any balance", nil, []int32{2, 2, 3}, false, false, true, 2, 0, 0,
			"sd_llc_shared as kzalloc left it: 0 running, capacity to spare, so stay"},
	} {
		s, ws := setup(t, "wake=llcstats/lines=1/mig=0/tasks=1", twoLLC, make([]int32, 4))
		for _, c := range tt.atBalance {
			s.rqs[c].nr.Add(1)
		}
		if tt.balance {
			ws[0].balanceLLC()
			ws[2].balanceLLC()
		}
		for _, rq := range s.rqs {
			rq.nr.Store(0)
		}
		for _, c := range tt.atWakeup {
			s.rqs[c].nr.Add(1)
		}
		if got := s.lay.shared[2].nrRunning.Load(); got != tt.nrSeen || s.lay.shared[0].nrRunning.Load() != tt.nrOf {
			t.Errorf("%s: snapshots hold %d running on LLC 1, %d on LLC 0; want %d, %d", tt.name, got, s.lay.shared[0].nrRunning.Load(), tt.nrSeen, tt.nrOf)
		}
		w := ws[0]
		snap := w.wakeAffine(2, false)
		w.live = true
		live := w.wakeAffine(2, false)
		w.live = false
		if snap != tt.snap || live != tt.live {
			t.Errorf("%s: wake_affine(prev 2) from the snapshot = %v, from the runqueues = %v; want %v, %v: %s", tt.name, snap, live, tt.snap, tt.live, tt.why)
		}
		if got := w.selectTaskRq(2, false); got != tt.place {
			t.Errorf("%s: placed on cpu %d, want %d: %s", tt.name, got, tt.place, tt.why)
		}
	}
}

// Which cpus balance their LLC, when, and how often: on LLCs of 2 cpus the
// first balance comes 64 ms in and the next every 128 ms (get_sd_balance_
// interval() of a busy cpu: 2 then 4 ms times busy_factor 32), each cpu its
// own; at rate=4000 on 4 cpus every wakeup is 1 ms of a cpu's kernel time,
// so 1000 wakeups are 1 s: balances at 64, 192, ... 960 ms, 8 of them. No
// balance on LLCs of one cpu (no sd_llc_shared), with stats=live, or under
// another policy.
func TestLLCBalanceTimes(t *testing.T) {
	if first, every := balanceTimes(2); first != 64e6 || every != 128e6 {
		t.Errorf("balanceTimes(2) = %d, %d ns; want 64 ms, 128 ms", first, every)
	}
	for _, tt := range []struct {
		variant string
		llc     []int32
		each    int64
		note    string // what Notes says of the LLC statistics
	}{
		{"wake=llcstats/lines=1/mig=10/tasks=1/rate=4000/sync=100", twoLLC, 8, "load balances wrote it, 32 times"},
		{"wake=llcstats/lines=1/mig=10/tasks=1/rate=4000/sync=100", []int32{0, 1, 2, 3}, 0, "none (every LLC is one cpu"},
		{"wake=llcstats/lines=1/mig=10/tasks=1/rate=4000/sync=100/stats=live", twoLLC, 0, "stats=live"},
		{"wake=basic/lines=1/mig=10/tasks=1/rate=4000/sync=100", twoLLC, 0, ""},
	} {
		s, ws := setup(t, tt.variant, tt.llc, make([]int32, 4))
		drive(ws, 100, 10)
		for i, w := range ws {
			if w.balances != tt.each {
				t.Errorf("%s on LLCs %v: cpu %d balanced its LLC %d times in 1 s of kernel time, want %d", tt.variant, tt.llc, i, w.balances, tt.each)
			}
		}
		finish(t, s, total(s).attempts)
		notes := strings.Join(s.Notes(), "\n")
		if got := strings.Contains(notes, "LLC statistics"); got != (tt.note != "") || !strings.Contains(notes, tt.note) {
			t.Errorf("%s on LLCs %v: notes %q, want a note on the LLC statistics containing %q (none if empty)", tt.variant, tt.llc, notes, tt.note)
		}
	}
}
