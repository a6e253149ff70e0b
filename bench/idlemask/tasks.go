package idlemask

// The woken tasks' history (prev=history): which task a wakeup wakes, and
// the prev_cpu and recent_used_cpu select_idle_sibling() reads from it, as
// the seed's kernel (v5.11) keeps them:
//
//   - prev is task_cpu(p), the CPU the task's last wakeup put it on (the
//     one select_idle_sibling() returned: found idle, or the target it was
//     stacked on);
//   - p->recent_used_cpu is written in two places. select_task_rq_fair(),
//     after select_idle_sibling(), for the waker:
//
//	if (want_affine)
//		current->recent_used_cpu = cpu;
//
//     the CPU the task last woke another task from (want_affine is assumed
//     on every wakeup: the target is the waking CPU, so wake_affine() chose
//     it); and select_idle_sibling() itself, when it returns the task's
//     recent_used_cpu: "Replace recent_used_cpu with prev as it is a
//     potential candidate for the next wake", p->recent_used_cpu = prev.
//     (Mel Gorman's "sched/fair: Use prev instead of new target as
//     recent_used_cpu", v5.15, moved the write into select_idle_sibling()
//     for every wakeup; not the seed's kernel.)
//
// Each worker has tasksPerCPU tasks for each CPU it owns, all its own
// (only its CPUs wake them, though they may land on any CPU of the LLC):
// one current on each CPU, the rest asleep. The waker is its CPU's current
// task, the wakee one of the sleeping ones, uniformly; a wakee that lands
// on one of the worker's CPUs becomes its current task (it runs there next:
// at once on an idle CPU, after the running task on the busy target) and
// the task it displaces sleeps. One that lands on another worker's CPU (a
// found idle CPU in a pinned run; the one-thread simulation owns whole
// LLCs) stays among the sleeping, as the worker never learns when it
// blocks. Each task starts on a CPU of the worker's share, with
// recent_used_cpu equal to prev (so that shortcut first needs the task to
// have woken another from elsewhere).
//
// The model's CPUs keep their duty cycle whatever task they run: a task's
// prev is idle as often as that CPU's duty cycle makes it, not more
// because the task itself left it. So the history moves early-% only
// through where tasks land: a woken task's prev is a CPU that took it,
// and was therefore busy since.

// tasksPerCPU is the tasks each simulated CPU brings: a running one and a
// sleeping one, as a uperf pair per CPU. Seed 003 ran 96 to 240 threads on
// 192 CPUs, 0.5 to 1.25 a CPU; with one a CPU no task would be asleep to
// wake. A model choice, not the seed's.
const tasksPerCPU = 2

// A task is the part of a task_struct select_idle_sibling() reads:
// task_cpu(p) and p->recent_used_cpu.
type task struct{ prev, recent int32 }

// A history is one worker's tasks, touched only by its thread.
type history struct {
	tasks []task
	curr  []int32 // per owned CPU (index c-lo): the task it runs, the waker of its wakeups
	// asleep is the tasks no CPU of the worker runs: the wakees.
	asleep []int32
	wakee  int32 // the task the wakeup in progress wakes
	slot   int   // its index in asleep
}

func newHistory(lo, hi int) *history {
	n := hi - lo
	h := &history{tasks: make([]task, tasksPerCPU*n), curr: make([]int32, n), asleep: make([]int32, (tasksPerCPU-1)*n)}
	for i := range h.tasks {
		c := int32(lo + i%n)
		h.tasks[i] = task{prev: c, recent: c}
	}
	for i := range h.curr {
		h.curr[i] = int32(i)
	}
	for i := range h.asleep {
		h.asleep[i] = int32(n + i)
	}
	return h
}

// begin picks the task a wakeup wakes, from the draw r: one of the
// sleeping tasks, uniformly.
func (h *history) begin(r uint64) {
	h.slot = int(uint64(uint32(r)) * uint64(len(h.asleep)) >> 32)
	h.wakee = h.asleep[h.slot]
}

// prevRecent is the wakee's prev_cpu and recent_used_cpu.
func (h *history) prevRecent() (prev, recent int) {
	t := h.tasks[h.wakee]
	return int(t.prev), int(t.recent)
}

// end records where select_idle_sibling() put the wakee: that is its
// task_cpu() from now on; the waker's recent_used_cpu becomes the target
// (current->recent_used_cpu = cpu); and a CPU of the worker's that took
// the wakee runs it next, the task it displaces asleep.
func (h *history) end(lo, hi, target, landed int) {
	h.tasks[h.curr[target-lo]].recent = int32(target)
	h.tasks[h.wakee].prev = int32(landed)
	if landed >= lo && landed < hi {
		h.asleep[h.slot] = h.curr[landed-lo]
		h.curr[landed-lo] = h.wakee
	}
}
