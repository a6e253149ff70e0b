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
}

// Idle is idle_cpu(): nothing runs or waits here.
func (rq *RQ) Idle() bool { return rq.NrRunning == 0 }

// Enqueue puts t on rq: it runs at once if the CPU is idle, else it waits
// at the queue's tail.
func (rq *RQ) Enqueue(t *Task) {
	t.CPU = rq.CPU
	rq.NrRunning++
	rq.Load += t.Weight
	if rq.Curr == nil {
		t.State = TaskRunning
		rq.Curr = t
		return
	}
	t.State = TaskQueued
	rq.Queue = append(rq.Queue, t)
}

// Block takes the current task off the CPU to sleep, and the next queued
// one, if any, runs; it returns the task that blocked (nil if the CPU was
// idle).
func (rq *RQ) Block() *Task {
	t := rq.Curr
	if t == nil {
		return nil
	}
	t.State = TaskSleeping
	rq.NrRunning--
	rq.Load -= t.Weight
	rq.Curr = nil
	if n := len(rq.Queue); n > 0 {
		rq.Curr = rq.Queue[0]
		rq.Curr.State = TaskRunning
		// Shift in place rather than reslice from the front, so that
		// the queue's array is reused and a run that blocks and wakes
		// forever never allocates.
		copy(rq.Queue, rq.Queue[1:])
		rq.Queue[n-1] = nil
		rq.Queue = rq.Queue[:n-1]
	}
	return t
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
