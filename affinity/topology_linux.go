package affinity

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"regexp"
	"slices"
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
	r := sysfs{fsys, &notes{}}
	t := &Topology{}
	if err := r.cpus(t); err != nil {
		return nil, err
	}
	if err := r.nodes(t); err != nil {
		return nil, err
	}
	t.AllowedCPUs = t.OnlineCPUs.Clone()
	t.Kernel, _ = r.optString("proc/sys/kernel/osrelease", "kernel unknown")
	t.Notes = r.notes.list()
	return t, nil
}

// sysfs reads the files of one tree. Every error it returns names the file,
// relative to the root, and nothing else: the caller adds the root.
//
// Malformed contents are errors: a tree that says something impossible is
// not to be guessed at. A file that exists but cannot be read, or that is
// empty where only a value makes sense, is not: one odd file must not cost
// the whole machine. The reader falls back — to the authoritative file
// (cpu/online rather than each cpuN/online), to the hex map an older kernel
// wrote (nodeN/cpumap for nodeN/cpulist), or to a default — and notes what
// it did in Topology.Notes, which contend topo prints.
type sysfs struct {
	fsys  fs.FS
	notes *notes
}

// notes collects what the reader fell back on, one line per kind of event:
// the same event on many cpus (or nodes) is one line naming them all,
// "cpu{0-63}/cpufreq/scaling_governor: unreadable (...)".
type notes struct {
	order []string
	ids   map[string]*nodemask.Bitmap
}

// numbered finds the first cpuN or nodeN path element of name.
var numbered = regexp.MustCompile(`/(cpu|node)([0-9]+)/`)

// add notes "name: what". The cpu or node number in name, if any, becomes a
// set that later notes of the same kind about other numbers join.
func (n *notes) add(name, what string) {
	key, id := name, -1
	if m := numbered.FindStringSubmatchIndex(name); m != nil {
		num, err := strconv.Atoi(name[m[4]:m[5]])
		if err == nil && num < maxCPUs {
			key, id = name[:m[4]]+"\x00"+name[m[5]:], num
		}
	}
	key += ": " + what
	if n.ids == nil {
		n.ids = map[string]*nodemask.Bitmap{}
	}
	b, ok := n.ids[key]
	if !ok {
		b = &nodemask.Bitmap{}
		n.ids[key] = b
		n.order = append(n.order, key)
	}
	if id >= 0 {
		b.Set(id)
	}
}

// list renders the notes in the order they were first made.
func (n *notes) list() []string {
	var out []string
	for _, key := range n.order {
		ids := n.ids[key]
		switch {
		case ids.Empty():
		case ids.Weight() == 1:
			key = strings.Replace(key, "\x00", ids.String(), 1)
		default:
			key = strings.Replace(key, "\x00", "{"+ids.String()+"}", 1)
		}
		out = append(out, key)
	}
	return out
}

// unwrapPath drops a PathError's own copy of the path (and its "open"), so
// the message names the file once, but keeps the cause for errors.Is.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// optString returns the trimmed contents of name, and ok=false when it
// does not exist or cannot be read; unreadable is noted, followed by
// instead, what the caller does without it. Some kernels pad list files
// with NUL bytes.
func (r sysfs) optString(name, instead string) (s string, ok bool) {
	b, err := fs.ReadFile(r.fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		r.notes.add(name, fmt.Sprintf("unreadable (%v); %s", unwrapPath(err), instead))
		return "", false
	}
	return strings.Trim(string(b), " \t\n\x00"), true
}

// optList reads a list file (0-3,8), ok=false as optString. An empty list
// is a list: the empty set.
func (r sysfs) optList(name, instead string) (b nodemask.Bitmap, ok bool, err error) {
	s, ok := r.optString(name, instead)
	if !ok {
		return b, false, nil
	}
	b, err = nodemask.ParseList(s)
	if err != nil {
		return b, false, fmt.Errorf("%s: %w", name, err)
	}
	return b, true, nil
}

// optSet reads a set of cpus from the list file name or, where it is
// missing or unreadable, from the hex map file hexName beside it, as kernels
// before the list files wrote it (00000000,0000000f). Falling back is noted.
func (r sysfs) optSet(name, hexName, instead string) (b nodemask.Bitmap, ok bool, err error) {
	dir := path.Dir(name)
	b, ok, err = r.optList(name, "reading "+hexName+" instead")
	if ok || err != nil {
		return b, ok, err
	}
	hexPath := dir + "/" + hexName
	s, ok := r.optString(hexPath, instead)
	if !ok {
		return b, false, nil
	}
	if b, err = nodemask.ParseHex(s); err != nil {
		return b, false, fmt.Errorf("%s: %w", hexPath, err)
	}
	if _, err := fs.Stat(r.fsys, name); errors.Is(err, fs.ErrNotExist) {
		r.notes.add(name, "missing (an older kernel); read the hex "+hexName)
	}
	return b, true, nil
}

// optInt returns the integer in name, or def when the file does not exist;
// an unreadable or empty file is def too, noted with instead.
func (r sysfs) optInt(name string, def int, instead string) (int, error) {
	s, ok := r.optString(name, instead)
	if !ok {
		return def, nil
	}
	if s == "" {
		r.notes.add(name, "empty; "+instead)
		return def, nil
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
	possible, ok, err := r.optList(cpuDir+"/possible", "cpus found from the cpuN directories")
	if err != nil {
		return err
	}
	if ok && possible.Empty() {
		// The kernel always has a cpu: an empty list is a broken file.
		r.notes.add(cpuDir+"/possible", "empty; cpus found from the cpuN directories")
		ok = false
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
	present, ok, err := r.optList(cpuDir+"/present", "taking every possible cpu as present")
	if err != nil {
		return err
	}
	if ok && present.Empty() {
		r.notes.add(cpuDir+"/present", "empty; taking every possible cpu as present")
		ok = false
	}
	if !ok {
		present = possible.Clone()
	}
	online, haveOnline, err := r.optList(cpuDir+"/online", "reading each cpuN/online instead")
	if err != nil {
		return err
	}
	if haveOnline && online.Empty() {
		// At least the cpu that reads it is online: the file is broken.
		r.notes.add(cpuDir+"/online", "empty; reading each cpuN/online instead")
		haveOnline = false
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
			on, err := r.optInt(dir+"/online", 1, "taken as online, as a present cpu without the file is")
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
		if c.Package, err = r.optInt(top+"/physical_package_id", 0, "package taken as 0"); err != nil {
			return err
		}
		if c.Die, err = r.optInt(top+"/die_id", 0, "die taken as 0"); err != nil {
			return err
		}
		if c.Core, err = r.optInt(top+"/core_id", c.ID, "taken as a core of its own"); err != nil {
			return err
		}
		sib, ok, err := r.siblings(top)
		if err != nil {
			return err
		}
		if !ok && c.Online {
			if _, err := fs.Stat(r.fsys, top); err == nil {
				r.notes.add(top+"/thread_siblings_list", "no sibling list or map; taken as a core of its own")
			}
		}
		sib.Set(c.ID)
		c.Siblings = sib
	}
	c.Governor, _ = r.optString(dir+"/cpufreq/scaling_governor", "governor unknown")
	return r.llc(c, dir+"/cache", llcs, groups)
}

// siblings reads a cpu's SMT siblings: thread_siblings_list, its newer name
// core_cpus_list, or the hex maps older kernels wrote.
func (r sysfs) siblings(top string) (nodemask.Bitmap, bool, error) {
	if _, err := fs.Stat(r.fsys, top+"/thread_siblings_list"); errors.Is(err, fs.ErrNotExist) {
		if b, ok, err := r.optList(top+"/core_cpus_list", "reading thread_siblings instead"); ok || err != nil {
			return b, ok, err
		}
	}
	return r.optSet(top+"/thread_siblings_list", "thread_siblings", "taken as a core of its own")
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
		r.notes.add(dir, fmt.Sprintf("unreadable (%v); last-level cache unknown", unwrapPath(err)))
		return nil
	}
	best, bestLevel, bestUnified := "", 0, false
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		idx := path.Join(dir, e.Name())
		typ, _ := r.optString(idx+"/type", "cache skipped")
		if typ != "Unified" && typ != "Data" {
			continue
		}
		level, err := r.optInt(idx+"/level", 0, "cache level unknown")
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
	shared, _, err := r.optSet(best+"/shared_cpu_list", "shared_cpu_map", "cache taken as the cpu's own")
	if err != nil {
		return err
	}
	shared.Set(c.ID)
	g.CPUs = shared
	id, err := r.optInt(best+"/id", -1, "cache id unknown")
	if err != nil {
		return err
	}
	if g.LineSize, err = r.optInt(best+"/coherency_line_size", 0, "line size unknown"); err != nil {
		return err
	}
	size, _ := r.optString(best+"/size", "size unknown")
	if g.Size, err = parseSize(size); err != nil {
		return fmt.Errorf("%s/size: %w", best, err)
	}
	key := llcKey{bestLevel, id, shared.String()}
	i, ok := llcs[key]
	if !ok && bestLevel == 0 {
		// A cache whose level could not be read is the group its
		// neighbours named, if one has the same id and cpus.
		for k, j := range llcs {
			if k.id == id && k.cpus == key.cpus && (!ok || j < i) {
				i, ok = j, true
			}
		}
	}
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
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("cache size %q is not a number of bytes with an optional K, M or G", s)
	}
	return n * mult, nil
}

// nodes fills the node lists and Nodes, and sets each CPU's Node.
func (r sysfs) nodes(t *Topology) error {
	possible, havePossible, err := r.optList(nodeDir+"/possible", "nodes found from the nodeN directories")
	if err != nil {
		return err
	}
	online, haveOnline, err := r.optList(nodeDir+"/online", "nodes found from the nodeN directories")
	if err != nil {
		return err
	}
	if !havePossible || !haveOnline || online.Empty() {
		// The nodeN directories stand in for a missing or broken list,
		// and only then are they read.
		dirs, err := r.dirIDs(nodeDir, "node")
		if err != nil {
			return err
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
		var ok bool
		n.CPUs, ok, err = r.optSet(dir+"/cpulist", "cpumap", "")
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s/cpulist: %w (and no readable cpumap)", dir, fs.ErrNotExist)
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
	t.fillDistances()
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
		mem = online.Clone()
	}
	t.CPUNodes, t.MemoryNodes = cpuNodes.And(online), mem.And(online)
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
	const instead = "distances taken from the other nodes' rows, as if symmetric"
	s, ok := r.optString(name, instead)
	if !ok {
		if _, err := fs.Stat(r.fsys, name); errors.Is(err, fs.ErrNotExist) {
			r.notes.add(name, "missing; "+instead)
		}
		return nil
	}
	if s == "" {
		r.notes.add(name, "empty; "+instead)
		return nil
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

// fillDistances completes the rows of nodes whose distance file could not
// be read from the other nodes' rows: the kernel's node_distance table is
// symmetric on practically every machine (ACPI SLIT entries a→b and b→a
// agree), and a node is LOCAL_DISTANCE (10) from itself.
func (t *Topology) fillDistances() {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if slices.ContainsFunc(n.Distance, func(d int) bool { return d != 0 }) {
			continue
		}
		for _, o := range t.Nodes {
			if o.ID == n.ID {
				n.Distance[n.ID] = 10
			} else if n.ID < len(o.Distance) {
				n.Distance[o.ID] = o.Distance[n.ID]
			}
		}
	}
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
