package affinity

import "fmt"

// MIDR is an arm64 core's MIDR_EL1, its Main ID Register: what CPUID's
// vendor, family, model and stepping are on x86. Linux shows it per cpu in
// /sys/devices/system/cpu/cpuN/regs/identification/midr_el1 (since 4.7), so
// it is read from sysfs like the rest of the topology, and a tree copied
// from an arm64 machine names its cores too. Zero means not known.
type MIDR uint64

// The fields of MIDR_EL1 (Arm ARM D23.2, "MIDR_EL1, Main ID Register").
func (m MIDR) Implementer() int  { return int(m>>24) & 0xff }
func (m MIDR) Variant() int      { return int(m>>20) & 0xf }
func (m MIDR) Architecture() int { return int(m>>16) & 0xf }
func (m MIDR) Part() int         { return int(m>>4) & 0xfff }
func (m MIDR) Revision() int     { return int(m) & 0xf }

// String writes the register as the kernel's sysfs file does not (it pads
// to 64 bits) but Arm's manuals do: 32 bits of hex, "0x413fd0c1".
func (m MIDR) String() string { return fmt.Sprintf("%#08x", uint32(m)) }

// VendorName names the implementer, or says its code when the table does
// not know it.
func (m MIDR) VendorName() string {
	if name, ok := implementers[m.Implementer()]; ok {
		return name
	}
	return fmt.Sprintf("implementer %#02x", m.Implementer())
}

// Name names the core for people, "Arm Neoverse N1" for an Arm 0xd0c, or
// gives its implementer and part number. Several vendors ship Arm's cores
// under Arm's implementer code (Graviton2 and Ampere Altra are Neoverse N1,
// Graviton3 V1, Graviton4 and NVIDIA Grace V2; Azure Cobalt 100 is N2 under
// Microsoft's code): the table names the core, which is what decides how it
// contends, not the product.
func (m MIDR) Name() string {
	if name, ok := parts[[2]int{m.Implementer(), m.Part()}]; ok {
		return name
	}
	return fmt.Sprintf("%s part %#03x", m.VendorName(), m.Part())
}

// MarshalText writes the register as String does, so JSON says
// "0x413fd0c1" rather than a decimal no manual uses.
func (m MIDR) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// The implementer codes of arch/arm64/include/asm/cputype.h.
var implementers = map[int]string{
	0x00: "software", // "reserved for software use": QEMU's -cpu max
	0x41: "Arm",
	0x42: "Broadcom",
	0x43: "Cavium",
	0x46: "Fujitsu",
	0x48: "HiSilicon",
	0x4e: "NVIDIA",
	0x50: "APM",
	0x51: "Qualcomm",
	0x61: "Apple",
	0x6d: "Microsoft",
	0xc0: "Ampere",
}

// parts names the cores servers and their guests report, by implementer
// and part number, as arch/arm64/include/asm/cputype.h spells them.
var parts = map[[2]int]string{
	{0x00, 0x051}: "QEMU TCG max", // 'Q'
	{0x41, 0xd03}: "Arm Cortex-A53",
	{0x41, 0xd05}: "Arm Cortex-A55",
	{0x41, 0xd07}: "Arm Cortex-A57",
	{0x41, 0xd08}: "Arm Cortex-A72",
	{0x41, 0xd0b}: "Arm Cortex-A76",
	{0x41, 0xd0c}: "Arm Neoverse N1",
	{0x41, 0xd0d}: "Arm Cortex-A77",
	{0x41, 0xd40}: "Arm Neoverse V1",
	{0x41, 0xd41}: "Arm Cortex-A78",
	{0x41, 0xd44}: "Arm Cortex-X1",
	{0x41, 0xd46}: "Arm Cortex-A510",
	{0x41, 0xd47}: "Arm Cortex-A710",
	{0x41, 0xd48}: "Arm Cortex-X2",
	{0x41, 0xd49}: "Arm Neoverse N2",
	{0x41, 0xd4f}: "Arm Neoverse V2",
	{0x41, 0xd83}: "Arm Neoverse V3AE",
	{0x41, 0xd84}: "Arm Neoverse V3",
	{0x41, 0xd8e}: "Arm Neoverse N3",
	{0x43, 0x0a1}: "Cavium ThunderX",
	{0x43, 0x0af}: "Cavium ThunderX2",
	{0x42, 0x516}: "Broadcom Vulcan",
	{0x46, 0x001}: "Fujitsu A64FX",
	{0x48, 0xd01}: "HiSilicon TaiShan v110 (Kunpeng 920)",
	{0x4e, 0x004}: "NVIDIA Carmel",
	{0x50, 0x000}: "APM X-Gene",
	{0x61, 0x022}: "Apple M1 Icestorm",
	{0x61, 0x023}: "Apple M1 Firestorm",
	{0x6d, 0xd49}: "Microsoft Azure Cobalt 100 (Neoverse N2)",
	{0xc0, 0xac3}: "Ampere AmpereOne",
	{0xc0, 0xac4}: "Ampere AmpereOne A",
}
