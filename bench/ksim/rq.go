package ksim

// A TaskState is what a task is doing.
type TaskState int

const (
	TaskSleeping TaskState = iota // blocked: on no runqueue
	TaskQueued                    // on a runqueue, waiting for its CPU
	TaskRunning                   // its CPU's current task
)

// A Task is a task_struct as far as the models need one.
type Task struct {
	ID     int
	CPU    int   // task_cpu(p): the CPU it last ran on or is queued on
	Weight int64 // se.load.weight (Nice0LoadDown for nice 0)
	State  TaskState
	WakeAt int64 // a sleeping task's next wakeup, ns of kernel time (the model's, not the kernel's)
	// Seq counts the task's wakeups, for models that draw from it.
	Seq int64
	// VRuntime is se->vruntime (Fair), ns of virtual time; VLag and
	// Deadline are se->vlag and se->deadline under EEVDF.
	VRuntime, VLag, Deadline int64
}

// An RQ is one CPU's runqueue as far as the models need one: its current
// task, the FIFO of tasks waiting for it, and the idle bookkeeping that
// the wakeup path and the balancer read. The queue is FIFO, which is CFS's
// order for tasks of equal vruntime that each run to their next sleep; a
// model that needs vruntime order keeps its own.
type RQ struct {
	CPU   int
	Curr  *Task   // nil: the idle task runs
	Queue []*Task // waiting, oldest first
	// NrRunning is rq->nr_running: Curr and the queued tasks.
	NrRunning int
	// Load is the sum of the weights of Curr and the queued tasks (a
	// stand-in for cfs_rq->load.weight).
	Load int64
	// IdleStamp is rq->idle_stamp, when the CPU last went idle.
	IdleStamp int64
	// RQBalance is what the balance walks keep (balance.go):
	// rq->next_balance, rq->avg_idle and rq->max_idle_balance_cost.
	RQBalance
	// CFS is the virtual time of the one cfs_rq a model without task
	// groups keeps all of rq's tasks on, and ExecAt when Curr's vruntime
	// was last brought up (se->exec_start): preempt.go's RQ functions
	// keep both.
	CFS    Fair
	ExecAt int64
}

// Idle is idle_cpu(): nothing runs or waits here.
func (rq *RQ) Idle() bool { return rq.NrRunning == 0 }

// Enqueue puts t on rq and, if the CPU is idle, runs it (Activate, then
// PickNext): what a model without a wakeup's latency needs.
func (rq *RQ) Enqueue(t *Task) {
	rq.Activate(t)
	if rq.Curr == nil {
		rq.PickNext()
	}
}

// Block takes the current task off the CPU to sleep, and the next queued
// one, if any, runs (Deactivate, then PickNext, as __schedule() does for a
// task that blocks); it returns the task that blocked (nil if the CPU was
// idle).
func (rq *RQ) Block() *Task {
	t := rq.Deactivate()
	if t != nil {
		rq.PickNext()
	}
	return t
}

// Activate is activate_task() (enqueue_task(), add_nr_running()): t joins
// rq, runnable, at the queue's tail. Nothing runs it until PickNext: a
// model whose idle CPU takes time to notice (an IPI, a halted vCPU's
// wakeup) calls that later.
func (rq *RQ) Activate(t *Task) {
	t.CPU = rq.CPU
	t.State = TaskQueued
	rq.NrRunning++
	rq.Load += t.Weight
	rq.Queue = append(rq.Queue, t)
}

// Deactivate is __schedule()'s deactivate_task() of a current task that
// blocks: it sleeps, off rq, and nothing runs until PickNext. It returns
// the task (nil if the CPU was idle).
func (rq *RQ) Deactivate() *Task {
	t := rq.Curr
	if t == nil {
		return nil
	}
	t.State = TaskSleeping
	rq.NrRunning--
	rq.Load -= t.Weight
	rq.Curr = nil
	return t
}

// PickNext is __schedule()'s pick_next_task() on a CPU whose current task
// has left it: the oldest queued task runs. It returns it, or nil with the
// CPU idle.
func (rq *RQ) PickNext() *Task {
	n := len(rq.Queue)
	if n == 0 {
		return nil
	}
	rq.Curr = rq.Queue[0]
	rq.Curr.State = TaskRunning
	// Shift in place rather than reslice from the front, so that the
	// queue's array is reused and a run that blocks and wakes forever
	// never allocates.
	copy(rq.Queue, rq.Queue[1:])
	rq.Queue[n-1] = nil
	rq.Queue = rq.Queue[:n-1]
	return rq.Curr
}

// PutPrev puts the current task back on rq, still runnable
// (put_prev_task()), and leaves the CPU to PickNext: at the queue's tail
// for sched_yield() (yield_task_fair() makes it the skip buddy, so every
// queued task runs first), at its head for a task stopped mid-run that is
// to run next unless it is moved (the stopper of an active balance,
// active_load_balance_cpu_stop()). It returns the task (nil if the CPU was
// idle).
func (rq *RQ) PutPrev(head bool) *Task {
	t := rq.Curr
	if t == nil {
		return nil
	}
	t.State = TaskQueued
	rq.Curr = nil
	rq.Queue = append(rq.Queue, t)
	if head {
		copy(rq.Queue[1:], rq.Queue)
		rq.Queue[0] = t
	}
	return t
}

// Preempt is __schedule() after a wakeup preemption (Kernel.WakeupPreempt):
// t, queued here, runs, and the current task stays queued, at the head of
// the FIFO: it runs again as soon as t leaves the CPU, which the kernel's
// pick does where the preempted task is the leftmost left. It returns the
// preempted task (nil, nothing changed: the CPU was idle or t not queued).
func (rq *RQ) Preempt(t *Task) *Task {
	prev := rq.Curr
	for i, q := range rq.Queue {
		if prev == nil {
			break
		}
		if q == t {
			copy(rq.Queue[1:i+1], rq.Queue[:i])
			rq.Queue[0] = prev
			prev.State = TaskQueued
			rq.Curr = t
			t.State = TaskRunning
			return prev
		}
	}
	return nil
}

// NextBuddy is set_next_buddy() of t, queued here, by a wakeup that
// preempts: t moves to the queue's head, as pick_next_entity() takes
// cfs_rq->next ("Someone really wants this to run. If it's not unfair,
// run it.") whether the preempted task is switched out or blocks first.
// It reports whether t was queued here.
func (rq *RQ) NextBuddy(t *Task) bool {
	for i, q := range rq.Queue {
		if q == t {
			copy(rq.Queue[1:i+1], rq.Queue[:i])
			rq.Queue[0] = t
			return true
		}
	}
	return false
}

// Remove takes queued task t off rq (a migration's dequeue), reporting
// whether it was queued here.
func (rq *RQ) Remove(t *Task) bool {
	for i, q := range rq.Queue {
		if q == t {
			rq.Queue = append(rq.Queue[:i], rq.Queue[i+1:]...)
			rq.NrRunning--
			rq.Load -= t.Weight
			return true
		}
	}
	return false
}

// UpdateAvg is update_avg() of kernel/sched/sched.h, "s64 diff = sample -
// *avg; *avg += diff / 8;": an average that moves an eighth of the way to
// each sample (C's signed division, which Go's matches: towards zero).
func UpdateAvg(avg *int64, sample int64) { *avg += (sample - *avg) / 8 }

// Fair is one cfs_rq's EEVDF virtual time (v6.6's 147f3efaa241,
// "sched/fair: Implement an EEVDF-like scheduling policy", as 6.12 has
// it): avg_vruntime(), the load-weighted mean vruntime of the entities
// on the cfs_rq, the running one included; entity_eligible(); a lag kept
// at dequeue (update_entity_lag()) and restored at enqueue
// (place_entity() with PLACE_LAG). Weights are unscaled (Task.Weight);
// vruntime advances by calc_delta_fair(), delta · NICE_0_LOAD / weight.
// The kernel keeps the sums relative to min_vruntime, in the entity's
// weight scaled down; the sums here are the same over absolute vruntime.
//
// Before EEVDF the same sums are kept but unused; min_vruntime is CFS's
// base (UpdateMin, preempt.go).
type Fair struct {
	vSum, load int64 // Σ weight·vruntime and Σ weight of the entities on the cfs_rq
	last       int64 // avg_vruntime() when last non-empty: an empty cfs_rq's min_vruntime
	min        int64 // cfs_rq->min_vruntime before EEVDF (UpdateMin)
}

// Avg is avg_vruntime(): the weighted mean vruntime, or, on an empty
// cfs_rq, where it last was (min_vruntime).
func (f *Fair) Avg() int64 {
	if f.load > 0 {
		f.last = f.vSum / f.load
	}
	return f.last
}

// Add is avg_vruntime_add(): t joins the cfs_rq at its VRuntime.
func (f *Fair) Add(t *Task) { f.vSum += t.Weight * t.VRuntime; f.load += t.Weight }

// Sub is avg_vruntime_sub(): t leaves it. The last one to leave leaves
// the average behind (Avg, which an empty cfs_rq answers with): only then
// is it read, so only then is it worked out.
func (f *Fair) Sub(t *Task) {
	if f.load == t.Weight {
		f.Avg()
	}
	f.vSum -= t.Weight * t.VRuntime
	f.load -= t.Weight
}

// Run is update_curr() for t, on the cfs_rq, having run delta ns.
func (f *Fair) Run(t *Task, delta int64) {
	dv := calcDeltaFair(delta, t.Weight)
	t.VRuntime += dv
	f.vSum += t.Weight * dv
}

// Eligible is entity_eligible(): "avg >= (s64)(vruntime - min_vruntime)
// * load", a lag of zero or more.
func (f *Fair) Eligible(t *Task) bool { return f.vSum >= t.VRuntime*f.load }

// UpdateLag is update_entity_lag() of t, on the cfs_rq, as it leaves:
//
//	lag = avg_vruntime(cfs_rq) - se->vruntime;
//	limit = calc_delta_fair(max_t(u64, 2*se->slice, TICK_NSEC), se);
//	se->vlag = clamp(lag, -limit, limit);
//
// limit is max(2·slice, TICK_NSEC) in ns (BaseSlice gives the slice).
func (f *Fair) UpdateLag(t *Task, limit int64) {
	limit = calcDeltaFair(limit, t.Weight)
	t.VLag = min(max(f.Avg()-t.VRuntime, -limit), limit)
}

// Place is place_entity() of t joining the cfs_rq with its lag (6.12):
//
//	if (sched_feat(PLACE_LAG) && cfs_rq->nr_running && se->vlag) {
//		...
//		lag *= load + scale_load_down(se->load.weight);
//		lag = div_s64(lag, load);
//	}
//	se->vruntime = vruntime - lag;
//
// then Add.
func (f *Fair) Place(t *Task) {
	lag := t.VLag
	if f.load > 0 {
		lag = lag * (f.load + t.Weight) / f.load
	} else {
		lag = 0
	}
	t.VRuntime = f.Avg() - lag
	f.Add(t)
}

// RequeueDelayed is requeue_delayed_entity()'s DELAY_ZERO (v6.12) for
// delayed task t, woken where it stayed queued: an entity whose lag
// turned positive is re-placed at zero lag,
//
//	if (sched_feat(DELAY_ZERO)) {
//		update_entity_lag(cfs_rq, se);
//		if (se->vlag > 0) {
//			...
//			se->vlag = 0;
//			place_entity(cfs_rq, se, 0);
//
// limit as UpdateLag's.
func (f *Fair) RequeueDelayed(t *Task, limit int64) {
	f.UpdateLag(t, limit)
	if t.VLag > 0 {
		f.Sub(t)
		t.VLag = 0
		f.Place(t)
	}
}

// BaseSlice is sysctl_sched_base_slice on cpus CPUs (v6.6+): 0.75 ms ×
// SysctlFactor (kernel/sched/fair.c, get_update_sysctl_factor()).
func BaseSlice(cpus int) int64 { return 750_000 * SysctlFactor(cpus) }
