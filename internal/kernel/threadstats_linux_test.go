package kernel

import (
	"os"
	"path/filepath"
	"testing"
)

// TestThreadStats reads a /proc/PID/task/*/sched as 6.1 prints it
// (schedstats on): the counts, and the run and wait times and load the
// model's duty needs.
func TestThreadStats(t *testing.T) {
	root := t.TempDir()
	sched := `pong (114, #threads: 6)
-------------------------------------------------------------------
se.exec_start                                :         12345.678901
se.sum_exec_runtime                          :            30.500000
se.nr_migrations                             :                    3
se.statistics.wait_sum                       :             1.250000
se.statistics.wait_count                     :                   60
se.statistics.nr_wakeups                     :                  100
se.statistics.nr_wakeups_affine              :                    7
se.statistics.nr_wakeups_local               :                   55
se.statistics.nr_wakeups_affine_attempts     :                   20
se.avg.load_avg                              :                   41
nr_switches                                  :                  150
nr_voluntary_switches                        :                   90
nr_involuntary_switches                      :                   60
`
	for _, tid := range []string{"114", "115"} {
		dir := filepath.Join(root, "proc/114/task", tid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sched"), []byte(sched), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := threadStats(root, 114, nil)
	want := ThreadStats{Migrations: 6, Wakeups: 200, Affine: 14, AffineAttempts: 40, Sleeps: 180, Local: 110, Preempted: 120, Waits: 120, RunMs: 61, WaitMs: 2.5, LoadAvg: 82, Tasks: 2}
	if ts != want {
		t.Errorf("threadStats = %+v, want %+v", ts, want)
	}
	// The workload's own threads only; one gone is left out.
	one := ThreadStats{Migrations: 3, Wakeups: 100, Affine: 7, AffineAttempts: 20, Sleeps: 90, Local: 55, Preempted: 60, Waits: 60, RunMs: 30.5, WaitMs: 1.25, LoadAvg: 41, Tasks: 1}
	if ts := threadStats(root, 114, []int{115, 116}); ts != one {
		t.Errorf("threadStats of tids 115, 116 (116 gone) = %+v, want %+v", ts, one)
	}
}
