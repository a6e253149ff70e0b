package affinity

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/contend/contend/nodemask"
	"golang.org/x/sys/unix"
)

// This file holds what is specific to Linux: the layout of its sysfs
// topology files and the running process's view of the machine.

// maxCPUs bounds the CPU ids Load accepts: Linux's CONFIG_NR_CPUS tops out at
// 8192, so a larger id is garbage, and refusing it keeps a hostile tree from
// making Load allocate per-CPU records by the million.
const maxCPUs = 1 << 16

// Host reads the running machine: Load("/"), then AllowedCPUs from the
// affinity mask the process started with (not the calling thread's current
// one, which a pinned worker has narrowed), Kernel from uname, and Machine
// from CPUID.
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
	t.Machine = hostMachine()
	return t, nil
}

func load(fsys fs.FS) (*Topology, error) {
	r := sysfs{fsys}
	t := &Topology{}
	if err := r.cpus(t); err != nil {
		return nil, err
	}
	if err := r.nodes(t); err != nil {
		return nil, err
	}
	t.AllowedCPUs = t.OnlineCPUs.Clone()
	kernel, _, err := r.optString("proc/sys/kernel/osrelease")
	if err != nil {
		return nil, err
	}
	t.Kernel = kernel
	return t, nil
}

// sysfs reads the files of one tree. Every error it returns names the file,
// relative to the root, and nothing else: the caller adds the root.
type sysfs struct{ fsys fs.FS }

// unwrapPath drops a PathError's own copy of the path (and its "open"), so
// the message names the file once, but keeps the cause for errors.Is.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// optString returns the trimmed contents of name, and ok=false without error
// when it does not exist. Some kernels pad list files with NUL bytes.
func (r sysfs) optString(name string) (s string, ok bool, err error) {
	b, err := fs.ReadFile(r.fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	return strings.Trim(string(b), " \t\n\x00"), true, nil
}

func (r sysfs) optList(name string) (b nodemask.Bitmap, ok bool, err error) {
	s, ok, err := r.optString(name)
	if !ok || err != nil {
		return b, ok, err
	}
	b, err = nodemask.ParseList(s)
	if err != nil {
		return b, false, fmt.Errorf("%s: %w", name, err)
	}
	return b, true, nil
}

func (r sysfs) list(name string) (nodemask.Bitmap, error) {
	b, ok, err := r.optList(name)
	if err == nil && !ok {
		err = fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	return b, err
}

// optInt returns the integer in name, or def when the file does not exist.
func (r sysfs) optInt(name string, def int) (int, error) {
	s, ok, err := r.optString(name)
	if !ok || err != nil {
		return def, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return def, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// dirIDs lists the ids of the entries dir/<prefix><id>, the fallback for
// kernels without possible/online lists. A missing dir is no entries.
func (r sysfs) dirIDs(dir, prefix string) (nodemask.Bitmap, error) {
	var ids nodemask.Bitmap
	ents, err := fs.ReadDir(r.fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return ids, nil
	}
	if err != nil {
		return ids, fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	for _, e := range ents {
		num, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if id, err := strconv.Atoi(num); err == nil && id >= 0 && id < maxCPUs && e.IsDir() {
			ids.Set(id)
		}
	}
	return ids, nil
}

// cpus fills the CPU lists and the per-CPU facts except Node.
func (r sysfs) cpus(t *Topology) error {
	possible, ok, err := r.optList(cpuDir + "/possible")
	if err != nil {
		return err
	}
	if !ok {
		if _, err := fs.Stat(r.fsys, cpuDir); err != nil {
			return fmt.Errorf("%s: %w", cpuDir, unwrapPath(err))
		}
		if possible, err = r.dirIDs(cpuDir, "cpu"); err != nil {
			return err
		}
	}
	if possible.Empty() {
		return fmt.Errorf("%s/possible: no cpus", cpuDir)
	}
	if n := last(possible); n >= maxCPUs {
		return fmt.Errorf("%s/possible: cpu %d is beyond the %d cpus Linux supports", cpuDir, n, maxCPUs)
	}
	present, ok, err := r.optList(cpuDir + "/present")
	if err != nil {
		return err
	}
	if !ok {
		present = possible.Clone()
	}
	online, haveOnline, err := r.optList(cpuDir + "/online")
	if err != nil {
		return err
	}
	t.PossibleCPUs, t.PresentCPUs = possible, present
	t.CPUs = make([]CPU, last(possible)+1)
	llcs := map[llcKey]int{}
	for i := range t.CPUs {
		c := &t.CPUs[i]
		*c = CPU{ID: i, Node: -1, Package: -1, Die: -1, Core: -1, LLC: -1}
		if !possible.Test(i) {
			continue
		}
		dir := fmt.Sprintf("%s/cpu%d", cpuDir, i)
		if !haveOnline {
			// Without cpu/online, a present CPU is online unless its own
			// online file says 0; cpu0 often has no such file at all.
			on, err := r.optInt(dir+"/online", 1)
			if err != nil {
				return err
			}
			if on == 1 && present.Test(i) {
				online.Set(i)
			}
		}
		c.Online = online.Test(i)
		if err := r.cpu(c, dir, llcs, &t.LLCs); err != nil {
			return err
		}
	}
	t.OnlineCPUs = online.And(possible)
	t.OfflineCPUs = possible.AndNot(t.OnlineCPUs)
	if t.OnlineCPUs.Empty() {
		return fmt.Errorf("%s/online: no online cpus", cpuDir)
	}
	return nil
}

// cpu reads one CPU's topology, cache and cpufreq directories.
func (r sysfs) cpu(c *CPU, dir string, llcs map[llcKey]int, groups *[]CacheGroup) error {
	top := dir + "/topology"
	if _, err := fs.Stat(r.fsys, top); err == nil || c.Online {
		// An online CPU without topology files (some VMs, old kernels)
		// is taken as its own core in package 0.
		var err error
		if c.Package, err = r.optInt(top+"/physical_package_id", 0); err != nil {
			return err
		}
		if c.Die, err = r.optInt(top+"/die_id", 0); err != nil {
			return err
		}
		if c.Core, err = r.optInt(top+"/core_id", c.ID); err != nil {
			return err
		}
		sib, ok, err := r.optList(top + "/thread_siblings_list")
		if err == nil && !ok {
			sib, _, err = r.optList(top + "/core_cpus_list")
		}
		if err != nil {
			return err
		}
		sib.Set(c.ID)
		c.Siblings = sib
	}
	gov, _, err := r.optString(dir + "/cpufreq/scaling_governor")
	if err != nil {
		return err
	}
	c.Governor = gov
	return r.llc(c, dir+"/cache", llcs, groups)
}

// llcKey identifies one last-level cache. The shared CPU list alone would
// merge two caches if a kernel listed only online CPUs in both, so the
// cache id, where the kernel provides it, is part of the key.
type llcKey struct {
	level, id int
	cpus      string
}

// llc finds the CPU's last-level cache, the highest-level data or unified
// cache, and assigns it to a group.
func (r sysfs) llc(c *CPU, dir string, llcs map[llcKey]int, groups *[]CacheGroup) error {
	ents, err := fs.ReadDir(r.fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", dir, unwrapPath(err))
	}
	best, bestLevel, bestUnified := "", 0, false
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		idx := path.Join(dir, e.Name())
		typ, _, err := r.optString(idx + "/type")
		if err != nil {
			return err
		}
		if typ != "Unified" && typ != "Data" {
			continue
		}
		level, err := r.optInt(idx+"/level", 0)
		if err != nil {
			return err
		}
		unified := typ == "Unified"
		if level > bestLevel || level == bestLevel && unified && !bestUnified {
			best, bestLevel, bestUnified = idx, level, unified
		}
	}
	if best == "" {
		return nil
	}
	g := CacheGroup{Level: bestLevel}
	shared, _, err := r.optList(best + "/shared_cpu_list")
	if err != nil {
		return err
	}
	shared.Set(c.ID)
	g.CPUs = shared
	id, err := r.optInt(best+"/id", -1)
	if err != nil {
		return err
	}
	if g.LineSize, err = r.optInt(best+"/coherency_line_size", 0); err != nil {
		return err
	}
	size, _, err := r.optString(best + "/size")
	if err != nil {
		return err
	}
	if g.Size, err = parseSize(size); err != nil {
		return fmt.Errorf("%s/size: %w", best, err)
	}
	key := llcKey{bestLevel, id, shared.String()}
	i, ok := llcs[key]
	if !ok {
		i = len(*groups)
		g.Index = i
		llcs[key] = i
		*groups = append(*groups, g)
	}
	c.LLC = i
	return nil
}

// parseSize reads a sysfs cache size such as "32K"; "" is 0 (unknown).
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'K':
		mult = 1 << 10
	case 'M':
		mult = 1 << 20
	case 'G':
		mult = 1 << 30
	}
	num := s
	if mult != 1 {
		num = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("cache size %q is not a number of bytes with an optional K, M or G", s)
	}
	return n * mult, nil
}

// nodes fills the node lists and Nodes, and sets each CPU's Node.
func (r sysfs) nodes(t *Topology) error {
	dirs, err := r.dirIDs(nodeDir, "node")
	if err != nil {
		return err
	}
	possible, ok, err := r.optList(nodeDir + "/possible")
	if err != nil {
		return err
	}
	if !ok {
		possible = dirs
	}
	online, ok, err := r.optList(nodeDir + "/online")
	if err != nil {
		return err
	}
	if !ok {
		online = dirs
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
		dir := fmt.Sprintf("%s/node%d", nodeDir, id)
		n := Node{ID: id, Distance: make([]int, t.NrNodeIDs)}
		if n.CPUs, err = r.list(dir + "/cpulist"); err != nil {
			return err
		}
		for _, cpu := range n.CPUs.Bits() {
			if !t.PossibleCPUs.Test(cpu) {
				return fmt.Errorf("%s/cpulist: cpu %d is not a possible cpu (%s)", dir, cpu, t.PossibleCPUs)
			}
			if other := t.CPUs[cpu].Node; other >= 0 {
				return fmt.Errorf("%s/cpulist: cpu %d is on node %d already", dir, cpu, other)
			}
			t.CPUs[cpu].Node = id
		}
		if !n.CPUs.Empty() {
			withCPUs.Set(id)
		}
		if err := r.distance(&n, dir+"/distance", onlineIDs, possibleIDs); err != nil {
			return err
		}
		t.Nodes = append(t.Nodes, n)
	}
	if t.CPUNodes, ok, err = r.optList(nodeDir + "/has_cpu"); err != nil {
		return err
	} else if !ok {
		t.CPUNodes = withCPUs
	}
	mem, ok, err := r.optList(nodeDir + "/has_memory")
	if err == nil && !ok {
		// has_memory appeared in 2.6.37; before it, has_normal_memory
		// is the nearest thing, and before that every node had memory.
		mem, ok, err = r.optList(nodeDir + "/has_normal_memory")
	}
	if err != nil {
		return err
	}
	if !ok {
		mem = online.Clone()
	}
	t.CPUNodes, t.MemoryNodes = t.CPUNodes.And(online), mem.And(online)
	for i := range t.Nodes {
		n := &t.Nodes[i]
		n.HasCPU, n.HasMemory = t.CPUNodes.Test(n.ID), t.MemoryNodes.Test(n.ID)
	}
	return nil
}

// distance reads a node's distance row. The kernel prints one entry per
// online node, in id order; a tree that printed one per possible node is
// accepted too, as the two agree whenever every possible node is online.
func (r sysfs) distance(n *Node, name string, online, possible []int) error {
	s, ok, err := r.optString(name)
	if !ok || err != nil {
		return err
	}
	fields := strings.Fields(s)
	ids := online
	if len(fields) != len(online) {
		ids = possible
	}
	if len(fields) != len(ids) {
		return fmt.Errorf("%s: %d distances for %d online nodes", name, len(fields), len(online))
	}
	for i, f := range fields {
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return fmt.Errorf("%s: distance %d is %q, not a non-negative number", name, i, f)
		}
		n.Distance[ids[i]] = d
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

// last returns the highest set bit of b, -1 when b is empty.
func last(b nodemask.Bitmap) int {
	bits := b.Bits()
	if len(bits) == 0 {
		return -1
	}
	return bits[len(bits)-1]
}
