package counter

import (
	"sync"
	"testing"
)

// TestCountedLock: goroutines appending under the lock lose nothing (run
// it under -race: the plain slice is the lock's to guard), the count is
// what the last Unlock left, and Lock hands it back.
func TestCountedLock(t *testing.T) {
	var l CountedLock
	if l.Count() != 0 || l.Lock() != 0 {
		t.Fatal("the zero CountedLock does not start at count 0")
	}
	l.Unlock(7)
	if l.Count() != 7 || l.Lock() != 7 {
		t.Fatal("Unlock(7) did not leave count 7")
	}
	l.Unlock(0)

	const workers, each = 4, 2000
	var items []int
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := l.Lock()
				if int(n) != len(items) {
					t.Errorf("Lock returned count %d with %d items", n, len(items))
				}
				items = append(items, w*each+i)
				l.Unlock(uint64(len(items)))
			}
		})
	}
	wg.Wait()
	if len(items) != workers*each || l.Count() != workers*each {
		t.Errorf("%d items, count %d; want %d, %d", len(items), l.Count(), workers*each, workers*each)
	}
}
