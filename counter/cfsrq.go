package counter

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/contend/contend/bench/ksim"
)

// CfsRq is one CPU's cfs_rq of the task group: the private half of
// tg->load_avg, owned by one worker. It holds the cfs_rq's PELT average
// (avg.load_avg, load_sum, last_update_time), its queued weight
// (load.weight), what it last pushed into the group's Store
// (tg_load_avg_contrib), the state of its write and read policies, and the
// kernel's removed-load mailbox (cfs_rq->removed), the one part other CPUs
// write.
//
// A CfsRq made by NewCfsRq is a group one level under the root: each
// task's sched_entity is queued on this cfs_rq, and the group's
// sched_entity on the CPU's root cfs_rq, which holds nothing else. Enqueue
// and Dequeue are enqueue_task_fair() and dequeue_task_fair() for such a
// task, reduced to what touches tg->load_avg: update_load_avg() on this
// cfs_rq (PELT, attach, detach, removed load, and update_tg_load_avg() when
// the kernel calls it), the accounting of the task's weight, and
// update_cfs_group() of the group entity (calc_group_shares(), the read).
// The root cfs_rq's own PELT and reweight_entity() are left out: neither
// reads nor writes tg->load_avg.
//
// NewCfsRqPath makes the same CPU's cfs_rqs of nested groups (group.go):
// the tasks' group's cfs_rq (the leaf) and its ancestors' up to the one
// under the root, each with its own store, contribution, rate limit and
// group entity. The leaf's methods then walk the hierarchy as the kernel's
// for_each_sched_entity() loops do, with load propagated upwards
// (add_tg_cfs_propagate(), propagate_entity_load_avg()) and each group
// entity reweighted on its parent (reweight_entity()).
//
// Time is an argument in nanoseconds of the CPU's clock (rq clock,
// cfs_rq_clock_pelt and sched_clock_cpu alike), which must be positive and
// must not go backwards; the caller advances it, so the model runs on
// kernel time whatever this hardware takes.
//
// All methods must be called from the owning goroutine, except
// RemoveEntityLoadAvg on an entity attached here, which any goroutine may
// call as a remote CPU does (and which synchronises through the removed
// lock); Stats and the getters may be called by others only after
// synchronising with the owner. A CfsRq must not be copied.
//
// The struct is padded by PairStride bytes at both ends and around the
// removed mailbox: workers allocate their CfsRqs one after another, and
// without the padding two workers' private state could share a line, or a
// prefetched line pair.
type CfsRq struct {
	_ pad
	cfsRqState
	_ pad
	// removed is cfs_rq->removed, ____cacheline_aligned in the kernel:
	// written under its lock by the CPUs that wake this cfs_rq's tasks
	// elsewhere, drained by the owner.
	removed removedLoad
	_       pad
}

// removedLoad is cfs_rq->removed, load only: a raw spinlock with the
// number of entities removed since the owner last looked (nr) in its word,
// and their summed load_avg, which only the lock's holder touches.
type removedLoad struct {
	CountedLock
	load     uint64
	runnable uint64 // removed.runnable_avg, which the parent's propagation estimates the sum from
}

type cfsRqState struct {
	noCopy noCopy

	// path is the caller of the update_load_avg() or update_tg_load_avg()
	// now running on this cfs_rq, for Stats.Paths: set by Enqueue,
	// Dequeue, Tick and UpdateBlocked on every level they walk.
	path Path

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
	// The rate limit's clock (clock.go): which it reads, the rq's cached
	// clock word (shared by the levels), x86's cyc2ns scale, and where
	// the read's value goes.
	clock     ClockKind
	rqClock   *int64
	c2n       cyc2ns
	clockSink int64

	// Read policy.
	read     ReadKind
	oneInK   int
	oneInCnt int

	// The cfs_rq.
	avg        ksim.SchedAvg
	weight     uint64 // load.weight, unscaled: the queued entities' weights
	nrRunning  int
	contrib    int64 // tg_load_avg_contrib
	lastUpdate int64 // last_update_tg_load_avg
	tgShares   int64 // READ_ONCE(tg->shares) at the last read
	shares     int64 // the group entity's weight from the last read

	// The hierarchy (group.go): the parent group's cfs_rq on this CPU,
	// nil for a group under the root; this group's entity on it
	// (tg->se[cpu]); and what this cfs_rq has to propagate to it
	// (cfs_rq->propagate, prop_runnable_sum, and patch 3's
	// prop_removed_sum). The group entity is unused without a parent.
	parent          *CfsRq
	gse             Entity
	level           int // 1 for the tasks' own group, 2 for its parent, ...
	propagate       bool
	propRunnableSum int64
	propRemovedSum  int64
	// publish says whether lastUpdatePub is kept: only a cfs_rq that
	// holds tasks has remote CPUs syncing to its clock.
	publish bool
	// offList says the cfs_rq is off its rq's leaf list (on_list == 0):
	// __update_blocked_fair() took it off once fully decayed
	// (cfs_rq_is_decayed()), so update_blocked_averages() no longer
	// visits it, until an enqueue puts it back (list_add_leaf_cfs_rq()).
	// A new cfs_rq counts as on the list: the model seeds it with load.
	offList bool

	// lastUpdate is avg.last_update_time for other CPUs:
	// remove_entity_load_avg() syncs a leaving entity to it
	// (cfs_rq_last_update_time(), a plain load of the owner's hot line in
	// the kernel). It must be the exact time: PELT recomputes an average
	// as sum / (PELT_MIN_DIVIDER + period_contrib), so an entity synced to
	// another point of the same period carries a different load_avg, and
	// the owner's "load_sum -= removed * divider" would then take more or
	// less than the entity's share. The owner stores it on every update
	// that moves it, among its hot fields as the kernel's is.
	lastUpdatePub atomic.Uint64

	// Timing, for one event at a time (see Time).
	timer   func() int64
	writeNs int64
	readNs  int64

	stats Stats
}

// storeOther marks a Store from outside this package.
const storeOther StoreKind = math.MaxUint8

// update_load_avg() flags (kernel/sched/fair.c).
const (
	updateTG = 1 << iota // update tg->load_avg if the sums decayed
	doAttach             // attach a migrated entity (last_update_time == 0)
	doDetach             // detach an entity migrating while queued
)

// Stats counts what a CfsRq did.
type Stats struct {
	Events   int64 // Enqueue and Dequeue calls (on the leaf; a parent level counts none)
	Attaches int64 // attach_entity_load_avg: a migrated task arrived
	Detaches int64 // detach_entity_load_avg: a queued task left
	Removed  int64 // removed-load batches drained by update_cfs_rq_load_avg
	Decays   int64 // updates whose sums crossed a period boundary
	Updates  int64 // update_tg_load_avg calls
	Writes   int64 // RMWs of the store by update_tg_load_avg (Flush not counted)
	Limited  int64 // update_tg_load_avg calls turned away by the rate limit
	Delayed  int64 // removed-load batches that, under patch 3, did not call update_tg_load_avg
	Reads    int64 // calc_group_shares runs

	// Propagations counts propagate_entity_load_avg() calls on this
	// cfs_rq that found the child group's propagate flag set (each makes
	// update_load_avg() call update_tg_load_avg() here), Reweights the
	// reweight_entity() calls of this group's entity on its parent.
	Propagations int64
	Reweights    int64

	// Unlisted counts list_del_leaf_cfs_rq() calls of this cfs_rq by
	// __update_blocked_fair() (cfs_rq_is_decayed()), Skipped the
	// update_blocked_averages() walks that passed it by, off the list.
	Unlisted, Skipped int64

	// Paths splits Updates and Writes by the caller that issued them
	// (Path), the split the kernel's execute breakpoints give by site:
	// update_load_avg()'s lock add (PathEnqueue, PathDequeue, PathTick,
	// PathBlockedEntity) against __update_blocked_fair()'s own
	// (PathBlocked).
	Paths [NumPaths]PathStats

	// The load the handoffs moved, for exact bookkeeping: what the
	// owner drained from cfs_rq->removed, and what attach and detach
	// added and took.
	RemovedLoad  uint64
	AttachedLoad uint64
	DetachedLoad uint64
}

// A Path is the caller of an update_tg_load_avg() call.
type Path uint8

// The callers of update_tg_load_avg(), through update_load_avg() but for
// PathBlocked.
const (
	PathEnqueue       Path = iota // enqueue_task_fair(): every level's update_load_avg(), attach included
	PathDequeue                   // dequeue_task_fair(): every level's, detach included
	PathTick                      // entity_tick() on every level
	PathBlockedEntity             // __update_blocked_fair(): a group entity's update_load_avg() on its parent
	PathBlocked                   // __update_blocked_fair(): its own update_tg_load_avg() after a decay
	PathSwitch                    // set_next_entity()'s update_load_avg(UPDATE_TG) (put_prev_entity()'s has no UPDATE_TG)
	NumPaths
)

var pathNames = [NumPaths]string{"enqueue", "dequeue", "tick", "blocked-entity", "blocked", "switch"}

func (p Path) String() string {
	if p < NumPaths {
		return pathNames[p]
	}
	return fmt.Sprintf("Path(%d)", p)
}

// InUpdateLoadAvg says whether p's writes are update_load_avg()'s lock
// add in the kernel (the out-of-line update_load_avg on 6.1 and 6.12),
// not update_blocked_averages()'.
func (p Path) InUpdateLoadAvg() bool { return p != PathBlocked }

// PathStats is one Path's share of Stats.Updates and Stats.Writes.
type PathStats struct {
	Updates, Writes int64
}

// setPath marks every level from rq up as running a call from p.
func (rq *CfsRq) setPath(p Path) {
	for c := rq; c != nil; c = c.parent {
		c.path = p
	}
}

// NewCfsRq makes the cfs_rq of cpu, which belongs to node, for the group
// whose load lives in s. Its clock starts at Init.
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
	rq.read, rq.oneInK = r.Kind, r.k()
	// The kernel's last_update_tg_load_avg starts at 0 while sched_clock is
	// already far past a millisecond, so a new cfs_rq may write at once. A
	// clock of the caller's may start near 0, so start "long ago" instead.
	rq.lastUpdate = math.MinInt64 / 2
	rq.tgShares = s.ReadMostly()
	rq.shares = rq.tgShares
	rq.level, rq.publish = 1, true
	return rq, nil
}

// Init starts the clock of the cfs_rq and of its ancestors at now (> 0),
// with nothing attached.
func (rq *CfsRq) Init(now int64) {
	for c := rq; c != nil; c = c.parent {
		c.avg = ksim.SchedAvg{LastUpdateTime: uint64(now)}
		c.lastUpdatePub.Store(uint64(now))
	}
}

// Seed attaches a task that has never run (a fork, with the load_avg
// init_entity_runnable_average and the caller chose) at the cfs_rq's
// current time, queued or asleep here, without calling update_tg_load_avg
// or counting anything: the starting state of a run. Push the seeded load
// with Flush.
func (rq *CfsRq) Seed(se *Entity, loadAvg uint64, queued bool) {
	se.avg = ksim.SchedAvg{LoadAvg: loadAvg}
	rq.attachEntityLoadAvg(se)
	if queued {
		rq.accountEnqueue(se)
	}
}

// Enqueue is enqueue_task_fair() of a task of the group waking up here
// at now: update_load_avg(UPDATE_TG | DO_ATTACH) of its entity, which
// attaches its load if it migrated (RemoveEntityLoadAvg cleared its
// last_update_time), then the accounting, then update_cfs_group() of the
// group entity. The group entity is enqueued on the root cfs_rq too when
// this is the cfs_rq's first queued task (enqueue_entity(), where patch 4
// skips update_cfs_group() since the root cfs_rq holds nothing else);
// otherwise it was queued already and the second loop of
// enqueue_task_fair() updates it, which patch 4 leaves alone.
//
// With ancestors, the walk goes on up as the kernel's two loops do. While
// a group entity was not queued (its cfs_rq just got its first entity),
// the first loop's enqueue_entity() queues it on its parent:
// update_load_avg(UPDATE_TG | DO_ATTACH) there, update_cfs_group() of it
// (the read patch 4 skips), then the accounting; from the first queued
// one on, the second loop's update_load_avg(UPDATE_TG) and
// update_cfs_group(). Either way each level's cfs_rq gets one
// update_load_avg() and each level's tg->load_avg one read per event.
func (rq *CfsRq) Enqueue(now int64, se *Entity) {
	rq.updateRqClock(now)
	rq.stats.Events++
	rq.setPath(PathEnqueue)
	rq.updateLoadAvg(now, se, updateTG|doAttach)
	rq.accountEnqueue(se)
	edge := rq.nrRunning == 1
	for c := rq; ; c = c.parent {
		p := c.parent
		if p == nil {
			c.updateCfsGroup(edge)
			return
		}
		flags := updateTG
		if edge {
			flags |= doAttach
		}
		p.updateLoadAvg(now, &c.gse, flags)
		c.updateCfsGroup(edge)
		if edge {
			p.accountEnqueue(&c.gse)
			edge = p.nrRunning == 1
		}
	}
}

// Dequeue is dequeue_task_fair() of a queued task of the group at now:
// update_load_avg(UPDATE_TG), with DO_DETACH when migrating (the task
// leaves while queued, as on load balancing; its load goes with it and
// its last_update_time is cleared for the attach at the destination),
// then the accounting, then update_cfs_group() of the group entity: from
// dequeue_entity() of the group entity when the cfs_rq is left empty
// (which patch 4 removes), from the second loop of dequeue_task_fair()
// otherwise.
//
// With ancestors, a group entity whose cfs_rq was left empty is dequeued
// from its parent by the first loop's dequeue_entity():
// update_load_avg(UPDATE_TG), the accounting, then update_cfs_group() (the
// read patch 4 removes); from the first level whose cfs_rq still has
// weight on, the second loop's update_load_avg(UPDATE_TG) and
// update_cfs_group().
func (rq *CfsRq) Dequeue(now int64, se *Entity, migrating bool) {
	rq.stats.Events++
	rq.updateRqClock(now)
	rq.setPath(PathDequeue)
	flags := updateTG
	if migrating {
		flags |= doDetach
	}
	rq.updateLoadAvg(now, se, flags)
	rq.accountDequeue(se)
	if migrating {
		se.avg.LastUpdateTime = 0 // migrate_task_rq_fair: "Tell new CPU we are migrated"
		se.cfsRq = nil
	}
	edge := rq.nrRunning == 0
	for c := rq; ; c = c.parent {
		p := c.parent
		if p == nil {
			c.updateCfsGroup(edge)
			return
		}
		p.updateLoadAvg(now, &c.gse, updateTG)
		if edge {
			p.accountDequeue(&c.gse)
		}
		c.updateCfsGroup(edge)
		edge = edge && p.nrRunning == 0
	}
}

// DelayDequeue is v6.12's delayed dequeue of a sleeping task of the group
// that is not eligible (152e11f6df29, "sched/fair: Implement delayed
// dequeue", v6.12): dequeue_entity() keeps it queued, sched_delayed,
//
//	if (sched_feat(DELAY_DEQUEUE) && delay &&
//	    !entity_eligible(cfs_rq, se)) {
//		...
//		update_load_avg(cfs_rq, se, 0);
//		se->sched_delayed = 1;
//		return false;
//	}
//
// and dequeue_entities() returns at once ("if (p && &p->se == se) return
// -1;"): one update_load_avg() without UPDATE_TG on this cfs_rq, no walk
// of the ancestors, no read. The entity stays accounted (its weight in
// load.weight) until RequeueDelayed wakes it or Dequeue takes it off when
// it is picked (pick_next_entity(): dequeue_entities(rq, se, DEQUEUE_SLEEP
// | DEQUEUE_DELAYED), the full dequeue).
func (rq *CfsRq) DelayDequeue(now int64, se *Entity) {
	rq.updateEntity(now, se, PathDequeue)
}

// RequeueDelayed is the wakeup of a delayed task (ttwu_runnable():
// enqueue_task(rq, p, ENQUEUE_NOCLOCK | ENQUEUE_DELAYED)), which
// enqueue_task_fair() ends early, v6.12:
//
//	if (flags & ENQUEUE_DELAYED) {
//		requeue_delayed_entity(se);
//		return;
//	}
//
// requeue_delayed_entity()'s update_load_avg(cfs_rq, se, 0), and nothing
// above: the entity never left.
func (rq *CfsRq) RequeueDelayed(now int64, se *Entity) {
	rq.updateEntity(now, se, PathEnqueue)
}

// updateEntity is one update_load_avg(cfs_rq, se, 0) on this cfs_rq for
// caller p: the sums brought to now, removed load drained, and no
// update_tg_load_avg() whatever decayed.
func (rq *CfsRq) updateEntity(now int64, se *Entity, p Path) {
	rq.updateRqClock(now)
	rq.stats.Events++
	rq.path = p
	rq.updateLoadAvg(now, se, 0)
}

// The context switch's updates (v6.1 and v6.12 fair.c): put_prev_entity()
// of the task leaving the CPU, then set_next_entity() of the one taking
// it, on each cfs_rq pick_next_task_fair() touches,
//
//	put_prev_entity():  if (prev->on_rq) { ... update_load_avg(cfs_rq, prev, 0); ... }
//	set_next_entity():  if (se->on_rq)   { ... update_load_avg(cfs_rq, se, UPDATE_TG); ... }
//
// Where both tasks are the group's, pick_next_task_fair()'s is_same_group()
// walk touches their common cfs_rq only (Switch); where the CPU comes to the
// group from another group's task or idle, set_next_task_fair() sets every
// level (SetNext), and where it leaves the group, put_prev_task_fair() puts
// every level (PutPrev). A task that blocked was dequeued first: its own
// put_prev_entity() does nothing then (on_rq 0; a 6.12 delayed task is
// still on_rq and is updated).

// Switch is the switch from prev to next, both queued here or just
// dequeued: put_prev_entity() and set_next_entity() on this cfs_rq alone.
func (rq *CfsRq) Switch(now int64, prev, next *Entity) {
	rq.updateRqClock(now)
	rq.path = PathSwitch
	if prev.onRq {
		rq.updateLoadAvg(now, prev, 0)
	}
	rq.updateLoadAvg(now, next, updateTG)
}

// SetNext is set_next_task_fair() of se, queued here: set_next_entity()
// on every level, the group entities on their parents.
func (rq *CfsRq) SetNext(now int64, se *Entity) {
	rq.updateRqClock(now)
	rq.setPath(PathSwitch)
	rq.updateLoadAvg(now, se, updateTG)
	for c := rq; c.parent != nil; c = c.parent {
		c.parent.updateLoadAvg(now, &c.gse, updateTG)
	}
}

// PutPrev is put_prev_task_fair() of prev, leaving the CPU to a task
// outside the group or to idle: put_prev_entity() on every level whose
// entity is still queued, none of which calls update_tg_load_avg().
func (rq *CfsRq) PutPrev(now int64, prev *Entity) {
	rq.updateRqClock(now)
	rq.setPath(PathSwitch)
	if prev.onRq {
		rq.updateLoadAvg(now, prev, 0)
	}
	for c := rq; c.parent != nil; c = c.parent {
		if c.gse.onRq {
			c.parent.updateLoadAvg(now, &c.gse, 0)
		}
	}
}

// Tick is entity_tick() on this CPU at now while se, a queued task of the
// group, is running: update_load_avg(UPDATE_TG) of se, which calls
// update_tg_load_avg() only if the cfs_rq's sums crossed a period boundary
// since the last event, then update_cfs_group() of the group entity, which
// patch 4 leaves alone: the periodic refresh of the group's weight. With
// ancestors, task_tick_fair() runs entity_tick() on every level: each
// group entity's update_load_avg(UPDATE_TG) on its parent, then its
// update_cfs_group().
func (rq *CfsRq) Tick(now int64, se *Entity) {
	rq.updateRqClock(now)
	rq.setPath(PathTick)
	rq.updateLoadAvg(now, se, updateTG)
	for c := rq; c != nil; c = c.parent {
		if c.parent != nil {
			c.parent.updateLoadAvg(now, &c.gse, updateTG)
		}
		c.updateCfsGroup(false)
	}
}

// UpdateBlocked is __update_blocked_fair() for this cfs_rq at now, what
// update_blocked_averages() does for a CPU that runs nothing of the group
// (the nohz idle balancer does it for idle CPUs every LOAD_AVG_PERIOD ms):
//
//	if (update_cfs_rq_load_avg(cfs_rq_clock_pelt(cfs_rq), cfs_rq)) {
//		update_tg_load_avg(cfs_rq);
//		...
//	}
//
// It drains removed load and decays the blocked load, and tells the group
// when either changed anything. With ancestors, the leaf list runs
// children before parents, and after each cfs_rq its group entity is
// updated on the parent unless it has neither load nor a pending
// propagation (skip_blocked_update()):
//
//	/* Propagate pending load changes to the parent, if any: */
//	se = cfs_rq->tg->se[cpu];
//	if (se && !skip_blocked_update(se))
//		update_load_avg(cfs_rq_of(se), se, UPDATE_TG);
//
// Under patch 3 a cfs_rq whose sums decayed also hands its delayed removed
// sum to the propagation ("if (cfs_rq->prop_removed_sum)
// add_tg_cfs_propagate(cfs_rq, 0)").
//
// The walk is over the leaf list, which holds only the cfs_rqs not yet
// fully decayed: after each cfs_rq (v6.1 and v6.12 alike),
//
//	/*
//	 * There can be a lot of idle CPU cgroups.  Don't let fully
//	 * decayed cfs_rqs linger on the list.
//	 */
//	if (cfs_rq_is_decayed(cfs_rq))
//		list_del_leaf_cfs_rq(cfs_rq);
//
// and a cfs_rq off the list is neither updated nor propagated from until
// enqueue_entity() puts it back (Enqueue). See isDecayed.
func (rq *CfsRq) UpdateBlocked(now int64) {
	rq.updateRqClock(now)
	for c := rq; c != nil; c = c.parent {
		if c.offList {
			c.stats.Skipped++
			continue
		}
		c.updateBlocked(now)
		if c.isDecayed(rq) {
			c.offList = true
			c.stats.Unlisted++
		}
	}
}

// updateBlocked is one cfs_rq's turn in __update_blocked_fair()'s walk.
func (rq *CfsRq) updateBlocked(now int64) {
	if rq.updateCfsRqLoadAvg(uint64(now)) {
		rq.path = PathBlocked
		rq.callUpdateTGLoadAvg(now)
		if rq.propRemovedSum != 0 {
			rq.addTgCfsPropagate(0)
		}
	}
	if rq.parent != nil && !rq.skipBlockedUpdate() {
		rq.parent.path = PathBlockedEntity
		rq.parent.updateLoadAvg(now, &rq.gse, updateTG)
	}
}

// isDecayed is cfs_rq_is_decayed() for rq, a level of leaf's path, as
// v6.1 and v6.12 have it (v6.12 moves the sums' test into
// load_avg_is_decayed(), unchanged):
//
//	if (cfs_rq->load.weight)
//		return false;
//	if (cfs_rq->avg.load_sum)
//		return false;
//	if (cfs_rq->avg.util_sum)
//		return false;
//	if (cfs_rq->avg.runnable_sum)
//		return false;
//	if (child_cfs_rq_on_list(cfs_rq))
//		return false;
//	return true;
//
// child_cfs_rq_on_list() is fdaba61ef8a2 ("sched/fair: Ensure that the CFS
// parent is added after unthrottling", v5.13); the SCHED_WARN_ON that
// the averages are 0 with the sums holds here by syncLoadSum. The model
// keeps load only: util_sum and runnable_sum stop growing when load_sum
// does (the cfs_rq's last entity leaves, its weight goes to 0) and decay
// alike from sums of the same scale (running or runnable time << 10,
// against time × the nice-0 weight 1024), so load_sum reaching 0 stands
// for all three. The model's hierarchy is one chain per CPU, so the child
// on the list can only be the level below rq on leaf's path.
func (rq *CfsRq) isDecayed(leaf *CfsRq) bool {
	if rq.weight != 0 || rq.avg.LoadSum != 0 {
		return false
	}
	for child := leaf; child != rq; child = child.parent {
		if child.parent == rq {
			return child.offList
		}
	}
	return true
}

// accountEnqueue is account_entity_enqueue(), with enqueue_entity()'s
// list_add_leaf_cfs_rq() of a cfs_rq that just got its first entity
// ("if (cfs_rq->nr_running == 1) { ... list_add_leaf_cfs_rq(cfs_rq);"):
// an enqueue walks up only while each level's first entity arrives, so
// every ancestor of a cfs_rq put back on the list is put back too, as
// enqueue_task_fair()'s closing loop makes sure in the kernel.
func (rq *CfsRq) accountEnqueue(se *Entity) {
	rq.weight += se.weight
	rq.nrRunning++
	se.onRq = true
	rq.offList = false
}

func (rq *CfsRq) accountDequeue(se *Entity) {
	rq.weight -= se.weight
	rq.nrRunning--
	se.onRq = false
}

// updateLoadAvg is update_load_avg(cfs_rq, se, flags) as of v6.5:
//
//	if (se->avg.last_update_time && !(flags & SKIP_AGE_LOAD))
//		__update_load_avg_se(now, cfs_rq, se);
//	decayed  = update_cfs_rq_load_avg(now, cfs_rq);
//	decayed |= propagate_entity_load_avg(se);
//	if (!se->avg.last_update_time && (flags & DO_ATTACH)) {
//		attach_entity_load_avg(cfs_rq, se);
//		update_tg_load_avg(cfs_rq);
//	} else if (flags & DO_DETACH) {
//		detach_entity_load_avg(cfs_rq, se);
//		update_tg_load_avg(cfs_rq);
//	} else if (decayed) {
//		cfs_rq_util_change(cfs_rq, 0);
//		if (flags & UPDATE_TG)
//			update_tg_load_avg(cfs_rq);
//	}
//
// so update_tg_load_avg() runs on attach, on detach, when the cfs_rq's sums
// crossed a period boundary, when removed load was drained (unless patch
// 3), and when se is a group entity whose cfs_rq had load to propagate.
// propagate_entity_load_avg() of a task's entity is 0.
func (rq *CfsRq) updateLoadAvg(now int64, se *Entity, flags int) {
	if se.avg.LastUpdateTime != 0 {
		se.updateLoadAvgSe(uint64(now))
	}
	decayed := rq.updateCfsRqLoadAvg(uint64(now))
	if se.my != nil && rq.propagateEntityLoadAvg(se) {
		decayed = true
	}
	switch {
	case se.avg.LastUpdateTime == 0 && flags&doAttach != 0:
		rq.attachEntityLoadAvg(se)
		rq.stats.Attaches++
		rq.stats.AttachedLoad += se.avg.LoadAvg
		rq.callUpdateTGLoadAvg(now)
	case flags&doDetach != 0:
		rq.detachEntityLoadAvg(se)
		rq.stats.Detaches++
		rq.stats.DetachedLoad += se.avg.LoadAvg
		rq.callUpdateTGLoadAvg(now)
	case decayed && flags&updateTG != 0:
		rq.callUpdateTGLoadAvg(now)
	}
}

// updateCfsRqLoadAvg is update_cfs_rq_load_avg(), load only:
//
//	if (cfs_rq->removed.nr) {
//		raw_spin_lock(&cfs_rq->removed.lock);
//		swap(cfs_rq->removed.load_avg, removed_load); ...
//		cfs_rq->removed.nr = 0;
//		raw_spin_unlock(&cfs_rq->removed.lock);
//		sub_positive(&sa->load_avg, r);
//		sub_positive(&sa->load_sum, r * divider);
//		sa->load_sum = max_t(u32, sa->load_sum, sa->load_avg * PELT_MIN_DIVIDER);
//		...
//		decayed = 1;
//	}
//	decayed |= __update_load_avg_cfs_rq(now, cfs_rq);
//
// Patch 3 drops the "decayed = 1" of the removed branch: the drained load
// leaves avg.load_avg at once but reaches tg->load_avg only with the next
// attach, detach or period crossing.
func (rq *CfsRq) updateCfsRqLoadAvg(now uint64) bool {
	decayed := false
	if rq.removed.Count() != 0 {
		divider := rq.avg.Divider()
		rq.removed.Lock()
		r, run := rq.removed.load, rq.removed.runnable
		rq.removed.load, rq.removed.runnable = 0, 0
		rq.removed.Unlock(0)
		subPositive(&rq.avg.LoadAvg, r)
		subPositive(&rq.avg.LoadSum, r*divider)
		rq.avg.LoadSum = syncLoadSum(rq.avg.LoadSum, rq.avg.LoadAvg)
		rq.stats.Removed++
		rq.stats.RemovedLoad += r
		// add_tg_cfs_propagate(cfs_rq, -(long)(removed_runnable *
		// divider) >> SCHED_CAPACITY_SHIFT), which patch 3 keeps in
		// prop_removed_sum until the next propagation.
		prop := -int64(run*divider) >> ksim.SchedFixedpointShift
		if rq.write == WriteDelay {
			rq.stats.Delayed++
			rq.propRemovedSum += prop
		} else {
			decayed = true
			if rq.parent != nil {
				rq.addTgCfsPropagate(prop)
			}
		}
	}
	// __update_load_avg_cfs_rq(): the sum grows by the queued weight.
	last := rq.avg.LastUpdateTime
	if rq.avg.UpdateLoadSum(now, rq.weight) {
		rq.avg.UpdateLoadAvg(1)
		rq.stats.Decays++
		decayed = true
	}
	if rq.publish && rq.avg.LastUpdateTime != last {
		rq.lastUpdatePub.Store(rq.avg.LastUpdateTime)
	}
	return decayed
}

// subPositive is fair.c's sub_positive(): subtract, clamping at zero.
func subPositive(x *uint64, y uint64) {
	if *x > y {
		*x -= y
	} else {
		*x = 0
	}
}

// syncLoadSum is "load_sum = max_t(u32, load_sum, load_avg *
// PELT_MIN_DIVIDER)". max_t(u32) compares (and keeps) the low 32 bits, as
// the kernel does; a cfs_rq's load_sum stays far below 2^32 unless its
// queued weight passes 89000, about 87 nice-0 tasks at once.
func syncLoadSum(sum, avg uint64) uint64 {
	return uint64(max(uint32(sum), uint32(avg*ksim.PeltMinDivider)))
}

// attachEntityLoadAvg is attach_entity_load_avg(), load only: the entity
// takes the cfs_rq's clock and period, its sum is rebuilt from its average,
// and both are added to the cfs_rq's (enqueue_load_avg).
func (rq *CfsRq) attachEntityLoadAvg(se *Entity) {
	divider := rq.avg.Divider()
	se.avg.LastUpdateTime = rq.avg.LastUpdateTime
	se.avg.PeriodContrib = rq.avg.PeriodContrib
	se.avg.LoadSum = se.avg.LoadAvg * divider
	if se.weight < se.avg.LoadSum {
		se.avg.LoadSum /= se.weight
	} else {
		se.avg.LoadSum = 1
	}
	rq.enqueueLoadAvg(se)
	se.cfsRq = rq
	if rq.parent != nil {
		rq.addTgCfsPropagate(int64(se.avg.LoadSum))
	}
}

// detachEntityLoadAvg is detach_entity_load_avg(), load only:
// dequeue_load_avg() and add_tg_cfs_propagate(cfs_rq, -se->avg.load_sum).
func (rq *CfsRq) detachEntityLoadAvg(se *Entity) {
	rq.dequeueLoadAvg(se)
	if rq.parent != nil {
		rq.addTgCfsPropagate(-int64(se.avg.LoadSum))
	}
}

// enqueueLoadAvg is enqueue_load_avg().
func (rq *CfsRq) enqueueLoadAvg(se *Entity) {
	rq.avg.LoadAvg += se.avg.LoadAvg
	rq.avg.LoadSum += se.weight * se.avg.LoadSum
}

// dequeueLoadAvg is dequeue_load_avg().
func (rq *CfsRq) dequeueLoadAvg(se *Entity) {
	subPositive(&rq.avg.LoadAvg, se.avg.LoadAvg)
	subPositive(&rq.avg.LoadSum, se.weight*se.avg.LoadSum)
	rq.avg.LoadSum = syncLoadSum(rq.avg.LoadSum, rq.avg.LoadAvg)
}

// RemoveEntityLoadAvg is what a remote CPU does when it wakes se, asleep
// on this cfs_rq, somewhere else: migrate_task_rq_fair() →
// remove_entity_load_avg() syncs the entity's average to the cfs_rq's
// clock (its load decayed while it slept), adds it to cfs_rq->removed
// under the removed lock, and clears the entity's last_update_time so that
// the destination attaches it. The cfs_rq's owner subtracts the load at its
// next update. It may be called from any goroutine that owns se; it
// returns the load handed over.
func RemoveEntityLoadAvg(se *Entity) uint64 {
	rq := se.cfsRq
	// sync_entity_load_avg(): __update_load_avg_blocked_se(last_update, se).
	if se.avg.UpdateLoadSum(rq.lastUpdatePub.Load(), 0) {
		se.avg.UpdateLoadAvg(se.weight)
	}
	load := se.avg.LoadAvg
	// runnable_avg, which PELT keeps beside load_avg for the parent's
	// estimate; for a task it is load_avg at weight 1024 (exactly so at
	// nice 0, the model's tasks, up to its own rounding).
	runnable := load << ksim.SchedFixedpointShift / se.weight
	nr := rq.removed.Lock()
	rq.removed.load += load
	rq.removed.runnable += runnable
	rq.removed.Unlock(nr + 1)
	se.avg.LastUpdateTime = 0
	se.cfsRq = nil
	return load
}

// callUpdateTGLoadAvg calls the write path, timing it when asked to.
func (rq *CfsRq) callUpdateTGLoadAvg(now int64) {
	if rq.timer == nil {
		rq.updateTGLoadAvg(now)
		return
	}
	t := rq.timer()
	rq.updateTGLoadAvg(now)
	rq.writeNs += rq.timer() - t
}

// updateTGLoadAvg is update_tg_load_avg() under the configured policy,
// kept out of line under the kernel's name so that perf annotate shows the
// cost of the shared write here, where the kernel's profile shows it. The
// kernel, with the merged rate limit:
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
// threshold turns away does not restart the period. write=every,
// write=threshold=N and write=delay are the same without the time test
// (patch 3 changes the caller, not this function). It reports whether it
// wrote.
//
//go:noinline
func (rq *CfsRq) updateTGLoadAvg(now int64) bool {
	rq.stats.Updates++
	rq.stats.Paths[rq.path].Updates++
	if rq.write == WriteRateLimit {
		rq.readClock()
	}
	if rq.write == WriteRateLimit && now-rq.lastUpdate < rq.period {
		rq.stats.Limited++
		return false
	}
	loadAvg := int64(rq.avg.LoadAvg)
	delta := loadAvg - rq.contrib
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
	rq.contrib = loadAvg
	rq.lastUpdate = now
	rq.stats.Writes++
	rq.stats.Paths[rq.path].Writes++
	return true
}

// updateCfsGroup is update_cfs_group() of the group entity. groupEdge says
// it is called from enqueue_entity() or dequeue_entity() of the group
// entity itself (the cfs_rq went from empty to not or back), the two
// places patch 4 drops it; the kernel then recomputes the entity's weight
// with calc_group_shares() and reweights it.
func (rq *CfsRq) updateCfsGroup(groupEdge bool) {
	switch rq.read {
	case ReadSkip:
		if groupEdge {
			return
		}
	case ReadOneIn:
		if rq.oneInCnt > 0 {
			rq.oneInCnt--
			return
		}
		rq.oneInCnt = rq.oneInK - 1
	}
	rq.stats.Reads++
	if rq.timer == nil {
		rq.shares = rq.calcGroupShares()
	} else {
		t := rq.timer()
		rq.shares = rq.calcGroupShares()
		rq.readNs += rq.timer() - t
	}
	if rq.parent != nil {
		rq.reweightEntity(rq.shares)
	}
}

// calcGroupShares is calc_group_shares(): read tg->shares (the read-mostly
// word, on the counter's line for FalseShare) and tg->load_avg (one atomic
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
		rq.tgShares = rq.rm.Load()
		tgLoad = rq.hot.Load()
	case StorePerNode:
		rq.tgShares = rq.rm.Load()
		tgLoad = rq.pn.Sum()
	case StorePerCPU:
		rq.tgShares = rq.rm.Load()
		tgLoad = rq.pc.Sum()
	default:
		rq.tgShares = rq.store.ReadMostly()
		tgLoad = rq.store.Sum()
	}
	return CalcGroupShares(rq.tgShares, tgLoad, rq.contrib, ksim.ScaleLoad(int64(rq.weight)), int64(rq.avg.LoadAvg))
}

// Time makes the next event time its write and read paths with clock
// (nanoseconds), on this cfs_rq and its ancestors; PathTime returns what
// they took and stops timing. The caller times one event in many (a
// ktime.Share), so the clock reads stay off the others.
func (rq *CfsRq) Time(clock func() int64) {
	for c := rq; c != nil; c = c.parent {
		c.timer = clock
	}
}

// PathTime returns the nanoseconds the timed event spent in
// update_tg_load_avg and in calc_group_shares, every level's calls
// summed, and stops timing.
func (rq *CfsRq) PathTime() (write, read int64) {
	for c := rq; c != nil; c = c.parent {
		write += c.writeNs
		read += c.readNs
		c.writeNs, c.readNs, c.timer = 0, 0, nil
	}
	return write, read
}

// Flush pushes whatever the cfs_rq has not pushed, whatever the policy (as
// the kernel's update_blocked_averages eventually does for a delayed or
// rate-limited cfs_rq), and returns it. After every CfsRq of a group has
// flushed and nothing else runs, the store's Sum equals the sum of their
// loads. Flush's write is not counted in Stats.
func (rq *CfsRq) Flush() int64 {
	delta := int64(rq.avg.LoadAvg) - rq.contrib
	if delta == 0 {
		return 0
	}
	if rq.hot != nil {
		rq.hot.Add(delta)
	} else {
		rq.store.AddAt(rq.cpu, rq.node, delta)
	}
	rq.contrib = int64(rq.avg.LoadAvg)
	return delta
}

// ResetStats zeroes the counts, after a run's setup.
func (rq *CfsRq) ResetStats() { rq.stats = Stats{} }

// Load returns avg.load_avg, the cfs_rq's load as its owner knows it
// (removed load counts until the owner drains it).
func (rq *CfsRq) Load() int64 { return int64(rq.avg.LoadAvg) }

// Avg returns the cfs_rq's PELT state.
func (rq *CfsRq) Avg() ksim.SchedAvg { return rq.avg }

// RemovedLoad returns the load other CPUs have put in cfs_rq->removed and
// the owner has not drained yet. Any goroutine may call it (after
// synchronising with the owner, for a cfs_rq's ancestors).
func (rq *CfsRq) RemovedLoad() uint64 {
	nr := rq.removed.Lock()
	defer rq.removed.Unlock(nr)
	return rq.removed.load
}

// Contrib returns tg_load_avg_contrib, what the store holds for this cfs_rq.
func (rq *CfsRq) Contrib() int64 { return rq.contrib }

// Pending returns Load - Contrib: what the policies have held back. Summed
// over a group's CfsRqs and added to the store's Sum, it gives the sum of
// their loads exactly.
func (rq *CfsRq) Pending() int64 { return int64(rq.avg.LoadAvg) - rq.contrib }

// Weight returns load.weight, scaled: the queued tasks' weights.
func (rq *CfsRq) Weight() int64 { return ksim.ScaleLoad(int64(rq.weight)) }

// NrRunning returns the number of queued tasks.
func (rq *CfsRq) NrRunning() int { return rq.nrRunning }

// TGShares returns tg->shares as the last read saw it.
func (rq *CfsRq) TGShares() int64 { return rq.tgShares }

// Shares returns the group entity's weight from the last read.
func (rq *CfsRq) Shares() int64 { return rq.shares }

// Stats returns what the cfs_rq has done so far.
func (rq *CfsRq) Stats() Stats { return rq.stats }
