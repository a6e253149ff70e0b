package counter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/nodemask"
)

// PerNode is tg->load_avg split per NUMA node, patch 2 of the thread ("the
// idea is from PeterZ: by making the hot variable per-node, at least, the
// write side update_load_avg() will become local"):
//
//	struct tg_node_info {
//		struct {
//			atomic_long_t load_avg;
//		} ____cacheline_aligned_in_smp;
//	};
//
// A writer adds to its own node's slot, so writes only contend within a
// node. "The sad part is, the read side is still global because it has to
// sum up each node's part":
//
//	for_each_node(i)
//		load_avg += atomic_long_read(&tg->node_info[i]->load_avg);
//
// Sum walks the node mask bounded by nr_node_ids, or with FullScan over all
// MAX_NUMNODES bits as for_each_node did before PeterZ noticed it "would
// scan the full 1024 bit bitmap looking for more bits that would never be
// there".
//
// Each slot has a page of its own, allocated on its node the way
// kzalloc_node does it: mbind the page to the node before the first touch,
// touch it, then ask the kernel where it landed (Placement). Without mbind
// (a container's seccomp profile often forbids it) the page is placed by
// first touch, through Options.TouchOn when the caller can run the touch on
// a thread pinned to the node, and the report says so.
//
// A PerNode must not be copied; Close it when done.
type PerNode struct {
	_         pad
	noCopy    noCopy
	slots     []*word // indexed by node id; nil for ids not in the mask
	mask      nodemask.Mask
	nr        int // nr_node_ids
	fullScan  bool
	nodes     int
	shares    *word
	placement []SlotPlacement
	mem       region
	_         pad
}

// SlotPlacement says where one node's slot really is.
type SlotPlacement struct {
	Node     int     // the node the slot belongs to
	Addr     uintptr // the slot's address
	PageNode int     // the node backing its page, -1 if the kernel would not say
	Local    bool    // PageNode == Node on a real topology
	Method   string  // how it was placed: "mbind MPOL_PREFERRED", "first touch", "fake"
	Note     string  // why it is not known to be local, empty if it is
}

func (s SlotPlacement) String() string {
	where := fmt.Sprintf("page on node %d", s.PageNode)
	if s.PageNode < 0 {
		where = "page node unknown"
	}
	local := "node-local"
	if !s.Local {
		local = "not node-local"
	}
	str := fmt.Sprintf("node %d: %s, %s by %s", s.Node, where, local, s.Method)
	if s.Note != "" {
		str += " (" + s.Note + ")"
	}
	return str
}

// TouchFunc runs touch on a thread pinned to node and reports whether it
// could. PerNode uses it for first-touch placement when mbind is refused.
type TouchFunc func(node int, touch func()) error

// NewPerNode maps one page per node (plus one for the read-mostly word),
// places each on its node and records where it landed.
func NewPerNode(o Options) (*PerNode, error) {
	return newPerNode(o, nil)
}

// NewPerNodeTouch is NewPerNode with a first-touch fallback: if mbind is
// refused, touch runs the first write to each slot on a thread pinned to
// the slot's node.
func NewPerNodeTouch(o Options, touch TouchFunc) (*PerNode, error) {
	return newPerNode(o, touch)
}

func newPerNode(o Options, touchOn TouchFunc) (*PerNode, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("pernode: %w", err)
	}
	nodes := o.Nodes
	if len(nodes) == 0 {
		nodes = []int{0}
	}
	p := &PerNode{fullScan: o.FullScan, nodes: len(nodes)}
	maxNode := -1
	for i, n := range nodes {
		if n < 0 || n >= nodemask.MaxNumNodes {
			return nil, fmt.Errorf("pernode: node %d (nodes[%d]) out of range [0, %d)", n, i, nodemask.MaxNumNodes)
		}
		if p.mask.Test(n) {
			return nil, fmt.Errorf("pernode: node %d listed twice (nodes[%d])", n, i)
		}
		p.mask.Set(n)
		maxNode = max(maxNode, n)
	}
	p.nr = o.NrNodeIDs
	if p.nr == 0 {
		p.nr = maxNode + 1
	}
	if p.nr <= maxNode || p.nr > nodemask.MaxNumNodes {
		return nil, fmt.Errorf("pernode: nr_node_ids %d must be in (%d, %d]", p.nr, maxNode, nodemask.MaxNumNodes)
	}
	mem, err := mapRegion(1 + len(nodes))
	if err != nil {
		return nil, fmt.Errorf("pernode: %w", err)
	}
	p.mem = mem
	p.shares = (*word)(mem.at(0))
	p.shares.Store(o.shares())
	p.slots = paddedSlots(p.nr)

	policy := affinity.Preferred
	if o.Bind {
		policy = affinity.Bind
	}
	for i, n := range nodes {
		sp, err := p.place(i, n, o.Fake, policy, touchOn)
		if err != nil {
			p.mem.unmap()
			return nil, err
		}
		p.placement = append(p.placement, sp)
	}
	return p, nil
}

// place puts node n's slot on the i-th page after the read-mostly one, as
// kzalloc_node does: mbind the page to the node before its first touch (or,
// where mbind is refused, first-touch it from a thread pinned to the node),
// then ask the kernel where it landed.
func (p *PerNode) place(i, n int, fake bool, policy affinity.MemPolicy, touchOn TouchFunc) (SlotPlacement, error) {
	addr := p.mem.at((i + 1) * pageSize())
	slot := (*word)(addr)
	p.slots[n] = slot
	sp := SlotPlacement{Node: n, Addr: uintptr(addr), PageNode: -1}
	touched := false
	if fake {
		sp.Method = "fake"
		sp.Note = "not node-local (fake nodes)"
	} else {
		err := sysMbind(p.mem.page(i+1), n, policy)
		switch {
		case err == nil:
			sp.Method = "mbind " + policy.String()
		case errors.Is(err, syscall.EINVAL):
			return sp, fmt.Errorf("pernode: node %d: %w (node not online? use a fake topology)", n, err)
		case touchOn != nil:
			sp.Method = "first touch on a pinned thread"
			sp.Note = err.Error()
			if terr := touchOn(n, func() { slot.Store(0) }); terr != nil {
				sp.Method = "first touch"
				sp.Note += "; pinning: " + terr.Error()
			} else {
				touched = true
			}
		default:
			sp.Method = "first touch"
			sp.Note = err.Error() + "; touched from an unpinned thread"
		}
	}
	if !touched {
		slot.Store(0) // the first touch: the page is allocated now, under the policy
	}
	pn, err := sysPageNode(addr)
	if err != nil {
		sp.Note = joinNote(sp.Note, "placement unknown: "+err.Error())
		return sp, nil
	}
	sp.PageNode = pn
	sp.Local = pn == n && !fake
	if !sp.Local && !fake {
		sp.Note = joinNote(sp.Note, fmt.Sprintf("page landed on node %d", pn))
	}
	return sp, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Add is atomic_long_add(delta, &tg->node_info[node]->load_avg). node must
// be one of the store's nodes.
func (p *PerNode) Add(node int, delta int64) { p.slots[node].Add(delta) }

// AddAt adds delta to node's slot.
func (p *PerNode) AddAt(cpu, node int, delta int64) { p.slots[node].Add(delta) }

// Sum is tg_load_avg(): the slots added up walking the node mask. With
// FullScan the walk is for_each_node before the fix, which keeps reading
// mask words up to MAX_NUMNODES after the last node; otherwise it stops at
// nr_node_ids.
func (p *PerNode) Sum() int64 {
	if p.fullScan {
		return p.sumFull()
	}
	var s int64
	nr := p.nr
	for n := p.mask.NextBelow(-1, nr); n < nr; n = p.mask.NextBelow(n, nr) {
		s += p.slots[n].Load()
	}
	return s
}

func (p *PerNode) sumFull() int64 {
	var s int64
	for n := p.mask.First(); n < nodemask.MaxNumNodes; n = p.mask.Next(n) {
		s += p.slots[n].Load()
	}
	return s
}

// ReadMostly reads tg->shares from a page of its own.
func (p *PerNode) ReadMostly() int64 { return p.shares.Load() }

// Nodes returns the number of slots.
func (p *PerNode) Nodes() int { return p.nodes }

// FullScan reports whether Sum walks all MaxNumNodes bits.
func (p *PerNode) FullScan() bool { return p.fullScan }

// Placement reports, slot by slot, where the pages landed.
func (p *PerNode) Placement() []SlotPlacement { return slices.Clone(p.placement) }

// PlacementSummary is Placement in one line, for a benchmark's config
// lines: "2/2 slots node-local (mbind MPOL_PREFERRED)".
func (p *PerNode) PlacementSummary() string {
	local := 0
	var methods, notes []string
	for _, s := range p.placement {
		if s.Local {
			local++
		}
		if !slices.Contains(methods, s.Method) {
			methods = append(methods, s.Method)
		}
		if s.Note != "" && !slices.Contains(notes, s.Note) {
			notes = append(notes, s.Note)
		}
	}
	str := fmt.Sprintf("%d/%d slots node-local (%s)", local, len(p.placement), strings.Join(methods, ", "))
	if len(notes) > 0 {
		str += ": " + strings.Join(notes, "; ")
	}
	return str
}

// Layout reports one hot word per node, each at the start of its page.
func (p *PerNode) Layout() Layout {
	l := Layout{Stride: pageSize(), ReadMostly: uintptr(unsafe.Pointer(p.shares)), Lines: p.nodes}
	for n := p.mask.First(); n < nodemask.MaxNumNodes; n = p.mask.Next(n) {
		l.Hot = append(l.Hot, uintptr(unsafe.Pointer(p.slots[n])))
	}
	return l
}

// Close unmaps the slots.
func (p *PerNode) Close() error { return p.mem.unmap() }

func (p *PerNode) String() string { return StorePerNode.String() }
