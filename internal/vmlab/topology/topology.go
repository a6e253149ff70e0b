// Package topology declares the lab's guest machines and what contend must
// find in each: a Topology is written once, and both QEMU's command line
// (QEMUArgs, Cmdline) and the oracle (Want, which CheckTopo holds contend
// topo -json to and CheckTree a sysfs tree a guest sent back) are derived
// from it, so the check cannot drift from what QEMU was given. The Arches
// say what each architecture a topology names means to QEMU, the guest's
// kernel and apt.
//
// It is the declarative half of the QEMU lab: internal/vmlab boots these
// machines and judges their steps' outputs; nothing here boots, builds or
// fetches anything.
package topology

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// kernelCmdline keeps the console quiet (loglevel=1; edd=off skips the BIOS
// disk probe that prints), makes a panic end QEMU at once (panic=-1 with
// -no-reboot), and skips the CPU vulnerability mitigations, which cost TCG
// dearly and measure nothing here.
const kernelCmdline = "console=ttyS0 loglevel=1 edd=off panic=-1 mitigations=off tsc=reliable"

// A Topology is one guest machine of the lab, declared once: QEMU's command
// line (QEMUArgs) and what the guest's kernel must then show (Want) both
// come from it, so the oracle cannot drift from what QEMU was given.
type Topology struct {
	Name    string
	Summary string // one line for -list and the README

	// Arch is the guest's GOARCH, a key of Arches; "" is amd64.
	Arch string

	// CPUModel is QEMU's -cpu: Skylake-Server exposes SMT siblings and L3
	// cache ids through CPUID leaves 4 and 0xb; max (under TCG an AMD-like
	// model) exposes its L3s without a usable id.
	CPUModel string

	// -smp: Sockets × Cores × Threads possible vcpus, of which the first
	// Boot are present at boot (0: all). QEMU numbers vcpus socket-major,
	// (socket*Cores+core)*Threads+thread, and Linux enumerates them in that
	// order, so a vcpu index is the guest's cpu id.
	Sockets, Cores, Threads int
	Boot                    int

	// SMT says whether the guest's kernel sees the Threads as SMT siblings:
	// with a CPU model that has no topology leaf (max) every cpu is its own
	// core whatever -smp says, and the oracle follows CPUID, not -smp.
	SMT bool

	Nodes []Node
	// Distance is the -numa dist matrix by node index; nil means QEMU's
	// default, 10 local and 20 remote.
	Distance [][]int

	// KernelMaxCPUs, when set, boots the kernel with maxcpus=N: cpus N and
	// above are present but never brought up (they keep no topology/
	// directory, unlike a cpu put offline).
	KernelMaxCPUs int

	// Offline cpus are put offline by the guest's /init before anything
	// runs (echo 0 > online), beside those not present or not brought up.
	Offline []int

	// Tests names the scenario test binaries the tests step runs here
	// (internal/vmlab's scenarioTests' names); nil runs them all. CI's budget splits them
	// between the guests that run the step.
	Tests []string

	// Steps are the checks run in the guest, most valuable first (see
	// internal/vmlab's Steps for what each does).
	Steps []string
}

// A Node is one -numa node: its vcpus (none: a memory-only node) and memory.
type Node struct {
	CPUs   []int
	MemMiB int
}

// CPUs is the number of possible vcpus.
func (t Topology) CPUs() int { return t.Sockets * t.Cores * t.Threads }

// BootCPUs is the number of vcpus present at boot.
func (t Topology) BootCPUs() int {
	if t.Boot == 0 {
		return t.CPUs()
	}
	return t.Boot
}

// MemMiB is the guest's memory: the nodes' sum.
func (t Topology) MemMiB() int {
	m := 0
	for _, n := range t.Nodes {
		m += n.MemMiB
	}
	return m
}

// Dist returns the distance between node indexes a and b as QEMU is told
// (or defaults to) it.
func (t Topology) Dist(a, b int) int {
	if t.Distance != nil {
		return t.Distance[a][b]
	}
	if a == b {
		return 10
	}
	return 20
}

// Validate reports a declaration QEMU would refuse or the oracle could not
// read: every vcpu in exactly one node, a square distance matrix.
func (t Topology) Validate() error {
	if t.Name == "" || t.CPUModel == "" || t.Sockets < 1 || t.Cores < 1 || t.Threads < 1 {
		return fmt.Errorf("topology %q: name, cpu model and -smp geometry are required", t.Name)
	}
	if _, ok := Arches[t.Arch]; t.Arch != "" && !ok {
		return fmt.Errorf("topology %s: unknown arch %q", t.Name, t.Arch)
	}
	if t.Boot < 0 || t.Boot > t.CPUs() {
		return fmt.Errorf("topology %s: %d boot cpus of %d", t.Name, t.Boot, t.CPUs())
	}
	seen := make([]bool, t.CPUs())
	for i, n := range t.Nodes {
		if n.MemMiB < 64 {
			return fmt.Errorf("topology %s: node %d has %d MiB (want at least 64)", t.Name, i, n.MemMiB)
		}
		for _, c := range n.CPUs {
			if c < 0 || c >= t.CPUs() || seen[c] {
				return fmt.Errorf("topology %s: node %d: cpu %d out of range or in two nodes", t.Name, i, c)
			}
			seen[c] = true
		}
	}
	if len(t.Nodes) > 0 && slices.Contains(seen, false) {
		return fmt.Errorf("topology %s: cpu %d is in no node", t.Name, slices.Index(seen, false))
	}
	if t.Distance != nil {
		if len(t.Distance) != len(t.Nodes) {
			return fmt.Errorf("topology %s: %d distance rows for %d nodes", t.Name, len(t.Distance), len(t.Nodes))
		}
		for i, row := range t.Distance {
			if len(row) != len(t.Nodes) || row[i] != 10 {
				return fmt.Errorf("topology %s: distance row %d: want %d entries, 10 on the diagonal", t.Name, i, len(t.Nodes))
			}
		}
	}
	if t.KernelMaxCPUs < 0 || t.KernelMaxCPUs > t.BootCPUs() {
		return fmt.Errorf("topology %s: maxcpus=%d with %d cpus present", t.Name, t.KernelMaxCPUs, t.BootCPUs())
	}
	for _, c := range t.Offline {
		if c <= 0 || c >= t.BootCPUs() || (t.KernelMaxCPUs > 0 && c >= t.KernelMaxCPUs) {
			return fmt.Errorf("topology %s: cannot put cpu %d offline (cpu 0 stays; only present cpus)", t.Name, c)
		}
	}
	return nil
}

// UpCPUs is the number of cpus the kernel brings up at boot.
func (t Topology) UpCPUs() int {
	if t.KernelMaxCPUs > 0 {
		return t.KernelMaxCPUs
	}
	return t.BootCPUs()
}

// Cmdline returns the kernel command line: the lab's, and maxcpus= where
// the topology boots fewer cpus than are present.
func (t Topology) Cmdline() string {
	cmdline := strings.Replace(kernelCmdline, "console=ttyS0", "console="+t.Architecture().Console, 1)
	if t.KernelMaxCPUs > 0 {
		return cmdline + fmt.Sprintf(" maxcpus=%d", t.KernelMaxCPUs)
	}
	return cmdline
}

// QEMUArgs returns the machine part of QEMU's command line: cpu model,
// -smp, memory, and the -numa nodes and distances. The caller adds the
// kernel, initramfs, consoles and accelerator.
func (t Topology) QEMUArgs() []string {
	smp := fmt.Sprintf("%d,sockets=%d,cores=%d,threads=%d", t.BootCPUs(), t.Sockets, t.Cores, t.Threads)
	if t.Boot != 0 {
		smp += fmt.Sprintf(",maxcpus=%d", t.CPUs())
	}
	args := append(slices.Clone(t.Architecture().Machine), "-cpu", t.CPUModel, "-smp", smp, "-m", strconv.Itoa(t.MemMiB())+"M")
	for i, n := range t.Nodes {
		args = append(args, "-object", fmt.Sprintf("memory-backend-ram,id=mem%d,size=%dM", i, n.MemMiB))
		node := fmt.Sprintf("node,nodeid=%d,memdev=mem%d", i, i)
		for _, r := range ranges(n.CPUs) {
			node += ",cpus=" + r
		}
		args = append(args, "-numa", node)
	}
	if t.Distance != nil {
		for i := range t.Nodes {
			for j := i + 1; j < len(t.Nodes); j++ {
				args = append(args, "-numa", fmt.Sprintf("dist,src=%d,dst=%d,val=%d", i, j, t.Distance[i][j]))
				if t.Distance[j][i] != t.Distance[i][j] {
					args = append(args, "-numa", fmt.Sprintf("dist,src=%d,dst=%d,val=%d", j, i, t.Distance[j][i]))
				}
			}
		}
	}
	return args
}

// ranges writes sorted cpu ids as QEMU's cpus= values: "0-3", "6".
func ranges(cpus []int) []string {
	var out []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if i == j {
			out = append(out, strconv.Itoa(cpus[i]))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return out
}

// seq returns lo, lo+1, …, hi-1.
func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// Matrix is the lab's set of guests, in the order they boot. Each has at
// most 8 vcpus, so spinning workloads stay within what TCG on two host cpus
// runs without soft lockups.
var Matrix = []Topology{
	{
		Name:     "skx-2s",
		Summary:  "2 sockets × 2 cores × 2 threads (Skylake-Server), 2 nodes, one L3 per socket",
		CPUModel: "Skylake-Server", Sockets: 2, Cores: 2, Threads: 2, SMT: true,
		Nodes: []Node{{seq(0, 4), 256}, {seq(4, 8), 256}},
		Tests: []string{"loadavg", "balanceflag", "idlemask", "cpumask", "c2c"},
		Steps: []string{"topo", "sysfs", "pernode", "cross", "taskset", "tests", "sweep", "c2c", "resume", "unplug"},
	},
	{
		Name:     "snc-4n",
		Summary:  "2 sockets × 4 cores, 4 SNC-like nodes of 2 cpus, distances 12 within a socket and 21 across",
		CPUModel: "Skylake-Server", Sockets: 2, Cores: 4, Threads: 1,
		Nodes: []Node{{seq(0, 2), 256}, {seq(2, 4), 256}, {seq(4, 6), 256}, {seq(6, 8), 256}},
		Distance: [][]int{
			{10, 12, 21, 21},
			{12, 10, 21, 21},
			{21, 21, 10, 12},
			{21, 21, 12, 10},
		},
		Tests: []string{"loadavg", "nodemask", "wakeup", "atomicadd", "rqlayout"},
		Steps: []string{"topo", "pernode", "cross", "tests"},
	},
	{
		Name:     "memonly-3n",
		Summary:  "2 sockets × 2 cores × 2 threads, nodes 0 and 1 with cpus, node 2 memory only (distance 30)",
		CPUModel: "Skylake-Server", Sockets: 2, Cores: 2, Threads: 2, SMT: true,
		Nodes: []Node{{seq(0, 4), 192}, {seq(4, 8), 192}, {nil, 128}},
		Distance: [][]int{
			{10, 20, 30},
			{20, 10, 30},
			{30, 30, 10},
		},
		Steps: []string{"topo", "sysfs", "pernode", "cross", "reproduce"},
	},
	{
		Name:     "offline-2s",
		Summary:  "2 sockets × 2 cores × 2 threads, 6 of 8 vcpus present (-smp 6,maxcpus=8), 5 brought up (kernel maxcpus=5), cpu 3 put offline",
		CPUModel: "Skylake-Server", Sockets: 2, Cores: 2, Threads: 2, SMT: true, Boot: 6, KernelMaxCPUs: 5,
		Nodes:   []Node{{seq(0, 4), 256}, {seq(4, 8), 256}},
		Offline: []int{3},
		Tests:   []string{"loadavg"},
		Steps:   []string{"topo", "sysfs", "pernode", "tests", "sweep"},
	},
	{
		Name:     "amd-8",
		Summary:  "2 sockets × 4 cores (-cpu max, AMD-like: L3 without a usable id), 2 nodes",
		CPUModel: "max", Sockets: 2, Cores: 4, Threads: 1,
		Nodes: []Node{{seq(0, 4), 256}, {seq(4, 8), 256}},
		Steps: []string{"topo", "sysfs", "pernode", "c2c"},
	},
}

// Big are guests the lab boots only when asked (-topology): a box the size
// of the seeds' machines, for topology, plans and the c2c plan only. TCG
// boots 224 vcpus in about a minute on two host cpus but cannot run 224
// spinning workers on them without soft lockups, so no step here spins.
var Big = []Topology{
	{
		Name:     "big-224",
		Summary:  "2 sockets × 56 cores × 2 threads (224 vcpus, Skylake-Server), 2 nodes: topology and plans only, not in CI (a minute to boot)",
		CPUModel: "Skylake-Server", Sockets: 2, Cores: 56, Threads: 2, SMT: true,
		Nodes: []Node{{seq(0, 112), 768}, {seq(112, 224), 768}},
		Steps: []string{"topo", "plan"},
	},
}

// Arm64 are the lab's arm64 guests: QEMU's virt machine with -cpu max
// under TCG, Debian's arm64 kernel and busybox-static:arm64, booted only
// when named (-topology virt-arm64), since they need binaries of their own:
// .ci/run boots them in a second invocation. virt-arm64's eleven steps take
// about a minute under TCG on two busy host cpus, its build as long again.
// The steps only arm64 guests run (gc, pinning, runner) are internal/vmlab's.
var Arm64 = []Topology{
	{
		Name:     "virt-arm64",
		Summary:  "arm64: virt -cpu max, 2 sockets × 2 cores, 2 nodes (device tree), caches to L1 only: the GC hang, rseq pinning and the runner's cost, every scenario, c2c, sweep, reproduce",
		Arch:     "arm64",
		CPUModel: "max", Sockets: 2, Cores: 2, Threads: 1,
		Nodes: []Node{{seq(0, 2), 256}, {seq(2, 4), 256}},
		Steps: []string{"topo", "sysfs", "gc", "pinning", "runner", "pernode", "cross", "tests", "c2c", "sweep", "reproduce"},
	},
}
