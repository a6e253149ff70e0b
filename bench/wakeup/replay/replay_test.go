package replay

import (
	"slices"
	"strings"
	"testing"
)

// Record marks a run moved when the task's previous run was on another
// cpu, and keeps no more than Max runs.
func TestRecord(t *testing.T) {
	s := NewSchedule(2, 4)
	for _, r := range []struct{ task, cpu int }{{0, 0}, {1, 1}, {0, 1}, {0, 1}, {1, 0}} {
		s.Record(r.task, r.cpu)
	}
	want := [][]Run{{{0, false}}, {{1, false}, {0, true}, {0, false}}}
	if s.Runs != 4 || !slices.Equal(s.Lists[0], want[0]) || !slices.Equal(s.Lists[1], want[1]) {
		t.Errorf("schedule %v, %d runs; want %v, 4 (the fifth dropped)", s.Lists, s.Runs, want)
	}
}

// Replaying writes each line of a task's working set once per run, counts
// the moved runs, and Check catches a line written outside the schedule.
func TestReplay(t *testing.T) {
	tasks := []*Task{NewTask(0, 3, 64), NewTask(1, 3, 64)}
	w := NewWorker([]Run{{0, false}, {1, true}, {0, true}}, tasks)
	w.Run(7) // twice round and one more
	if w.Ops != 7 || w.Moved != 4 {
		t.Errorf("ops %d, moved %d; want 7, 4", w.Ops, w.Moved)
	}
	for _, tk := range tasks {
		if err := tk.Check(); err != nil {
			t.Error(err)
		}
	}
	if tasks[0].runs.Load() != 5 || tasks[1].runs.Load() != 2 {
		t.Errorf("runs %d and %d, want 5 and 2", tasks[0].runs.Load(), tasks[1].runs.Load())
	}
	tasks[1].words[2*tasks[1].stride]++
	if err := tasks[1].Check(); err == nil || !strings.Contains(err.Error(), "task 1 line 2 was written 3 times, task ran 2 times") {
		t.Errorf("Check after a stray write: %v", err)
	}
	if _, ok := MigrationCost([]*Worker{w}); ok {
		t.Error("MigrationCost: ok with no stayed run timed (one in 16 is)")
	}
	w.Run(3 * sampleEvery)
	if _, ok := MigrationCost([]*Worker{w}); !ok {
		t.Errorf("MigrationCost: no samples after %d stayed and %d moved runs", w.Ops-w.Moved, w.Moved)
	}
	if _, ok := MigrationCost([]*Worker{NewWorker(nil, nil)}); ok {
		t.Error("MigrationCost with nothing sampled: ok")
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []int64
		want float64
	}{{[]int64{3, 1, 2}, 2}, {[]int64{4, 1, 3, 2}, 2.5}, {[]int64{7}, 7}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %g, want %g", tc.xs, got, tc.want)
		}
	}
}
