package cfsmodel

import (
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/counter"
	"slices"
)

// The workload model: the group's tasks waking and sleeping on the CPUs,
// one event (an enqueue or a dequeue) per CPU every gap of kernel time,
// with wakeups that migrate handing the task's load from one cfs_rq to
// another the way the kernel does. A CPU is one CPU's part of it; the
// scenario's workers and the single-threaded simulation run the same code.

const (
	// maxVictims is how many other CPUs a migrating wakeup looks at for a
	// sleeping task before it gives up: the wakeup path's search is
	// bounded the same way (SIS_UTIL cuts select_idle_cpu() to a handful
	// of CPUs on a busy LLC).
	maxVictims = 4
	// ClockBase is where every CPU's model clock starts: well past 0,
	// which PELT reserves for "migrated, attach me", and past the
	// first rate-limit period.
	ClockBase = 1 << 32
	// Nice0Load is the weight of the group's tasks: postgres, its clients
	// and netperf run at nice 0.
	Nice0Load = ksim.Nice0LoadDown
	// MaxWeight is the heaviest task the model takes, nice -10
	// (sched_prio_to_weight): packPair packs 64 of them in 31 bits.
	MaxWeight = 9548
)

// Task is one task of the group, padded so that no two tasks, which move
// between CPUs, share a line pair.
type Task struct {
	_  [bench.LinePad]byte
	SE counter.Entity
	ID int
	_  [bench.LinePad]byte
}

// A SleeperQueue holds the tasks asleep on one CPU whose next wakeup will be on
// another CPU, their load still attached to this CPU's cfs_rq, behind a
// spinlock: other CPUs take them to wake them there (the kernel's
// try_to_wake_up() takes the task's pi_lock and the run queues' locks;
// this is the one lock the model needs). The lock, whose word carries the
// number of tasks so that a waker looks at it without the lock, and the
// slice header share a line that the sleeping CPU and every waker write.
type SleeperQueue struct {
	_     [bench.LinePad]byte
	lock  counter.CountedLock
	Tasks []*Task
	_     [bench.LinePad]byte
}

func (s *SleeperQueue) push(t *Task) {
	s.lock.Lock()
	s.Tasks = append(s.Tasks, t)
	s.lock.Unlock(uint64(len(s.Tasks)))
}

// pop takes the task at r mod the count (r random), or nil. An empty list
// is seen without taking the lock, as the kernel's wakeup path looks at
// another CPU's state before it locks anything.
func (s *SleeperQueue) pop(r uint64) *Task {
	if s.lock.Count() == 0 {
		return nil
	}
	s.lock.Lock()
	n := len(s.Tasks)
	if n == 0 {
		s.lock.Unlock(0)
		return nil
	}
	i := pickIndex(r, n)
	t := s.Tasks[i]
	s.Tasks[i] = s.Tasks[n-1]
	s.Tasks[n-1] = nil
	s.Tasks = s.Tasks[:n-1]
	s.lock.Unlock(uint64(n - 1))
	return t
}

// CPU is one CPU of the model: its cfs_rq of the group, its clock in
// kernel time, its queued tasks (runnable here), and its sleepers, blocked
// with their load attached here: those that will wake here (local, this
// CPU's alone) and those that will wake on another CPU (away, which other
// CPUs take). A CPU belongs to one goroutine; its away list is shared.
type CPU struct {
	RQ    *counter.CfsRq
	Clock ksim.Clock
	Gap   int64 // kernel time per event, ns
	tick  int64 // TICK_NSEC
	// blockedEvery is how often an idle CPU's blocked load is updated,
	// the nohz idle balancer's cadence (ksim.NohzBlockedEvery: 32 ms).
	blockedEvery int64
	Next         int64 // the next tick
	Blocked      int64 // the next blocked-load update while idle
	rng          uint64
	MigAt        uint64 // a wakeup takes another CPU's sleeper when 32 random bits fall below this
	Self         int
	Tasks        int // the tasks this CPU started with
	Queued       []*Task
	Local        []*Task         // asleep, will wake here
	Away         *SleeperQueue   // asleep, will wake elsewhere
	peers        []*SleeperQueue // every CPU's away list, this one's included

	// Counts, besides the cfs_rq's own (a wakeup of a task that slept on
	// another CPU is its Stats().Attaches).
	Wakeups int64
	// LocalWakeups are the wakeups onto the waking task's own CPU
	// (schedstat's nr_wakeups_local: task_cpu(p) == this_rq()->cpu).
	LocalWakeups int64
	Moved        int64 // load handed over by wakeups of tasks that slept on another CPU
	Idle         int64 // events with nothing to do
}

// Init sets the CPU up: its clock at ClockBase plus a phase, so that
// CPUs cross PELT periods and ticks at different instants, and tasks
// tasks of its own, of the given weight (unscaled), each queued or asleep
// (here) with probability 1/2 and carrying load_avg weight/2, about what PELT holds for a task runnable
// half the time. rq is the leaf of the CPU's cfs_rqs: with ancestors, each
// group entity is attached to its parent with the weight a group spread
// evenly over the CPUs gets (GroupShares), which the first read
// corrects. The seeded load of every level is pushed into its group
// before the run starts.
func (c *CPU) Init(rq *counter.CfsRq, self int, peers []*SleeperQueue, tasks, mig int, weight uint64, gap int64, hz ksim.HZ, seed uint64) error {
	tick := hz.TickNs()
	c.RQ, c.Self, c.peers, c.Away, c.Gap, c.tick, c.Tasks = rq, self, peers, peers[self], gap, tick, tasks
	c.blockedEvery = ksim.NohzBlockedEvery(hz)
	c.rng = seed
	c.MigAt = uint64(mig) << 32 / 100
	c.Clock.Set(ClockBase + int64(NextRand(&c.rng)%ksim.PeltPeriod))
	c.Next = ClockBase + int64(NextRand(&c.rng)%uint64(tick))
	rq.Init(c.Clock.Now())
	// Room for every task of the group in each list, so that the hot
	// loop never allocates.
	all := tasks * len(peers)
	c.Queued, c.Local = make([]*Task, 0, all), make([]*Task, 0, all)
	c.Away.Tasks = make([]*Task, 0, all)
	for i := range tasks {
		t := &Task{ID: self<<16 | i}
		if err := t.SE.Init(weight); err != nil {
			return err
		}
		queued := NextRand(&c.rng)&1 == 0
		rq.Seed(&t.SE, weight/2, queued)
		if queued {
			c.Queued = append(c.Queued, t)
		} else {
			c.Local = append(c.Local, t)
		}
	}
	rq.SeedGroups(GroupShares(rq.TGShares(), len(peers)))
	for l := rq; l != nil; l = l.Parent() {
		l.Flush()
		l.ResetStats()
	}
	return nil
}

// GroupShares is the weight a group entity of a group of tg->shares
// tgShares gets when the group's load is spread evenly over n CPUs:
// calc_group_shares() gives tg_shares × load / tg_weight, a share of 1/n.
func GroupShares(tgShares int64, n int) int64 {
	return max(tgShares/int64(n), counter.MinShares)
}

// Event is one event on this CPU at its next instant of kernel time. The
// tick goes first if one fell due since the last event. Then, with even
// odds, a queued task goes to sleep here, or a task wakes up here. A task
// going to sleep draws where its next wakeup will be: with probability mig%
// on another CPU (it joins this CPU's away list, its load still here,
// blocked and decaying), else here. A wakeup here takes one of this CPU's
// own sleepers, or (with probability mig%, or when it has none) a task
// from another CPU's away list, whose load is first removed from that
// CPU's cfs_rq (the kernel's remove_entity_load_avg(), a locked write to
// its cfs_rq->removed) and then attached here; an idle CPU thus draws
// wakeups, as the kernel sends them to idle CPUs, and when no other CPU
// has woken its away sleepers it wakes one itself, as the kernel's
// select_idle_sibling() keeps a task on its previous CPU when that is
// idle. A CPU with nothing to do idles, and its blocked load is updated
// now and then. It reports whether the CPU ran an en/dequeue (false: the
// slot was idle).
func (c *CPU) Event() bool {
	now := c.Clock.Advance(c.Gap)
	if now >= c.Next {
		// The tick finds a task of the group running if one is queued
		// (else the CPU runs something else, or idles with the tick
		// stopped).
		if len(c.Queued) > 0 {
			c.RQ.Tick(c.Next, &c.Queued[0].SE)
		}
		for c.Next <= now {
			c.Next += c.tick
		}
	}
	r := NextRand(&c.rng)
	if nq := len(c.Queued); nq > 0 && r&1 == 0 {
		c.sleep(r, nq)
		return true
	}
	var t *Task
	nl := len(c.Local)
	if nl == 0 || r>>32 < c.MigAt {
		if t = c.steal(); t != nil {
			c.Moved += int64(counter.RemoveEntityLoadAvg(&t.SE))
		}
	}
	if t == nil && nl > 0 {
		i := pickIndex(r, nl)
		t = c.Local[i]
		c.Local[i] = c.Local[nl-1]
		c.Local[nl-1] = nil
		c.Local = c.Local[:nl-1]
	}
	if t == nil && len(c.Queued) == 0 {
		// Idle, and no other CPU has woken this CPU's away sleepers:
		// the wakeup path picks the previous CPU when it is idle
		// (select_idle_sibling() checks prev first), so one wakes here.
		t = c.Away.pop(r)
	}
	switch {
	case t != nil:
		c.RQ.Enqueue(now, &t.SE)
		c.Queued = append(c.Queued, t)
		c.Wakeups++
	case len(c.Queued) > 0:
		c.sleep(r, len(c.Queued))
	default:
		c.Idle++
		if now >= c.Blocked {
			c.RQ.UpdateBlocked(now)
			c.Blocked = now + c.blockedEvery
		}
		return false
	}
	return true
}

// sleep dequeues one of the nq queued tasks (picked by r) and puts it
// among this CPU's sleepers, away with probability mig%.
func (c *CPU) sleep(r uint64, nq int) {
	i := pickIndex(r, nq)
	t := c.Queued[i]
	c.Queued[i] = c.Queued[nq-1]
	c.Queued[nq-1] = nil
	c.Queued = c.Queued[:nq-1]
	c.RQ.Dequeue(c.Clock.Now(), &t.SE, false)
	if len(c.peers) > 1 && NextRand(&c.rng)>>32 < c.MigAt {
		c.Away.push(t)
	} else {
		c.Local = append(c.Local, t)
	}
}

// steal takes a task from another CPU's away list, looking at up to
// maxVictims other CPUs, distinct, from a random one on, or returns nil.
func (c *CPU) steal() *Task {
	others := len(c.peers) - 1
	if others < 1 {
		return nil
	}
	r := NextRand(&c.rng)
	v := int(r % uint64(others))
	for range min(maxVictims, others) {
		p := v
		if p >= c.Self {
			p++
		}
		if t := c.peers[p].pop(r >> 32); t != nil {
			return t
		}
		if v++; v == others {
			v = 0
		}
	}
	return nil
}

// pickIndex maps bits 1-31 of r onto [0, n) by multiplication, so no task is
// favoured.
func pickIndex(r uint64, n int) int {
	return int((r >> 1 & (1<<31 - 1)) * uint64(n) >> 31)
}

// CPUSeed is splitmix64 of the CPU's index and a run seed: a distinct,
// non-zero xorshift state per CPU.
func CPUSeed(index int, seed uint64) uint64 {
	z := (uint64(index+1) + seed*0x632be59bd9b4e019) * 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	if z == 0 {
		z = 1
	}
	return z
}

// NextRand is xorshift64*.
func NextRand(x *uint64) uint64 { return bench.XorShift(x) }

// Remove takes x out of the list xs, order kept: a task off a CPU's list.
func Remove[T comparable](xs *[]T, x T) {
	if i := slices.Index(*xs, x); i >= 0 {
		*xs = slices.Delete(*xs, i, i+1)
	}
}
