package workload

import (
	"testing"
	"time"
)

// TestRunLoad runs each shape briefly. It checks only that transactions
// happened, never how many: nothing here gates on speed.
func TestRunLoad(t *testing.T) {
	for shape := range Shapes {
		t.Run(shape, func(t *testing.T) {
			l, err := RunLoad(shape, 2, 50*time.Millisecond)
			if err != nil {
				t.Fatalf("RunLoad(%s): %v", shape, err)
			}
			if l.Transactions == 0 {
				t.Errorf("RunLoad(%s) did no transaction in %.3fs", shape, l.Seconds)
			}
		})
	}
	if _, err := RunLoad("nosuch", 1, time.Millisecond); err == nil {
		t.Error("RunLoad(nosuch) succeeded")
	}
}
