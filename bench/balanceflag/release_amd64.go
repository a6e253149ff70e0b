package balanceflag

import "sync/atomic"

// The release of sched_balance_running on amd64: the kernel's instruction
// (release=mov) or Go's atomic store (release=xchg).

// releaseNames are the release= values on this architecture; the first is
// the default, the kernel's own instruction.
var releaseNames = []string{"mov", "xchg"}

// movStore stores v at addr with one plain MOV (release_amd64.s). A Go
// assembly function is opaque to the compiler, so no Go load or store
// moves across the call, and the hardware keeps the store after every
// earlier one: release order, as atomic_set_release needs and no more.
//
//go:noescape
func movStore(addr *int32, v int32)

// storeRelease releases the flag: atomic_set_release(&sched_balance_running, 0).
// release is the index into releaseNames.
func storeRelease(flag *int32, release int) {
	if release == 0 {
		movStore(flag, 0)
		return
	}
	// atomic.StoreInt32 is sequentially consistent: an XCHG on amd64,
	// a locked instruction that waits for the store buffer to drain.
	atomic.StoreInt32(flag, 0)
}
