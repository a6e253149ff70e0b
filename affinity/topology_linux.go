package affinity

import (
	"fmt"
	"io/fs"

	"github.com/contend/contend/nodemask"
	"golang.org/x/sys/unix"
)

// This file and the other _linux.go files hold what is specific to Linux:
// the layout of its sysfs topology files, one file per area as
// prometheus/procfs keeps them (sysfs_linux.go the reader, cpus_linux.go
// cpu/{possible,present,online} and each cpuN/topology, caches_linux.go
// cpuN/cache, nodes_linux.go node/ and its lists, distance_linux.go
// nodeN/distance, regs_linux.go cpuN/regs/identification, firmware_linux.go
// the device tree and DMI), and the running process's view of the machine
// (here).

// maxCPUs bounds the CPU ids Load accepts: Linux's CONFIG_NR_CPUS tops out at
// 8192, so a larger id is garbage, and refusing it keeps a hostile tree from
// making Load allocate per-CPU records by the million.
const maxCPUs = 1 << 16

// Host reads the running machine: Load("/"), then AllowedCPUs from the
// affinity mask the process started with (not the calling thread's current
// one, which a pinned worker has narrowed), Kernel from uname, and Machine
// from CPUID (x86) or, on arm64, the line size from CTR_EL0 beside the
// core sysfs named.
func Host() (*Topology, error) {
	t, err := Load("/")
	if err != nil {
		return nil, err
	}
	if startMaskErr != nil {
		return nil, fmt.Errorf("affinity: reading the process's start affinity mask: %w", startMaskErr)
	}
	start := nodemask.BitmapOf(startCPUs()...)
	t.AllowedCPUs = start.And(t.OnlineCPUs)
	if t.AllowedCPUs.Empty() {
		return nil, fmt.Errorf("affinity: start affinity mask %s holds no online cpu (online: %s)", start, t.OnlineCPUs)
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err == nil {
		t.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	t.Machine = onHost(t.Machine)
	return t, nil
}

func load(fsys fs.FS) (*Topology, error) {
	r := sysfs{fsys, &notes{}}
	t := &Topology{}
	if err := r.cpus(t); err != nil {
		return nil, err
	}
	if err := r.nodes(t); err != nil {
		return nil, err
	}
	if err := r.identity(t); err != nil {
		return nil, err
	}
	r.emulator(t)
	t.AllowedCPUs = t.OnlineCPUs.Clone()
	t.Kernel, _ = r.optString("proc/sys/kernel/osrelease", "kernel unknown")
	t.Notes = r.notes.list()
	return t, nil
}
