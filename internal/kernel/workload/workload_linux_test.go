package workload

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestRunLoad runs each shape briefly. It checks only that transactions
// happened, never how many: nothing here gates on speed.
func TestRunLoad(t *testing.T) {
	for shape := range Shapes {
		t.Run(shape, func(t *testing.T) {
			// A transaction needs both threads of a pair to run: on a
			// starved machine 50 ms may give them none, so the run is
			// retried longer before a workload that never completes one
			// fails (no time bound decides).
			var l *Load
			for _, d := range []time.Duration{50 * time.Millisecond, 500 * time.Millisecond, 5 * time.Second} {
				var err error
				if l, err = RunLoad(shape, 2, d); err != nil {
					t.Fatalf("RunLoad(%s): %v", shape, err)
				}
				if l.Transactions > 0 {
					break
				}
			}
			if l.Transactions == 0 {
				t.Errorf("RunLoad(%s) did no transaction in %.3fs", shape, l.Seconds)
			}
			// Every thread of the workload is named and outlives the
			// run, so a count can read its schedstats after it.
			want := 2 * 2
			if shape == "server" {
				want = 2 + 1
			}
			if len(l.TIDs) != want {
				t.Fatalf("RunLoad(%s): %d threads %v, want %d", shape, len(l.TIDs), l.TIDs, want)
			}
			time.Sleep(20 * time.Millisecond) // time for a returning thread to exit
			for _, tid := range l.TIDs {
				if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d/sched", tid)); err != nil {
					t.Errorf("RunLoad(%s): thread %d gone after the run: %v", shape, tid, err)
				}
			}
		})
	}
	if _, err := RunLoad("nosuch", 1, time.Millisecond); err == nil {
		t.Error("RunLoad(nosuch) succeeded")
	}
}
