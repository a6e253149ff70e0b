package counter

import "sync/atomic"

// CountedLock is a raw spinlock and a count in one word: bit 0 is the
// lock, the bits above it the count of what it guards (cfs_rq->removed.nr,
// a CPU's list of sleepers). Taking it is one compare-and-swap; releasing
// it, with the count updated, one store, as the kernel's raw_spin_lock,
// plain ++nr and raw_spin_unlock are; and Count reads the count without
// the lock, as the kernel looks at removed.nr before it locks anything.
// Go's atomic store is a locked XCHG on amd64 where the kernel's unlock is
// a plain MOV. The zero CountedLock is unlocked with count 0; it must not
// be copied.
type CountedLock struct {
	state atomic.Uint64
}

// Lock spins until it holds the lock and returns the count.
func (l *CountedLock) Lock() uint64 {
	for {
		v := l.state.Load()
		if v&1 == 0 && l.state.CompareAndSwap(v, v|1) {
			return v >> 1
		}
	}
}

// Unlock releases the lock, leaving the count n. Only the holder may call
// it.
func (l *CountedLock) Unlock(n uint64) { l.state.Store(n << 1) }

// Count returns the count as the last Unlock left it, without the lock.
func (l *CountedLock) Count() uint64 { return l.state.Load() >> 1 }
