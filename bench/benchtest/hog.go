package benchtest

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/contend/contend/affinity"
)

// Hog spins on a thread pinned to cpu until stop is called, as `taskset -c
// cpu yes` would: another task competing with a worker for its CPU. It
// returns once the thread is pinned and spinning, and skips the test when
// the CPU cannot be pinned.
func Hog(t testing.TB, cpu int) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	pinned := make(chan error)
	var spins atomic.Int64
	go func() {
		undo, err := affinity.Pin(cpu)
		pinned <- err
		if err != nil {
			return
		}
		defer undo()
		for {
			select {
			case <-done:
				return
			default:
			}
			for range 1000 {
				spins.Add(1)
			}
		}
	}()
	if err := <-pinned; err != nil {
		t.Skipf("cannot pin a busy thread to cpu %d: %v", cpu, err)
	}
	for spins.Load() == 0 {
		runtime.Gosched()
	}
	return func() { close(done) }
}
