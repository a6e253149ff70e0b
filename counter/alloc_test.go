package counter

import (
	"fmt"
	"testing"
)

// TestHotPathsDoNotAllocate: the storages' Add and Sum and a whole event
// under every policy allocate nothing, so a benchmark measures the counter
// and not the garbage collector.
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
			for _, read := range []string{"every", "skip=2"} {
				rq, err := NewCfsRq(s, mustWrite(t, write), mustRead(t, read), 1, 1)
				if err != nil {
					t.Fatal(err)
				}
				var now, load int64
				check(fmt.Sprintf("Event under write=%s/read=%s", write, read), func() {
					now += 300_000
					load = (load + 700) % 5000
					rq.Event(now, load, ScaleLoad(load), load%3 == 0)
				})
				check("UpdateTGLoadAvg", func() { now++; rq.UpdateTGLoadAvg(now, false) })
				check("UpdateCfsGroup", func() { rq.UpdateCfsGroup() })
				check("Flush", func() { rq.Flush() })
			}
		}
	}
}
