package affinity

import (
	"sync"

	"github.com/klauspost/cpuid/v2"
)

// Machine is what the CPU says about itself through CPUID. It names the part
// and its caches, which sysfs trees do not, and says whether a hypervisor is
// in between, which matters when reading contention numbers: a vCPU's
// "sibling" or "socket" may not be the host's, and the TSC_AUX shortcut for
// finding the current CPU may not be passed through.
type Machine struct {
	Vendor           string `json:"vendor"` // e.g. "AuthenticAMD"
	Brand            string `json:"brand"`  // e.g. "AMD EPYC 7B13 64-Core Processor"
	Family           int    `json:"family"`
	Model            int    `json:"model"`
	Stepping         int    `json:"stepping"`
	CacheLine        int    `json:"cache_line"` // bytes; 0 when CPUID does not say
	L1D              int64  `json:"l1d"`        // bytes, as seen by one core; 0 when unknown
	L2               int64  `json:"l2"`
	L3               int64  `json:"l3"`
	Hypervisor       bool   `json:"hypervisor"`
	HypervisorVendor string `json:"hypervisor_vendor"` // e.g. "KVMKVMKVM", "" on bare metal
	RDTSCP           bool   `json:"rdtscp"`            // RDTSCP (and so TSC_AUX) is available

	// GoCPU is the brand as go test prints it on its "cpu:" line, trailing
	// padding and all (see goCPUName); Brand is the trimmed, readable form.
	// Results files use GoCPU so that contend's and go test's files of one
	// machine carry the same cpu value.
	GoCPU string `json:"-"`
}

// hostMachine returns the running CPU's Machine, computed once.
var hostMachine = sync.OnceValue(func() Machine {
	m := machineFrom(&cpuid.CPU)
	if name := goCPUName(); name != "" {
		m.GoCPU = name
	}
	return m
})

func machineFrom(c *cpuid.CPUInfo) Machine {
	return Machine{
		Vendor:           c.VendorString,
		Brand:            c.BrandName,
		Family:           c.Family,
		Model:            c.Model,
		Stepping:         c.Stepping,
		CacheLine:        max(c.CacheLine, 0),
		L1D:              cacheBytes(c.Cache.L1D),
		L2:               cacheBytes(c.Cache.L2),
		L3:               cacheBytes(c.Cache.L3),
		Hypervisor:       c.Has(cpuid.HYPERVISOR),
		HypervisorVendor: c.HypervisorVendorString,
		RDTSCP:           c.Has(cpuid.RDTSCP),
		GoCPU:            c.BrandName,
	}
}

// goBrand is internal/cpu.Name's reading of the 48 bytes of CPUID leaves
// 0x80000002-4: leading spaces trimmed, everything from the first NUL on
// dropped, trailing spaces kept.
func goBrand(data []byte) string {
	for len(data) > 0 && data[0] == ' ' {
		data = data[1:]
	}
	for i, c := range data {
		if c == 0 {
			data = data[:i]
			break
		}
	}
	return string(data)
}

// cacheBytes maps cpuid's -1 for "not detected" to our 0 for "unknown".
func cacheBytes(n int) int64 {
	if n < 0 {
		return 0
	}
	return int64(n)
}

// known reports whether m was filled from CPUID at all; topologies loaded
// from a sysfs tree carry a zero Machine.
func (m Machine) known() bool { return m.Vendor != "" || m.Brand != "" }

// HypervisorName names a hypervisor for people from its CPUID vendor
// signature ("KVMKVMKVM" is KVM); an empty or unknown signature ("yes", as
// results files write an unnamed one) is "a hypervisor", and any other
// signature is shown as it is.
func HypervisorName(vendor string) string {
	switch vendor {
	case "KVMKVMKVM":
		return "KVM"
	case "Microsoft Hv":
		return "Hyper-V"
	case "VMwareVMware":
		return "VMware"
	case "XenVMMXenVMM":
		return "Xen"
	case "", "yes":
		return "a hypervisor"
	}
	return vendor
}
