package affinity

import (
	"fmt"
	"strings"
	"sync"

	"github.com/klauspost/cpuid/v2"
)

// Machine is what the CPU says about itself. On x86 that is CPUID: it names
// the part and its caches, which sysfs trees do not, and says whether a
// hypervisor is in between, which matters when reading contention numbers:
// a vCPU's "sibling" or "socket" may not be the host's, and the TSC_AUX
// shortcut for finding the current CPU may not be passed through. arm64 has
// no CPUID: there the core is named by its MIDR_EL1, which Linux shows in
// sysfs (so Load fills it from a tree too), and the line size comes from the
// CTR_EL0 register (Host reads it); nothing there says whether a hypervisor
// is in between.
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

	// MIDR is an arm64 core's MIDR_EL1 (implementer, variant, part,
	// revision), read from sysfs; zero on x86. Vendor and Brand then name
	// its implementer and core ("Arm", "Arm Neoverse N1").
	MIDR MIDR `json:"midr,omitempty"`
	// CacheLineFrom says where CacheLine came from: "" for CPUID,
	// "CTR_EL0 CWG" on arm64.
	CacheLineFrom string `json:"cache_line_from,omitempty"`

	// GoCPU is the brand as go test prints it on its "cpu:" line, trailing
	// padding and all (see goCPUName); Brand is the trimmed, readable form.
	// Results files use GoCPU so that contend's and go test's files of one
	// machine carry the same cpu value.
	GoCPU string `json:"-"`
}

// hostMachine returns what the running CPU says about itself (archMachine:
// CPUID on x86, CTR_EL0's line on arm64), computed once.
var hostMachine = sync.OnceValue(archMachine)

// onHost is the Machine Host reports, given what sysfs said (an arm64
// core's MIDR): CPUID's where the CPU has it, else sysfs's identity with the
// line size the CPU itself reports.
func onHost(sysfs Machine) Machine {
	m := hostMachine()
	if m.known() {
		return m
	}
	sysfs.CacheLine, sysfs.CacheLineFrom = m.CacheLine, m.CacheLineFrom
	return sysfs
}

// machineFromMIDR is the Machine of an arm64 core named by its MIDR_EL1.
func machineFromMIDR(m MIDR) Machine {
	return Machine{Vendor: m.VendorName(), Brand: m.Name(), MIDR: m}
}

// CoreConfig returns the configuration keys that name an arm64 core in a
// results file, beside x86's cpu_family, cpu_model and cpu_stepping:
// cpu_implementer and cpu_part in hex as Arm and /proc/cpuinfo write them,
// cpu_variant and cpu_revision (the r and p of "r3p1"). None on x86.
func (m Machine) CoreConfig() [][2]string {
	if m.MIDR == 0 {
		return nil
	}
	return [][2]string{
		{"cpu_implementer", fmt.Sprintf("%#02x", m.MIDR.Implementer())},
		{"cpu_part", fmt.Sprintf("%#03x", m.MIDR.Part())},
		{"cpu_variant", fmt.Sprint(m.MIDR.Variant())},
		{"cpu_revision", fmt.Sprint(m.MIDR.Revision())},
	}
}

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

// HypervisorKnown reports whether Hypervisor can be believed when false:
// CPUID's hypervisor bit says so on x86, but on arm64 only a positive sign
// (firmware naming QEMU) is seen, and a false there means "cannot tell".
func (m Machine) HypervisorKnown() bool { return m.Hypervisor || m.known() && m.MIDR == 0 }

// known reports whether m was filled from CPUID at all; topologies loaded
// from a sysfs tree carry a zero Machine.
func (m Machine) known() bool { return m.Vendor != "" || m.Brand != "" }

// HypervisorName names a hypervisor for people from its CPUID vendor
// signature ("KVMKVMKVM" is KVM); an empty or unknown signature ("yes", as
// results files write an unnamed one) is "a hypervisor", and any other
// signature is shown trimmed, a word said twice said once ("bhyve bhyve ",
// bhyve's 12 bytes, is bhyve).
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
	case "TCGTCGTCGTCG":
		return "QEMU TCG" // emulated: times measured under it mean nothing
	case "", "yes":
		return "a hypervisor"
	}
	words := strings.Fields(vendor)
	if len(words) == 2 && words[0] == words[1] {
		return words[0]
	}
	if len(words) == 0 {
		return "a hypervisor"
	}
	return strings.Join(words, " ")
}
