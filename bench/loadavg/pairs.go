package loadavg

import (
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/counter"
)

// The pairs workload: the lab's pipe and migrate shapes (contend kernel
// count -shape pipe|migrate) as tasks that run, sleep and wake on ksim's
// runqueues, for kernel model to feed a count's measured rates to. Where
// the seed's workload (model.go) tosses a coin per CPU per gap, here every
// wakeup is one side of a ping: a task runs, wakes its partner (the pipe
// write) and blocks (the read) in the same instant, so that "wake B" and
// "A blocks" fall in the same PELT period, as they do in the kernel; the
// partner then waits runnable behind whatever else its CPU runs, runs, and
// pings back. The model thus realises the wakeups it is fed: each task
// wakes once per cycle, whatever the CPUs' phases.
//
// What it is fed, all measured by the count (SimConfig):
//
//   - the workload's wakeups per second (Gap: one wakeup per 2·Gap per
//     cpu), so each of the 2·Pairs tasks wakes once per cycle T =
//     2·Pairs / wakeups per second;
//   - the pingers' run share (Run): each run lasts Run·T on average;
//   - their runnable share (Runnable): a woken task waits runnable
//     (Runnable-Run)·T on average before it runs, the CPU running
//     something outside the hierarchy meanwhile (the counting process,
//     kernel threads: the guest's other tasks, in the root group); its
//     entity is queued, not current, so the ticks in that time update
//     the other task's groups, not this one's;
//   - the migrations per wakeup (Mig): a wakeup lands on the task's
//     previous CPU (the count's local wakeups), else it migrates: to the
//     waker's CPU where that is another (wake_affine()'s WF_SYNC pull,
//     wake_affine_idle()'s "if (sync && cpu_rq(this_cpu)->nr_running ==
//     1) return this_cpu;"), which stacks the pair there, or, where the
//     pair is stacked already, to another CPU at random.
//
// Not measured, and so the model's own: the spread of each run and wait
// around its mean (uniform over ±50 %, so that runs do not lock to PELT
// periods or ticks), and where the tasks start (task i on cpu i mod
// cpus, as fork balancing spreads them). When the cycle has room left
// after the pair's runs and waits (the count's pingers were neither
// runnable nor running part of the time: the pipe's transit through the
// guest), the wakeup lands that much after the waker blocked; where the
// measured shares overfill the cycle (two runnable shares over 50 %), the
// wait is cut so that the cycle, and so the wakeup rate, is the count's.
//
// Each CPU's tick (entity_tick() of the running group task, on every
// level) runs while a group task is current. With SimConfig.DomainCPUs set,
// every tick also runs trigger_load_balance()'s test, and the balance
// softirq its update_blocked_averages() (balance.go); without it, a CPU
// with none of the group's tasks queued has its blocked load updated every
// 32 ms (ksim.NohzBlockedEvery), as the seed workload's idle CPUs do.

// Event kinds of the pairs workload, after ksim's own.
const (
	pairReady = ksim.User + iota // a woken task's wait is over: it runs if its CPU is free
	pairBlock                    // the current task's run is over: it pings its partner and blocks
)

// pairSim is the pairs workload on cpus.
type pairSim struct {
	cpus  []*laCPU
	rqs   []ksim.RQ
	tasks []*laTask
	ks    []ksim.Task
	q     ksim.Queue
	rng   uint64
	migAt uint64 // a wakeup migrates when 32 random bits fall below this
	cycle int64  // each task's time from one wakeup to the next, ns
	run   int64  // mean run, ns
	wait  int64  // mean wait runnable, ns
	every int64  // blocked-load cadence of an idle CPU, without the softirq
	bal   *pairBalance
	tick  int64
	// Measured in the model, for its duty line: the tasks' time running
	// and waiting runnable, and the cycles they took.
	ran, waited int64
	readyAt     []int64 // when each task was woken (its wait's start) or began to run
	due         []int64 // each task's next wakeup on its grid of cycles
}

// newPairSim puts 2·pairs tasks of the given weight on the cpus (task i on
// cpu i mod len(cpus), asleep, load_avg weight/2 as the seed workload's
// tasks start), one partner waking the other first.
func newPairSim(cpus []*laCPU, pairs, mig int, weight uint64, gap int64, run, runnable float64, hz ksim.HZ, seed uint64) (*pairSim, error) {
	n := 2 * pairs
	cycle := float64(n) * 2 * float64(gap) / float64(len(cpus))
	s := &pairSim{
		cpus: cpus, rqs: make([]ksim.RQ, len(cpus)), tasks: make([]*laTask, n), ks: make([]ksim.Task, n),
		rng: seed, migAt: uint64(mig) << 32 / 100, every: ksim.NohzBlockedEvery(hz), tick: hz.TickNs(),
		readyAt: make([]int64, n), due: make([]int64, n), cycle: int64(cycle),
	}
	s.run = int64(run * cycle)
	s.wait = int64(max(runnable-run, 0) * cycle)
	// A pair's cycle holds each side's wait and run once: where the
	// measured shares overfill it, the wait gives.
	s.wait = max(min(s.wait, s.cycle/2-s.run), 0)
	for i := range s.rqs {
		s.rqs[i] = ksim.RQ{CPU: i, Queue: make([]*ksim.Task, 0, n)}
	}
	for i := range n {
		c := cpus[i%len(cpus)]
		t := &laTask{id: i}
		if err := t.se.Init(weight); err != nil {
			return nil, err
		}
		c.rq.Seed(&t.se, weight/2, false)
		c.local = append(c.local, t)
		c.tasks++
		s.tasks[i] = t
		s.ks[i] = ksim.Task{ID: i, CPU: c.self, Weight: int64(weight)}
	}
	for _, c := range cpus {
		c.rq.SeedGroups(laGroupShares(c.rq.TGShares(), len(cpus)))
		for l := c.rq; l != nil; l = l.Parent() {
			l.Flush()
			l.ResetStats()
		}
		s.q.Push(ksim.Event{T: c.next, CPU: c.self, Kind: ksim.Tick})
	}
	// Each pair's first wakeup, at a phase of its own within a cycle.
	for p := range pairs {
		at := laClockBase + int64(laNext(&s.rng)%uint64(max(int64(cycle), 1)))
		s.q.Push(ksim.Event{T: at, CPU: s.ks[2*p].CPU, Kind: ksim.Wakeup, Arg: int64(2 * p)})
	}
	return s, nil
}

// spread draws a duration of mean m, uniform over [m/2, 3m/2).
func (s *pairSim) spread(m int64) int64 {
	return m/2 + int64(float64(m)*float64(laNext(&s.rng)>>11)/(1<<53))
}

// runUntil serves the events before end.
func (s *pairSim) runUntil(end int64) {
	for s.q.Len() > 0 && s.q.Peek().T < end {
		e := s.q.Pop()
		switch e.Kind {
		case ksim.Tick:
			s.tickAt(e.T, e.CPU)
			s.q.Push(ksim.Event{T: e.T + s.tick, CPU: e.CPU, Kind: ksim.Tick})
		case ksim.Wakeup:
			s.wake(e.T, int(e.Arg), e.CPU)
		case pairReady:
			s.ready(e.T, int(e.Arg))
		case pairBlock:
			s.block(e.T, int(e.Arg))
		}
	}
}

// tickAt is the tick on cpu: entity_tick() of the running group task, or,
// with none of the group's tasks queued there, the nohz blocked update.
func (s *pairSim) tickAt(now int64, cpu int) {
	c, rq := s.cpus[cpu], &s.rqs[cpu]
	switch {
	case s.bal != nil:
		if rq.Curr != nil {
			c.rq.Tick(now, &s.tasks[rq.Curr.ID].se)
		}
		s.bal.tick(now, cpu, c.rq)
	case rq.Curr != nil:
		c.rq.Tick(now, &s.tasks[rq.Curr.ID].se)
	case c.rq.NrRunning() == 0 && now >= c.blocked:
		c.idle++
		c.rq.UpdateBlocked(now)
		c.blocked = now + s.every
	}
}

// wake is try_to_wake_up() of task id by a task on cpu waker: it picks the
// task's CPU (its previous one, or a migration), moves its load there if
// it migrates, and enqueues it (enqueue_task_fair()); it runs once its
// wait is over.
func (s *pairSim) wake(now int64, id, waker int) {
	k, t := &s.ks[id], s.tasks[id]
	from := s.cpus[k.CPU]
	to := from
	if len(s.cpus) > 1 && laNext(&s.rng)>>32 < s.migAt {
		dst := waker
		if dst == k.CPU {
			dst = int(laNext(&s.rng) % uint64(len(s.cpus)-1))
			if dst >= k.CPU {
				dst++
			}
		}
		to = s.cpus[dst]
	}
	laRemove(&from.local, t)
	if to != from {
		from.moved += int64(counter.RemoveEntityLoadAvg(&t.se))
	}
	to.rq.Enqueue(now, &t.se)
	to.queued = append(to.queued, t)
	to.wakeups++
	k.CPU = to.self
	k.Seq++
	s.readyAt[id] = now
	s.due[id] = max(s.due[id], now-s.cycle) + s.cycle
	s.q.Push(ksim.Event{T: now + s.spread(s.wait), CPU: to.self, Kind: pairReady, Arg: int64(id)})
}

// ready ends task id's wait: it runs now if its CPU runs none of the
// group's tasks, else after those queued before it.
func (s *pairSim) ready(now int64, id int) {
	k := &s.ks[id]
	rq := &s.rqs[k.CPU]
	rq.Enqueue(k)
	if rq.Curr == k {
		s.start(now, id)
	}
}

// start begins task id's run on its CPU.
func (s *pairSim) start(now int64, id int) {
	s.waited += now - s.readyAt[id]
	s.readyAt[id] = now
	s.q.Push(ksim.Event{T: now + s.spread(s.run), CPU: s.ks[id].CPU, Kind: pairBlock, Arg: int64(id)})
}

// block ends task id's run: it wakes its partner (the pipe's write) and
// blocks (the read: dequeue_task_fair()), and the next of the group's
// tasks queued on the CPU runs. The partner wakes at once, or, where the
// cycle has room left (the pingers' time neither running nor runnable:
// the pipe's transit through the guest), when its next wakeup is due on
// its grid of one a cycle, which a late wakeup catches up on: so every
// task wakes once a cycle on average, as the count measured, however
// long each run and wait was drawn.
func (s *pairSim) block(now int64, id int) {
	k := &s.ks[id]
	cpu := k.CPU
	s.ran += now - s.readyAt[id]
	partner := id ^ 1
	if due := s.due[partner]; due <= now {
		s.wake(now, partner, cpu)
	} else {
		s.q.Push(ksim.Event{T: due, CPU: cpu, Kind: ksim.Wakeup, Arg: int64(partner)})
	}
	c, t := s.cpus[cpu], s.tasks[id]
	c.rq.Dequeue(now, &t.se, false)
	laRemove(&c.queued, t)
	c.local = append(c.local, t)
	if s.bal != nil && c.rq.NrRunning() == 0 {
		s.bal.newidle(cpu)
	}
	rq := &s.rqs[cpu]
	rq.Block()
	if rq.Curr != nil {
		s.start(now, rq.Curr.ID)
	}
}

// simulatePairs runs variant v's stores under the pairs workload for
// cfg.Duration of kernel time and returns the CPUs, for the row's counts,
// and the run and runnable shares the tasks had.
func simulatePairs(cfg SimConfig, v counter.Variant, stores []counter.Store) (cpus []*laCPU, run, runnable float64, softirqs int64, err error) {
	n := cfg.CPUs
	cpus = make([]*laCPU, n)
	for i := range cpus {
		rq, err := counter.NewCfsRqPath(stores, v.Write, v.Read, i, i*cfg.Nodes/n)
		if err != nil {
			return nil, 0, 0, 0, err
		}
		r := laSeed(i, cfg.Seed)
		// Each CPU's PELT periods and ticks at a phase of its own, as
		// the seed workload's clocks have them.
		rq.Init(laClockBase - int64(laNext(&r)%ksim.PeltPeriod))
		cpus[i] = &laCPU{rq: rq, self: i, away: &laSleepers{}, next: laClockBase + int64(laNext(&r)%uint64(ksim.HZ(cfg.HZ).TickNs()))}
	}
	s, err := newPairSim(cpus, cfg.Pairs, cfg.Mig.Percent(), uint64(cfg.Weight), int64(cfg.Gap), cfg.Run, cfg.Runnable, ksim.HZ(cfg.HZ), laSeed(n, cfg.Seed))
	if err != nil {
		return nil, 0, 0, 0, err
	}
	if cfg.DomainCPUs > 0 {
		s.bal = newPairBalance(n, cfg.DomainCPUs, ksim.HZ(cfg.HZ), s.tick)
	}
	s.runUntil(laClockBase + int64(cfg.Duration))
	if s.bal != nil {
		for _, k := range s.bal.softirqs {
			softirqs += k
		}
	}
	span := float64(2*cfg.Pairs) * float64(cfg.Duration)
	return cpus, float64(s.ran) / span, float64(s.ran+s.waited) / span, softirqs, nil
}

// laRemove takes t out of the list ts, order kept.
func laRemove(ts *[]*laTask, t *laTask) {
	for i, x := range *ts {
		if x == t {
			*ts = append((*ts)[:i], (*ts)[i+1:]...)
			return
		}
	}
}
