package counter

import (
	"fmt"
	"sync/atomic"

	"github.com/contend/contend/bench/ksim"
)

// Store is the shared half of tg->load_avg: one per task group, written by
// every CfsRq of the group and read by every one of them.
//
// Sum returns the value a reader sees. For every store it is exact in the
// sense that, once all Adds have returned and nothing runs concurrently, Sum
// equals the sum of all deltas ever added. While Adds run, Atomic and
// FalseShare return a value that existed at some instant; PerNode and
// PerCPU read slot by slot, so the sum may mix slots from different
// instants (the kernel's tg_load_avg() and percpu_counter_sum() have the
// same property).
//
// Implementations in this package are *Atomic, *FalseShare, *PerNode and
// *PerCPU. A CfsRq calls them directly (not through this interface) so that
// the write inlines into updateTGLoadAvg as atomic_long_add does in the
// kernel; other implementations (a reference counter in a benchmark) work
// through the interface.
type Store interface {
	// AddAt adds delta on behalf of a writer running on cpu, which belongs
	// to node. Each storage uses the index it is organised by and ignores
	// the other.
	AddAt(cpu, node int, delta int64)
	// Sum returns the group's load as a reader sees it.
	Sum() int64
	// ReadMostly reads the group's read-mostly word (tg->shares), the
	// kind of field every scheduler event reads. It returns the shares.
	ReadMostly() int64
	// Layout reports the store's addresses for Layout.Check.
	Layout() Layout
	// Close unmaps the store's memory. No method may be called after, or
	// concurrently with, Close.
	Close() error
	// String returns the storage name used in variants ("pernode").
	String() string
}

// Options configures a store. The zero value is valid for Atomic and
// FalseShare; PerNode wants Nodes and PerCPU wants CPUs.
type Options struct {
	// Stride separates hot words; zero means one cache line, PairStride
	// guards against the adjacent-line prefetcher.
	Stride Stride
	// Shares is tg->shares, the group's weight in scaled units; zero means
	// ksim.Nice0Load, what a new cgroup gets.
	Shares int64

	// Nodes are the node ids of the node mask (node_possible_map), each
	// getting a slot; nil means {0}. PerNode only.
	Nodes []int
	// NrNodeIDs is nr_node_ids, the bound of the node-mask walk; zero means
	// the highest node id + 1. PerNode only.
	NrNodeIDs int
	// FullScan walks all MaxNumNodes bits of the node mask, as
	// for_each_node did before the nr_node_ids fix. PerNode only.
	FullScan bool
	// Fake says the node ids do not exist on this machine (a fake topology
	// on a 1-node box): slots are placed without mbind and reported as not
	// node-local. PerNode only.
	Fake bool
	// Bind uses MPOL_BIND instead of MPOL_PREFERRED. PerNode only.
	Bind bool

	// CPUs is nr_cpu_ids: CPU ids 0..CPUs-1 get a slot; zero means
	// runtime.NumCPU(), which counts the CPUs this process may use, not
	// the highest id, so pass nr_cpu_ids from the topology when the ids
	// are sparse or the process is restricted. PerCPU only.
	CPUs int
}

func (o Options) shares() int64 {
	if o.Shares == 0 {
		return ksim.Nice0Load
	}
	return o.Shares
}

func (o Options) validate() error {
	if err := o.Stride.Validate(); err != nil {
		return err
	}
	// sched_group_set_shares clamps to [scale_load(MIN_SHARES),
	// scale_load(MAX_SHARES)]; we refuse instead of clamping silently.
	if o.Shares != 0 && (o.Shares < ksim.ScaleLoad(MinShares) || o.Shares > MaxShares) {
		return fmt.Errorf("shares %d out of range [%d, %d]", o.Shares, ksim.ScaleLoad(MinShares), MaxShares)
	}
	return nil
}

// New makes a store of the given kind.
func New(kind StoreKind, o Options) (Store, error) {
	switch kind {
	case StoreAtomic:
		return NewAtomic(o)
	case StoreFalseShare:
		return NewFalseShare(o)
	case StorePerNode:
		return NewPerNode(o)
	case StorePerCPU:
		return NewPerCPU(o)
	}
	return nil, fmt.Errorf("unknown store kind %d (valid: %s)", kind, storeList)
}

// word is the view of one int64 in mapped memory.
type word = atomic.Int64

// The Go structs of the stores hold only read-mostly metadata (pointers
// into the mapping, the node mask), but every event reads it, so it must
// not share a line with some other heap object that is written. The Go
// allocator packs small objects of one size class side by side, so each
// store struct is padded by PairStride bytes at both ends, and slot tables
// are allocated with PairStride bytes of slack on either side.
type pad [PairStride]byte

func paddedSlots(n int) []*word {
	const slack = PairStride / 8 // pointers per PairStride bytes
	s := make([]*word, n+2*slack)
	return s[slack : slack+n : slack+n]
}
