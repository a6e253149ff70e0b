package affinity

import (
	"fmt"
	"strconv"
)

// identity names an arm64 machine's cores from each online cpu's
// cpuN/regs/identification/midr_el1 (arm64 kernels since 4.7; x86 has no
// such directory and keeps a zero Machine until Host asks CPUID). Machine
// names the lowest online cpu's core; a note names the cpus whose core is
// another (big.LITTLE, or a mixed guest), as one Machine cannot describe them.
func (r sysfs) identity(t *Topology) error {
	var first MIDR
	firstCPU := -1
	for _, cpu := range t.OnlineCPUs.Bits() {
		name := fmt.Sprintf("%s/cpu%d/regs/identification/midr_el1", cpuDir, cpu)
		s, ok := r.optString(name, "core unknown")
		if !ok || s == "" {
			continue
		}
		// The kernel writes "0x%016llx"; the architecture keeps bits
		// 63:32 zero.
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil || v == 0 || v>>32 != 0 {
			return fmt.Errorf("%s: %q is not a MIDR_EL1 value (0x and 32 bits of hex)", name, s)
		}
		m := MIDR(v)
		switch {
		case firstCPU < 0:
			first, firstCPU = m, cpu
		case m.Implementer() != first.Implementer() || m.Part() != first.Part():
			r.notes.add(name, fmt.Sprintf("%s (MIDR %s), not cpu%d's %s: the machine line names cpu%d's core only",
				m.Name(), m, firstCPU, first.Name(), firstCPU))
		}
	}
	if firstCPU >= 0 {
		t.Machine = machineFromMIDR(first)
	}
	return nil
}
