#include "textflag.h"

// func movStore(addr *int32, v int32)
//
// A plain 32-bit MOV to memory: atomic_set_release() on x86, where x86-TSO
// already gives every store release order and the kernel's smp_store_release
// is a compiler barrier and a MOV.
TEXT ·movStore(SB), NOSPLIT, $0-12
	MOVQ	addr+0(FP), AX
	MOVL	v+8(FP), BX
	MOVL	BX, (AX)
	RET
