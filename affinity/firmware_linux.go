package affinity

import "strings"

// Where no CPUID hypervisor bit can say so (arm64), the firmware tables
// the kernel exposes can still name an emulated machine: QEMU's virt board
// has the device-tree compatible "linux,dummy-virt", and QEMU's SMBIOS
// tables name "QEMU" as the system vendor. Both mean a guest, TCG or KVM.
// Their absence proves nothing (a cloud guest's firmware names the cloud,
// and so does its bare-metal sibling), so only a match is recorded.
const (
	dtCompatible = "sys/firmware/devicetree/base/compatible"
	dmiVendor    = "sys/class/dmi/id/sys_vendor"
)

// emulator sets Machine.Hypervisor and its vendor when the firmware names
// a QEMU machine, on a topology whose Machine has no CPUID to ask.
func (r sysfs) emulator(t *Topology) {
	if s, ok := r.optString(dtCompatible, "machine type unknown"); ok {
		// A NUL-separated list of strings.
		for _, c := range strings.Split(s, "\x00") {
			if c == "linux,dummy-virt" {
				t.Machine.Hypervisor, t.Machine.HypervisorVendor = true, "QEMU"
				return
			}
		}
	}
	if s, ok := r.optString(dmiVendor, "system vendor unknown"); ok && s == "QEMU" {
		t.Machine.Hypervisor, t.Machine.HypervisorVendor = true, "QEMU"
	}
}
