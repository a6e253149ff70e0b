//go:build !amd64 && !386 && !arm64

package affinity

// archMachine is empty where contend reads no CPU register: the machine is
// then what sysfs says, and the line size what sysfs reports.
func archMachine() Machine { return Machine{} }
