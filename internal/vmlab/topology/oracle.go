package topology

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/nodemask"
)

// Want is what a guest's kernel must show for its topology, derived from
// the declaration alone: the oracle contend topo is checked against.
type Want struct {
	PossibleNodes string
	CPUNodes      string // nodes with cpus online
	MemoryNodes   string
	NrNodeIDs     int
	NodeCPUs      map[int]string // online cpus of each node
	Distance      [][]int        // by node id
	PossibleCPUs  string
	PresentCPUs   string
	OnlineCPUs    string
	OfflineCPUs   string
	Packages      []string // online cpus of each socket, as lists
	Cores         []string // online cpus of each core: the SMT sibling sets
	LLCs          []string // online cpus of each L3: one per socket
}

// Want computes the oracle. Linux lists only online cpus in a node's
// cpulist and in sibling and cache lists, so every set is cut to the cpus
// online after /init's offlining.
func (t Topology) Want() Want {
	online := nodemask.NewBitmap(t.CPUs())
	for c := range t.UpCPUs() {
		online.Set(c)
	}
	for _, c := range t.Offline {
		online.Clear(c)
	}
	list := func(cpus []int) string {
		b := nodemask.NewBitmap(t.CPUs())
		for _, c := range cpus {
			if online.Test(c) {
				b.Set(c)
			}
		}
		return b.String()
	}
	w := Want{
		NrNodeIDs:    max(len(t.Nodes), 1),
		NodeCPUs:     map[int]string{},
		PossibleCPUs: list0(seq(0, t.CPUs())),
		PresentCPUs:  list0(seq(0, t.BootCPUs())),
		OnlineCPUs:   online.String(),
	}
	off := nodemask.NewBitmap(t.CPUs())
	off.SetRange(0, t.CPUs())
	w.OfflineCPUs = off.AndNot(online).String()
	var cpuNodes, memNodes []int
	for i, n := range t.Nodes {
		w.NodeCPUs[i] = list(n.CPUs)
		if w.NodeCPUs[i] != "" {
			cpuNodes = append(cpuNodes, i)
		}
		memNodes = append(memNodes, i)
		row := make([]int, len(t.Nodes))
		for j := range t.Nodes {
			row[j] = t.Dist(i, j)
		}
		w.Distance = append(w.Distance, row)
	}
	if len(t.Nodes) == 0 {
		w.NodeCPUs[0] = online.String()
		cpuNodes, memNodes = []int{0}, []int{0}
		w.Distance = [][]int{{10}}
	}
	w.PossibleNodes = list0(seq(0, w.NrNodeIDs))
	w.CPUNodes, w.MemoryNodes = list0(cpuNodes), list0(memNodes)
	perSocket := t.Cores * t.Threads
	for s := range t.Sockets {
		if l := list(seq(s*perSocket, (s+1)*perSocket)); l != "" {
			w.Packages = append(w.Packages, l)
		}
	}
	w.LLCs = w.Packages
	if t.Architecture().NoLLC {
		w.LLCs = nil
	}
	for c := 0; c < t.CPUs(); c += t.Threads {
		if t.SMT {
			if l := list(seq(c, c+t.Threads)); l != "" {
				w.Cores = append(w.Cores, l)
			}
			continue
		}
		for th := c; th < c+t.Threads; th++ {
			if l := list([]int{th}); l != "" {
				w.Cores = append(w.Cores, l)
			}
		}
	}
	return w
}

// list0 writes small non-negative ids as a list.
func list0(ids []int) string {
	b := nodemask.NewBitmap(64)
	for _, i := range ids {
		b.Set(i)
	}
	return b.String()
}

// guestTopo is the part of contend topo -json the oracle checks, read as
// any consumer of the JSON would.
type guestTopo struct {
	Topology      string `json:"topology"`
	PossibleNodes string `json:"possible_nodes"`
	CPUNodes      string `json:"cpu_nodes"`
	MemoryNodes   string `json:"memory_nodes"`
	NrNodeIDs     int    `json:"nr_node_ids"`
	Nodes         []struct {
		ID       int    `json:"id"`
		CPUs     string `json:"cpus"`
		Distance []int  `json:"distance"`
	} `json:"nodes"`
	PossibleCPUs string `json:"possible_cpus"`
	PresentCPUs  string `json:"present_cpus"`
	OnlineCPUs   string `json:"online_cpus"`
	OfflineCPUs  string `json:"offline_cpus"`
	AllowedCPUs  string `json:"allowed_cpus"`
	CPUs         []struct {
		ID       int    `json:"id"`
		Online   bool   `json:"online"`
		Node     int    `json:"node"`
		Package  int    `json:"package"`
		Core     int    `json:"core"`
		Siblings string `json:"siblings"`
		LLC      int    `json:"llc"`
	} `json:"cpus"`
	LLCs []struct {
		Index int    `json:"index"`
		CPUs  string `json:"cpus"`
	} `json:"llcs"`
	Machine struct {
		Hypervisor       bool   `json:"hypervisor"`
		HypervisorVendor string `json:"hypervisor_vendor"`
	} `json:"machine"`
}

// CheckTopo compares contend topo -json's output with the oracle and
// returns one line per disagreement, each naming the field.
func CheckTopo(t Topology, js []byte) ([]string, error) {
	return checkTopo(t, js, true)
}

// CheckTree reads a sysfs tree a guest sent back (a root holding
// sys/devices/system) with affinity.Load and compares it with the oracle,
// as CheckTopo does a live guest's: a fixture made from the tree then
// stands for the guest. A tree has no CPUID, so the hypervisor is not
// checked.
func CheckTree(t Topology, root string) ([]string, error) {
	topo, err := affinity.Load(root)
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(topo)
	if err != nil {
		return nil, err
	}
	return checkTopo(t, js, false)
}

func checkTopo(t Topology, js []byte, live bool) ([]string, error) {
	var g guestTopo
	if err := json.Unmarshal(js, &g); err != nil {
		return nil, fmt.Errorf("reading contend topo -json: %w", err)
	}
	w := t.Want()
	var bad []string
	eq := func(field string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			bad = append(bad, fmt.Sprintf("%s = %v, want %v", field, got, want))
		}
	}
	eq("topology", g.Topology, "real")
	eq("nr_node_ids", g.NrNodeIDs, w.NrNodeIDs)
	eq("possible_nodes", g.PossibleNodes, w.PossibleNodes)
	eq("cpu_nodes", g.CPUNodes, w.CPUNodes)
	eq("memory_nodes", g.MemoryNodes, w.MemoryNodes)
	eq("possible_cpus", g.PossibleCPUs, w.PossibleCPUs)
	eq("present_cpus", g.PresentCPUs, w.PresentCPUs)
	eq("online_cpus", g.OnlineCPUs, w.OnlineCPUs)
	eq("offline_cpus", g.OfflineCPUs, w.OfflineCPUs)
	eq("allowed_cpus", g.AllowedCPUs, w.OnlineCPUs)
	eq("len(nodes)", len(g.Nodes), len(w.Distance))
	for _, n := range g.Nodes {
		if n.ID < 0 || n.ID >= len(w.Distance) {
			bad = append(bad, fmt.Sprintf("node %d: not declared", n.ID))
			continue
		}
		eq(fmt.Sprintf("node %d cpus", n.ID), n.CPUs, w.NodeCPUs[n.ID])
		eq(fmt.Sprintf("node %d distance", n.ID), n.Distance, w.Distance[n.ID])
	}
	var pkgs, cores, llcs = map[int][]int{}, map[string]bool{}, map[int][]int{}
	nodeOf := map[int]int{}
	for i, n := range t.Nodes {
		for _, c := range n.CPUs {
			nodeOf[c] = i
		}
	}
	for _, c := range g.CPUs {
		if !c.Online {
			continue
		}
		pkgs[c.Package] = append(pkgs[c.Package], c.ID)
		cores[c.Siblings] = true
		if c.LLC >= 0 { // -1: in no LLC group
			llcs[c.LLC] = append(llcs[c.LLC], c.ID)
		}
		eq(fmt.Sprintf("cpu %d node", c.ID), c.Node, nodeOf[c.ID])
	}
	eq("packages (cpus of each)", groups(pkgs), w.Packages)
	eq("SMT sibling sets", sortedKeys(cores), sortedLists(w.Cores))
	eq("LLC groups (cpus of each cpu's llc)", groups(llcs), w.LLCs)
	var gl []string
	for _, l := range g.LLCs {
		gl = append(gl, l.CPUs)
	}
	eq("llcs", gl, w.LLCs)
	if live && !g.Machine.Hypervisor {
		bad = append(bad, "machine.hypervisor = false, want true (a QEMU guest)")
	}
	return bad, nil
}

// groups writes each group's cpus as a list, ordered by lowest cpu.
func groups(m map[int][]int) []string {
	var gs [][]int
	for _, g := range m {
		slices.Sort(g)
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b []int) int { return a[0] - b[0] })
	var out []string
	for _, g := range gs {
		b := nodemask.NewBitmap(g[len(g)-1] + 1)
		for _, c := range g {
			b.Set(c)
		}
		out = append(out, b.String())
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return sortedLists(out)
}

// sortedLists orders cpu lists by their first cpu.
func sortedLists(ls []string) []string {
	out := slices.Clone(ls)
	slices.SortFunc(out, func(a, b string) int {
		ba, _ := nodemask.ParseList(a)
		bb, _ := nodemask.ParseList(b)
		if d := ba.First() - bb.First(); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}
