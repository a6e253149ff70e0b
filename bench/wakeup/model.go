package wakeup

import (
	"fmt"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/wakeup/replay"
)

// The pinned run: the simulation's schedule replayed (package replay).
// Start simulates the variant's guest on as many cpus as there are workers
// and records, after the warm-up, which task each cpu ran, in order; each
// worker is one of the model's cpus replaying its list. So the moves
// priced are the moves the model made, every cause, no more.

// The scenario's shared state.
type wakeup struct {
	cfg     config
	variant string

	line      int
	simCfg    SimConfig
	sim       *SimRow
	sched     *replay.Schedule
	home      []int // each task's first cpu, where its memory is touched first
	migPerRun float64
	tasks     []*replay.Task
	workers   []*replay.Worker
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
	s.sched = replay.NewSchedule(n, replayMax)
	k, err := simulate(ps[0], s.sched.Record)
	if err != nil {
		return fmt.Errorf("wakeup: %w", err)
	}
	r := row(k, ps[0])
	s.sim = &r
	s.migPerRun = float64(k.c.totalMigrations()) / float64(max(s.sched.Runs, 1))
	if s.sched.Runs == replayMax {
		// Recording stopped early: migrations per run over the whole
		// window is what the kept runs stand for.
		s.migPerRun = float64(k.c.totalMigrations()) / float64(max(k.c.wakeups, 1))
	}
	s.home = make([]int, len(k.tasks))
	for i := range s.home {
		s.home[i] = i % n // newWorkload's placement
	}
	s.tasks = make([]*replay.Task, len(k.tasks))
	s.workers = make([]*replay.Worker, n)
	return nil
}

// Worker allocates the tasks that start on cpu info.Index (so their memory
// is first touched on its node) and the worker.
func (s *wakeup) Worker(info bench.WorkerInfo) (bench.Worker, error) {
	i := info.Index
	for id, h := range s.home {
		if h == i {
			s.tasks[id] = replay.NewTask(id, s.cfg.lines, s.line)
		}
	}
	w := replay.NewWorker(s.sched.Lists[i], s.tasks)
	s.workers[i] = w
	return w, nil
}
