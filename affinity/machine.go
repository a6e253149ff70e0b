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
	CacheLine        int    `json:"cache_line"` // bytes; 0 when CPUID does not say
	L1D              int64  `json:"l1d"`        // bytes, as seen by one core; 0 when unknown
	L2               int64  `json:"l2"`
	L3               int64  `json:"l3"`
	Hypervisor       bool   `json:"hypervisor"`
	HypervisorVendor string `json:"hypervisor_vendor"` // e.g. "KVMKVMKVM", "" on bare metal
	RDTSCP           bool   `json:"rdtscp"`            // RDTSCP (and so TSC_AUX) is available
}

// hostMachine returns the running CPU's Machine, computed once.
var hostMachine = sync.OnceValue(func() Machine { return machineFrom(&cpuid.CPU) })

func machineFrom(c *cpuid.CPUInfo) Machine {
	return Machine{
		Vendor:           c.VendorString,
		Brand:            c.BrandName,
		Family:           c.Family,
		Model:            c.Model,
		CacheLine:        max(c.CacheLine, 0),
		L1D:              cacheBytes(c.Cache.L1D),
		L2:               cacheBytes(c.Cache.L2),
		L3:               cacheBytes(c.Cache.L3),
		Hypervisor:       c.Has(cpuid.HYPERVISOR),
		HypervisorVendor: c.HypervisorVendorString,
		RDTSCP:           c.Has(cpuid.RDTSCP),
	}
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
