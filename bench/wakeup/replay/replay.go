// Package replay plays a model's schedule back on pinned cpus, so that the
// moves the model made are priced by the machine's caches and nothing else
// is: a Schedule records which task each model cpu ran, in order; each
// Worker is one model cpu, and an operation is the next run of its list
// (round and round), which reads and writes every line of the task's
// working set, pulling each from the cache of the cpu that last wrote it.
//
// It is apart from bench/wakeup's model because it knows nothing of the
// scheduler: any simulation that says which task ran where can be replayed
// (bench/wakeup's pinned benchmark is the one that does). The workers do
// not wait for each other: a run follows its task's previous run only as
// far as the workers keep pace, which is why the lines are written with
// atomic adds.
package replay

import (
	"fmt"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
)

// A Run is one entry of a cpu's schedule: the task, and whether its
// previous run in the model was on another cpu (its working set pulled).
type Run struct {
	Task  int32
	Moved bool
}

// A Schedule is each model cpu's runs, in order, as the model started them.
type Schedule struct {
	Lists [][]Run
	// Runs are the runs kept, at most Max: beyond it Record drops them.
	Runs, Max int
	prev      map[int]int
}

// NewSchedule is an empty schedule for cpus cpus, keeping at most max runs.
func NewSchedule(cpus, max int) *Schedule {
	return &Schedule{Lists: make([][]Run, cpus), Max: max, prev: map[int]int{}}
}

// Record is the model starting a run of task on cpu.
func (s *Schedule) Record(task, cpu int) {
	if s.Runs >= s.Max {
		return
	}
	last, ok := s.prev[task]
	s.Lists[cpu] = append(s.Lists[cpu], Run{Task: int32(task), Moved: ok && last != cpu})
	s.prev[task] = cpu
	s.Runs++
}

// sampleEvery: one run in this many of tasks that stayed is timed for
// MigrationCost, and every run of a task that moved (moves are rare in
// most schedules, and are what is priced; the two clock reads they add are
// in ns/op); each worker keeps the last sampleKeep times of each kind. A
// difference of medians, because a timed run the hypervisor preempts takes
// milliseconds and would swamp a mean.
const (
	sampleEvery = 16
	sampleKeep  = 2048
)

// A samples is the timing of one kind of run: one run in every is timed, and
// the last sampleKeep times are kept in a ring.
type samples struct {
	every, left int32
	ns          []int64
	n           int64
}

func newSamples(every int32) samples {
	return samples{every: every, left: every, ns: make([]int64, 0, sampleKeep)}
}

// due reports whether this run is to be timed, and counts it.
func (s *samples) due() bool {
	if s.left--; s.left > 0 {
		return false
	}
	s.left = s.every
	return true
}

func (s *samples) add(d int64) {
	if len(s.ns) < cap(s.ns) {
		s.ns = append(s.ns, d)
	} else {
		s.ns[s.n%int64(len(s.ns))] = d
	}
	s.n++
}

// A Task is one of the model's tasks: its working set, aligned to a line,
// and how often it ran.
type Task struct {
	_      [bench.LinePad]byte
	runs   atomic.Int64
	idx    int32
	words  []uint64
	stride int
	_      [bench.LinePad]byte
}

// NewTask allocates a task with lines lines of lineBytes each. Call it on
// its first cpu's pinned thread, so that the first touch puts the memory
// on that cpu's node.
func NewTask(idx, lines, lineBytes int) *Task {
	stride := lineBytes / 8
	buf := make([]uint64, (lines+1)*stride)
	off := 0
	if r := uintptr(unsafe.Pointer(&buf[0])) % uintptr(lineBytes); r != 0 {
		off = (lineBytes - int(r)) / 8
	}
	return &Task{idx: int32(idx), words: buf[off : off+lines*stride], stride: stride}
}

// Check says whether every line of the working set was written once per
// run of the task, and which was not.
func (t *Task) Check() error {
	runs := t.runs.Load()
	for i := 0; i < len(t.words); i += t.stride {
		if got := t.words[i]; got != uint64(runs) {
			return fmt.Errorf("task %d line %d was written %d times, task ran %d times", t.idx, i/t.stride, got, runs)
		}
	}
	return nil
}

// A Worker is one model cpu replaying its schedule.
type Worker struct {
	_     [bench.LinePad]byte
	list  []Run
	pos   int
	tasks []*Task
	// Ops are the runs replayed, Moved those of a task that moved.
	Ops, Moved    int64
	stayT, movedT samples
	_             [bench.LinePad]byte
}

// NewWorker replays list over tasks, indexed by Run.Task.
func NewWorker(list []Run, tasks []*Task) *Worker {
	return &Worker{list: list, tasks: tasks, stayT: newSamples(sampleEvery), movedT: newSamples(1)}
}

func (w *Worker) Run(n int) { replayLoop(w, n) }

// replayLoop is the hot loop: n runs of the schedule. A cpu the model
// never ran a task on in the window has an empty list: its operations do
// nothing.
//
//go:noinline
func replayLoop(w *Worker, n int) {
	w.Ops += int64(n)
	if len(w.list) == 0 {
		return
	}
	for range n {
		r := w.list[w.pos]
		if w.pos++; w.pos == len(w.list) {
			w.pos = 0
		}
		t := w.tasks[r.Task]
		times := &w.stayT
		if r.Moved {
			times = &w.movedT
			w.Moved++
		}
		if times.due() {
			start := ktime.Wall()
			touchLines(t.words, t.stride)
			times.add(ktime.Wall() - start)
		} else {
			touchLines(t.words, t.stride)
		}
		t.runs.Add(1)
	}
}

// touchLines adds one to the first word of each line: a read for ownership
// of every line of the working set, the whole of a migration's cache cost
// here. Atomic, since two workers may run one task at once where the replay
// runs ahead of the model's order.
//
//go:noinline
func touchLines(words []uint64, stride int) {
	for i := 0; i < len(words); i += stride {
		atomic.AddUint64(&words[i], 1)
	}
}

// MigrationCost is the median time of the sampled runs of tasks that moved
// less that of tasks that stayed, in seconds; false until both were
// sampled.
func MigrationCost(workers []*Worker) (float64, bool) {
	var moved, stay []int64
	for _, w := range workers {
		moved = append(moved, w.movedT.ns...)
		stay = append(stay, w.stayT.ns...)
	}
	if len(moved) == 0 || len(stay) == 0 {
		return 0, false
	}
	return (median(moved) - median(stay)) * 1e-9, true
}

// median sorts xs and returns its median.
func median(xs []int64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return float64(xs[n/2])
	}
	return float64(xs[n/2-1]+xs[n/2]) / 2
}
