package affinity

import "encoding/binary"

func cpuidRaw(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// goCPUName returns the brand string exactly as the Go runtime reads it for
// go test's "cpu:" line (internal/cpu.Name): leading spaces trimmed, cut at
// the first NUL, and trailing spaces kept. AMD pads its brand string with
// spaces ("AMD EPYC 7B13 64-Core Processor            "); cpuid's BrandName
// trims them, so a results file that used it would carry a different cpu
// value from a go test file of the same machine, and plain benchstat would
// put the two in separate tables.
func goCPUName() string {
	if max, _, _, _ := cpuidRaw(0x80000000, 0); max < 0x80000004 {
		return ""
	}
	data := make([]byte, 0, 48)
	for leaf := uint32(0x80000002); leaf <= 0x80000004; leaf++ {
		a, b, c, d := cpuidRaw(leaf, 0)
		for _, r := range [4]uint32{a, b, c, d} {
			data = binary.LittleEndian.AppendUint32(data, r)
		}
	}
	return goBrand(data)
}
