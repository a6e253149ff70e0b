package loadavg

import (
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/counter"
)

// The workload model: the group's tasks waking and sleeping on the CPUs,
// one event (an enqueue or a dequeue) per CPU every gap of kernel time,
// with wakeups that migrate handing the task's load from one cfs_rq to
// another the way the kernel does. A modelCPU is one CPU's part of it; the
// scenario's workers and the single-threaded simulation run the same code.

const (
	// maxVictims is how many other CPUs a migrating wakeup looks at for a
	// sleeping task before it gives up: the wakeup path's search is
	// bounded the same way (SIS_UTIL cuts select_idle_cpu() to a handful
	// of CPUs on a busy LLC).
	maxVictims = 4
	// clockBase is where every CPU's model clock starts: well past 0,
	// which PELT reserves for "migrated, attach me", and past the
	// first rate-limit period.
	clockBase = 1 << 32
	// nice0Load is the weight of the group's tasks: postgres, its clients
	// and netperf run at nice 0.
	nice0Load = ksim.Nice0LoadDown
	// maxWeight is the heaviest task the model takes, nice -10
	// (sched_prio_to_weight): packPair packs 64 of them in 31 bits.
	maxWeight = 9548
)

// modelTask is one task of the group, padded so that no two tasks, which move
// between CPUs, share a line pair.
type modelTask struct {
	_  [bench.LinePad]byte
	se counter.Entity
	id int
	_  [bench.LinePad]byte
}

// A sleeperQueue holds the tasks asleep on one CPU whose next wakeup will be on
// another CPU, their load still attached to this CPU's cfs_rq, behind a
// spinlock: other CPUs take them to wake them there (the kernel's
// try_to_wake_up() takes the task's pi_lock and the run queues' locks;
// this is the one lock the model needs). The lock, whose word carries the
// number of tasks so that a waker looks at it without the lock, and the
// slice header share a line that the sleeping CPU and every waker write.
type sleeperQueue struct {
	_     [bench.LinePad]byte
	lock  counter.CountedLock
	tasks []*modelTask
	_     [bench.LinePad]byte
}

func (s *sleeperQueue) push(t *modelTask) {
	s.lock.Lock()
	s.tasks = append(s.tasks, t)
	s.lock.Unlock(uint64(len(s.tasks)))
}

// pop takes the task at r mod the count (r random), or nil. An empty list
// is seen without taking the lock, as the kernel's wakeup path looks at
// another CPU's state before it locks anything.
func (s *sleeperQueue) pop(r uint64) *modelTask {
	if s.lock.Count() == 0 {
		return nil
	}
	s.lock.Lock()
	n := len(s.tasks)
	if n == 0 {
		s.lock.Unlock(0)
		return nil
	}
	i := pickIndex(r, n)
	t := s.tasks[i]
	s.tasks[i] = s.tasks[n-1]
	s.tasks[n-1] = nil
	s.tasks = s.tasks[:n-1]
	s.lock.Unlock(uint64(n - 1))
	return t
}

// modelCPU is one CPU of the model: its cfs_rq of the group, its clock in
// kernel time, its queued tasks (runnable here), and its sleepers, blocked
// with their load attached here: those that will wake here (local, this
// CPU's alone) and those that will wake on another CPU (away, which other
// CPUs take). A modelCPU belongs to one goroutine; its away list is shared.
type modelCPU struct {
	rq    *counter.CfsRq
	clock ksim.Clock
	gap   int64 // kernel time per event, ns
	tick  int64 // TICK_NSEC
	// blockedEvery is how often an idle CPU's blocked load is updated,
	// the nohz idle balancer's cadence (ksim.NohzBlockedEvery: 32 ms).
	blockedEvery int64
	next         int64 // the next tick
	blocked      int64 // the next blocked-load update while idle
	rng          uint64
	migAt        uint64 // a wakeup takes another CPU's sleeper when 32 random bits fall below this
	self         int
	tasks        int // the tasks this CPU started with
	queued       []*modelTask
	local        []*modelTask    // asleep, will wake here
	away         *sleeperQueue   // asleep, will wake elsewhere
	peers        []*sleeperQueue // every CPU's away list, this one's included

	// Counts, besides the cfs_rq's own (a wakeup of a task that slept on
	// another CPU is its Stats().Attaches).
	wakeups int64
	moved   int64 // load handed over by wakeups of tasks that slept on another CPU
	idle    int64 // events with nothing to do
}

// init sets the CPU up: its clock at clockBase plus a phase, so that
// CPUs cross PELT periods and ticks at different instants, and tasks
// tasks of its own, of the given weight (unscaled), each queued or asleep
// (here) with probability 1/2 and carrying load_avg weight/2, about what PELT holds for a task runnable
// half the time. rq is the leaf of the CPU's cfs_rqs: with ancestors, each
// group entity is attached to its parent with the weight a group spread
// evenly over the CPUs gets (groupShares), which the first read
// corrects. The seeded load of every level is pushed into its group
// before the run starts.
func (c *modelCPU) init(rq *counter.CfsRq, self int, peers []*sleeperQueue, tasks, mig int, weight uint64, gap int64, hz ksim.HZ, seed uint64) error {
	tick := hz.TickNs()
	c.rq, c.self, c.peers, c.away, c.gap, c.tick, c.tasks = rq, self, peers, peers[self], gap, tick, tasks
	c.blockedEvery = ksim.NohzBlockedEvery(hz)
	c.rng = seed
	c.migAt = uint64(mig) << 32 / 100
	c.clock.Set(clockBase + int64(nextRand(&c.rng)%ksim.PeltPeriod))
	c.next = clockBase + int64(nextRand(&c.rng)%uint64(tick))
	rq.Init(c.clock.Now())
	// Room for every task of the group in each list, so that the hot
	// loop never allocates.
	all := tasks * len(peers)
	c.queued, c.local = make([]*modelTask, 0, all), make([]*modelTask, 0, all)
	c.away.tasks = make([]*modelTask, 0, all)
	for i := range tasks {
		t := &modelTask{id: self<<16 | i}
		if err := t.se.Init(weight); err != nil {
			return err
		}
		queued := nextRand(&c.rng)&1 == 0
		rq.Seed(&t.se, weight/2, queued)
		if queued {
			c.queued = append(c.queued, t)
		} else {
			c.local = append(c.local, t)
		}
	}
	rq.SeedGroups(groupShares(rq.TGShares(), len(peers)))
	for l := rq; l != nil; l = l.Parent() {
		l.Flush()
		l.ResetStats()
	}
	return nil
}

// groupShares is the weight a group entity of a group of tg->shares
// tgShares gets when the group's load is spread evenly over n CPUs:
// calc_group_shares() gives tg_shares × load / tg_weight, a share of 1/n.
func groupShares(tgShares int64, n int) int64 {
	return max(tgShares/int64(n), counter.MinShares)
}

// event is one event on this CPU at its next instant of kernel time. The
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
func (c *modelCPU) event() bool {
	now := c.clock.Advance(c.gap)
	if now >= c.next {
		// The tick finds a task of the group running if one is queued
		// (else the CPU runs something else, or idles with the tick
		// stopped).
		if len(c.queued) > 0 {
			c.rq.Tick(c.next, &c.queued[0].se)
		}
		for c.next <= now {
			c.next += c.tick
		}
	}
	r := nextRand(&c.rng)
	if nq := len(c.queued); nq > 0 && r&1 == 0 {
		c.sleep(r, nq)
		return true
	}
	var t *modelTask
	nl := len(c.local)
	if nl == 0 || r>>32 < c.migAt {
		if t = c.steal(); t != nil {
			c.moved += int64(counter.RemoveEntityLoadAvg(&t.se))
		}
	}
	if t == nil && nl > 0 {
		i := pickIndex(r, nl)
		t = c.local[i]
		c.local[i] = c.local[nl-1]
		c.local[nl-1] = nil
		c.local = c.local[:nl-1]
	}
	if t == nil && len(c.queued) == 0 {
		// Idle, and no other CPU has woken this CPU's away sleepers:
		// the wakeup path picks the previous CPU when it is idle
		// (select_idle_sibling() checks prev first), so one wakes here.
		t = c.away.pop(r)
	}
	switch {
	case t != nil:
		c.rq.Enqueue(now, &t.se)
		c.queued = append(c.queued, t)
		c.wakeups++
	case len(c.queued) > 0:
		c.sleep(r, len(c.queued))
	default:
		c.idle++
		if now >= c.blocked {
			c.rq.UpdateBlocked(now)
			c.blocked = now + c.blockedEvery
		}
		return false
	}
	return true
}

// sleep dequeues one of the nq queued tasks (picked by r) and puts it
// among this CPU's sleepers, away with probability mig%.
func (c *modelCPU) sleep(r uint64, nq int) {
	i := pickIndex(r, nq)
	t := c.queued[i]
	c.queued[i] = c.queued[nq-1]
	c.queued[nq-1] = nil
	c.queued = c.queued[:nq-1]
	c.rq.Dequeue(c.clock.Now(), &t.se, false)
	if len(c.peers) > 1 && nextRand(&c.rng)>>32 < c.migAt {
		c.away.push(t)
	} else {
		c.local = append(c.local, t)
	}
}

// steal takes a task from another CPU's away list, looking at up to
// maxVictims other CPUs, distinct, from a random one on, or returns nil.
func (c *modelCPU) steal() *modelTask {
	others := len(c.peers) - 1
	if others < 1 {
		return nil
	}
	r := nextRand(&c.rng)
	v := int(r % uint64(others))
	for range min(maxVictims, others) {
		p := v
		if p >= c.self {
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

// cpuSeed is splitmix64 of the CPU's index and a run seed: a distinct,
// non-zero xorshift state per CPU.
func cpuSeed(index int, seed uint64) uint64 {
	z := (uint64(index+1) + seed*0x632be59bd9b4e019) * 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	if z == 0 {
		z = 1
	}
	return z
}

// nextRand is xorshift64*.
func nextRand(x *uint64) uint64 { return bench.XorShift(x) }
