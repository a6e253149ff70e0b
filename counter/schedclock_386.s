#include "textflag.h"

// func schedClockCycles() uint64
// native_sched_clock()'s rdtsc(): RDTSC, EDX:EAX.
TEXT ·schedClockCycles(SB), NOSPLIT, $0-8
	RDTSC
	MOVL AX, ret_lo+0(FP)
	MOVL DX, ret_hi+4(FP)
	RET
