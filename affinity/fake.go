package affinity

import (
	"fmt"

	"github.com/contend/contend/nodemask"
)

// Distances of a fake topology: the kernel's local distance and the usual
// one-hop remote distance, so code that compares distances sees two tiers.
const (
	fakeLocal  = 10
	fakeRemote = 20
)

// Fake returns a topology in which the allowed CPUs of t are split into k
// made-up nodes of contiguous CPUs (sizes differ by at most one, the larger
// first), with distance 10 inside a node and 20 across. It lets multi-node
// code paths run on a one-node machine; it says nothing about the cost of
// real remote memory, since every fake node's memory is wherever the real
// kernel put it.
//
// Packages, dies, cores, SMT siblings and LLC groups stay those of the real
// CPUs, so placements that care about cores and caches still see the truth.
// CPUs outside the allowed set belong to no fake node (Node -1). The result
// is labelled "fake-k" and keeps the real topology in Real; t itself is not
// changed. Faking a fake topology starts again from its real one.
func (t *Topology) Fake(k int) (*Topology, error) {
	real := t
	if t.Real != nil {
		real = t.Real
	}
	allowed := real.AllowedCPUs.Bits()
	if k < 1 {
		return nil, fmt.Errorf("affinity: a fake topology needs at least 1 node, not %d", k)
	}
	if k > len(allowed) {
		return nil, fmt.Errorf("affinity: cannot split %d allowed cpus (%s) into %d fake nodes", len(allowed), real.AllowedCPUs, k)
	}
	f := &Topology{
		Root:         real.Root,
		FakeNodes:    k,
		Real:         real,
		NrNodeIDs:    k,
		PossibleCPUs: real.PossibleCPUs.Clone(),
		PresentCPUs:  real.PresentCPUs.Clone(),
		OnlineCPUs:   real.OnlineCPUs.Clone(),
		OfflineCPUs:  real.OfflineCPUs.Clone(),
		AllowedCPUs:  real.AllowedCPUs.Clone(),
		Kernel:       real.Kernel,
		Machine:      real.Machine,
		Notes:        real.Notes,
		anyLine:      real.anyLine,
		anyLineFrom:  real.anyLineFrom,
		cachesSeen:   real.cachesSeen,
	}
	f.CPUs = make([]CPU, len(real.CPUs))
	for i, c := range real.CPUs {
		c.Siblings = c.Siblings.Clone()
		c.Node = -1
		f.CPUs[i] = c
	}
	f.LLCs = make([]CacheGroup, len(real.LLCs))
	for i, g := range real.LLCs {
		g.CPUs = g.CPUs.Clone()
		f.LLCs[i] = g
	}
	var ids nodemask.Bitmap
	next := 0
	for id := range k {
		size := len(allowed) / k
		if id < len(allowed)%k {
			size++
		}
		n := Node{ID: id, HasCPU: true, HasMemory: true, Distance: make([]int, k)}
		for _, cpu := range allowed[next : next+size] {
			n.CPUs.Set(cpu)
			f.CPUs[cpu].Node = id
		}
		next += size
		for j := range n.Distance {
			n.Distance[j] = fakeRemote
		}
		n.Distance[id] = fakeLocal
		f.Nodes = append(f.Nodes, n)
		ids.Set(id)
	}
	f.PossibleNodes, f.OnlineNodes = ids, ids.Clone()
	f.CPUNodes, f.MemoryNodes = ids.Clone(), ids.Clone()
	return f, nil
}

// IsFake reports whether t was made by Fake.
func (t *Topology) IsFake() bool { return t.FakeNodes > 0 }
