package nodemask

import (
	"fmt"
	"iter"
	"math/bits"
)

// NodesShift is CONFIG_NODES_SHIFT as distribution kernels build it
// (x86_64 with MAXSMP, Fedora, Ubuntu, RHEL): the reason a nodemask_t is 1024
// bits on machines with two nodes.
const NodesShift = 10

// MaxNumNodes is MAX_NUMNODES, the number of bits in a Mask.
const MaxNumNodes = 1 << NodesShift

// MaskWords is the number of 64-bit words in a Mask (16 for NodesShift 10):
// the words a full scan reads after the last set node.
const MaskWords = MaxNumNodes / WordBits

// Mask is nodemask_t: a fixed MaxNumNodes-bit set of NUMA node ids. It is a
// value type like its kernel counterpart: copying it copies the bits, and ==
// compares two masks. The zero value is the empty mask.
//
// Node ids outside [0, MaxNumNodes) are a programming error; Set and Clear
// ignore them and Test reports false, so no input can make a Mask panic. Text
// input goes through ParseMask, which reports such ids as errors.
type Mask struct{ bits [MaskWords]uint64 }

// MaskOf returns the mask holding the given nodes (ids out of range are
// ignored, as by Set).
func MaskOf(nodes ...int) Mask {
	var m Mask
	for _, n := range nodes {
		m.Set(n)
	}
	return m
}

// Set adds node n (node_set). It does nothing if n is out of range.
func (m *Mask) Set(n int) {
	if uint(n) < MaxNumNodes {
		m.bits[n/WordBits] |= 1 << (uint(n) % WordBits)
	}
}

// Clear removes node n (node_clear). It does nothing if n is out of range.
func (m *Mask) Clear(n int) {
	if uint(n) < MaxNumNodes {
		m.bits[n/WordBits] &^= 1 << (uint(n) % WordBits)
	}
}

// Test reports whether node n is in the mask (node_isset); false when n is
// out of range.
func (m *Mask) Test(n int) bool {
	return uint(n) < MaxNumNodes && m.bits[n/WordBits]&(1<<(uint(n)%WordBits)) != 0
}

// Fill sets nodes [0, nbits) (nodes_setall with the given width; nbits is
// clamped to [0, MaxNumNodes]). Fill(nrNodeIDs) makes the mask Full.
func (m *Mask) Fill(nbits int) {
	setRange(m.bits[:], 0, min(max(nbits, 0), MaxNumNodes))
}

// Weight returns the number of nodes in the mask (nodes_weight).
func (m *Mask) Weight() int { return weight(m.bits[:]) }

// Empty reports whether the mask holds no node (nodes_empty).
func (m *Mask) Empty() bool { return *m == Mask{} }

// Equal reports whether m and o hold the same nodes (nodes_equal); the same
// as *m == *o.
func (m *Mask) Equal(o *Mask) bool { return *m == *o }

// Full reports whether every node below nrNodeIDs is set (nodes_full bounded
// by nr_node_ids). Bits at or above nrNodeIDs are not looked at; nrNodeIDs is
// clamped to [0, MaxNumNodes], and Full(0) is true.
func (m *Mask) Full(nrNodeIDs int) bool {
	nbits := min(max(nrNodeIDs, 0), MaxNumNodes)
	for i := range nbits / WordBits {
		if m.bits[i] != ^uint64(0) {
			return false
		}
	}
	if r := nbits % WordBits; r != 0 {
		want := uint64(1)<<uint(r) - 1
		return m.bits[nbits/WordBits]&want == want
	}
	return true
}

// Intersects reports whether m and o share a node (nodes_intersects).
func (m *Mask) Intersects(o *Mask) bool {
	for i := range m.bits {
		if m.bits[i]&o.bits[i] != 0 {
			return true
		}
	}
	return false
}

// Subset reports whether every node of m is also in o (nodes_subset).
func (m *Mask) Subset(o *Mask) bool {
	for i := range m.bits {
		if m.bits[i]&^o.bits[i] != 0 {
			return false
		}
	}
	return true
}

// And returns the nodes in both a and b (nodes_and).
func And(a, b Mask) Mask {
	for i := range a.bits {
		a.bits[i] &= b.bits[i]
	}
	return a
}

// Or returns the nodes in a or b (nodes_or).
func Or(a, b Mask) Mask {
	for i := range a.bits {
		a.bits[i] |= b.bits[i]
	}
	return a
}

// AndNot returns the nodes in a but not in b (nodes_andnot).
func AndNot(a, b Mask) Mask {
	for i := range a.bits {
		a.bits[i] &^= b.bits[i]
	}
	return a
}

// First returns the lowest node in the mask, or MaxNumNodes if it is empty,
// the kernel's first_node() convention that ends for_each_node_mask. It
// scans the whole bitmap, like Next.
func (m *Mask) First() int { return findNextBit(m.bits[:], MaxNumNodes, -1) }

// Next returns the lowest node greater than n, or MaxNumNodes if there is
// none: next_node() as for_each_node_mask used it before the nr_node_ids fix.
// After the last node it reads every remaining word up to MaxNumNodes.
// Next(-1) is First(); any n < -1 acts as -1.
//
//	for n := m.First(); n < nodemask.MaxNumNodes; n = m.Next(n) { … }
func (m *Mask) Next(n int) int { return findNextBit(m.bits[:], MaxNumNodes, n) }

// NextBelow returns the lowest node greater than n and less than nrNodeIDs,
// or nrNodeIDs if there is none: the nr_node_ids-bounded next_node of the
// fix. It runs Next's word loop with a smaller bound, so it reads no word at
// or above nrNodeIDs and ignores any bits there. nrNodeIDs above MaxNumNodes
// scans as MaxNumNodes but is still what comes back when nothing is found,
// so the loop below always terminates. NextBelow(-1, nr) is the first node.
//
//	for n := m.NextBelow(-1, nr); n < nr; n = m.NextBelow(n, nr) { … }
func (m *Mask) NextBelow(n, nrNodeIDs int) int {
	return findNextBit(m.bits[:], nrNodeIDs, n)
}

// NextSmall returns the lowest node greater than n in the mask's first word,
// or 64 if there is none: the small_const_nbits() fast path, where the bound
// is the compile-time constant 64, so the search is one AND and one
// trailing-zero count, inlined, with no loop and no call. It is correct only
// when every node id is below 64 (nr_node_ids <= 64, the "kernels configured
// properly" of the thread); nodes at 64 and above are invisible to it.
// NextSmall(-1) is the first node.
//
//	for n := m.NextSmall(-1); n < 64; n = m.NextSmall(n) { … }
func (m *Mask) NextSmall(n int) int {
	if n >= WordBits-1 { // the kernel's "offset >= size" check; also keeps n+1 from overflowing
		return WordBits
	}
	start := uint(max(n+1, 0))
	// TrailingZeros64(0) is 64, so "none" needs no second branch.
	return bits.TrailingZeros64(m.bits[0] & (^uint64(0) << start))
}

// ScanWords walks the mask the way a for_each_node_mask loop bounded by bound
// would (first node, then next until the bound) and reports the nodes it
// visits and the 64-bit words the searches read in all. Benchmarks divide by
// it to report words-scanned/op: bound MaxNumNodes gives Next's cost,
// nr_node_ids NextBelow's, and 64 NextSmall's (one word per call, none for a
// call that starts at or past the bound). bound is clamped to
// [0, MaxNumNodes].
func (m *Mask) ScanWords(bound int) (nodes, words int) {
	size := min(max(bound, 0), MaxNumNodes)
	n := -1
	for {
		next, read := findNextBitCounted(m.bits[:], size, n)
		words += read
		if next >= size {
			return nodes, words
		}
		nodes++
		n = next
	}
}

// Nodes returns the nodes in the mask in ascending order.
func (m *Mask) Nodes() []int {
	out := make([]int, 0, m.Weight())
	for n := m.First(); n < MaxNumNodes; n = m.Next(n) {
		out = append(out, n)
	}
	return out
}

// All returns an iterator over the nodes in ascending order, for code that is
// not a measured hot loop.
func (m *Mask) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for n := m.First(); n < MaxNumNodes; n = m.Next(n) {
			if !yield(n) {
				return
			}
		}
	}
}

// String returns the list form, e.g. "0-2,33-34", or "" for the empty mask.
// It has a value receiver so fmt prints Mask values as lists too.
func (m Mask) String() string {
	return string(appendList(nil, m.bits[:], MaxNumNodes, "-"))
}

// HexString returns the mask form over all MaxNumNodes bits (32 groups), the
// width the kernel printed nodemasks with before the nr_node_ids fix. For the
// nr_node_ids width use m.Bitmap(nr).HexString().
func (m *Mask) HexString() string {
	return string(appendHex(nil, m.bits[:], MaxNumNodes))
}

// Bitmap returns bits [0, nbits) of the mask as a Bitmap of length nbits
// (nbits is clamped to [0, MaxNumNodes]).
func (m *Mask) Bitmap(nbits int) Bitmap {
	nbits = min(max(nbits, 0), MaxNumNodes)
	b := NewBitmap(nbits)
	copy(b.words, m.bits[:])
	b.trim()
	return b
}

// MaskFromBitmap returns the Mask holding b's bits, or an error naming the
// first bit that is not a valid node id (>= MaxNumNodes).
func MaskFromBitmap(b Bitmap) (Mask, error) {
	var m Mask
	if n := b.Next(MaxNumNodes - 1); n >= 0 {
		return m, fmt.Errorf("nodemask: node %d >= MAX_NUMNODES (%d)", n, MaxNumNodes)
	}
	copy(m.bits[:], b.words)
	return m, nil
}
