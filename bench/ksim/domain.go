package ksim

import (
	"fmt"
	"slices"

	"github.com/contend/contend/affinity"
)

// Flags are a sched_domain's SD_* flags, the ones the models read
// (include/linux/sched/sd_flags.h).
type Flags uint32

const (
	SDBalanceNewidle   Flags = 1 << iota // SD_BALANCE_NEWIDLE: balance when about to go idle
	SDBalanceExec                        // SD_BALANCE_EXEC
	SDBalanceFork                        // SD_BALANCE_FORK
	SDWakeAffine                         // SD_WAKE_AFFINE: wake_affine() may pull a wakee to the waker's CPU
	SDShareCPUCapacity                   // SD_SHARE_CPUCAPACITY: SMT siblings
	// SDShareLLC is SD_SHARE_LLC, SD_SHARE_PKG_RESOURCES before v6.10
	// (54de44274703, a rename): the CPUs share a last-level cache. The
	// highest domain with it is sd_llc.
	SDShareLLC
	SDSerialize // SD_SERIALIZE: only one CPU balances such domains at a time (sched_balance_running)
	SDNUMA      // SD_NUMA: a NUMA level of sched_init_numa()
)

// SDSharePkgResources is SDShareLLC under its name before v6.10.
const SDSharePkgResources = SDShareLLC

var flagNames = []string{"BALANCE_NEWIDLE", "BALANCE_EXEC", "BALANCE_FORK", "WAKE_AFFINE",
	"SHARE_CPUCAPACITY", "SHARE_LLC", "SERIALIZE", "NUMA"}

// String spells the flags as the kernel's names without "SD_", joined by
// "|" ("" for none).
func (f Flags) String() string {
	var s string
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	return s
}

// ReclaimDistance is RECLAIM_DISTANCE (include/linux/topology.h), the
// node_reclaim_distance above which sd_init() takes SD_WAKE_AFFINE,
// SD_BALANCE_EXEC and SD_BALANCE_FORK off a NUMA level.
const ReclaimDistance = 30

// LocalDistance is LOCAL_DISTANCE, a node's distance to itself.
const LocalDistance = 10

// A Place is where one CPU sits: the ids of its core, LLC, package and
// node, each unique over the machine (two CPUs with the same Core are SMT
// siblings).
type Place struct{ Core, LLC, Package, Node int }

// A Machine is what the scheduler builds its domains from. CPUs are
// numbered 0..len(CPUs)-1 (ID maps them back to kernel CPU ids where a
// topology had others); Distance is the SLIT, indexed by Place.Node.
type Machine struct {
	CPUs     []Place
	ID       []int // kernel CPU id of each CPU; nil: the same
	Distance [][]int
}

// A Grid is a regular machine: CPUs numbered core by core, LLC by LLC,
// node by node, socket by socket, so that every span of every level is a
// run of consecutive CPUs. Zero sizes take the next level's (SMT: 1; LLC:
// the node; Node: the socket; Socket: every CPU). Each size must be a
// multiple of the one below it; the last core, LLC, node and socket may be
// partial (balanceflag's span=512/group=86).
type Grid struct {
	CPUs   int // num_online_cpus()
	SMT    int // threads per core
	LLC    int // CPUs per last-level cache
	Node   int // CPUs per NUMA node
	Socket int // CPUs per package
}

// Grid distances: a node's own, another node of its socket, another
// socket's. 10, 12 and 21 are what a two-socket Sapphire or Granite Rapids
// with sub-NUMA clustering reports in its SLIT (a Xeon's usual values); only
// their order matters to the domains built, and all are within
// RECLAIM_DISTANCE, so every NUMA level keeps SD_WAKE_AFFINE.
const (
	GridNodeDistance   = 12
	GridSocketDistance = 21
)

// Machine returns the grid's machine, or a one-line error naming the sizes
// that do not nest.
func (g Grid) Machine() (Machine, error) {
	if g.CPUs < 1 {
		return Machine{}, fmt.Errorf("ksim: grid of %d cpus", g.CPUs)
	}
	def := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	g.Socket = def(g.Socket, g.CPUs)
	g.Node = def(g.Node, g.Socket)
	g.LLC = def(g.LLC, g.Node)
	g.SMT = def(g.SMT, 1)
	switch {
	case g.SMT < 1 || g.LLC < 1 || g.Node < 1 || g.Socket < 1:
		return Machine{}, fmt.Errorf("ksim: grid smt %d, llc %d, node %d, socket %d: want positive sizes", g.SMT, g.LLC, g.Node, g.Socket)
	case g.LLC%g.SMT != 0, g.Node%g.LLC != 0 && g.LLC%g.Node != 0, g.Socket%g.Node != 0:
		return Machine{}, fmt.Errorf("ksim: grid of %d cpus: sockets of %d, nodes of %d, llcs of %d and cores of %d do not nest",
			g.CPUs, g.Socket, g.Node, g.LLC, g.SMT)
	}
	m := Machine{CPUs: make([]Place, g.CPUs)}
	for c := range m.CPUs {
		m.CPUs[c] = Place{Core: c / g.SMT, LLC: c / g.LLC, Package: c / g.Socket, Node: c / g.Node}
	}
	nodes := (g.CPUs + g.Node - 1) / g.Node
	perSocket := g.Socket / g.Node
	m.Distance = make([][]int, nodes)
	for a := range nodes {
		m.Distance[a] = make([]int, nodes)
		for b := range nodes {
			switch {
			case a == b:
				m.Distance[a][b] = LocalDistance
			case a/perSocket == b/perSocket:
				m.Distance[a][b] = GridNodeDistance
			default:
				m.Distance[a][b] = GridSocketDistance
			}
		}
	}
	return m, nil
}

// FromTopology is the machine of t's online CPUs, renumbered densely in
// ascending id order (Machine.ID keeps the kernel's ids). A CPU whose
// siblings, package or LLC sysfs did not give is its own; a CPU without a node is on
// node 0; nodes without a distance table are LocalDistance apart from
// themselves and GridSocketDistance from each other.
func FromTopology(t *affinity.Topology) (Machine, error) {
	var m Machine
	nodeIdx := map[int]int{}
	var nodeIDs []int
	for _, c := range t.CPUs {
		if !c.Online {
			continue
		}
		// The core is the SMT sibling mask's first CPU, as the kernel's
		// cpu_smt_mask() groups them (core_id is unique only within a
		// package and die, and some trees reuse it).
		p := Place{Core: c.Siblings.First(), LLC: c.LLC, Package: c.Package, Node: c.Node}
		if p.Node < 0 {
			p.Node = 0
		}
		if _, ok := nodeIdx[p.Node]; !ok {
			nodeIdx[p.Node] = len(nodeIDs)
			nodeIDs = append(nodeIDs, p.Node)
		}
		m.CPUs = append(m.CPUs, p)
		m.ID = append(m.ID, c.ID)
	}
	if len(m.CPUs) == 0 {
		return Machine{}, fmt.Errorf("ksim: topology has no online cpus")
	}
	// Unknown ids become unique ones past every known id, so that such a
	// CPU shares its core, LLC or package with no other.
	fresh := 1 << 30
	for i := range m.CPUs {
		p := &m.CPUs[i]
		for _, v := range []*int{&p.Core, &p.LLC, &p.Package} {
			if *v < 0 {
				*v = fresh
				fresh++
			}
		}
		p.Node = nodeIdx[p.Node]
	}
	m.Distance = make([][]int, len(nodeIDs))
	for a, ida := range nodeIDs {
		m.Distance[a] = make([]int, len(nodeIDs))
		na := t.NodeByID(ida)
		for b, idb := range nodeIDs {
			d := GridSocketDistance
			if a == b {
				d = LocalDistance
			}
			if na != nil && idb < len(na.Distance) && na.Distance[idb] > 0 {
				d = na.Distance[idb]
			}
			m.Distance[a][b] = d
		}
	}
	return m, nil
}

// A Domain is one sched_domain of one CPU, as that CPU's own copy holds it
// (sched domains are per CPU; only sd->shared is shared).
type Domain struct {
	// Name is the topology level's: "SMT", "MC", "PKG", "NODE" or "NUMA".
	Name  string
	Level int // sd->level: its index in the CPU's hierarchy, 0 lowest
	Flags Flags
	// Span is sched_domain_span(sd), ascending; Groups its sched_groups,
	// the local one (holding the CPU) first, then in
	// for_each_cpu_wrap() order from the CPU: each the span of the child
	// domain of its first CPU (build_sched_groups(); for a NUMA level
	// build_overlap_sched_groups() gives the same on machines whose
	// spans nest), or a single CPU at the lowest level.
	Span   []int
	Groups [][]int
	// Distance is a NUMA level's sched_domains_numa_distance; 0 otherwise.
	Distance int
	// Balance is sd_init()'s balance state.
	Balance Balance
}

// Weight is sd->span_weight.
func (d *Domain) Weight() int { return len(d.Span) }

// Has reports whether the domain has every flag of f.
func (d *Domain) Has(f Flags) bool { return d.Flags&f == f }

// Balance is a domain's load-balance state: sd_init() starts
// balance_interval at min_interval = sd_weight ms, with max_interval =
// 2·sd_weight, last_balance and last_decay_max_lb_cost at the jiffies of
// the build, max_newidle_lb_cost and nr_balance_failed at 0.
type Balance struct {
	Interval    int64 // sd->balance_interval, ms
	MinInterval int64 // sd->min_interval, ms
	MaxInterval int64 // sd->max_interval, ms
	LastBalance int64 // sd->last_balance, jiffies
	// MaxNewidleLBCost is sd->max_newidle_lb_cost (ns): the costliest
	// newidle pass of the domain, decayed by 253/256 a second
	// (Kernel.UpdateNewidleCost); LastDecay is
	// sd->last_decay_max_lb_cost (jiffies; 4.13's next_decay_max_lb_cost
	// less HZ).
	MaxNewidleLBCost int64
	LastDecay        int64
	// NrBalanceFailed is sd->nr_balance_failed.
	NrBalanceFailed int
	// The newidle pass's statistics (Kernel.NewidleRandom): newidle_call,
	// newidle_success, newidle_ratio and newidle_stamp (ns), started at
	// the domain's first newidle visit as sd_init() starts them.
	NewidleCall, NewidleSuccess, NewidleRatio, NewidleStamp int64
	newidleStarted                                          bool
	// LBCount is sd->lb_count[idle], by IdleType: the domain's
	// sched_balance_rq() calls, counted at entry as schedstat_inc() does,
	// before should_we_balance() (/proc/schedstat's lb_count).
	LBCount [3]int64
}

// Due is time_after_eq(jiffies, sd->last_balance + interval), interval in
// jiffies (Kernel.BalanceInterval).
func (b *Balance) Due(jiffies, interval int64) bool { return jiffies-(b.LastBalance+interval) >= 0 }

// OutBalanced is the tail of sched_balance_rq() (load_balance() before
// v6.10) when it found nothing to move, in every version modelled: "tune up
// the balancing interval",
//
//	if (... || sd->balance_interval < sd->max_interval)
//		sd->balance_interval *= 2;
//
// (a newly idle pass returns before it: the caller decides).
func (b *Balance) OutBalanced() {
	if b.Interval < b.MaxInterval {
		b.Interval *= 2
	}
}

// Domains are every CPU's sched_domain hierarchy.
type Domains struct {
	// CPU[c] is CPU c's domains, lowest first, degenerate levels dropped.
	CPU [][]Domain
	llc []LLC
}

// An LLC is what update_top_cache_domain() records for a CPU from its
// sd_llc, the highest domain with SD_SHARE_LLC.
type LLC struct {
	Level  int // the index of sd_llc in the CPU's hierarchy; -1: none
	Size   int // per_cpu(sd_llc_size): sd_llc's weight, 1 without one
	ID     int // per_cpu(sd_llc_id): the first CPU of sd_llc's span, the CPU itself without one
	Shared int // which sd_llc_shared: an index over the machine's LLC domains, -1 without one
}

// LLC returns CPU c's sd_llc facts.
func (ds *Domains) LLC(c int) LLC { return ds.llc[c] }

// SharedLLCs is how many sd_llc_shared the machine has.
func (ds *Domains) SharedLLCs() int {
	n := 0
	for _, l := range ds.llc {
		n = max(n, l.Shared+1)
	}
	return n
}

// A level of the topology before degeneration: its name, flags, and the
// span of a CPU at it.
type tlevel struct {
	name     string
	flags    Flags
	distance int
	span     func(c int) []int
}

// Build returns every CPU's domains as the kernel builds them on m: the
// default topology levels (SMT, MC, PKG: kernel/sched/topology.c's
// default_topology; x86 drops PKG where a package holds more than one node,
// x86_has_numa_in_package, and cuts an LLC to its node), then sched_init_numa()'s NODE level and one
// NUMA level per distance beyond the local, with sd_init()'s flags:
// every level SD_BALANCE_NEWIDLE|SD_BALANCE_EXEC|SD_BALANCE_FORK|
// SD_WAKE_AFFINE; SMT also SD_SHARE_CPUCAPACITY|SD_SHARE_LLC (cpu_smt_flags),
// MC SD_SHARE_LLC (cpu_core_flags); NUMA levels SD_NUMA|SD_SERIALIZE, and
// beyond RECLAIM_DISTANCE without SD_WAKE_AFFINE, SD_BALANCE_EXEC and
// SD_BALANCE_FORK. A span that does not hold its child's is an error (the
// kernel's build_sched_domain() prints "BUG: arch topology borken" and
// widens it; a model of such a machine would model the repair, not the
// machine). A level is dropped
// when its span is one CPU (sd_degenerate) or the same as the level kept
// below it (sd_parent_degenerate: one group, so its flags that need groups
// do not count).
func (m Machine) Build() (*Domains, error) {
	n := len(m.CPUs)
	if n == 0 {
		return nil, fmt.Errorf("ksim: machine has no cpus")
	}
	for c, p := range m.CPUs {
		if p.Node < 0 || p.Node >= len(m.Distance) {
			return nil, fmt.Errorf("ksim: cpu %d on node %d, outside the %d-node distance table", c, p.Node, len(m.Distance))
		}
	}
	// by is a level's spans by a key of the Place: built once, shared
	// by every CPU of a span (a span is never written after).
	by := func(key func(Place) [2]int) func(c int) []int {
		spans := map[[2]int][]int{}
		for i, p := range m.CPUs {
			spans[key(p)] = append(spans[key(p)], i)
		}
		return func(c int) []int { return spans[key(m.CPUs[c])] }
	}
	const all = SDBalanceNewidle | SDBalanceExec | SDBalanceFork | SDWakeAffine
	levels := []tlevel{
		{name: "SMT", flags: all | SDShareCPUCapacity | SDShareLLC, span: by(func(p Place) [2]int { return [2]int{p.Core} })},
		// An LLC is cut to the node: x86's match_llc() and
		// topology_sane() drop an LLC sibling on another node ("sched:
		// CPU #%d's llc-sibling CPU #%d is not on the same node! ...
		// Ignoring dependency.").
		{name: "MC", flags: all | SDShareLLC, span: by(func(p Place) [2]int { return [2]int{p.LLC, p.Node} })},
	}
	if !m.numaInPackage() {
		levels = append(levels, tlevel{name: "PKG", flags: all, span: by(func(p Place) [2]int { return [2]int{p.Package} })})
	}
	levels = append(levels, tlevel{name: "NODE", flags: all, span: by(func(p Place) [2]int { return [2]int{p.Node} })})
	for _, d := range m.distances() {
		f := all | SDNUMA | SDSerialize
		if d > ReclaimDistance {
			f &^= SDWakeAffine | SDBalanceExec | SDBalanceFork
		}
		byNode := make([][]int, len(m.Distance))
		for node := range byNode {
			for i, p := range m.CPUs {
				if m.Distance[node][p.Node] <= d {
					byNode[node] = append(byNode[node], i)
				}
			}
		}
		levels = append(levels, tlevel{name: "NUMA", flags: f, distance: d,
			span: func(c int) []int { return byNode[m.CPUs[c].Node] }})
	}
	ds := &Domains{CPU: make([][]Domain, n), llc: make([]LLC, n)}
	// spans[c][k] is CPU c's span at topology level k, widened to nest.
	// spans[c][k] is CPU c's span at topology level k. Spans are shared
	// slices, so whether one nests in the next is asked once per pair.
	spans := make([][][]int, n)
	nests := map[[2]*int]bool{}
	for c := range n {
		var prev []int
		var prevName string
		for _, l := range levels {
			s := l.span(c)
			if prev != nil {
				key := [2]*int{&prev[0], &s[0]}
				ok, asked := nests[key]
				if !asked {
					ok = subset(prev, s)
					nests[key] = ok
				}
				if !ok {
					return nil, fmt.Errorf("ksim: cpu %d's %s span %v is not within its %s span %v: the topology does not nest", c, prevName, prev, l.name, s)
				}
			}
			spans[c] = append(spans[c], s)
			prev, prevName = s, l.name
		}
	}
	seen := make([]int, n) // groups' covered marks: the stamp of the domain that covered a CPU
	stamp := 0
	for c := range n {
		var kept []Domain
		var keptK []int // topology level of each kept domain
		for k, l := range levels {
			s := spans[c][k]
			if len(s) == 1 || len(kept) > 0 && slices.Equal(kept[len(kept)-1].Span, s) {
				continue
			}
			w := int64(len(s))
			d := Domain{Name: l.name, Level: len(kept), Flags: l.flags, Span: s, Distance: l.distance,
				Balance: Balance{Interval: w, MinInterval: w, MaxInterval: 2 * w}}
			stamp++
			d.Groups = groups(c, s, seen, stamp, func(i int) []int {
				if len(kept) == 0 {
					return []int{i}
				}
				return spans[i][keptK[len(keptK)-1]]
			})
			kept = append(kept, d)
			keptK = append(keptK, k)
		}
		ds.CPU[c] = kept
	}
	// sd_llc and one sd_llc_shared per distinct sd_llc span, numbered by
	// its first CPU's order.
	shared := map[int]int{}
	for c := range n {
		l := LLC{Level: -1, Size: 1, ID: c, Shared: -1}
		for i := len(ds.CPU[c]) - 1; i >= 0; i-- {
			if d := &ds.CPU[c][i]; d.Has(SDShareLLC) {
				l.Level, l.Size, l.ID = i, d.Weight(), d.Span[0]
				break
			}
		}
		if l.Level >= 0 {
			if _, ok := shared[l.ID]; !ok {
				shared[l.ID] = len(shared)
			}
			l.Shared = shared[l.ID]
		}
		ds.llc[c] = l
	}
	return ds, nil
}

// numaInPackage is x86_has_numa_in_package: some package holds CPUs of two
// nodes.
func (m Machine) numaInPackage() bool {
	node := map[int]int{}
	for _, p := range m.CPUs {
		if n, ok := node[p.Package]; ok && n != p.Node {
			return true
		}
		node[p.Package] = p.Node
	}
	return false
}

// distances are sched_domains_numa_distance beyond the local one: the
// distinct distances of the table, ascending.
func (m Machine) distances() []int {
	var ds []int
	for _, row := range m.Distance {
		for _, d := range row {
			if d > LocalDistance && !slices.Contains(ds, d) {
				ds = append(ds, d)
			}
		}
	}
	slices.Sort(ds)
	return ds
}

// groups are the sched_groups of CPU c's domain of span s, each the child
// span of its first CPU, the local group first and the others in
// for_each_cpu_wrap() order from c. seen marks the CPUs covered with stamp.
func groups(c int, s []int, seen []int, stamp int, child func(i int) []int) [][]int {
	var gs [][]int
	at, _ := slices.BinarySearch(s, c)
	for k := range s {
		i := s[(at+k)%len(s)]
		if seen[i] == stamp {
			continue
		}
		g := child(i)
		for _, x := range g {
			seen[x] = stamp
		}
		gs = append(gs, g)
	}
	return gs
}

func subset(a, b []int) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// Siblings is cpu_smt_mask(c): the CPUs of c's core, c's SMT domain's span
// (c alone without SMT).
func (ds *Domains) Siblings(c int) []int {
	if doms := ds.CPU[c]; len(doms) > 0 && doms[0].Has(SDShareCPUCapacity) {
		return doms[0].Span
	}
	return []int{c}
}

// ShouldWeBalance is should_we_balance() of version k for a periodic pass
// (CPU_IDLE or CPU_NOT_IDLE; a newly idle pass always balances, "return 1")
// of CPU cpu at its domain of index level, with idle saying which CPUs are
// idle (Kernel.ShouldWeBalance over the domain's local group).
func (ds *Domains) ShouldWeBalance(k Kernel, cpu, level int, idle func(c int) bool) bool {
	d := &ds.CPU[cpu][level]
	return k.ShouldWeBalance(cpu, d.Groups[0], d.Has(SDShareCPUCapacity), idle, ds.Siblings)
}

// ShouldWeBalance is should_we_balance() of version k for a periodic pass
// of CPU cpu whose local group is group (group_balance_mask(sg), ascending),
// at an SMT domain (SD_SHARE_CPUCAPACITY) or not, with idle saying which
// CPUs are idle and siblings(c) being cpu_smt_mask(c): the pass runs on one
// CPU of the local group only, the first idle one, else the group's first
// (group_balance_cpu()). From v6.6 (k.IdleCore, b1bfeab9b002) it skips, at
// a level above SMT, an idle CPU whose core is busy, unless no idle core has
// one:
//
//	for_each_cpu_and(cpu, swb_cpus, env->cpus) {
//		if (!idle_cpu(cpu))
//			continue;
//		if (!(env->sd->flags & SD_SHARE_CPUCAPACITY) && !is_core_idle(cpu)) {
//			if (idle_smt == -1)
//				idle_smt = cpu;
//			cpumask_andnot(swb_cpus, swb_cpus, cpu_smt_mask(cpu));
//			continue;
//		}
//		return cpu == env->dst_cpu;
//	}
//	if (idle_smt != -1)
//		return idle_smt == env->dst_cpu;
//	return group_balance_cpu(sg) == env->dst_cpu;
//
// The cpumask_andnot() only saves work: a sibling it takes off the mask
// would come to the same branch (its core is the same busy core) with
// idle_smt already set. It allocates nothing, so a pinned walk can ask it.
func (k Kernel) ShouldWeBalance(cpu int, group []int, smt bool, idle func(c int) bool, siblings func(c int) []int) bool {
	idleSMT := -1
	for _, c := range group {
		if !idle(c) {
			continue
		}
		if k.IdleCore && !smt && !coreIdle(siblings(c), idle) {
			if idleSMT == -1 {
				idleSMT = c
			}
			continue
		}
		return c == cpu
	}
	if idleSMT != -1 {
		return idleSMT == cpu
	}
	return group[0] == cpu
}

// coreIdle is is_core_idle() of a CPU whose SMT siblings, itself included,
// are core: every one idle.
func coreIdle(core []int, idle func(int) bool) bool {
	for _, s := range core {
		if !idle(s) {
			return false
		}
	}
	return true
}
