package ksim

import (
	"slices"
	"testing"
)

func TestRQ(t *testing.T) {
	rq := RQ{CPU: 3}
	a, b, c := &Task{ID: 1, Weight: Nice0LoadDown}, &Task{ID: 2, Weight: Nice0LoadDown}, &Task{ID: 3, Weight: 512}
	if !rq.Idle() || rq.Block() != nil {
		t.Fatal("a new rq is idle, with nothing to block")
	}
	rq.Enqueue(a)
	rq.Enqueue(b)
	rq.Enqueue(c)
	if rq.Curr != a || a.State != TaskRunning || b.State != TaskQueued || a.CPU != 3 || rq.NrRunning != 3 || rq.Load != 2560 {
		t.Fatalf("after three enqueues: curr %v, nr %d, load %d", rq.Curr, rq.NrRunning, rq.Load)
	}
	if !rq.Remove(c) || rq.Remove(c) || rq.NrRunning != 2 || rq.Load != 2048 {
		t.Fatalf("Remove: nr %d, load %d", rq.NrRunning, rq.Load)
	}
	if got := rq.Block(); got != a || a.State != TaskSleeping || rq.Curr != b || b.State != TaskRunning || rq.NrRunning != 1 {
		t.Fatalf("Block = %v: curr %v, nr %d", got, rq.Curr, rq.NrRunning)
	}
	rq.Block()
	if !rq.Idle() || rq.Curr != nil || rq.Load != 0 {
		t.Fatalf("after blocking both: nr %d, load %d", rq.NrRunning, rq.Load)
	}
}

// TestRQSchedule: Activate queues without running (an idle CPU notices
// only at PickNext), Deactivate and PutPrev leave the CPU to PickNext, and
// PutPrev puts a yielding task behind the queue, a stopped one before it.
func TestRQSchedule(t *testing.T) {
	ids := func(rq *RQ) (curr int, queue []int) {
		curr = -1
		if rq.Curr != nil {
			curr = rq.Curr.ID
		}
		for _, q := range rq.Queue {
			queue = append(queue, q.ID)
		}
		return curr, queue
	}
	for _, tc := range []struct {
		name      string
		step      func(rq *RQ)
		curr      int
		queue     []int
		nr        int
		currState TaskState
	}{
		{"activate leaves the cpu idle", func(rq *RQ) {}, -1, []int{1, 2, 3}, 3, 0},
		{"pick runs the oldest", func(rq *RQ) { rq.PickNext() }, 1, []int{2, 3}, 3, TaskRunning},
		{"yield goes behind", func(rq *RQ) { rq.PickNext(); rq.PutPrev(false); rq.PickNext() }, 2, []int{3, 1}, 3, TaskRunning},
		{"a stopped task goes first", func(rq *RQ) { rq.PickNext(); rq.PutPrev(true) }, -1, []int{1, 2, 3}, 3, 0},
		{"deactivate leaves it idle", func(rq *RQ) { rq.PickNext(); rq.Deactivate() }, -1, []int{2, 3}, 2, 0},
	} {
		rq := RQ{CPU: 2}
		ts := []*Task{{ID: 1, Weight: 1}, {ID: 2, Weight: 1}, {ID: 3, Weight: 1}}
		for _, tk := range ts {
			rq.Activate(tk)
		}
		tc.step(&rq)
		curr, queue := ids(&rq)
		if curr != tc.curr || !slices.Equal(queue, tc.queue) || rq.NrRunning != tc.nr || rq.Load != int64(tc.nr) {
			t.Errorf("%s: curr %d, queue %v, nr %d, load %d; want %d, %v, %d", tc.name, curr, queue, rq.NrRunning, rq.Load, tc.curr, tc.queue, tc.nr)
		}
		if rq.Curr != nil && rq.Curr.State != tc.currState {
			t.Errorf("%s: current task's state %d, want %d", tc.name, rq.Curr.State, tc.currState)
		}
		for _, q := range rq.Queue {
			if q.State != TaskQueued || q.CPU != 2 {
				t.Errorf("%s: queued task %d state %d on cpu %d, want queued on 2", tc.name, q.ID, q.State, q.CPU)
			}
		}
	}
}

// TestRQNoAlloc: tasks that run, block and wake on one runqueue forever
// reuse its queue's array (the models' hot loops must not allocate).
func TestRQNoAlloc(t *testing.T) {
	rq := RQ{CPU: 1, Queue: make([]*Task, 0, 4)}
	ts := []*Task{{ID: 1, Weight: Nice0LoadDown}, {ID: 2, Weight: Nice0LoadDown}, {ID: 3, Weight: Nice0LoadDown}}
	for _, tk := range ts {
		rq.Enqueue(tk)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		rq.Enqueue(rq.Block())
	})
	if allocs != 0 || rq.NrRunning != 3 || len(rq.Queue) != 2 {
		t.Errorf("block and wake: %v allocations per run, nr %d, %d queued; want 0, 3, 2", allocs, rq.NrRunning, len(rq.Queue))
	}
}

func TestUpdateAvg(t *testing.T) {
	for _, tc := range []struct{ avg, sample, want int64 }{
		{0, 800, 100}, {100, 0, 88}, {1000, 1007, 1000}, {-7, 0, -7}, {0, -15, -1},
		// idlemask's cases, from when it kept its own copy.
		{1_000_000, 10_000, 1_000_000 - 123_750},
		{100, 99, 100},  // -1/8 truncates to 0, as C's signed division does
		{100, 92, 99},   // -8/8
		{100, 107, 100}, // 7/8
	} {
		avg := tc.avg
		UpdateAvg(&avg, tc.sample)
		if avg != tc.want {
			t.Errorf("UpdateAvg(%d, %d) = %d, want %d", tc.avg, tc.sample, avg, tc.want)
		}
	}
}

func TestWalks(t *testing.T) {
	span := []int{2, 3, 5, 8}
	for _, tc := range []struct {
		start, stopAt int
		want          []int
		all           bool
	}{
		{5, -1, []int{5, 8, 2, 3}, true},
		{4, -1, []int{5, 8, 2, 3}, true},
		{9, -1, []int{2, 3, 5, 8}, true},
		{3, 8, []int{3, 5, 8}, false},
	} {
		var got []int
		all := WrapFrom(span, tc.start, func(c int) bool {
			got = append(got, c)
			return c != tc.stopAt
		})
		if all != tc.all || len(got) != len(tc.want) || got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1] {
			t.Errorf("WrapFrom(%v, %d) visited %v (%v), want %v (%v)", span, tc.start, got, all, tc.want, tc.all)
		}
	}
}

func TestNohzBlockedEvery(t *testing.T) {
	for _, tc := range []struct {
		hz   HZ
		want int64
	}{{1000, 32_000_000}, {250, 32_000_000}, {100, 40_000_000}, {300, 33_333_330}} {
		if got := NohzBlockedEvery(tc.hz); got != tc.want {
			t.Errorf("NohzBlockedEvery(%d) = %d, want %d", tc.hz, got, tc.want)
		}
	}
}

// TestFair: EEVDF's virtual time on one cfs_rq of nice-0 tasks. A task
// alone is eligible (lag 0); of two placed together, the one that ran is
// not, the one that waited is; a lag kept at dequeue comes back scaled
// by (load + w) / load at the next placement, and an empty cfs_rq places
// at its last average with no lag.
func TestFair(t *testing.T) {
	var f Fair
	a, b := &Task{ID: 0, Weight: Nice0LoadDown}, &Task{ID: 1, Weight: Nice0LoadDown}
	f.Place(a)
	if !f.Eligible(a) {
		t.Error("a task alone: not eligible")
	}
	f.Run(a, 1000)
	f.Place(b) // at the average: a's vruntime, lag 0
	if !f.Eligible(a) || !f.Eligible(b) {
		t.Error("b placed at a's vruntime: both should be eligible (lag 0)")
	}
	f.Run(a, 2000)
	if f.Eligible(a) || !f.Eligible(b) {
		t.Errorf("a ran 2 µs more: a eligible %v, b %v; want false, true", f.Eligible(a), f.Eligible(b))
	}
	f.UpdateLag(b, 1_000_000)
	if b.VLag != 1000 { // V = (3000 + 1000) / 2, b at 1000
		t.Errorf("b's lag %d, want 1000", b.VLag)
	}
	f.Sub(b)
	c := &Task{ID: 2, Weight: Nice0LoadDown}
	f.Place(c) // no lag
	f.Place(b) // lag 1000 × (2+1)/2 = 1500 below the average
	if got := (a.VRuntime+c.VRuntime)/2 - b.VRuntime; got != 1500 {
		t.Errorf("b placed %d below the average of the others, want 1500", got)
	}
	f.UpdateLag(a, 100)
	if a.VLag != -100 {
		t.Errorf("a's lag %d, want clamped to -100", a.VLag)
	}
	for _, x := range []*Task{a, b, c} {
		f.Sub(x)
	}
	d := &Task{ID: 3, Weight: Nice0LoadDown, VLag: 5000}
	last := f.Avg()
	f.Place(d)
	if d.VRuntime != last {
		t.Errorf("placed on an empty cfs_rq at %d, want its last average %d, lag dropped", d.VRuntime, last)
	}
	if BaseSlice(4) != 2_250_000 || BaseSlice(1) != 750_000 || BaseSlice(64) != 3_000_000 {
		t.Errorf("BaseSlice: %d %d %d", BaseSlice(1), BaseSlice(4), BaseSlice(64))
	}
}

// TestNextBuddy: a preempting wakee moves to the queue's head from
// wherever it waits, the others keeping their order; a task not queued
// changes nothing.
func TestNextBuddy(t *testing.T) {
	for _, tc := range []struct {
		buddy int
		want  []int
		ok    bool
	}{
		{0, []int{0, 1, 2}, true},
		{1, []int{1, 0, 2}, true},
		{2, []int{2, 0, 1}, true},
		{9, []int{0, 1, 2}, false},
	} {
		rq := RQ{Curr: &Task{ID: 7}}
		ts := []*Task{{ID: 0}, {ID: 1}, {ID: 2}, {ID: 9}}
		for _, x := range ts[:3] {
			rq.Activate(x)
		}
		ok := rq.NextBuddy(ts[min(tc.buddy, 3)])
		var got []int
		for _, x := range rq.Queue {
			got = append(got, x.ID)
		}
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("buddy %d: %v, queue %v; want %v, %v", tc.buddy, ok, got, tc.ok, tc.want)
		}
	}
}

// TestRequeueDelayed: DELAY_ZERO re-places a delayed entity whose lag
// turned positive at zero lag (its vruntime the queue's average), and
// leaves one with negative lag where it was.
func TestRequeueDelayed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		vr       int64
		wantLag  int64
		replaced bool
	}{{"behind: positive lag", 1_000, 0, true}, {"ahead: negative lag", 9_000, -2_000, false}} {
		var f Fair
		other := &Task{ID: 1, Weight: 1024, VRuntime: 5_000}
		t0 := &Task{ID: 0, Weight: 1024, VRuntime: tc.vr}
		f.Add(other)
		f.Add(t0)
		f.RequeueDelayed(t0, 1<<40)
		switch {
		case tc.replaced && (t0.VLag != 0 || t0.VRuntime != f.Avg()):
			t.Errorf("%s: vlag %d, vruntime %d, avg %d; want 0 and the average", tc.name, t0.VLag, t0.VRuntime, f.Avg())
		case !tc.replaced && (t0.VLag != tc.wantLag || t0.VRuntime != tc.vr):
			t.Errorf("%s: vlag %d, vruntime %d; want %d and %d", tc.name, t0.VLag, t0.VRuntime, tc.wantLag, tc.vr)
		}
	}
}

// TestOtherCPU: every cpu but the one given, each from one residue.
func TestOtherCPU(t *testing.T) {
	seen := map[int]int{}
	for x := range uint64(8) {
		c := OtherCPU(x, 2, 5)
		if c == 2 || c < 0 || c >= 5 {
			t.Fatalf("OtherCPU(%d, 2, 5) = %d", x, c)
		}
		seen[c]++
	}
	if len(seen) != 4 || seen[0] != 2 || seen[4] != 2 {
		t.Errorf("OtherCPU over x 0..7 of 5 cpus but 2: %v, want each of 0, 1, 3, 4 twice", seen)
	}
}
