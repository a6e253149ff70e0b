#include "textflag.h"

// func schedClockCycles() uint64
// native_sched_clock()'s rdtsc(): RDTSC, EDX:EAX.
TEXT ·schedClockCycles(SB), NOSPLIT, $0-8
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET
