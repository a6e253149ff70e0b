package affinity

import (
	"fmt"
	"io/fs"

	"github.com/contend/contend/nodemask"
)

// nodes fills the node lists and Nodes, and sets each CPU's Node.
func (r sysfs) nodes(t *Topology) error {
	possible, online, err := r.nodeLists()
	if err != nil {
		return err
	}
	if online.Empty() {
		// No NUMA in this kernel (or no node directories at all): the
		// kernel still runs one node 0 holding every CPU.
		t.oneNode()
		return nil
	}
	possible = possible.Or(online) // the kernel guarantees it; garbage may not
	if n := last(possible); n >= nodemask.MaxNumNodes {
		return fmt.Errorf("%s/possible: node %d is beyond MAX_NUMNODES (%d)", nodeDir, n, nodemask.MaxNumNodes)
	}
	t.PossibleNodes, t.OnlineNodes = possible, online
	t.NrNodeIDs = last(possible) + 1
	onlineIDs, possibleIDs := online.Bits(), possible.Bits()
	var withCPUs nodemask.Bitmap
	for _, id := range onlineIDs {
		n, err := r.node(t, id, onlineIDs, possibleIDs)
		if err != nil {
			return err
		}
		if !n.CPUs.Empty() {
			withCPUs.Set(id)
		}
		t.Nodes = append(t.Nodes, n)
	}
	t.fillDistances()
	return r.nodeStates(t, withCPUs)
}

// nodeLists reads node/possible and node/online, falling back on the nodeN
// directories for a missing or broken list.
func (r sysfs) nodeLists() (possible, online nodemask.Bitmap, err error) {
	possible, havePossible, err := r.optList(nodeDir+"/possible", "nodes found from the nodeN directories")
	if err != nil {
		return possible, online, err
	}
	online, haveOnline, err := r.optList(nodeDir+"/online", "nodes found from the nodeN directories")
	if err != nil {
		return possible, online, err
	}
	if havePossible && haveOnline && !online.Empty() {
		return possible, online, nil
	}
	// The nodeN directories stand in for a missing or broken list, and
	// only then are they read.
	dirs, err := r.dirIDs(nodeDir, "node")
	if err != nil {
		return possible, online, err
	}
	if !havePossible {
		possible = dirs
	}
	if haveOnline && online.Empty() && !dirs.Empty() {
		// Node 0 is always online where there are node directories.
		r.notes.add(nodeDir+"/online", "empty; nodes found from the nodeN directories")
		haveOnline = false
	}
	if !haveOnline {
		online = dirs
	}
	return possible, online, nil
}

// node reads one online node's cpu list and distance row, and sets its
// CPUs' Node.
func (r sysfs) node(t *Topology, id int, onlineIDs, possibleIDs []int) (Node, error) {
	dir := fmt.Sprintf("%s/node%d", nodeDir, id)
	n := Node{ID: id, Distance: make([]int, t.NrNodeIDs)}
	var ok bool
	var err error
	n.CPUs, ok, err = r.optSet(dir+"/cpulist", "cpumap", "")
	if err != nil {
		return n, err
	}
	if !ok {
		return n, fmt.Errorf("%s/cpulist: %w (and no readable cpumap)", dir, fs.ErrNotExist)
	}
	for _, cpu := range n.CPUs.Bits() {
		if !t.PossibleCPUs.Test(cpu) {
			return n, fmt.Errorf("%s/cpulist: cpu %d is not a possible cpu (%s)", dir, cpu, t.PossibleCPUs)
		}
		if other := t.CPUs[cpu].Node; other >= 0 {
			return n, fmt.Errorf("%s/cpulist: cpu %d is on node %d already", dir, cpu, other)
		}
		t.CPUs[cpu].Node = id
	}
	return n, r.distance(&n, dir+"/distance", onlineIDs, possibleIDs)
}

// nodeStates reads which online nodes have cpus (node/has_cpu, else the
// nodes' own cpu lists, withCPUs) and memory (node/has_memory, else
// has_normal_memory, else all of them).
func (r sysfs) nodeStates(t *Topology, withCPUs nodemask.Bitmap) error {
	cpuNodes, ok, err := r.optList(nodeDir+"/has_cpu", "taken from the nodes' cpu lists")
	if err != nil {
		return err
	}
	if !ok {
		cpuNodes = withCPUs
	}
	mem, ok, err := r.optList(nodeDir+"/has_memory", "reading has_normal_memory instead")
	if err == nil && !ok {
		// has_memory appeared in 2.6.37; before it, has_normal_memory
		// is the nearest thing, and before that every node had memory.
		mem, ok, err = r.optList(nodeDir+"/has_normal_memory", "every online node taken to have memory")
	}
	if err != nil {
		return err
	}
	if !ok {
		mem = t.OnlineNodes.Clone()
	}
	t.CPUNodes, t.MemoryNodes = cpuNodes.And(t.OnlineNodes), mem.And(t.OnlineNodes)
	for i := range t.Nodes {
		n := &t.Nodes[i]
		n.HasCPU, n.HasMemory = t.CPUNodes.Test(n.ID), t.MemoryNodes.Test(n.ID)
	}
	return nil
}

// oneNode makes the single node 0 of a machine without NUMA directories.
func (t *Topology) oneNode() {
	zero := nodemask.BitmapOf(0)
	t.PossibleNodes, t.OnlineNodes = zero, zero.Clone()
	t.CPUNodes, t.MemoryNodes = zero.Clone(), zero.Clone()
	t.NrNodeIDs = 1
	t.Nodes = []Node{{ID: 0, CPUs: t.OnlineCPUs.Clone(), HasCPU: true, HasMemory: true, Distance: []int{10}}}
	for i := range t.CPUs {
		if t.PossibleCPUs.Test(i) {
			t.CPUs[i].Node = 0
		}
	}
}
