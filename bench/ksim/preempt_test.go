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

// TestRQSteps: the fair class's steps on an RQ's one cfs_rq, by version.
// update_curr() charges the running task from ExecAt, nothing twice; a
// balance's move keeps the moved task's place, before EEVDF its distance
// from min_vruntime (12 ms against 10 ms moves to 202 ms against 200 ms),
// under EEVDF its lag (-1 ms, which place_entity() scales for the load it
// joins: 2 ms past the average of 10 ms); a long sleeper woken onto the
// busy cpu preempts under CFS (placed 9 ms under min_vruntime, over the
// 3 ms granularity) and not under EEVDF, where the running task's
// deadline is the earlier; an idle cpu is preempted by no one here; a
// sleep leaves the sums to the queued tasks.
func TestRQSteps(t *testing.T) {
	const ms = 1_000_000
	for _, tc := range []struct {
		name      string
		k         Kernel
		cV        int64 // the running task's vruntime as it starts on rq1
		movedV    int64 // the moved task's vruntime on rq1
		preempt   bool
		sleeperAt int64 // the long sleeper's placed vruntime
	}{
		{"6.1", Linux61, 190 * ms, 202 * ms, true, 191 * ms},
		{"6.12", Linux612, 0, 12 * ms, false, 11 * ms},
	} {
		k := tc.k
		start := func(rq *RQ, id int, v int64) *Task {
			c := &Task{ID: id, Weight: Nice0LoadDown, VRuntime: v}
			k.WakeRQ(rq, rq, c, 0, 4)
			rq.Activate(c)
			rq.PickNext()
			k.SetNextRQ(rq, 0)
			return c
		}
		rq0, rq1 := &RQ{}, &RQ{CPU: 1}
		a, c := start(rq0, 0, 0), start(rq1, 1, tc.cV)
		k.UpdateCurrRQ(rq0, 10*ms, 4)
		k.UpdateCurrRQ(rq0, 10*ms, 4) // no time has passed: nothing
		if a.VRuntime != 10*ms {
			t.Errorf("%s: curr's vruntime %d after 10 ms, want 10 ms", tc.name, a.VRuntime)
		}
		// b wakes onto rq0 2 ms ahead of a (CFS keeps its 12 ms; EEVDF
		// places it at its lag of -1 ms, scaled: 12 ms), then moves.
		b := &Task{ID: 2, Weight: Nice0LoadDown, VRuntime: 12 * ms, VLag: -ms}
		k.WakeRQ(rq0, rq0, b, 10*ms, 4)
		rq0.Activate(b)
		if !k.MoveRQ(rq0, rq1, b, 10*ms, 250, 4) || len(rq0.Queue) != 0 || k.MoveRQ(rq0, rq1, b, 10*ms, 250, 4) {
			t.Fatalf("%s: the move did not take b off rq0 once", tc.name)
		}
		rq1.Activate(b)
		if b.VRuntime != tc.movedV {
			t.Errorf("%s: moved vruntime %d, want %d", tc.name, b.VRuntime, tc.movedV)
		}
		if k.PreemptRQ(&RQ{}, b, 10*ms, 4) {
			t.Errorf("%s: a wakee preempted an idle cpu's idle task", tc.name)
		}
		sl := &Task{ID: 3, Weight: Nice0LoadDown}
		k.WakeRQ(rq1, rq1, sl, 10*ms, 4)
		rq1.Activate(sl)
		if got := k.PreemptRQ(rq1, sl, 10*ms, 4); got != tc.preempt || sl.VRuntime != tc.sleeperAt {
			t.Errorf("%s: long sleeper at %d preempts %v, want %d and %v", tc.name, sl.VRuntime, got, tc.sleeperAt, tc.preempt)
		}
		if k.SleepRQ(rq1, 10*ms, 250, 4) != c || rq1.Curr != nil {
			t.Fatalf("%s: the running task did not sleep", tc.name)
		}
		if want := (b.VRuntime + sl.VRuntime) / 2; rq1.CFS.Avg() != want {
			t.Errorf("%s: average after the sleep %d, want the queued tasks' %d", tc.name, rq1.CFS.Avg(), want)
		}
	}
}

// TestMoveRQMinWithTheTask: before EEVDF a balance's move takes from's
// update_curr() with the moved task still queued, so min_vruntime, held
// back by it (8 ms, behind the running task's 11 ms), stays at 10 ms and
// the task keeps its 2 ms behind it; taken off first, it would lose a
// millisecond to the running task's 11.
func TestMoveRQMinWithTheTask(t *testing.T) {
	const ms = 1_000_000
	k := Linux61
	rq0, rq1 := &RQ{}, &RQ{CPU: 1}
	a := &Task{Weight: Nice0LoadDown}
	k.WakeRQ(rq0, rq0, a, 0, 4)
	rq0.Activate(a)
	rq0.PickNext()
	k.SetNextRQ(rq0, 0)
	k.UpdateCurrRQ(rq0, 10*ms, 4) // min_vruntime 10 ms
	b := &Task{ID: 1, Weight: Nice0LoadDown, VRuntime: 8 * ms}
	k.WakeRQ(rq0, rq0, b, 10*ms, 4)
	rq0.Activate(b)
	k.MoveRQ(rq0, rq1, b, 11*ms, 250, 4)
	if rq0.CFS.Min() != 11*ms || b.VRuntime != -2*ms {
		t.Errorf("min_vruntime %d after the move (want 11 ms: a alone), moved vruntime %d (want 2 ms behind rq1's 0)", rq0.CFS.Min(), b.VRuntime)
	}
}
