package counter

import (
	"fmt"
	"testing"
)

// TestHotPathsDoNotAllocate: the storages' Add and Sum and every cfs_rq
// path (en/dequeue with attach, detach and removed load, the tick, blocked
// updates) under every policy allocate nothing, so a benchmark measures
// the counter and not the garbage collector.
func TestHotPathsDoNotAllocate(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters may allocate")
	}
	for _, s := range newStores(t, 0) {
		check := func(what string, f func()) {
			t.Helper()
			if n := testing.AllocsPerRun(100, f); n != 0 {
				t.Errorf("store=%v: %s allocates %.1f times per call, want 0", s, what, n)
			}
		}
		check("AddAt", func() { s.AddAt(1, 1, 3) })
		check("Sum", func() { _ = s.Sum() })
		check("ReadMostly", func() { _ = s.ReadMostly() })
		switch s := s.(type) {
		case *Atomic:
			check("Add", func() { s.Add(1) })
			check("Load", func() { _ = s.Load() })
		case *FalseShare:
			check("Add", func() { s.Add(1) })
			check("Load", func() { _ = s.Load() })
		case *PerNode:
			check("Add", func() { s.Add(1, 1) })
		case *PerCPU:
			check("Add", func() { s.Add(1, 1) })
		}
		for _, write := range []string{"every", "threshold=16", "ratelimit", "delay"} {
			for _, read := range []string{"every", "skip", "onein=2"} {
				src, err := NewCfsRq(s, mustWrite(t, write), mustRead(t, read), 1, 1)
				if err != nil {
					t.Fatal(err)
				}
				dst, err := NewCfsRq(s, mustWrite(t, write), mustRead(t, read), 2, 2)
				if err != nil {
					t.Fatal(err)
				}
				src.Init(t0)
				dst.Init(t0)
				x, y := newTask(t), newTask(t)
				src.Seed(x, 512, false)
				src.Seed(y, 512, true)
				now := t0
				check(fmt.Sprintf("a migration under write=%s/read=%s", write, read), func() {
					now += 300_000
					RemoveEntityLoadAvg(x)
					dst.Enqueue(now, x)
					src.Tick(now, y)
					src.Dequeue(now+1, y, false)
					src.Enqueue(now+2, y)
					dst.Dequeue(now+3, x, true)
					src.Enqueue(now+4, x)
					src.Dequeue(now+5, x, false)
					src.DelayDequeue(now+6, y)
					src.RequeueDelayed(now+7, y)
					src.Switch(now+8, x, y)
					src.PutPrev(now+9, y)
					src.SetNext(now+10, y)
					dst.UpdateBlocked(now + 6)
				})
				check("Flush", func() { src.Flush() })
			}
		}
	}
}
