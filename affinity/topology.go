package affinity

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/contend/contend/nodemask"
)

// The two sysfs directories topology comes from, relative to the root.
const (
	nodeDir = "sys/devices/system/node"
	cpuDir  = "sys/devices/system/cpu"
)

// A Topology is what contend knows about the machine: NUMA nodes, CPUs,
// last-level caches, and which CPUs this process may use. Node ids and CPU
// ids are the kernel's; both may be sparse.
type Topology struct {
	Root      string    // sysfs root it came from, "/" for the running machine
	FakeNodes int       // 0: real; K: made by Fake(K), labelled "fake-K"
	Real      *Topology // for a fake topology, the real one it was split from

	PossibleNodes nodemask.Bitmap
	OnlineNodes   nodemask.Bitmap
	CPUNodes      nodemask.Bitmap // online nodes that have CPUs
	MemoryNodes   nodemask.Bitmap // online nodes that have memory

	// NrNodeIDs is the highest possible node id plus one, the bound of the
	// kernel's for_each_node loops. With sparse ids it exceeds len(Nodes).
	NrNodeIDs int
	Nodes     []Node // online nodes, ascending id

	PossibleCPUs nodemask.Bitmap
	PresentCPUs  nodemask.Bitmap
	OnlineCPUs   nodemask.Bitmap
	OfflineCPUs  nodemask.Bitmap // possible but not online
	AllowedCPUs  nodemask.Bitmap // online CPUs this process may run on

	CPUs []CPU        // index == CPU id, up to the highest possible CPU
	LLCs []CacheGroup // last-level-cache groups, in order of their lowest CPU

	Kernel  string  // kernel release, "" when unknown
	Machine Machine // CPUID facts, zero unless filled by Host

	// What the cache directories said beyond the LLC groups: the
	// coherency_line_size of the first data or unified cache that gave
	// one, and which cache that was ("L1d"), for CacheLine where no LLC
	// group has a line size (an arm64 machine reporting only L1s); and,
	// where no cache is an LLC, which caches sysfs did list ("L1d, L1i").
	anyLine     int
	anyLineFrom string
	cachesSeen  string

	// Notes says where reading the tree fell back on something: an
	// unreadable or empty file, a list an older kernel wrote only as a hex
	// map. contend topo prints them; none on a current kernel's tree.
	Notes []string
}

// A Node is one online NUMA node.
type Node struct {
	ID        int
	CPUs      nodemask.Bitmap
	HasCPU    bool
	HasMemory bool
	// Distance is indexed by node id up to NrNodeIDs; 0 where unknown
	// (offline nodes). The kernel's convention: 10 is local.
	Distance []int
}

// A CPU is one logical CPU (hardware thread). Package, Die and Core are -1
// when unknown, which happens for offline CPUs whose topology directory the
// kernel removed; Node is -1 for a CPU no node lists.
type CPU struct {
	ID       int
	Online   bool
	Node     int
	Package  int
	Die      int
	Core     int             // core_id; unique only within a package and die
	Cluster  int             // cluster_id (Linux 5.16+); unique only within a package, -1 when sysfs has none
	Siblings nodemask.Bitmap // SMT siblings, itself included
	LLC      int             // index into Topology.LLCs, -1 when unknown
	Governor string          // cpufreq scaling_governor, "" without cpufreq
}

// A CacheGroup is a set of CPUs sharing one last-level cache: the unit that
// decides whether a contended cache line moves over the interconnect.
type CacheGroup struct {
	Index    int
	Level    int
	Size     int64 // bytes
	LineSize int
	CPUs     nodemask.Bitmap
}

// Load reads the topology under a sysfs root: a directory holding
// sys/devices/system/{node,cpu} ("/" on a live system). It does not consult
// the calling process, so AllowedCPUs is OnlineCPUs and Machine is zero;
// Host fills those in for the running machine.
func Load(root string) (*Topology, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("affinity: reading sysfs root %q: %w", root, unwrapPath(err))
	}
	t, err := load(os.DirFS(root))
	if err != nil {
		return nil, fmt.Errorf("affinity: reading sysfs root %q: %w", root, err)
	}
	t.Root = root
	return t, nil
}

// LoadFS is Load over a file system whose root stands for "/".
func LoadFS(fsys fs.FS) (*Topology, error) {
	t, err := load(fsys)
	if err != nil {
		return nil, fmt.Errorf("affinity: %w", err)
	}
	return t, nil
}

// NodeByID returns the online node with the given id, or nil.
func (t *Topology) NodeByID(id int) *Node {
	i := sort.Search(len(t.Nodes), func(i int) bool { return t.Nodes[i].ID >= id })
	if i < len(t.Nodes) && t.Nodes[i].ID == id {
		return &t.Nodes[i]
	}
	return nil
}

// Distance returns the kernel's distance between two node ids (10 is
// local), or 0 when either node is not online.
func (t *Topology) Distance(a, b int) int {
	n := t.NodeByID(a)
	if n == nil || t.NodeByID(b) == nil || b >= len(n.Distance) {
		return 0
	}
	return n.Distance[b]
}

// NodeOf returns the node id of a CPU, -1 for an unknown CPU.
func (t *Topology) NodeOf(cpu int) int {
	if cpu < 0 || cpu >= len(t.CPUs) {
		return -1
	}
	return t.CPUs[cpu].Node
}

// Label is the value of the `topology:` configuration line: "real", or
// "fake-K" for a topology made by Fake(K).
func (t *Topology) Label() string {
	if t.FakeNodes > 0 {
		return fmt.Sprintf("fake-%d", t.FakeNodes)
	}
	return "real"
}

// CacheLine returns the coherency unit in bytes: the CPU's own answer
// (CPUID on x86, CTR_EL0's CWG on arm64; Host asks it), else the line size
// sysfs gives for the last-level cache or, failing that, an L1d, else 64
// (lineOf's rule). For the running machine's topology it is LineSize.
func (t *Topology) CacheLine() int {
	n, _ := t.cacheLine()
	return n
}

// cacheLine returns CacheLine and where the number came from.
func (t *Topology) cacheLine() (int, string) {
	n, from := t.sysfsLine()
	return lineOf(t.Machine, n, from)
}

// sysfsLine is the line size sysfs reports and which cache reported it:
// the first last-level cache group's coherency_line_size that is
// plausible, else the first data or unified cache's; 0 when none is.
func (t *Topology) sysfsLine() (int, string) {
	for _, g := range t.LLCs {
		if plausibleLine(g.LineSize) {
			return g.LineSize, "sysfs coherency_line_size"
		}
	}
	if plausibleLine(t.anyLine) {
		return t.anyLine, "sysfs coherency_line_size, " + t.anyLineFrom
	}
	return 0, ""
}

// CheckCPU returns nil if this process can run a worker on cpu, and
// otherwise a one-line error naming what is wrong with it.
func (t *Topology) CheckCPU(cpu int) error {
	switch {
	case cpu < 0 || !t.PossibleCPUs.Test(cpu):
		return fmt.Errorf("cpu %d does not exist (machine has cpus %s)", cpu, t.PossibleCPUs)
	case !t.OnlineCPUs.Test(cpu):
		return fmt.Errorf("cpu %d is offline", cpu)
	case !t.AllowedCPUs.Test(cpu):
		return fmt.Errorf("cpu %d is not in this process's allowed cpus %s (taskset/cgroup cpuset)", cpu, t.AllowedCPUs)
	}
	return nil
}

// String is the readable summary `contend topo` prints. A fake topology says
// so on its first line, in capitals, and names the real one beside it.
func (t *Topology) String() string {
	var b strings.Builder
	line := func(key, format string, args ...any) {
		fmt.Fprintf(&b, "%-10s%s\n", key, fmt.Sprintf(format, args...))
	}
	if t.IsFake() {
		line("topology", "FAKE (%s): %d made-up nodes splitting allowed cpus %s; NOT this machine's NUMA layout",
			t.Label(), t.FakeNodes, t.AllowedCPUs)
		if r := t.Real; r != nil {
			line("", "real: %d node(s) %s, nr_node_ids %d, sysfs root %q", len(r.Nodes), r.OnlineNodes, r.NrNodeIDs, r.Root)
		}
	} else {
		line("topology", "real, sysfs root %q", t.Root)
	}
	m := t.Machine
	switch {
	case m.MIDR != 0:
		// arm64: no CPUID bit says whether a hypervisor is there; only
		// firmware naming an emulated machine does.
		hv := "hypervisor unknown (no CPUID)"
		if m.Hypervisor {
			hv = "under hypervisor " + m.HypervisorVendor + " (its firmware says so)"
		}
		line("machine", "%s r%dp%d (MIDR_EL1 %s: implementer %#02x %s, part %#03x), %s",
			m.Brand, m.MIDR.Variant(), m.MIDR.Revision(), m.MIDR, m.MIDR.Implementer(), m.Vendor, m.MIDR.Part(), hv)
	case m.known():
		hv := "no hypervisor bit"
		if m.Hypervisor {
			hv = "under hypervisor " + cmp.Or(m.HypervisorVendor, "(unnamed)")
		}
		line("machine", "%s (%s family %d model %d stepping %d), %s", m.Brand, m.Vendor, m.Family, m.Model, m.Stepping, hv)
	case t.Root == "/" && runtime.GOARCH != "amd64" && runtime.GOARCH != "386":
		line("machine", "unknown (no CPUID on %s, and no regs/identification/midr_el1 in sysfs)", runtime.GOARCH)
	default:
		line("machine", "unknown (no CPUID: read from a sysfs tree)")
	}
	line("kernel", "%s", cmp.Or(t.Kernel, "unknown"))
	lineSize, source := t.cacheLine()
	line("cacheline", "%d B (%s)", lineSize, source)
	if m.known() && m.MIDR == 0 {
		line("caches", "L1d %s, L2 %s, L3 %s (cpuid)", size(m.L1D), size(m.L2), size(m.L3))
	}
	t.writeNodes(line)
	t.writeCaches(line)
	t.writeCPUs(line)
	for i, n := range t.Notes {
		key := ""
		if i == 0 {
			key = "notes"
		}
		line(key, "%s", n)
	}
	return b.String()
}

func (t *Topology) writeNodes(line func(key, format string, args ...any)) {
	line("nodes", "%d online %s, possible %s, nr_node_ids %d", len(t.Nodes), t.OnlineNodes, t.PossibleNodes, t.NrNodeIDs)
	if t.NrNodeIDs != len(t.Nodes) {
		line("", "nr_node_ids %d != %d nodes: node ids are sparse or some are offline", t.NrNodeIDs, len(t.Nodes))
	}
	if t.IsFake() {
		line("", "fake nodes split cpus only: memory stays where the real kernel put it")
	} else {
		line("", "cpus on nodes %s, memory on nodes %s", orNone(t.CPUNodes), orNone(t.MemoryNodes))
	}
	for _, n := range t.Nodes {
		what := fmt.Sprintf("cpus %s (%d)", n.CPUs, n.CPUs.Weight())
		if n.CPUs.Empty() {
			what = "no cpus"
		}
		switch {
		case t.IsFake():
		case n.HasMemory:
			what += ", memory"
		default:
			what += ", no memory"
		}
		line("", "node %d: %s", n.ID, what)
	}
	var row strings.Builder
	fmt.Fprintf(&row, "%4s", "")
	for _, n := range t.Nodes {
		fmt.Fprintf(&row, " %3d", n.ID)
	}
	line("distance", "%s", row.String())
	for _, a := range t.Nodes {
		row.Reset()
		fmt.Fprintf(&row, "%4d", a.ID)
		for _, c := range t.Nodes {
			fmt.Fprintf(&row, " %3d", t.Distance(a.ID, c.ID))
		}
		line("", "%s", row.String())
	}
}

func (t *Topology) writeCaches(line func(key, format string, args ...any)) {
	switch {
	case len(t.LLCs) == 0 && t.cachesSeen != "":
		line("llc", "no shared cache reported: sysfs lists only %s per cpu, and an L1 is never the last-level cache", t.cachesSeen)
		t.writeSchedLLCs(line)
		return
	case len(t.LLCs) == 0:
		line("llc", "unknown (no cache directories in sysfs)")
		t.writeSchedLLCs(line)
		return
	}
	line("llc", "%d group(s) sharing a last-level cache", len(t.LLCs))
	for _, g := range t.LLCs {
		level := fmt.Sprintf("L%d", g.Level)
		if g.Level <= 0 {
			level = "level unknown"
		}
		lineSize := "unknown"
		if g.LineSize > 0 {
			lineSize = fmt.Sprintf("%d B", g.LineSize)
		}
		line("", "llc %d: %s %s, line %s, cpus %s", g.Index, level, size(g.Size), lineSize, g.CPUs)
	}
}

// writeSchedLLCs says which cpus the scheduler takes for one LLC where
// none is reported (SchedLLC), as bench/wakeup's model does.
func (t *Topology) writeSchedLLCs(line func(key, format string, args ...any)) {
	var groups []string
	for cpu := range t.OnlineCPUs.All() {
		if g, derived := t.SchedLLC(cpu); derived && g.First() == cpu {
			groups = append(groups, g.String())
		}
	}
	if len(groups) > 0 {
		line("", "sd_llc without one, as arm64's and riscv's cpu_coregroup_mask() makes it (the smaller of node and package): cpus %s", strings.Join(groups, ", "))
	}
}

func (t *Topology) writeCPUs(line func(key, format string, args ...any)) {
	minT, maxT, example := 0, 0, -1
	cores := map[string]bool{}
	type pkg struct{ dies, cpus nodemask.Bitmap }
	pkgs := map[int]*pkg{}
	var pkgIDs []int
	govs := map[string]*nodemask.Bitmap{}
	var govNames []string
	for _, c := range t.CPUs {
		if !c.Online {
			continue
		}
		w := c.Siblings.Weight()
		if minT == 0 || w < minT {
			minT = w
		}
		if w > maxT {
			maxT, example = w, c.ID
		}
		cores[c.Siblings.String()] = true
		p := pkgs[c.Package]
		if p == nil {
			p = &pkg{}
			pkgs[c.Package] = p
			pkgIDs = append(pkgIDs, c.Package)
		}
		p.dies.Set(c.Die)
		p.cpus.Set(c.ID)
		g := govs[c.Governor]
		if g == nil {
			g = &nodemask.Bitmap{}
			govs[c.Governor] = g
			govNames = append(govNames, c.Governor)
		}
		g.Set(c.ID)
	}
	switch {
	case maxT <= 1:
		line("smt", "no SMT (1 thread per core), %d cores", len(cores))
	case minT == maxT:
		line("smt", "%d threads per core, %d cores; e.g. cpu %d siblings %s", maxT, len(cores), example, t.CPUs[example].Siblings)
	default:
		line("smt", "%d-%d threads per core, %d cores; e.g. cpu %d siblings %s", minT, maxT, len(cores), example, t.CPUs[example].Siblings)
	}
	sort.Ints(pkgIDs)
	line("packages", "%d", len(pkgIDs))
	for _, id := range pkgIDs {
		p := pkgs[id]
		dies := "die"
		if p.dies.Weight() > 1 {
			dies = "dies"
		}
		line("", "package %d: %s %s, cpus %s", id, dies, p.dies, p.cpus)
	}
	line("cpus", "possible %s, online %s, offline %s", t.PossibleCPUs, t.OnlineCPUs, orNone(t.OfflineCPUs))
	if t.AllowedCPUs.Equal(t.OnlineCPUs) {
		line("allowed", "%s (all online cpus)", t.AllowedCPUs)
	} else {
		line("allowed", "%s of %d online (taskset/cgroup cpuset)", t.AllowedCPUs, t.OnlineCPUs.Weight())
	}
	sort.Strings(govNames)
	for i, name := range govNames {
		key := ""
		if i == 0 {
			key = "governor"
		}
		line(key, "%s: cpus %s", cmp.Or(name, "none (no cpufreq)"), govs[name])
	}
}

func orNone(b nodemask.Bitmap) string {
	if b.Empty() {
		return "none"
	}
	return b.String()
}

// size formats a byte count in the largest binary unit that divides it.
func size(n int64) string {
	switch {
	case n <= 0:
		return "unknown"
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// JSON: nodemask.Bitmap has no text form of its own for encoding/json, so
// these shadow types write every set in the list form sysfs uses ("0-3,8").
// The label goes first, so a reader of `contend topo --json` cannot miss a
// fake topology.
type (
	jsonTopology struct {
		Topology      string       `json:"topology"`
		Root          string       `json:"root"`
		FakeNodes     int          `json:"fake_nodes"`
		Real          *Topology    `json:"real,omitempty"`
		PossibleNodes string       `json:"possible_nodes"`
		OnlineNodes   string       `json:"online_nodes"`
		CPUNodes      string       `json:"cpu_nodes"`
		MemoryNodes   string       `json:"memory_nodes"`
		NrNodeIDs     int          `json:"nr_node_ids"`
		Nodes         []Node       `json:"nodes"`
		PossibleCPUs  string       `json:"possible_cpus"`
		PresentCPUs   string       `json:"present_cpus"`
		OnlineCPUs    string       `json:"online_cpus"`
		OfflineCPUs   string       `json:"offline_cpus"`
		AllowedCPUs   string       `json:"allowed_cpus"`
		CPUs          []CPU        `json:"cpus"`
		LLCs          []CacheGroup `json:"llcs"`
		CacheLine     int          `json:"cache_line"`
		CacheLineFrom string       `json:"cache_line_from"`
		CachesSeen    string       `json:"caches_seen,omitempty"` // where no cache is an LLC
		Kernel        string       `json:"kernel"`
		Machine       Machine      `json:"machine"`
		Notes         []string     `json:"notes,omitempty"`
	}
	jsonNode struct {
		ID        int    `json:"id"`
		CPUs      string `json:"cpus"`
		HasCPU    bool   `json:"has_cpu"`
		HasMemory bool   `json:"has_memory"`
		Distance  []int  `json:"distance"`
	}
	jsonCPU struct {
		ID       int    `json:"id"`
		Online   bool   `json:"online"`
		Node     int    `json:"node"`
		Package  int    `json:"package"`
		Die      int    `json:"die"`
		Core     int    `json:"core"`
		Siblings string `json:"siblings"`
		LLC      int    `json:"llc"`
		Governor string `json:"governor,omitempty"`
	}
	jsonCacheGroup struct {
		Index    int    `json:"index"`
		Level    int    `json:"level"`
		Size     int64  `json:"size"`
		LineSize int    `json:"line_size"`
		CPUs     string `json:"cpus"`
	}
)

// MarshalJSON writes the topology with snake_case keys, its label first and
// sets as list strings.
func (t *Topology) MarshalJSON() ([]byte, error) {
	line, from := t.cacheLine()
	llcs := t.LLCs
	if llcs == nil {
		llcs = []CacheGroup{} // [], not null: a machine with no LLC group
	}
	return json.Marshal(jsonTopology{
		Topology: t.Label(), Root: t.Root, FakeNodes: t.FakeNodes, Real: t.Real,
		PossibleNodes: t.PossibleNodes.String(), OnlineNodes: t.OnlineNodes.String(),
		CPUNodes: t.CPUNodes.String(), MemoryNodes: t.MemoryNodes.String(),
		NrNodeIDs: t.NrNodeIDs, Nodes: t.Nodes,
		PossibleCPUs: t.PossibleCPUs.String(), PresentCPUs: t.PresentCPUs.String(),
		OnlineCPUs: t.OnlineCPUs.String(), OfflineCPUs: t.OfflineCPUs.String(),
		AllowedCPUs: t.AllowedCPUs.String(),
		CPUs:        t.CPUs, LLCs: llcs, CacheLine: line, CacheLineFrom: from, CachesSeen: t.cachesSeen,
		Kernel: t.Kernel, Machine: t.Machine, Notes: t.Notes,
	})
}

// MarshalJSON writes the node with its CPUs as a list string.
func (n Node) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonNode{n.ID, n.CPUs.String(), n.HasCPU, n.HasMemory, n.Distance})
}

// MarshalJSON writes the CPU with its siblings as a list string.
func (c CPU) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonCPU{c.ID, c.Online, c.Node, c.Package, c.Die, c.Core, c.Siblings.String(), c.LLC, c.Governor})
}

// MarshalJSON writes the group with its CPUs as a list string.
func (g CacheGroup) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonCacheGroup{g.Index, g.Level, g.Size, g.LineSize, g.CPUs.String()})
}
