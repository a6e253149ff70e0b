package balanceflag

// The release of sched_balance_running on arm64: the kernel's instruction
// (release=stlr, a store-release) or a full barrier and a plain store
// (release=dmb). There is no separate value for Go's atomic store: on arm64
// atomic.StoreInt32 is STLRW, the same instruction as release=stlr, which
// runs it from assembly as release=mov does on amd64.

// releaseNames are the release= values on this architecture; the first is
// the default, the kernel's own instruction.
var releaseNames = []string{"stlr", "dmb"}

// stlrStore stores v at addr with one STLRW (release_arm64.s): what
// atomic_set_release (smp_store_release, arch/arm64/include/asm/barrier.h
// __smp_store_release) compiles to. Every earlier load and store is
// observed before it; later ones may pass it, unlike after a DMB.
//
//go:noescape
func stlrStore(addr *int32, v int32)

// dmbStore stores v at addr after a DMB ISH (release_arm64.s): the
// generic smp_store_release (asm-generic/barrier.h: smp_mb() then
// WRITE_ONCE), which orders everything before and after, like x86's XCHG
// against its MOV: a barrier the kernel does not pay on arm64.
//
//go:noescape
func dmbStore(addr *int32, v int32)

// storeRelease releases the flag: atomic_set_release(&sched_balance_running, 0).
// release is the index into releaseNames.
func storeRelease(flag *int32, release int) {
	if release == 0 {
		stlrStore(flag, 0)
		return
	}
	dmbStore(flag, 0)
}
