package affinity

import (
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contend/contend/nodemask"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// tree loads testdata/sysfs/<name>, failing the test on error.
func tree(t *testing.T, name string) *Topology {
	t.Helper()
	topo, err := Load(filepath.Join("testdata", "sysfs", name))
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

func list(t *testing.T, s string) nodemask.Bitmap {
	t.Helper()
	b, err := nodemask.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLoadFixtures checks the three real machines' trees. Each row names a
// node with its CPUs, a few distances, one CPU's SMT siblings and LLC group,
// and the package and die counts.
func TestLoadFixtures(t *testing.T) {
	tests := []struct {
		machine             string
		nodes, nrNodeIDs    int
		node                int
		nodeCPUs            string
		dist                [][3]int // a, b, distance
		llcs                int
		cpu                 int
		siblings, llcCPUs   string
		llcLevel            int
		llcSize             int64
		packages, diesTotal int
		memNodes            string
	}{
		{
			machine: "16amd64-8n2c", nodes: 8, nrNodeIDs: 8,
			node: 3, nodeCPUs: "6-7",
			dist: [][3]int{{0, 0, 10}, {0, 1, 20}, {7, 6, 20}},
			// No L3: each CPU's own L2 is its last-level cache.
			llcs: 16, cpu: 5, siblings: "5", llcCPUs: "5", llcLevel: 2, llcSize: 1 << 20,
			packages: 8, diesTotal: 8, memNodes: "0-7", // from has_normal_memory
		},
		{
			machine: "64amd64-4s2n4ca2co", nodes: 8, nrNodeIDs: 8,
			node: 1, nodeCPUs: "8-15",
			dist: [][3]int{{0, 1, 16}, {0, 3, 22}, {2, 2, 10}, {7, 5, 16}},
			// Two cores of a compute unit appear as thread siblings.
			llcs: 8, cpu: 9, siblings: "8-9", llcCPUs: "8-15", llcLevel: 3, llcSize: 6 << 20,
			packages: 4, diesTotal: 4, memNodes: "0-7",
		},
		{
			machine: "fakecpuid1f-64intel64-2p4d2n2c2t", nodes: 16, nrNodeIDs: 16,
			node: 10, nodeCPUs: "40-43",
			dist: [][3]int{{0, 15, 20}, {10, 10, 10}},
			llcs: 8, cpu: 13, siblings: "12-13", llcCPUs: "8-15", llcLevel: 3, llcSize: 16 << 20,
			packages: 4, diesTotal: 8, memNodes: "0-15",
		},
	}
	for _, tt := range tests {
		t.Run(tt.machine, func(t *testing.T) {
			topo := tree(t, tt.machine)
			if len(topo.Nodes) != tt.nodes || topo.NrNodeIDs != tt.nrNodeIDs {
				t.Errorf("%d nodes, nr_node_ids %d; want %d, %d", len(topo.Nodes), topo.NrNodeIDs, tt.nodes, tt.nrNodeIDs)
			}
			if n := topo.NodeByID(tt.node); n == nil || n.CPUs.String() != tt.nodeCPUs {
				t.Errorf("NodeByID(%d) = %+v, want cpus %s", tt.node, n, tt.nodeCPUs)
			}
			for _, d := range tt.dist {
				if got := topo.Distance(d[0], d[1]); got != d[2] {
					t.Errorf("Distance(%d, %d) = %d, want %d", d[0], d[1], got, d[2])
				}
			}
			c := topo.CPUs[tt.cpu]
			if c.Siblings.String() != tt.siblings {
				t.Errorf("cpu %d siblings %s, want %s", tt.cpu, c.Siblings, tt.siblings)
			}
			if len(topo.LLCs) != tt.llcs {
				t.Errorf("%d LLC groups, want %d", len(topo.LLCs), tt.llcs)
			}
			if c.LLC < 0 {
				t.Fatalf("cpu %d has no LLC", tt.cpu)
			}
			g := topo.LLCs[c.LLC]
			if g.CPUs.String() != tt.llcCPUs || g.Level != tt.llcLevel || g.Size != tt.llcSize || g.LineSize != 64 {
				t.Errorf("cpu %d LLC = L%d %d B line %d cpus %s; want L%d %d B line 64 cpus %s",
					tt.cpu, g.Level, g.Size, g.LineSize, g.CPUs, tt.llcLevel, tt.llcSize, tt.llcCPUs)
			}
			pkgs, dies := map[int]bool{}, map[[2]int]bool{}
			for _, c := range topo.CPUs {
				pkgs[c.Package] = true
				dies[[2]int{c.Package, c.Die}] = true
			}
			if len(pkgs) != tt.packages || len(dies) != tt.diesTotal {
				t.Errorf("%d packages, %d dies; want %d, %d", len(pkgs), len(dies), tt.packages, tt.diesTotal)
			}
			if got := topo.MemoryNodes.String(); got != tt.memNodes {
				t.Errorf("MemoryNodes = %s, want %s", got, tt.memNodes)
			}
			checkInvariants(t, topo)
		})
	}
}

// checkInvariants asserts what every loaded topology must satisfy, whatever
// the tree: the fuzz target relies on it too.
func checkInvariants(t *testing.T, topo *Topology) {
	t.Helper()
	if len(topo.CPUs) == 0 || len(topo.Nodes) == 0 {
		t.Fatalf("%d cpus, %d nodes", len(topo.CPUs), len(topo.Nodes))
	}
	for i, c := range topo.CPUs {
		if c.ID != i {
			t.Errorf("CPUs[%d].ID = %d", i, c.ID)
		}
		if c.LLC >= len(topo.LLCs) {
			t.Errorf("cpu %d LLC %d of %d groups", i, c.LLC, len(topo.LLCs))
		}
		if c.LLC >= 0 && !topo.LLCs[c.LLC].CPUs.Test(i) {
			t.Errorf("cpu %d not in its LLC group %s", i, topo.LLCs[c.LLC].CPUs)
		}
		if c.Online != topo.OnlineCPUs.Test(i) {
			t.Errorf("cpu %d Online %v, OnlineCPUs %s", i, c.Online, topo.OnlineCPUs)
		}
	}
	for i, n := range topo.Nodes {
		if i > 0 && n.ID <= topo.Nodes[i-1].ID {
			t.Errorf("nodes not ascending: %d after %d", n.ID, topo.Nodes[i-1].ID)
		}
		if len(n.Distance) != topo.NrNodeIDs || n.ID >= topo.NrNodeIDs {
			t.Errorf("node %d: %d distances, nr_node_ids %d", n.ID, len(n.Distance), topo.NrNodeIDs)
		}
		for _, cpu := range n.CPUs.Bits() {
			if topo.NodeOf(cpu) != n.ID {
				t.Errorf("NodeOf(%d) = %d, but node %d lists it", cpu, topo.NodeOf(cpu), n.ID)
			}
		}
	}
	if !topo.AllowedCPUs.Subset(topo.OnlineCPUs) || !topo.OnlineCPUs.Subset(topo.PossibleCPUs) {
		t.Errorf("allowed %s, online %s, possible %s", topo.AllowedCPUs, topo.OnlineCPUs, topo.PossibleCPUs)
	}
}

// TestLoadNoNodes: a kernel without NUMA has no node directory; the machine
// is one node 0 holding every online CPU.
func TestLoadNoNodes(t *testing.T) {
	topo := tree(t, "nonuma-4cpu")
	if len(topo.Nodes) != 1 || topo.NrNodeIDs != 1 || topo.Nodes[0].CPUs.String() != "0-3" || topo.Distance(0, 0) != 10 {
		t.Errorf("nodes %+v, nr_node_ids %d; want one node 0 with cpus 0-3, distance 10", topo.Nodes, topo.NrNodeIDs)
	}
	if !topo.Nodes[0].HasMemory || topo.CPUNodes.String() != "0" || topo.NodeOf(3) != 0 {
		t.Errorf("node 0 = %+v, CPUNodes %s, NodeOf(3) %d", topo.Nodes[0], topo.CPUNodes, topo.NodeOf(3))
	}
	if topo.Kernel != "5.15.0-test" {
		t.Errorf("Kernel = %q, want the tree's proc/sys/kernel/osrelease", topo.Kernel)
	}
	// The L3 (level 3, 128-byte lines in this tree) wins over L1d and L2.
	if len(topo.LLCs) != 1 || topo.LLCs[0].Level != 3 || topo.CacheLine() != 128 {
		t.Errorf("LLCs %+v, CacheLine %d; want one L3 group, 128", topo.LLCs, topo.CacheLine())
	}
	if got := topo.CPUs[3].Siblings.String(); got != "2-3" {
		t.Errorf("cpu 3 siblings %s, want 2-3", got)
	}
	checkInvariants(t, topo)
}

// TestLoadSparseNodes: possible nodes 0-3 with 0, 2 and 3 online, node 3
// memory-only, cpu 3 offline without a topology directory, no caches.
func TestLoadSparseNodes(t *testing.T) {
	topo := tree(t, "sparse-nodes")
	if topo.NrNodeIDs != 4 || len(topo.Nodes) != 3 {
		t.Errorf("nr_node_ids %d, %d nodes; want 4 and 3: ids are sparse", topo.NrNodeIDs, len(topo.Nodes))
	}
	for _, d := range [][3]int{{0, 2, 21}, {0, 3, 17}, {3, 2, 28}, {2, 2, 10}, {0, 1, 0}, {1, 1, 0}} {
		if got := topo.Distance(d[0], d[1]); got != d[2] {
			t.Errorf("Distance(%d, %d) = %d, want %d", d[0], d[1], got, d[2])
		}
	}
	if n := topo.NodeByID(3); n == nil || n.HasCPU || !n.HasMemory || !n.CPUs.Empty() {
		t.Errorf("node 3 = %+v, want memory-only", n)
	}
	if topo.CPUNodes.String() != "0,2" || topo.MemoryNodes.String() != "0,2-3" {
		t.Errorf("CPUNodes %s, MemoryNodes %s", topo.CPUNodes, topo.MemoryNodes)
	}
	if topo.OfflineCPUs.String() != "3" || topo.AllowedCPUs.String() != "0-2" {
		t.Errorf("offline %s allowed %s, want 3 and 0-2", topo.OfflineCPUs, topo.AllowedCPUs)
	}
	if c := topo.CPUs[3]; c.Online || c.Package != -1 || c.Core != -1 || c.Node != -1 || c.LLC != -1 {
		t.Errorf("offline cpu 3 = %+v, want unknown topology", c)
	}
	if c := topo.CPUs[1]; !c.Online || c.Siblings.String() != "1" || c.Die != 0 || c.Governor != "performance" {
		t.Errorf("cpu 1 = %+v, want online, siblings from core_cpus_list, die 0, performance", c)
	}
	if topo.CPUs[2].Governor != "powersave" || topo.CPUs[2].Package != 1 || topo.NodeOf(2) != 2 {
		t.Errorf("cpu 2 = %+v", topo.CPUs[2])
	}
	if len(topo.LLCs) != 0 || topo.CacheLine() != 64 {
		t.Errorf("LLCs %v, CacheLine %d; want none and the assumed 64", topo.LLCs, topo.CacheLine())
	}
	checkInvariants(t, topo)
}

// oldKernel is a tree as kernels before node/possible and cpu/online lists
// wrote it: nodes found from their directories, CPUs from their online
// files (cpu0 has none), no has_cpu or has_memory.
func oldKernel() fstest.MapFS {
	return fstest.MapFS{
		"sys/devices/system/node/node0/cpulist":        {Data: []byte("0-1\n")},
		"sys/devices/system/node/node0/distance":       {Data: []byte("10 20\n")},
		"sys/devices/system/node/node1/cpulist":        {Data: []byte("2\n")},
		"sys/devices/system/node/node1/distance":       {Data: []byte("20 10\n")},
		"sys/devices/system/node/node1/cpu2":           {Data: []byte(".")},
		"sys/devices/system/cpu/cpu0/topology/core_id": {Data: []byte("0\n")},
		"sys/devices/system/cpu/cpu1/online":           {Data: []byte("0\n")},
		"sys/devices/system/cpu/cpu2/online":           {Data: []byte("1\n")},
		"sys/devices/system/cpu/cpufreq/policy0/x":     {Data: []byte("not a cpu\n")},
	}
}

func TestLoadOldKernel(t *testing.T) {
	topo, err := LoadFS(oldKernel())
	if err != nil {
		t.Fatal(err)
	}
	if topo.PossibleNodes.String() != "0-1" || topo.OnlineNodes.String() != "0-1" || topo.NrNodeIDs != 2 {
		t.Errorf("possible %s online %s nr_node_ids %d; want 0-1 from the node directories",
			topo.PossibleNodes, topo.OnlineNodes, topo.NrNodeIDs)
	}
	if topo.CPUNodes.String() != "0-1" || topo.MemoryNodes.String() != "0-1" {
		t.Errorf("CPUNodes %s MemoryNodes %s, want 0-1 (cpulists; all online)", topo.CPUNodes, topo.MemoryNodes)
	}
	if topo.PossibleCPUs.String() != "0-2" || topo.OnlineCPUs.String() != "0,2" || topo.OfflineCPUs.String() != "1" {
		t.Errorf("cpus possible %s online %s offline %s; want 0-2, 0,2, 1",
			topo.PossibleCPUs, topo.OnlineCPUs, topo.OfflineCPUs)
	}
	// An online CPU without topology files is its own core in package 0.
	if c := topo.CPUs[2]; c.Package != 0 || c.Core != 2 || c.Siblings.String() != "2" {
		t.Errorf("cpu 2 = %+v", c)
	}
	checkInvariants(t, topo)
}

// TestLoadErrors: a missing root or garbage in any file is a one-line error
// naming the file, never a panic or a half-read topology.
func TestLoadErrors(t *testing.T) {
	t.Run("missing root", func(t *testing.T) {
		_, err := Load("testdata/sysfs/nope")
		want := `affinity: reading sysfs root "testdata/sysfs/nope": no such file or directory`
		if err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load(nope) = %v, want %s", err, want)
		}
	})
	t.Run("garbage tree", func(t *testing.T) {
		_, err := Load("testdata/sysfs/garbage")
		want := `affinity: reading sysfs root "testdata/sysfs/garbage": sys/devices/system/node/node0/cpulist: nodemask: parsing "x1"`
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Load(garbage) = %v, want prefix %s", err, want)
		}
	})
	// Where a broken file's fallback finds nothing either, the machine is
	// refused after all.
	t.Run("no cpus", func(t *testing.T) {
		_, err := LoadFS(fstest.MapFS{"sys/devices/system/cpu/possible": {Data: []byte("\n")}})
		if want := "affinity: sys/devices/system/cpu/possible: no cpus"; err == nil || err.Error() != want {
			t.Errorf("LoadFS with an empty cpu/possible and no cpuN directories = %v, want %s", err, want)
		}
	})
	t.Run("nobody online", func(t *testing.T) {
		fsys := validTree()
		fsys["sys/devices/system/cpu/online"] = &fstest.MapFile{}
		fsys["sys/devices/system/cpu/cpu0/online"] = &fstest.MapFile{Data: []byte("0\n")}
		fsys["sys/devices/system/cpu/cpu1/online"] = &fstest.MapFile{Data: []byte("0\n")}
		_, err := LoadFS(fsys)
		if want := "affinity: sys/devices/system/cpu/online: no online cpus"; err == nil || err.Error() != want {
			t.Errorf("LoadFS with every cpu offline = %v, want %s", err, want)
		}
	})
	const c0, n0 = "sys/devices/system/cpu/cpu0/", "sys/devices/system/node/node0/"
	tests := []struct {
		name, file, data, want string
	}{
		{"no sys", "", "", "affinity: sys/devices/system/cpu: file does not exist"},
		{"possible garbage", "sys/devices/system/cpu/possible", "0-1,", "sys/devices/system/cpu/possible: nodemask: parsing"},
		{"possible huge", "sys/devices/system/cpu/possible", "0,999999", "cpu 999999 is beyond"},
		{"package", c0 + "topology/physical_package_id", "zero", c0 + `topology/physical_package_id: strconv.Atoi: parsing "zero"`},
		{"siblings", c0 + "topology/thread_siblings_list", "3-1", c0 + "topology/thread_siblings_list: nodemask"},
		{"cache level", c0 + "cache/index3/level", "three", c0 + "cache/index3/level"},
		{"cache size", c0 + "cache/index3/size", "8X", c0 + `cache/index3/size: cache size "8X" is not`},
		{"cache size overflow", c0 + "cache/index3/size", "9223372036854775807G", c0 + `cache/index3/size: cache size "9223372036854775807G" is not`},
		{"cache list", c0 + "cache/index3/shared_cpu_list", "a", c0 + "cache/index3/shared_cpu_list"},
		{"cpulist", n0 + "cpulist", "1,,2", n0 + "cpulist: nodemask"},
		{"cpulist beyond", n0 + "cpulist", "0-5", n0 + "cpulist: cpu 2 is not a possible cpu (0-1)"},
		{"no cpulist", n0 + "cpulist", "", n0 + "cpulist: file does not exist"},
		{"cpu on two nodes", n0 + "cpulist", "0-1", "node1/cpulist: cpu 1 is on node 0 already"},
		{"distance", n0 + "distance", "10 x", n0 + `distance: distance 1 is "x"`},
		{"distance count", n0 + "distance", "10 20 30", n0 + "distance: 3 distances for 2 online nodes"},
		{"node online", "sys/devices/system/node/online", "-1", "sys/devices/system/node/online: nodemask"},
		{"node huge", "sys/devices/system/node/possible", "0-1,5000", "node 5000 is beyond MAX_NUMNODES"},
		// Garbage where a value is expected is an error even where a
		// missing or empty file has a fallback.
		{"present garbage", "sys/devices/system/cpu/present", "0-x", "sys/devices/system/cpu/present: nodemask"},
		{"online garbage", "sys/devices/system/cpu/online", "1-0", "sys/devices/system/cpu/online: nodemask"},
		{"die", c0 + "topology/die_id", "first", c0 + `topology/die_id: strconv.Atoi: parsing "first"`},
		{"core", c0 + "topology/core_id", "0x1", c0 + `topology/core_id: strconv.Atoi: parsing "0x1"`},
		{"cache id", c0 + "cache/index3/id", "l3", c0 + `cache/index3/id: strconv.Atoi: parsing "l3"`},
		{"line size", c0 + "cache/index3/coherency_line_size", "64B", c0 + `cache/index3/coherency_line_size: strconv.Atoi: parsing "64B"`},
		{"node possible", "sys/devices/system/node/possible", "0-1-2", "sys/devices/system/node/possible: nodemask"},
		{"has_cpu", "sys/devices/system/node/has_cpu", "cpu", "sys/devices/system/node/has_cpu: nodemask"},
		{"has_memory", "sys/devices/system/node/has_memory", "all", "sys/devices/system/node/has_memory: nodemask"},
		{"has_normal_memory", "sys/devices/system/node/has_normal_memory", ",", "sys/devices/system/node/has_normal_memory: nodemask"},
		{"midr", c0 + "regs/identification/midr_el1", "0xzz", c0 + `regs/identification/midr_el1: "0xzz" is not a MIDR_EL1 value`},
		{"midr zero", c0 + "regs/identification/midr_el1", "0x0", c0 + `regs/identification/midr_el1: "0x0" is not a MIDR_EL1 value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := validTree()
			switch {
			case tt.file == "":
				fsys = fstest.MapFS{}
			case tt.data == "" && strings.HasSuffix(tt.file, "cpulist"):
				delete(fsys, tt.file)
			default:
				fsys[tt.file] = &fstest.MapFile{Data: []byte(tt.data)}
			}
			topo, err := LoadFS(fsys)
			if err == nil {
				t.Fatalf("LoadFS with %s = %q: no error, topology %v", tt.file, tt.data, topo)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "affinity: ") {
				t.Errorf("LoadFS with %s = %q:\n got %s\nwant one line containing %s", tt.file, tt.data, msg, tt.want)
			}
		})
	}
}

// validTree is a small well-formed two-node tree the error cases break one
// file at a time.
func validTree() fstest.MapFS {
	m := fstest.MapFS{}
	put := func(name, data string) { m[name] = &fstest.MapFile{Data: []byte(data + "\n")} }
	put("sys/devices/system/node/possible", "0-1")
	put("sys/devices/system/node/online", "0-1")
	put("sys/devices/system/node/node0/cpulist", "0")
	put("sys/devices/system/node/node0/distance", "10 20")
	put("sys/devices/system/node/node1/cpulist", "1")
	put("sys/devices/system/node/node1/distance", "20 10")
	put("sys/devices/system/cpu/possible", "0-1")
	put("sys/devices/system/cpu/online", "0-1")
	for _, cpu := range []string{"0", "1"} {
		c := "sys/devices/system/cpu/cpu" + cpu + "/"
		put(c+"topology/physical_package_id", "0")
		put(c+"topology/core_id", cpu)
		put(c+"topology/thread_siblings_list", cpu)
		put(c+"cache/index3/level", "3")
		put(c+"cache/index3/type", "Unified")
		put(c+"cache/index3/size", "8192K")
		put(c+"cache/index3/shared_cpu_list", "0-1")
	}
	return m
}

func TestValidTree(t *testing.T) {
	topo, err := LoadFS(validTree())
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, topo)
	if len(topo.LLCs) != 1 || topo.LLCs[0].Size != 8<<20 {
		t.Errorf("LLCs = %+v, want one 8 MiB group", topo.LLCs)
	}
}

// TestCheckCPU names each way a requested CPU can be unusable.
func TestCheckCPU(t *testing.T) {
	topo := tree(t, "sparse-nodes")
	topo.AllowedCPUs = nodemask.BitmapOf(0, 2) // as if started under taskset -c 0,2
	tests := []struct {
		cpu  int
		want string
	}{
		{0, ""},
		{2, ""},
		{7, "cpu 7 does not exist (machine has cpus 0-3)"},
		{-1, "cpu -1 does not exist (machine has cpus 0-3)"},
		{3, "cpu 3 is offline"},
		{1, "cpu 1 is not in this process's allowed cpus 0,2 (taskset/cgroup cpuset)"},
	}
	for _, tt := range tests {
		err := topo.CheckCPU(tt.cpu)
		if got := errString(err); got != tt.want {
			t.Errorf("CheckCPU(%d) = %q, want %q", tt.cpu, got, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestHost reads this machine. Its shape is unknown, so the test checks what
// must hold anywhere: the allowed CPUs are the ones the Go runtime counted
// at start, each passes CheckCPU, and the topology is labelled real.
func TestHost(t *testing.T) {
	if _, err := os.Stat("/sys/devices/system/cpu"); err != nil {
		t.Skipf("no sysfs here: %v", err)
	}
	topo, err := Host()
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, topo)
	if topo.Label() != "real" || topo.IsFake() || topo.Root != "/" {
		t.Errorf("Label %q IsFake %v Root %q", topo.Label(), topo.IsFake(), topo.Root)
	}
	if got := topo.AllowedCPUs.Weight(); got != runtime.NumCPU() {
		t.Errorf("%d allowed cpus (%s), runtime.NumCPU() = %d", got, topo.AllowedCPUs, runtime.NumCPU())
	}
	for _, cpu := range topo.AllowedCPUs.Bits() {
		if err := topo.CheckCPU(cpu); err != nil {
			t.Error(err)
		}
	}
	if topo.Kernel == "" {
		t.Error("Kernel is empty; uname should have filled it")
	}
	if runtime.GOARCH == "amd64" && topo.Machine.Vendor == "" {
		t.Error("Machine.Vendor is empty on amd64")
	}
	t.Logf("\n%s", topo)
}

// TestString compares `contend topo` output with testdata/<name>.golden;
// go test -run TestString -update rewrites them.
func TestString(t *testing.T) {
	fake := func(topo *Topology) *Topology {
		f, err := topo.Fake(3)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		golden, tree string
		edit         func(*Topology) *Topology
	}{
		{"64amd64-4s2n4ca2co", "64amd64-4s2n4ca2co", nil},
		{"64amd64-4s2n4ca2co-fake3", "64amd64-4s2n4ca2co", fake},
		{"amd-notopoext-2s8cpu", "amd-notopoext-2s8cpu", nil},
		{"arm64-virt-max-2n4cpu", "arm64-virt-max-2n4cpu", nil},
		{"arm64-neoverse-n1-8cpu", "arm64-neoverse-n1-8cpu", nil},
		{"sparse-nodes", "sparse-nodes", func(topo *Topology) *Topology {
			topo.AllowedCPUs = nodemask.BitmapOf(0, 2)
			topo.Machine = Machine{Vendor: "GenuineIntel", Brand: "Test CPU", Family: 6, Model: 85, Stepping: 4, CacheLine: 64,
				L1D: 32 << 10, L2: 1 << 20, L3: 38 << 20, Hypervisor: true, HypervisorVendor: "KVMKVMKVM"}
			return topo
		}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			topo := tree(t, tt.tree)
			topo.Root = "testdata/sysfs/" + tt.tree // the same whatever the OS path separator
			if tt.edit != nil {
				topo = tt.edit(topo)
			}
			golden(t, filepath.Join("testdata", tt.golden+".golden"), topo.String())
		})
	}
}

// golden compares got with the file name; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("String() differs from %s (run with -update if the change is intended):\n%s", name, got)
	}
}

// TestJSON: sets are list strings, the label is present, and a fake
// topology carries the real one.
func TestJSON(t *testing.T) {
	topo := tree(t, "sparse-nodes")
	f, err := topo.Fake(2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Topology    string `json:"topology"`
		FakeNodes   int    `json:"fake_nodes"`
		NrNodeIDs   int    `json:"nr_node_ids"`
		OfflineCPUs string `json:"offline_cpus"`
		AllowedCPUs string `json:"allowed_cpus"`
		MemoryNodes string `json:"memory_nodes"`
		Nodes       []struct {
			ID       int    `json:"id"`
			CPUs     string `json:"cpus"`
			Distance []int  `json:"distance"`
		} `json:"nodes"`
		CPUs []struct {
			Siblings string `json:"siblings"`
			Governor string `json:"governor"`
		} `json:"cpus"`
		Real *struct {
			Topology    string `json:"topology"`
			NrNodeIDs   int    `json:"nr_node_ids"`
			MemoryNodes string `json:"memory_nodes"`
		} `json:"real"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	if got.Topology != "fake-2" || got.FakeNodes != 2 || got.NrNodeIDs != 2 || got.OfflineCPUs != "3" || got.AllowedCPUs != "0-2" {
		t.Errorf("JSON header = %+v", got)
	}
	if len(got.Nodes) != 2 || got.Nodes[0].CPUs != "0-1" || got.Nodes[1].CPUs != "2" || got.Nodes[1].Distance[0] != 20 {
		t.Errorf("JSON nodes = %+v", got.Nodes)
	}
	if len(got.CPUs) != 4 || got.CPUs[1].Siblings != "1" || got.CPUs[2].Governor != "powersave" {
		t.Errorf("JSON cpus = %+v", got.CPUs)
	}
	if got.Real == nil || got.Real.Topology != "real" || got.Real.NrNodeIDs != 4 || got.Real.MemoryNodes != "0,2-3" {
		t.Errorf("JSON real = %+v", got.Real)
	}
	if !strings.HasPrefix(string(b), `{"topology":"fake-2"`) {
		t.Errorf("JSON does not start with the label: %.40s", b)
	}
}

// FuzzLoadFS feeds arbitrary contents to the files a two-node tree is made
// of, and with breaks chosen by the bits of drop, takes the fallback paths:
// a missing cpu/online (each cpuN/online read instead, cpu1's holding
// cpu1Online), node1's cpulist missing (its cpumap, holding cpumap, read
// instead) or unreadable, thread_siblings_list replaced by the hex
// thread_siblings (holding siblingsHex), shared_cpu_list by shared_cpu_map
// (siblingsHex too), an unreadable distance, cpu/possible or cache level.
// Load must return an error or a topology that satisfies the invariants,
// with one-line notes; it must never panic.
func FuzzLoadFS(f *testing.F) {
	f.Add("0-1", "0-1", "0", "10 20", "0", "0-1", "8192K", "3", "", "", "", uint8(0))
	f.Add("0-3", "0,2", "0-1", "10", "7", "0,3", "32M", "2", "", "", "", uint8(0))
	f.Add("0-1", "0-1", "0", "10 20", "0", "0-1", "8192K", "3", "00000002", "", "00000003", uint8(0x07))
	f.Fuzz(func(t *testing.T, possible, nodeOnline, cpulist, distance, core, shared, size, level, cpumap, cpu1Online, siblingsHex string, drop uint8) {
		fsys := validTree()
		put := func(name, data string) { fsys[name] = &fstest.MapFile{Data: []byte(data)} }
		const cpu, node = "sys/devices/system/cpu/", "sys/devices/system/node/"
		put(cpu+"possible", possible)
		put(node+"online", nodeOnline)
		put(node+"node0/cpulist", cpulist)
		put(node+"node0/distance", distance)
		put(cpu+"cpu0/topology/core_id", core)
		put(cpu+"cpu1/cache/index3/shared_cpu_list", shared)
		put(cpu+"cpu1/cache/index3/size", size)
		put(cpu+"cpu0/cache/index3/level", level)
		put(node+"node1/cpumap", cpumap)
		put(cpu+"cpu1/online", cpu1Online)
		for bit, edit := range []func(){
			func() { delete(fsys, cpu+"online") },
			func() { delete(fsys, node+"node1/cpulist") },
			func() {
				delete(fsys, cpu+"cpu0/topology/thread_siblings_list")
				put(cpu+"cpu0/topology/thread_siblings", siblingsHex)
			},
			func() { fsys[node+"node1/cpulist"] = unreadable },
			func() {
				delete(fsys, cpu+"cpu0/cache/index3/shared_cpu_list")
				put(cpu+"cpu0/cache/index3/shared_cpu_map", siblingsHex)
			},
			func() { fsys[node+"node1/distance"] = unreadable },
			func() { fsys[cpu+"possible"] = unreadable },
			func() { fsys[cpu+"cpu1/cache/index3/level"] = unreadable },
		} {
			if drop&(1<<bit) != 0 {
				edit()
			}
		}
		fuzzLoad(t, fsys)
	})
}

// fuzzLoad loads a fuzzed tree. An error must be one line with the package
// prefix (and fuzzLoad returns nil); a topology must hold the invariants,
// note in single lines, and print and marshal.
func fuzzLoad(t *testing.T, fsys fs.FS) *Topology {
	t.Helper()
	topo, err := LoadFS(fsys)
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "affinity: ") {
			t.Errorf("error not one line with the package prefix: %q", msg)
		}
		return nil
	}
	checkInvariants(t, topo)
	for _, n := range topo.Notes {
		if n == "" || strings.Contains(n, "\n") || strings.Contains(n, "\x00") {
			t.Errorf("note %q is not one line", n)
		}
	}
	_ = topo.String()
	if _, err := json.Marshal(topo); err != nil {
		t.Error(err)
	}
	return topo
}
