#include "textflag.h"

// func schedClockCycles() uint64
// The arch timer's sched_clock read, __arch_counter_get_cntvct():
// ISB, then MRS CNTVCT_EL0 (encoded, for assemblers that lack the name).
TEXT ·schedClockCycles(SB), NOSPLIT, $0-8
	WORD $0xd5033fdf // ISB SY
	WORD $0xd53be040 // MRS X0, CNTVCT_EL0
	MOVD R0, ret+0(FP)
	RET
