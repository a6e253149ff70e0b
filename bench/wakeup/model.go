package wakeup

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
)

// The pinned run: the simulation's schedule replayed. Start simulates the
// variant's guest on as many cpus as there are workers and records, after
// the warm-up, which task each cpu ran, in order. Each worker is one of the
// model's cpus: an operation is the next run of its list (round and round),
// which reads and writes every line of the task's working set, pulling each
// from the cache of the cpu that last wrote it. So the moves priced are the
// moves the model made, every cause, no more; the workers do not wait for
// each other (a run follows its task's previous run only as far as the
// workers keep pace, which is why the lines are written with atomic adds).

// sampleEvery: one run in this many of tasks that stayed is timed for
// sec/migration, and every run of a task that moved (moves are rare in
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

// A task is one of the model's tasks: its working set, aligned to a line,
// and how often it ran.
type task struct {
	_      [bench.LinePad]byte
	runs   atomic.Int64
	idx    int32
	words  []uint64
	stride int
	_      [bench.LinePad]byte
}

// newTask allocates a task with lines lines of lineBytes each. Call it on
// its first cpu's pinned thread, so that the first touch puts the memory
// on that cpu's node.
func newTask(idx, lines, lineBytes int) *task {
	stride := lineBytes / 8
	buf := make([]uint64, (lines+1)*stride)
	off := 0
	if r := uintptr(unsafe.Pointer(&buf[0])) % uintptr(lineBytes); r != 0 {
		off = (lineBytes - int(r)) / 8
	}
	return &task{idx: int32(idx), words: buf[off : off+lines*stride], stride: stride}
}

// A run is one entry of a cpu's schedule: the task, and whether its
// previous run in the model was on another cpu (its working set pulled).
type run struct {
	task  int32
	moved bool
}

// A worker is one model cpu replaying its schedule.
type worker struct {
	_             [bench.LinePad]byte
	list          []run
	pos           int
	tasks         []*task
	ops, moved    int64
	stayT, movedT samples
	_             [bench.LinePad]byte
}

func (w *worker) Run(n int) { replayLoop(w, n) }

// replayLoop is the hot loop: n runs of the schedule. A cpu the model
// never ran a task on in the window has an empty list: its operations do
// nothing.
//
//go:noinline
func replayLoop(w *worker, n int) {
	w.ops += int64(n)
	if len(w.list) == 0 {
		return
	}
	for range n {
		r := w.list[w.pos]
		if w.pos++; w.pos == len(w.list) {
			w.pos = 0
		}
		t := w.tasks[r.task]
		times := &w.stayT
		if r.moved {
			times = &w.movedT
			w.moved++
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

// The scenario's shared state.
type wakeup struct {
	cfg     config
	variant string

	line      int
	simCfg    SimConfig
	sim       *SimRow
	lists     [][]run
	home      []int32 // each task's first cpu, where its memory is touched first
	runs      int
	migPerRun float64
	tasks     []*task
	workers   []*worker
}

func (s *wakeup) Start(env *bench.Env) error {
	n := len(env.CPUs)
	if n < 2 {
		return fmt.Errorf("wakeup: %d worker: a migration needs at least 2 cpus", n)
	}
	s.line = 64
	if t := env.Topology; t != nil {
		s.line = t.CacheLine()
	}
	cfg := s.simCfg
	if cfg.CPUs == nil {
		cfg = s.simConfig(n)
	}
	cfg = cfg.withDefaults()
	ps, err := cfg.runs()
	if err != nil {
		return fmt.Errorf("wakeup: %w", err)
	}
	s.simCfg = cfg
	s.lists = make([][]run, n)
	prev := map[int]int{}
	record := func(t, cpu int) {
		if s.runs >= replayMax {
			return
		}
		last, ok := prev[t]
		s.lists[cpu] = append(s.lists[cpu], run{task: int32(t), moved: ok && last != cpu})
		prev[t] = cpu
		s.runs++
	}
	k, err := simulate(ps[0], record)
	if err != nil {
		return fmt.Errorf("wakeup: %w", err)
	}
	r := row(k, ps[0])
	s.sim = &r
	s.migPerRun = float64(k.c.totalMigrations()) / float64(max(s.runs, 1))
	if s.runs == replayMax {
		// Recording stopped early: migrations per run over the whole
		// window is what the kept runs stand for.
		s.migPerRun = float64(k.c.totalMigrations()) / float64(max(k.c.wakeups, 1))
	}
	s.home = make([]int32, len(k.tasks))
	for i := range s.home {
		s.home[i] = int32(i % n) // newWorkload's placement
	}
	s.tasks = make([]*task, len(k.tasks))
	s.workers = make([]*worker, n)
	return nil
}

// Worker allocates the tasks that start on cpu info.Index (so their memory
// is first touched on its node) and the worker.
func (s *wakeup) Worker(info bench.WorkerInfo) (bench.Worker, error) {
	i := info.Index
	for id, h := range s.home {
		if int(h) == i {
			s.tasks[id] = newTask(id, s.cfg.lines, s.line)
		}
	}
	w := &worker{list: s.lists[i], tasks: s.tasks, stayT: newSamples(sampleEvery), movedT: newSamples(1)}
	s.workers[i] = w
	return w, nil
}
