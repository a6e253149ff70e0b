package affinity

// ctrEL0 reads CTR_EL0, the Cache Type Register. Linux lets EL0 read it
// (SCTLR_EL1.UCT), and traps and emulates the read where cores disagree, so
// this is safe in every process; see ctr_arm64.s.
func ctrEL0() uint64

// archMachine is what an arm64 CPU says about itself to a process: its line
// size, from CTR_EL0. (klauspost/cpuid writes a fixed 64 there on arm64, a
// guess, not a reading.) The core's identity comes from sysfs's midr_el1.
func archMachine() Machine {
	if n := ctrLine(ctrEL0()); n > 0 {
		return Machine{CacheLine: n, CacheLineFrom: "CTR_EL0 CWG"}
	}
	return Machine{}
}
