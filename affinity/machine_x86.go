//go:build amd64 || 386

package affinity

import "github.com/klauspost/cpuid/v2"

// archMachine is what CPUID says, with the brand exactly as go test prints
// it where contend reads CPUID itself.
func archMachine() Machine {
	m := machineFrom(&cpuid.CPU)
	if name := goCPUName(); name != "" {
		m.GoCPU = name
	}
	return m
}
