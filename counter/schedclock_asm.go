//go:build amd64 || 386 || arm64

package counter

// schedClockCycles reads the cycle counter sched_clock() reads: the TSC on
// x86, CNTVCT_EL0 on arm64.
//
//go:noescape
func schedClockCycles() uint64
