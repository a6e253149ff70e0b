package affinity

import (
	"fmt"
	"sort"
	"strings"

	"github.com/contend/contend/nodemask"
)

// A Policy names how workers are laid out over the machine. The layout decides
// what a contended result means: the same counter costs a few nanoseconds per
// update between SMT siblings and hundreds between sockets.
type Policy string

const (
	// Compact fills one node before the next, one CPU per core before any
	// SMT sibling: the cheapest transfers the machine offers.
	Compact Policy = "compact"
	// Spread deals workers round-robin over the nodes: the shape of a
	// scheduler workload that covers the whole machine.
	Spread Policy = "spread"
	// Cross splits workers into two roles on two different nodes, the
	// first half on one node and the second half on the most distant
	// node: writers on one socket, readers on the other.
	Cross Policy = "cross"
	// SMT takes SMT sibling pairs first, so that pairs of workers share a
	// core.
	SMT Policy = "smt"
	// List is an explicit CPU list given by the user.
	List Policy = "list"
)

// Policies lists the named placement policies.
var Policies = []Policy{Compact, Spread, Cross, SMT}

// A Placement turns a topology and a number of workers into CPUs.
type Placement struct {
	Policy Policy
	CPUs   nodemask.Bitmap // the explicit CPUs for List
}

// ParsePlacement parses a policy name or an explicit CPU list in Linux list
// syntax ("0,2,4-7").
func ParsePlacement(s string) (Placement, error) {
	for _, p := range Policies {
		if s == string(p) {
			return Placement{Policy: p}, nil
		}
	}
	if s == "" || !strings.ContainsAny(s[:1], "0123456789-,") {
		return Placement{}, fmt.Errorf("affinity: unknown placement %q (want %s, or a cpu list such as 0,2,4-7)", s, policyNames())
	}
	cpus, err := nodemask.ParseList(s)
	if err != nil {
		return Placement{}, fmt.Errorf("affinity: placement cpu list: %w", err)
	}
	if cpus.Empty() {
		return Placement{}, fmt.Errorf("affinity: placement cpu list %q is empty", s)
	}
	return Placement{Policy: List, CPUs: cpus}, nil
}

func policyNames() string {
	var names []string
	for _, p := range Policies {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// String returns the placement as a benchmark-name value. CPU ranges are
// written with ".." because benchstat reads a trailing "-<digits>" as
// GOMAXPROCS.
func (p Placement) String() string {
	if p.Policy != List {
		return string(p.Policy)
	}
	return "cpus:" + strings.ReplaceAll(p.CPUs.String(), "-", "..")
}

// Assign returns one CPU per worker. Every CPU must be online and in the
// process's allowed set. Asking for more workers than the placement has CPUs
// is an error unless oversubscribe is set: workers that time-share a CPU
// measure the scheduler, not the cache.
func (p Placement) Assign(t *Topology, workers int, oversubscribe bool) ([]int, error) {
	if workers < 1 {
		return nil, fmt.Errorf("affinity: need at least 1 worker, got %d", workers)
	}
	var order []int
	switch p.Policy {
	case Compact:
		for _, n := range t.Nodes {
			order = append(order, coresFirst(t, n.ID)...)
		}
	case Spread:
		var per [][]int
		for _, n := range t.Nodes {
			if cpus := coresFirst(t, n.ID); len(cpus) > 0 {
				per = append(per, cpus)
			}
		}
		for i := 0; len(per) > 0; i++ {
			var rest [][]int
			for _, cpus := range per {
				order = append(order, cpus[0])
				if len(cpus) > 1 {
					rest = append(rest, cpus[1:])
				}
			}
			per = rest
		}
	case Cross:
		return crossAssign(t, workers, oversubscribe)
	case SMT:
		var err error
		if order, err = smtOrder(t); err != nil {
			return nil, err
		}
	case List:
		for _, cpu := range p.CPUs.Bits() {
			if err := t.CheckCPU(cpu); err != nil {
				return nil, err
			}
			order = append(order, cpu)
		}
	default:
		return nil, fmt.Errorf("affinity: unknown placement %q (want %s, or a cpu list)", p.Policy, policyNames())
	}
	return take(order, workers, oversubscribe, p.String())
}

// take returns the first n CPUs of order, wrapping around only when
// oversubscription was asked for.
func take(order []int, n int, oversubscribe bool, what string) ([]int, error) {
	if len(order) == 0 {
		return nil, fmt.Errorf("affinity: placement %s has no usable cpus", what)
	}
	if n > len(order) && !oversubscribe {
		return nil, fmt.Errorf("affinity: %d workers but placement %s has only %d usable cpus (%s); pass -oversubscribe to time-share cpus", n, what, len(order), listString(order))
	}
	cpus := make([]int, n)
	for i := range cpus {
		cpus[i] = order[i%len(order)]
	}
	return cpus, nil
}

// usable reports whether cpu is online and allowed.
func usable(t *Topology, cpu int) bool {
	return cpu >= 0 && cpu < len(t.CPUs) && t.CPUs[cpu].Online && t.AllowedCPUs.Test(cpu)
}

// coresFirst returns the usable CPUs of node, one per core first (the
// lowest-numbered usable sibling), then second siblings, and so on.
func coresFirst(t *Topology, node int) []int {
	type ranked struct{ cpu, rank int }
	var rs []ranked
	for _, c := range t.CPUs {
		if c.Node != node || !usable(t, c.ID) {
			continue
		}
		rank := 0
		for s := range c.Siblings.All() {
			if s < c.ID && usable(t, s) {
				rank++
			}
		}
		rs = append(rs, ranked{c.ID, rank})
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].rank != rs[j].rank {
			return rs[i].rank < rs[j].rank
		}
		return rs[i].cpu < rs[j].cpu
	})
	cpus := make([]int, len(rs))
	for i, r := range rs {
		cpus[i] = r.cpu
	}
	return cpus
}

// smtOrder lists whole cores with at least two usable siblings first,
// sibling by sibling, then the remaining CPUs in compact order.
func smtOrder(t *Topology) ([]int, error) {
	var order []int
	seen := make(map[int]bool)
	for _, n := range t.Nodes {
		for _, cpu := range coresFirst(t, n.ID) {
			if seen[cpu] {
				continue
			}
			var sibs []int
			for _, s := range t.CPUs[cpu].Siblings.Bits() {
				if usable(t, s) && !seen[s] {
					sibs = append(sibs, s)
				}
			}
			if len(sibs) >= 2 {
				for _, s := range sibs {
					seen[s] = true
				}
				order = append(order, sibs...)
			}
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("affinity: placement smt needs cores with two usable SMT siblings; this machine has none")
	}
	for _, n := range t.Nodes {
		for _, cpu := range coresFirst(t, n.ID) {
			if !seen[cpu] {
				order = append(order, cpu)
			}
		}
	}
	return order, nil
}

// crossAssign puts the first half of the workers (rounded up) on the first
// node with usable CPUs and the rest on the node most distant from it.
func crossAssign(t *Topology, workers int, oversubscribe bool) ([]int, error) {
	var nodes [][]int
	var ids []int
	for _, n := range t.Nodes {
		if cpus := coresFirst(t, n.ID); len(cpus) > 0 {
			nodes = append(nodes, cpus)
			ids = append(ids, n.ID)
		}
	}
	if len(nodes) < 2 {
		return nil, fmt.Errorf("affinity: placement cross needs two nodes with usable cpus, this topology has %d (try --fake-nodes 2)", len(nodes))
	}
	if workers < 2 {
		return nil, fmt.Errorf("affinity: placement cross needs at least 2 workers, got %d", workers)
	}
	far := 1
	for i := 2; i < len(ids); i++ {
		if t.Distance(ids[0], ids[i]) > t.Distance(ids[0], ids[far]) {
			far = i
		}
	}
	first := (workers + 1) / 2
	a, err := take(nodes[0], first, oversubscribe, fmt.Sprintf("cross (node %d)", ids[0]))
	if err != nil {
		return nil, err
	}
	b, err := take(nodes[far], workers-first, oversubscribe, fmt.Sprintf("cross (node %d)", ids[far]))
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}

func listString(cpus []int) string {
	b := nodemask.BitmapOf(cpus...)
	return b.String()
}
