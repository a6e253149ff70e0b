#include "textflag.h"

// func ctrEL0() uint64
TEXT ·ctrEL0(SB), NOSPLIT, $0-8
	MRS	CTR_EL0, R0
	MOVD	R0, ret+0(FP)
	RET
