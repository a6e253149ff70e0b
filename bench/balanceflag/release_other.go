//go:build !amd64 && !arm64

package balanceflag

import "sync/atomic"

// The release of sched_balance_running where there is no assembly store:
// Go's atomic store. On arm64 that is STLR, which is also what the kernel's
// atomic_set_release (smp_store_release) compiles to there.

// releaseNames are the release= values on this architecture.
var releaseNames = []string{"store"}

// storeRelease releases the flag: atomic_set_release(&sched_balance_running, 0).
func storeRelease(flag *int32, release int) { atomic.StoreInt32(flag, 0) }
