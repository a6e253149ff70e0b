package balanceflag

import (
	"fmt"
	"sync"

	"github.com/contend/contend/bench/ksim"
)

// The simulated machine: its sched_domain levels as sd_init() and
// sched_init_numa() build them, which of its CPUs are idle in a given tick,
// and should_we_balance()'s choice of the one CPU of a group that balances a
// domain.

// A levelKind says which sched_domain a level is.
type levelKind int

const (
	kindSMT    levelKind = iota // the threads of a core (SD_SHARE_CPUCAPACITY)
	kindLLC                     // a node's CPUs sharing the last-level cache (MC)
	kindSocket                  // NUMA: the socket's other SNC clusters (only with snc > 1)
	kindAll                     // NUMA: every node
)

// kindNames name the levels in metrics and tables, indexed by levelKind.
var kindNames = []string{"smt", "llc", "socket", "all"}

// A topology is the simulated machine: cpus CPUs (num_online_cpus()) in
// cores of smt threads, nodes (LLCs) of group CPUs, snc nodes to a socket.
// CPUs are numbered core by core, node by node, socket by socket, so every
// group of every level is a run of consecutive CPUs.
type topology struct {
	cpus, smt, group, snc int
}

// A shape is one level of every CPU's hierarchy: its span's weight and
// the weight of its groups (its child's span).
type shape struct {
	kind      levelKind
	weight    int  // sd->span_weight
	groupW    int  // CPUs per sched_group: the child domain's span
	serialize bool // SD_SERIALIZE
}

// shapes are the levels lowest first, the domains ksim builds for CPU 0 of
// the machine (ksim.Grid: cores of smt threads, nodes of group CPUs, each
// its own LLC, snc nodes a socket; Machine.Build). sd_init() gives every
// NUMA level SD_SERIALIZE ("} else if (sd->flags & SD_NUMA) { ... sd->flags
// |= SD_SERIALIZE;"), and with sub-NUMA clustering sched_init_numa() finds
// three distances (local, the socket's other clusters, the other socket),
// so a CPU has two NUMA levels: its socket, grouped by node, and the
// machine, grouped by socket (build_overlap_sched_groups() makes each group
// the span of the child domain). Without SNC the LLC spans the socket and
// the package level above it is degenerate; one NUMA level remains, grouped
// by node. A level no wider than the one below it is degenerate and
// dropped, as the kernel's sd_degenerate() drops it. A machine of one node
// has no NUMA level; the scenario adds its serialized level over the span
// all the same (see below). Built once per topology.
func (t topology) shapes() []shape {
	if s, ok := shapeCache.Load(t); ok {
		return s.([]shape)
	}
	m, err := ksim.Grid{CPUs: t.cpus, SMT: t.smt, LLC: t.group, Node: t.group, Socket: t.group * t.snc}.Machine()
	if err != nil {
		panic("balanceflag: " + err.Error()) // check() admits no such topology
	}
	ds, err := m.Build()
	if err != nil {
		panic("balanceflag: " + err.Error())
	}
	var s []shape
	for _, d := range ds.CPU[0] {
		sh := shape{weight: d.Weight(), groupW: len(d.Groups[0]), serialize: d.Has(ksim.SDSerialize)}
		switch {
		case d.Has(ksim.SDShareCPUCapacity):
			sh.kind = kindSMT
		case !d.Has(ksim.SDNUMA):
			sh.kind = kindLLC
		case d.Weight() < t.cpus:
			sh.kind = kindSocket
		default:
			sh.kind = kindAll
		}
		s = append(s, sh)
	}
	if top := s[len(s)-1]; !top.serialize {
		// One node (span=group): the kernel has no NUMA level, so no
		// SD_SERIALIZE domain and no flag; the scenario keeps one over
		// the span (span= names it): the model, not a kernel.
		s = append(s, shape{kindAll, t.cpus, t.group, true})
	}
	shapeCache.Store(t, s)
	return s
}

// shapeCache holds each topology's shapes once built: workers and the
// simulation ask for every CPU's levels.
var shapeCache sync.Map // topology → []shape

// check says what is wrong with the topology, if anything. With snc=1 the
// span need not be whole nodes (a last, smaller group, as span=512/group=86
// has always had); with SNC it must be whole sockets.
func (t topology) check() error {
	switch {
	case t.group%t.smt != 0:
		return fmt.Errorf("balanceflag: group=%d is not a whole number of smt=%d cores", t.group, t.smt)
	case t.cpus < t.group:
		return fmt.Errorf("balanceflag: span=%d is smaller than one group=%d", t.cpus, t.group)
	case t.snc > 1 && t.cpus%(t.group*t.snc) != 0:
		return fmt.Errorf("balanceflag: span=%d is not a whole number of sockets of snc=%d nodes of group=%d", t.cpus, t.snc, t.group)
	}
	return nil
}

// levels is the sched_domain hierarchy of CPU cpu, lowest first, as sd_init()
// leaves it: balance_interval = sd_weight ms, last_balance = jiffies (0), and
// designated, should_we_balance()'s answer when every CPU is busy: "return
// group_balance_cpu(sg) == env->dst_cpu", the first CPU of its local group.
// Each level's local group is the run of groupW CPUs holding cpu (the last
// one cut at the span).
func (t topology) levels(cpu int) []level {
	all := t.cpuList()
	var ls []level
	for _, sh := range t.shapes() {
		w := int64(sh.weight)
		first := cpu - cpu%sh.groupW
		ls = append(ls, level{shape: sh, designated: cpu%sh.groupW == 0,
			bal:   ksim.Balance{Interval: w, MinInterval: w, MaxInterval: 2 * w},
			group: all[first:min(first+sh.groupW, t.cpus)]})
	}
	return ls
}

// cpuList is the machine's CPUs, 0 to cpus-1, built once per size: every
// level's local group and every core is a run of it.
func (t topology) cpuList() []int {
	if l, ok := cpuLists.Load(t.cpus); ok {
		return l.([]int)
	}
	l := make([]int, t.cpus)
	for i := range l {
		l[i] = i
	}
	cpuLists.Store(t.cpus, l)
	return l
}

var cpuLists sync.Map // cpus → []int

// shouldWeBalanceOver is should_we_balance() for CPU cpu at level l, for a
// periodic pass (busy or idle; newidle passes always balance), with the
// CPUs idle says are idle (the hash of one tick in a run, ksim.TickIdle, or a
// test's own pattern): ksim's Kernel.ShouldWeBalance of mainline over the
// level's local group, cores being runs of smt CPUs. The first idle core's
// first idle CPU balances for the group, else the first idle CPU of a busy
// core, else (all busy) the group's first CPU, l.designated.
func shouldWeBalanceOver(t topology, idle func(cpu int) bool, cpu int, l *level) bool {
	all := t.cpuList()
	core := func(c int) []int {
		first := c - c%t.smt
		return all[first : first+t.smt]
	}
	return mainline.ShouldWeBalance(cpu, l.group, l.kind == kindSMT, idle, core)
}
