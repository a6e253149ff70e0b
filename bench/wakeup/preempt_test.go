package wakeup

import (
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// A wakeup onto a cpu running a task asks the policy's kernel whether the
// wakee preempts (ksim.Kernel.PreemptRQ), from the cpu's vruntimes: on 4
// cpus, CFS's (every policy here: 4.13 and 6.1) preempts where the running
// task leads the placed wakee by more than the 3 ms wakeup granularity, a
// long sleeper placed 9 ms (half the 18 ms latency) under min_vruntime;
// EEVDF's (6.12, set on the kernel) where pick_eevdf() picks the wakee,
// not while RUN_TO_PARITY keeps the running task's first slice. The switch
// comes at the wakeup's event's end: the wakee runs, the preempted task
// waits at the queue's head with the rest of its burst, counted as
// preempted; a wakee that does not preempt waits behind it.
func TestWakeupPreemption(t *testing.T) {
	const ms = int64(time.Millisecond)
	for _, tt := range []struct {
		name    string
		policy  string
		kern    *ksim.Kernel // overrides the policy's
		ran     int64        // the running task's run before the wakeup
		slept   int64        // the wakee's vruntime below the running task's start
		preempt bool
	}{
		{"6.1: long sleeper, 9 ms credit", "v6.1", nil, ms, 50 * ms, true},
		{"6.1: short sleeper, 2 ms behind", "v6.1", nil, 2 * ms, 0, false},
		{"6.1: short sleeper, 4 ms behind", "v6.1", nil, 4 * ms, 0, true},
		{"4.13: long sleeper", "llcstats", nil, ms, 50 * ms, true},
		{"4.13 patched: short sleeper, 2 ms behind", "basic", nil, 2 * ms, 0, false},
		{"6.12: first slice, run to parity", "v6.1", &ksim.Linux612, ms, 0, false},
		{"6.12: past its deadline", "v6.1", &ksim.Linux612, 3 * ms, 0, true},
	} {
		k := newTestKernel(t, tt.policy, "s390", 4)
		if tt.kern != nil {
			k.kern = *tt.kern
		}
		c := k.cpus[0]
		curr, wakee := k.addTask(0), k.addTask(0)
		wakee.VRuntime = -tt.slept
		curr.burst, wakee.burst = 10*ms, ms
		k.Start(curr.ID)
		k.runNext(c)
		k.now += tt.ran
		k.Wake(wakee.ID, 0, false) // a timer's interrupt on cpu 0
		k.reschedule()
		switch {
		case tt.preempt && (c.Curr != &wakee.Task || c.Queue[0] != &curr.Task || curr.burst != 10*ms-tt.ran || k.c.preempted != 1):
			t.Errorf("%s: curr %d, queue head %d, the preempted burst left %d, preempted %d; want the wakee running, the task it preempted next with %d ns left",
				tt.name, c.Curr.ID, c.Queue[0].ID, curr.burst, k.c.preempted, 10*ms-tt.ran)
		case !tt.preempt && (c.Curr != &curr.Task || k.c.preempted != 0):
			t.Errorf("%s: curr %d, preempted %d; want the running task kept", tt.name, c.Curr.ID, k.c.preempted)
		}
	}
}

// A running task that blocks in the event whose wakeup preempts it (a
// WF_SYNC wakeup onto the waker's own cpu, then the waker's sleep) is not
// preempted: the wakee, the next buddy, runs after it, ahead of a task
// queued before it.
func TestPreemptingWakeeIsNextBuddy(t *testing.T) {
	k := newTestKernel(t, "v6.1", "s390", 4)
	c := k.cpus[0]
	waker, queued, wakee := k.addTask(0), k.addTask(0), k.addTask(0)
	for _, x := range []*ktask{waker, queued, wakee} {
		x.burst = 1e6
	}
	wakee.VRuntime = -50e6
	k.Start(waker.ID)
	k.runNext(c)
	k.now = 1e6
	k.Start(queued.ID)
	k.Wake(wakee.ID, 0, true)
	k.kern.SleepRQ(&c.RQ, k.now, k.hz, len(k.cpus))
	k.runNext(c)
	k.reschedule()
	if c.Curr != &wakee.Task || k.c.preempted != 0 || c.Queue[0] != &queued.Task {
		t.Errorf("curr %d, queue head %d, preempted %d; want the wakee running, the queued task next, none preempted", c.Curr.ID, c.Queue[0].ID, k.c.preempted)
	}
}

// The one-cpu-LLC check's guest (contend kernel wakeups-model's inputs for
// testdata/wakeups-6.1-llc1.json, rounded): the other threads, woken by
// their timers on cpus running the workload's tasks, preempt them (the
// kernel's count: 240 involuntary switches of the workload's tasks per
// second, 8 of the other threads in 5 s), so the idle balances move few
// of them; without preemption they wait behind the workload and are what
// the balancer moves (docs/wakeup.md).
func TestOthersPreemptTheWorkload(t *testing.T) {
	k := simRun(t, SimConfig{CPUs: []int{4}, Policies: []string{"v6.1"}, Topology: "s390", HZ: 250,
		Threads: 2, Think: 2260 * time.Microsecond, Service: 2435 * time.Microsecond, Tail: 515 * time.Microsecond,
		IdleWake: 266 * time.Microsecond, LBCost: 37 * time.Millisecond,
		Others: 8, OthersPeriod: 21 * time.Millisecond, OthersBurst: 267 * time.Microsecond,
		Duration: time.Second, Warmup: -1})
	if perS := k.c.preempted; perS < 100 || perS > 400 {
		t.Errorf("workload tasks preempted %d times in 1 s; want about the other threads' wakeups onto busy cpus (the kernel's count: 240/s)", perS)
	}
	var othersMoved int64
	for id, tk := range k.tasks {
		if k.w.Other(id) {
			othersMoved += tk.nrMigrations
		}
	}
	if othersMoved > 18 {
		t.Errorf("the other threads migrated %d times in 1 s; want few (preempting, they do not wait to be pulled: the kernel's 42 in 5 s; waiting behind the workload, 35)", othersMoved)
	}
}
