package counter

import (
	"fmt"
	"math"
	"math/bits"
)

// CfsRq is one CPU's cfs_rq of the task group: the private half of
// tg->load_avg, owned by one worker and never shared. It holds the cfs_rq's
// load, what it last pushed into the group's Store (tg_load_avg_contrib),
// and the state of its write and read policies.
//
// One scheduler event (an enqueue or dequeue) is Event, or its steps:
// SetLoad with the new local load, UpdateTGLoadAvg (the write path) and
// UpdateCfsGroup (the read path). Time is an argument in nanoseconds: the
// caller reads its clock once per event, as the kernel reads the rq clock,
// and tests inject it.
//
// All methods must be called from the owning goroutine; Stats, Pending and
// the other getters may be called by others only after synchronising with
// it (a WaitGroup after the run). A CfsRq must not be copied.
//
// The struct is padded by PairStride bytes at both ends: workers allocate
// their CfsRqs one after another, and without the padding two workers'
// private state could share a line, or a prefetched line pair, which would
// put false sharing into the storages designed to have none.
type CfsRq struct {
	_ pad
	cfsRqState
	_ pad
}

type cfsRqState struct {
	noCopy noCopy

	// The group's store, resolved once. hot is the word this cfs_rq adds
	// to (the counter, or its node's or CPU's slot) and rm the read-mostly
	// word, so the write path is one atomic add whatever the storage, as
	// the kernel's &cfs_rq->tg->node_info[node]->load_avg is one add once
	// the (read-mostly) pointers are loaded. Both are nil for a Store from
	// outside this package, which is called through the interface.
	kind  StoreKind
	hot   *word
	rm    *word
	pn    *PerNode
	pc    *PerCPU
	store Store
	cpu   int
	node  int

	// Write policy.
	write  WriteKind
	shift  int    // log2 of the divisor when it is a power of two, else -1
	div    uint64 // the divisor
	period int64  // ratelimit, in nanoseconds

	// Read policy.
	skipK    int
	skipLeft int

	// The cfs_rq.
	loadAvg    int64 // avg.load_avg
	weight     int64 // load.weight, scaled
	contrib    int64 // tg_load_avg_contrib
	lastUpdate int64 // last_update_tg_load_avg
	tgShares   int64 // READ_ONCE(tg->shares) from the last ReadMostly
	shares     int64 // the group entity's weight from the last read
	tgLoadSeen int64 // tg->load_avg as the last read saw it

	stats Stats
}

// storeOther marks a Store from outside this package.
const storeOther StoreKind = math.MaxUint8

// Stats counts what a CfsRq did. Writes is the number of read-modify-writes
// of the shared counter (the "shared-writes" of the benchmarks, when the
// slot is shared); Reads the number of times the shared counter was read.
type Stats struct {
	Updates int64 // update_tg_load_avg calls
	Writes  int64 // RMWs of the store, including Flush's
	Limited int64 // updates turned away by the rate limit
	Delayed int64 // updates put off because the load change was a removal
	Reads   int64 // calc_group_shares runs
	Skipped int64 // update_cfs_group calls turned away by skip=K
}

// NewCfsRq makes the cfs_rq of cpu, which belongs to node, for the group
// whose load lives in s.
func NewCfsRq(s Store, w WritePolicy, r ReadPolicy, cpu, node int) (*CfsRq, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("cfs_rq: %w", err)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("cfs_rq: %w", err)
	}
	if cpu < 0 || node < 0 {
		return nil, fmt.Errorf("cfs_rq: cpu %d, node %d: negative id", cpu, node)
	}
	rq := &CfsRq{}
	rq.store, rq.cpu, rq.node = s, cpu, node
	switch s := s.(type) {
	case *Atomic:
		rq.kind, rq.hot, rq.rm = StoreAtomic, s.load, s.shares
	case *FalseShare:
		rq.kind, rq.hot, rq.rm = StoreFalseShare, s.load, s.shares
	case *PerNode:
		if node >= len(s.slots) || s.slots[node] == nil {
			return nil, fmt.Errorf("cfs_rq: node %d has no slot in the per-node store", node)
		}
		rq.kind, rq.hot, rq.rm, rq.pn = StorePerNode, s.slots[node], s.shares, s
	case *PerCPU:
		if cpu >= len(s.slots) {
			return nil, fmt.Errorf("cfs_rq: cpu %d has no slot in the per-cpu store (%d CPUs)", cpu, len(s.slots))
		}
		rq.kind, rq.hot, rq.rm, rq.pc = StorePerCPU, s.slots[cpu], s.shares, s
	case nil:
		return nil, fmt.Errorf("cfs_rq: nil store")
	default:
		rq.kind = storeOther
	}
	rq.write = w.Kind
	rq.div = uint64(w.divisor())
	rq.shift = -1
	if bits.OnesCount64(rq.div) == 1 {
		rq.shift = bits.TrailingZeros64(rq.div)
	}
	rq.period = int64(w.period())
	// The kernel's last_update_tg_load_avg starts at 0 while sched_clock is
	// already far past a millisecond, so a new cfs_rq may write at once. A
	// clock of the caller's may start near 0, so start "long ago" instead.
	rq.lastUpdate = math.MinInt64 / 2
	rq.skipK = r.k()
	rq.tgShares = s.ReadMostly()
	rq.shares = rq.tgShares
	return rq, nil
}

// SetLoad sets the cfs_rq's avg.load_avg and load.weight (scaled), the local
// update every event makes before the group is told. Loads are >= 0.
func (rq *CfsRq) SetLoad(loadAvg, weight int64) {
	rq.loadAvg, rq.weight = loadAvg, weight
}

// ReadMostly reads the group's read-mostly word, as every scheduler event
// reads group fields (tg->shares in update_cfs_group, tg->rt_se and
// tg->rt_rq on RT paths), and keeps it for calc_group_shares. With
// FalseShare this is the read that the counter's writers keep missing.
func (rq *CfsRq) ReadMostly() int64 {
	var s int64
	if rq.rm != nil {
		s = rq.rm.Load()
	} else {
		s = rq.store.ReadMostly()
	}
	rq.tgShares = s
	return s
}

// Event is one enqueue or dequeue: the new local load, the group's
// read-mostly fields, the write path, the read path. removed says the load
// went down because a task migrated away (what write=delay puts off). It
// returns the group entity's weight after the event.
func (rq *CfsRq) Event(now, loadAvg, weight int64, removed bool) int64 {
	rq.loadAvg, rq.weight = loadAvg, weight
	rq.ReadMostly()
	rq.updateTGLoadAvg(now, removed)
	s, _ := rq.UpdateCfsGroup()
	return s
}

// UpdateTGLoadAvg is the write path at time now (nanoseconds); it reports
// whether it wrote to the shared counter.
func (rq *CfsRq) UpdateTGLoadAvg(now int64, removed bool) bool {
	return rq.updateTGLoadAvg(now, removed)
}

// updateTGLoadAvg is update_tg_load_avg() under the configured policy. It
// is kept out of line under the kernel's name so that perf annotate shows
// the cost of the shared write here, where the kernel's profile shows it.
// The kernel, with the merged rate limit:
//
//	now = sched_clock_cpu(cpu_of(rq_of(cfs_rq)));
//	if (now - cfs_rq->last_update_tg_load_avg < NSEC_PER_MSEC)
//		return;
//	delta = cfs_rq->avg.load_avg - cfs_rq->tg_load_avg_contrib;
//	if (abs(delta) > cfs_rq->tg_load_avg_contrib / 64) {
//		atomic_long_add(delta, &cfs_rq->tg->load_avg);
//		cfs_rq->tg_load_avg_contrib = cfs_rq->avg.load_avg;
//		cfs_rq->last_update_tg_load_avg = now;
//	}
//
// The time test comes before the delta, as Vincent Guittot asked ("computing
// delta after testing the time since last update"), and a write that the
// threshold turns away does not restart the period. write=every and
// write=threshold=N are the same without the time test; write=delay is
// patch 3, where removed load no longer forces the update ("the update to
// tg->load_avg ... can be dealed with by a following event").
//
//go:noinline
func (rq *CfsRq) updateTGLoadAvg(now int64, removed bool) bool {
	rq.stats.Updates++
	switch rq.write {
	case WriteRateLimit:
		if now-rq.lastUpdate < rq.period {
			rq.stats.Limited++
			return false
		}
	case WriteDelay:
		if removed {
			rq.stats.Delayed++
			return false
		}
	}
	delta := rq.loadAvg - rq.contrib
	// abs(delta) is compared with an unsigned long in the kernel.
	mag := uint64(delta)
	if delta < 0 {
		mag = uint64(-delta)
	}
	var limit uint64
	if rq.shift >= 0 {
		limit = uint64(rq.contrib) >> rq.shift // /64 is a shift in the kernel too
	} else {
		limit = uint64(rq.contrib) / rq.div
	}
	if mag <= limit {
		return false
	}
	// atomic_long_add(delta, &cfs_rq->tg->load_avg), or the node's slot.
	if rq.hot != nil {
		rq.hot.Add(delta)
	} else {
		rq.store.AddAt(rq.cpu, rq.node, delta)
	}
	rq.contrib = rq.loadAvg
	rq.lastUpdate = now
	rq.stats.Writes++
	return true
}

// UpdateCfsGroup is the read path, update_cfs_group(): it recomputes the
// group entity's weight from the shared counter, or under skip=K keeps the
// last one on all but one event in K (patch 4 stops calling it on dequeue
// and on enqueue into an empty cfs_rq, about one call in two). It returns
// the weight and whether it read the counter.
func (rq *CfsRq) UpdateCfsGroup() (shares int64, read bool) {
	if rq.skipLeft > 0 {
		rq.skipLeft--
		rq.stats.Skipped++
		return rq.shares, false
	}
	rq.skipLeft = rq.skipK - 1
	rq.shares = rq.calcGroupShares()
	rq.stats.Reads++
	return rq.shares, true
}

// calcGroupShares is calc_group_shares(): read tg->load_avg (one atomic
// load, or tg_load_avg()'s walk over the node slots, or every CPU's slot)
// and do CalcGroupShares's arithmetic. Out of line under the kernel's name
// for perf annotate. The atomic's load and PerCPU.Sum's loop inline here;
// PerNode.Sum, which calls into the node mask walk, is too big to inline
// and shows under its own name (the kernel's tg_load_avg() was inline).
//
//go:noinline
func (rq *CfsRq) calcGroupShares() int64 {
	var tgLoad int64
	switch rq.kind {
	case StoreAtomic, StoreFalseShare:
		tgLoad = rq.hot.Load()
	case StorePerNode:
		tgLoad = rq.pn.Sum()
	case StorePerCPU:
		tgLoad = rq.pc.Sum()
	default:
		tgLoad = rq.store.Sum()
	}
	rq.tgLoadSeen = tgLoad
	return CalcGroupShares(rq.tgShares, tgLoad, rq.contrib, rq.weight, rq.loadAvg)
}

// Flush pushes whatever the cfs_rq has not pushed, whatever the policy (as
// the kernel's update_blocked_averages eventually does for a delayed or
// rate-limited cfs_rq), and returns it. After every CfsRq of a group has
// flushed and nothing else runs, the store's Sum equals the sum of their
// loads.
func (rq *CfsRq) Flush() int64 {
	delta := rq.loadAvg - rq.contrib
	if delta == 0 {
		return 0
	}
	if rq.hot != nil {
		rq.hot.Add(delta)
	} else {
		rq.store.AddAt(rq.cpu, rq.node, delta)
	}
	rq.contrib = rq.loadAvg
	rq.stats.Writes++
	return delta
}

// Load returns avg.load_avg, the cfs_rq's true load.
func (rq *CfsRq) Load() int64 { return rq.loadAvg }

// Contrib returns tg_load_avg_contrib, what the store holds for this cfs_rq.
func (rq *CfsRq) Contrib() int64 { return rq.contrib }

// Pending returns Load - Contrib: what the policies have held back. Summed
// over a group's CfsRqs and added to the store's Sum, it gives the true
// group load exactly.
func (rq *CfsRq) Pending() int64 { return rq.loadAvg - rq.contrib }

// Shares returns the group entity's weight from the last read.
func (rq *CfsRq) Shares() int64 { return rq.shares }

// TGLoadSeen returns the group load the last read saw.
func (rq *CfsRq) TGLoadSeen() int64 { return rq.tgLoadSeen }

// CPU returns the CPU id the cfs_rq belongs to.
func (rq *CfsRq) CPU() int { return rq.cpu }

// Node returns the node id the cfs_rq belongs to.
func (rq *CfsRq) Node() int { return rq.node }

// Stats returns what the cfs_rq has done so far.
func (rq *CfsRq) Stats() Stats { return rq.stats }
