package ksim

import "testing"

func TestSysctlFactor(t *testing.T) {
	for _, tc := range []struct {
		cpus int
		want int64
	}{{1, 1}, {2, 2}, {3, 2}, {4, 3}, {8, 4}, {224, 4}} {
		if got := SysctlFactor(tc.cpus); got != tc.want {
			t.Errorf("SysctlFactor(%d) = %d, want %d", tc.cpus, got, tc.want)
		}
	}
	// 4 cpus: 3 ms granularity, 18 ms latency, 2.25 ms slice.
	if g, l, s := WakeupGranularity(4), SchedLatency(4), BaseSlice(4); g != 3_000_000 || l != 18_000_000 || s != 2_250_000 {
		t.Errorf("4 cpus: granularity %d, latency %d, slice %d", g, l, s)
	}
}

// TestWakeupPreemptCFS: before EEVDF the wakee preempts when the running
// task's vruntime leads its own by more than the wakeup granularity,
// scaled by the wakee's weight (wakeup_gran(se)).
func TestWakeupPreemptCFS(t *testing.T) {
	const ms = 1_000_000
	for _, tc := range []struct {
		name         string
		lead, weight int64
		want         bool
	}{
		{"lead over 3 ms", 3*ms + 1, Nice0LoadDown, true},
		{"lead of 3 ms, not over", 3 * ms, Nice0LoadDown, false},
		{"wakee ahead", -ms, Nice0LoadDown, false},
		{"heavy wakee: 1.5 ms granularity", 2 * ms, 2 * Nice0LoadDown, true},
		{"light wakee: 6 ms granularity", 4 * ms, Nice0LoadDown / 2, false},
	} {
		curr := &Task{Weight: Nice0LoadDown, VRuntime: 100 * ms}
		wakee := &Task{Weight: tc.weight, VRuntime: 100*ms - tc.lead}
		if got := Linux61.WakeupPreempt(&Fair{}, curr, wakee, []*Task{wakee}, 4); got != tc.want {
			t.Errorf("%s: preempt %v, want %v", tc.name, got, tc.want)
		}
	}
	if Linux61.WakeupPreempt(&Fair{}, nil, &Task{Weight: 1024}, nil, 4) {
		t.Error("an idle cpu preempted")
	}
}

// TestPlaceSleeper: a sleeper is credited half a latency below
// min_vruntime, no more; one that slept less keeps its vruntime. A
// migrated wakee's vruntime moves with the min_vruntimes.
func TestPlaceSleeper(t *testing.T) {
	const ms = 1_000_000
	for _, tc := range []struct {
		name     string
		v, wantV int64
	}{{"long sleeper", 50 * ms, 91 * ms}, {"short sleeper", 95 * ms, 95 * ms}} {
		var f Fair
		f.UpdateMin(&Task{VRuntime: 100 * ms}, nil)
		k := &Task{Weight: Nice0LoadDown, VRuntime: tc.v}
		Linux61.PlaceWakee(&f, &f, k, 4) // 18 ms latency, 9 ms credit
		if k.VRuntime != tc.wantV {
			t.Errorf("%s: vruntime %d, want %d", tc.name, k.VRuntime, tc.wantV)
		}
	}
	var from, to Fair
	from.UpdateMin(&Task{VRuntime: 10 * ms}, nil)
	to.UpdateMin(&Task{VRuntime: 200 * ms}, nil)
	k := &Task{Weight: Nice0LoadDown, VRuntime: 12 * ms}
	Linux61.PlaceWakee(&to, &from, k, 4)
	if k.VRuntime != 202*ms {
		t.Errorf("migrated: vruntime %d, want 2 ms past the new min_vruntime", k.VRuntime)
	}
}

// TestUpdateMin: min_vruntime follows the least of the running and the
// queued entities, and never goes back.
func TestUpdateMin(t *testing.T) {
	var f Fair
	a, b := &Task{VRuntime: 10}, &Task{VRuntime: 7}
	f.UpdateMin(a, []*Task{b})
	if f.Min() != 7 {
		t.Errorf("min %d, want 7", f.Min())
	}
	f.UpdateMin(&Task{VRuntime: 3}, nil)
	if f.Min() != 7 {
		t.Errorf("min went back to %d", f.Min())
	}
	f.UpdateMin(nil, nil)
	if f.Min() != 7 {
		t.Errorf("an empty cfs_rq moved min to %d", f.Min())
	}
}

// TestPickEEVDF: the eligible entity of earliest deadline runs; an
// eligible current task keeps the cpu while RUN_TO_PARITY protects it
// (it has the deadline it was picked with), not once it has a new one.
func TestPickEEVDF(t *testing.T) {
	const slice = 3000
	setup := func() (*Fair, *Task, *Task) {
		var f Fair
		curr := &Task{Weight: Nice0LoadDown}
		f.Place(curr)
		curr.SetDeadline(slice)
		curr.Picked()
		f.Run(curr, 1000)
		wakee := &Task{Weight: Nice0LoadDown, VLag: 2000}
		f.Place(wakee)
		wakee.SetDeadline(slice)
		return &f, curr, wakee
	}
	f, curr, wakee := setup()
	// The wakee, placed with its lag, pulls the average below curr,
	// which ran: curr is ineligible, the wakee eligible.
	if f.Eligible(curr) || !f.Eligible(wakee) {
		t.Fatalf("eligible: curr %v, wakee %v", f.Eligible(curr), f.Eligible(wakee))
	}
	if got := Linux612.WakeupPreempt(f, curr, wakee, []*Task{wakee}, 4); !got {
		t.Error("an ineligible curr was not preempted by an eligible wakee")
	}
	// An eligible curr with its pick's deadline runs to parity.
	var g Fair
	c2 := &Task{Weight: Nice0LoadDown}
	g.Place(c2)
	c2.SetDeadline(slice)
	c2.Picked()
	w2 := &Task{Weight: Nice0LoadDown}
	g.Place(w2)
	w2.SetDeadline(slice / 2) // an earlier deadline
	if got := g.PickEEVDF(c2, []*Task{w2}, true); got != c2 {
		t.Error("RUN_TO_PARITY: the protected curr lost the pick")
	}
	if got := g.PickEEVDF(c2, []*Task{w2}, false); got != w2 {
		t.Error("without RUN_TO_PARITY: the earlier deadline lost the pick")
	}
	c2.Deadline++ // a new slice: no longer protected
	if got := g.PickEEVDF(c2, []*Task{w2}, true); got != w2 {
		t.Error("an unprotected curr kept the cpu against an earlier eligible deadline")
	}
	if got := g.PickEEVDF(c2, nil, true); got != c2 {
		t.Error("alone on the cfs_rq, curr lost the pick")
	}
}

// TestUpdateDeadline: the deadline moves a slice on once the vruntime
// reaches it, and only then.
func TestUpdateDeadline(t *testing.T) {
	k := &Task{Weight: Nice0LoadDown, VRuntime: 100, Deadline: 200}
	if k.UpdateDeadline(50) || k.Deadline != 200 {
		t.Errorf("before the deadline: deadline %d", k.Deadline)
	}
	k.VRuntime = 200
	if !k.UpdateDeadline(50) || k.Deadline != 250 {
		t.Errorf("at the deadline: deadline %d, want 250", k.Deadline)
	}
}

// TestRQPreempt: the wakee runs, the preempted task waits at the head and
// runs again when the wakee blocks.
func TestRQPreempt(t *testing.T) {
	rq := RQ{CPU: 0}
	a, b, w := &Task{ID: 1, Weight: 1}, &Task{ID: 2, Weight: 1}, &Task{ID: 3, Weight: 1}
	rq.Enqueue(a)
	rq.Enqueue(b)
	rq.Enqueue(w)
	if prev := rq.Preempt(w); prev != a || rq.Curr != w || rq.NrRunning != 3 || w.State != TaskRunning || a.State != TaskQueued {
		t.Fatalf("preempt: prev %v, curr %v, nr %d", prev, rq.Curr, rq.NrRunning)
	}
	if rq.Block(); rq.Curr != a {
		t.Errorf("after the wakee blocked: curr %v, want the preempted task", rq.Curr)
	}
	if rq.Preempt(&Task{ID: 9}) != nil {
		t.Error("a task not queued preempted")
	}
}
