package topology

// An Arch is how the lab boots guests of one architecture: the QEMU that
// emulates it, Debian's packages of its kernel and static busybox, the
// kernel's console, and the data channel the transcript travels on (see
// internal/vmlab's guest.go). A Topology names its Arch; "" is amd64, the
// host's.
type Arch struct {
	GOARCH      string
	QEMU        string   // binary
	QEMUPackage string   // the Debian package holding it
	Machine     []string // QEMU's machine arguments, before -cpu
	// DebArch is Debian's name of the architecture; apt names a foreign
	// one's packages with it (linux-image-arm64:arm64), after dpkg
	// --add-architecture.
	DebArch    string
	KernelMeta string // the kernel metapackage, without the :arch
	Console    string // the kernel's console device (the first serial port)
	// Data is the guest's device for the data channel, and DataArgs the
	// QEMU arguments that make it a file on the host.
	Data     string
	DataArgs func(file string) []string
	// Modules are the kernel package's modules the data channel needs
	// (paths below lib/modules/VERSION/), loaded by /init in this order.
	Modules []string
	// NoLLC says the guests' cpus report no cache beyond L1, so the
	// oracle wants no LLC group: QEMU's virt -cpu max under TCG lists
	// only L1d and L1i.
	NoLLC bool
}

// Arches are the architectures the lab boots, by GOARCH.
var Arches = map[string]Arch{
	"amd64": {
		GOARCH: "amd64", QEMU: "qemu-system-x86_64", QEMUPackage: "qemu-system-x86", DebArch: "amd64",
		// linux-image-amd64: Debian's metapackage naming the current kernel.
		KernelMeta: "linux-image-amd64", Console: "ttyS0", Data: "/dev/ttyS1",
		DataArgs: func(file string) []string { return []string{"-serial", "file:" + file} },
	},
	"arm64": {
		// virt has one PL011 UART, the console; the transcript goes over
		// a virtio console (hvc0), whose drivers Debian builds as
		// modules. Booted with -kernel and no firmware, the guest
		// describes itself by a device tree (compatible
		// "linux,dummy-virt"): cpu-map sockets, numa-node-id and a
		// distance-map, which Linux reads as it would ACPI's tables.
		GOARCH: "arm64", QEMU: "qemu-system-aarch64", QEMUPackage: "qemu-system-arm", DebArch: "arm64",
		Machine:    []string{"-M", "virt,gic-version=3"},
		KernelMeta: "linux-image-arm64", Console: "ttyAMA0", Data: "/dev/hvc0",
		DataArgs: func(file string) []string {
			return []string{"-device", "virtio-serial-device", "-chardev", "file,id=data,path=" + file, "-device", "virtconsole,chardev=data"}
		},
		Modules: []string{"kernel/drivers/virtio/virtio_mmio.ko", "kernel/drivers/char/virtio_console.ko"},
		NoLLC:   true,
	},
}

// Architecture returns the Arch t names; an unknown name is refused by
// Validate.
func (t Topology) Architecture() Arch {
	if t.Arch == "" {
		return Arches["amd64"]
	}
	return Arches[t.Arch]
}
