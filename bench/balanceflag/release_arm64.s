#include "textflag.h"

// func stlrStore(addr *int32, v int32)
//
// A 32-bit store-release: atomic_set_release() on arm64, where
// smp_store_release is STLR.
TEXT ·stlrStore(SB), NOSPLIT, $0-12
	MOVD	addr+0(FP), R0
	MOVW	v+8(FP), R1
	STLRW	R1, (R0)
	RET

// func dmbStore(addr *int32, v int32)
//
// A full inner-shareable barrier, then a plain 32-bit store: the generic
// smp_store_release, smp_mb() and WRITE_ONCE.
TEXT ·dmbStore(SB), NOSPLIT, $0-12
	MOVD	addr+0(FP), R0
	MOVW	v+8(FP), R1
	DMB	$0xb	// DMB ISH
	MOVW	R1, (R0)
	RET
