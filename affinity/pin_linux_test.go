package affinity

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Keep the main thread for the main goroutine, as contend does: see
// cmd/contend's init.
func init() { runtime.LockOSThread() }

func TestPinEachAllowedCPU(t *testing.T) {
	cpus := startCPUs()
	if len(cpus) == 0 {
		t.Skip("cannot read this process's affinity mask")
	}
	for _, cpu := range cpus {
		t.Run(fmt.Sprintf("cpu=%d", cpu), func(t *testing.T) {
			done := make(chan struct{})
			go func() { // a goroutine of its own, as a worker would be
				defer close(done)
				before, err := ThreadCPUs()
				if err != nil {
					t.Error(err)
					return
				}
				undo, err := Pin(cpu)
				if err != nil {
					t.Errorf("Pin(%d): %v", cpu, err)
					return
				}
				got, _, err := GetCPU()
				if err != nil || got != cpu {
					t.Errorf("GetCPU() after Pin(%d) = %d, %v", cpu, got, err)
				}
				if mask, _ := ThreadCPUs(); fmt.Sprint(mask) != fmt.Sprint([]int{cpu}) {
					t.Errorf("thread mask after Pin(%d) = %v", cpu, mask)
				}
				if p := Probe(); p.CPU() != cpu {
					t.Errorf("Probe().CPU() = %d on a thread pinned to %d (fast path %v)", p.CPU(), cpu, p.FastPath())
				}
				if err := undo(); err != nil {
					t.Error(err)
					return
				}
				if err := undo(); err != nil { // harmless twice
					t.Error(err)
					return
				}
				// undo restored the mask before unlocking: lock again to
				// look at the same thread.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				after, _ := ThreadCPUs()
				if fmt.Sprint(after) != fmt.Sprint(before) {
					t.Errorf("mask after undo = %v, want %v", after, before)
				}
			}()
			<-done
		})
	}
}

func TestPinErrors(t *testing.T) {
	tests := []struct {
		cpu  int
		want string
	}{
		{-1, "outside the range"},
		{1 << 20, "outside the range"},
		{1000, "cpu 1000 is not online"}, // in range of the syscall, not on this machine
	}
	for _, tt := range tests {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			undo, err := Pin(tt.cpu)
			if err == nil {
				undo()
				t.Errorf("Pin(%d) succeeded, want an error", tt.cpu)
				return
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Pin(%d) error = %q, want one line containing %q", tt.cpu, err, tt.want)
			}
		}()
		wg.Wait()
	}
}

// A failed Pin must leave the goroutine unlocked and the thread unpinned.
func TestPinFailureLeavesThreadAlone(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		before, _ := ThreadCPUs()
		if _, err := Pin(1000); err == nil {
			t.Error("Pin(1000) succeeded")
		}
		after, _ := ThreadCPUs()
		if fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("mask after failed Pin = %v, want %v", after, before)
		}
	}()
	<-done
}
