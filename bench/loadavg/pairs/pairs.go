// Package pairs is the loadavg model's pairs workload: the lab's pipe, migrate and udp shapes (contend kernel
// count -shape pipe|migrate|udp) as tasks that run, sleep and wake on ksim's
// runqueues, for kernel model to feed a count's measured rates to. Where
// the seed's workload (cfsmodel.CPU.Event) tosses a coin per CPU per gap, here every
// wakeup is one side of a ping: a task runs, wakes its partner (the pipe
// write) and blocks (the read) soon after (its tail, below; in the same
// instant where the count's shares leave none), so that "wake B" and
// "A blocks" fall in the same PELT period, as they do in the kernel; the
// partner then waits runnable behind whatever else its CPU runs, runs, and
// pings back. The model thus realises the wakeups it is fed: each task
// wakes once per cycle, whatever the CPUs' phases.
//
// What it is fed, all measured by the count (Config, which
// loadavg.SimConfig passes on):
//
//   - the workload's wakeups per second (Gap: one wakeup per 2·Gap per
//     cpu), so each of the 2·Pairs tasks wakes once per cycle T =
//     2·Pairs / wakeups per second;
//
//   - the pingers' run share (Run): each run lasts Run·T on average;
//
//   - their runnable share (Runnable): a woken task waits runnable
//     (Runnable-Run)·T on average before it runs, the CPU running
//     something outside the hierarchy meanwhile (the counting process,
//     kernel threads: the guest's other tasks, in the root group); its
//     entity is queued, not current, so the ticks in that time update
//     the other task's groups, not this one's;
//
//   - the migrations per wakeup (WakeupMig): a wakeup lands on the task's
//     previous CPU (the count's local wakeups), else it migrates: to the
//     waker's CPU where that is another (wake_affine()'s WF_SYNC pull,
//     wake_affine_idle()'s "if (sync && cpu_rq(this_cpu)->nr_running ==
//     1) return this_cpu;"), which stacks the pair there, or, where the
//     pair is stacked already, to another CPU at random. A stacked pair's
//     next wakeup, its waker running on the wakee's cpu, moves the wakee
//     to an idle cpu of the LLC where there is one (select_idle_sibling()
//     finds its target busy and scans), and that move takes the place of
//     the next migration drawn, so the share stays the count's.
//
//   - the moves of a running task (RunMoves, per sleep: moveTo);
//
//   - the waker's tail: a runnable share over half the cycle means the
//     two of a pair are runnable at once, as they are: the pipe's write
//     wakes the partner mid-run, and the writer runs on to its next
//     read(). So a run pings its partner (Runnable - 1/2)·T before its
//     end on average, and a pair's cycle is 2·(wait + run - tail).
//
// Not measured, and so the model's own: the spread of each run, wait and
// tail around its mean (uniform over ±50 %, so that runs do not lock to
// PELT periods or ticks), and where the tasks start (task i on cpu i mod
// cpus, as fork balancing spreads them). When the cycle has room left
// (the pipe's transit through the guest), the wakeup lands that much
// after the waker's ping; where the wait alone would overfill half the
// cycle, the wait is cut so that the wakeup rate is the count's. A task
// pinged before its run is over does not sleep: its read() finds the
// byte (ttwu_runnable(), a wakeup), and it runs on.
//
// A wakee whose wait is over, finding another of the group's tasks running
// on its CPU, preempts it where the version's rules say so from the
// vruntimes (and deadlines) of each CPU's group cfs_rq
// (ksim.Kernel.WakeupPreempt): a switch with that task still queued, and
// its switch back, resuming its run, once the wakee blocks. The kernel
// decides at try_to_wake_up(); the model's wakee competes for the CPU
// once its wait outside the group ends, so it decides there.
//
// Where the count's tick trace says its busy ticks ran late (Config.TickLate:
// the lab's emulator leaves a busy vCPU unrun past its tick's due time), a
// tick that finds a group task running stalls its cpu by a lateness drawn
// exponentially about the count's median: the run and its ping come that
// much later, the late tick first (freeze), and the runs are drawn
// shorter by the stalls' share of a running cpu's time (stallShare), as
// the count's runs hold the stalls already.
//
// Each CPU's tick (entity_tick() of the running group task, on every
// level) runs while a group task is current. With Config.DomainCPUs set,
// every tick also runs trigger_load_balance()'s test, and the balance
// softirq its update_blocked_averages() (ksim.Softirqs); without it, a CPU
// with none of the group's tasks queued has its blocked load updated every
// 32 ms (ksim.NohzBlockedEvery), as the seed workload's idle CPUs do.
package pairs

import (
	"math"
	"time"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/loadavg/cfsmodel"
	"github.com/contend/contend/counter"
)

// Event kinds of the pairs workload, after ksim's own.
const (
	pairReady      = ksim.User + iota // a woken task's wait is over: it runs if its CPU is free
	pairBlock                         // the current task's run is over: it blocks (pinging its partner first if it has not)
	pairPing                          // the current task pings its partner and runs on: the waker's tail
	pairMovedSleep                    // a moved task's run on its new cpu is over: it sleeps there (Config.MoveRun)
	pinged         = -2               // not an event: pairSim.pingAt of a run whose ping is done
)

// pairSim is the pairs workload on cpus.
type pairSim struct {
	cpus  []*cfsmodel.CPU
	rqs   []ksim.RQ
	tasks []*cfsmodel.Task
	ks    []ksim.Task
	q     ksim.Queue
	rng   uint64
	migAt uint64 // a wakeup migrates when 32 random bits fall below this
	// moveAt: a sleep follows a move of the running task (moveTo) when
	// 32 random bits of moveRng, a stream of its own so that the rare
	// move leaves every other draw as it was, fall below this.
	moveAt, moveRng uint64
	// moveRun is Config.MoveRun, ns; moving, the tasks moved and not
	// yet asleep on their new cpu, movingOn how many on each cpu (a cpu
	// with one is not idle: its ticks are not idle ticks, its scan does
	// not take it).
	moveRun  int64
	moving   []bool
	movingOn []int
	moves    []int64 // each task's moves so far: a pairMovedSleep event's generation
	cycle    int64   // each task's time from one wakeup to the next, ns
	run      int64   // mean run, ns
	wait     int64   // mean wait runnable, ns
	tail     int64   // mean of a run's part after its ping, ns (the waker's tail)
	// pingAt: when each run pings its partner (-1 at its block, pinged
	// once done; while preempted, the run left before it); awake: woken,
	// not yet blocked again; owedWake: pinged while awake; woken: its
	// wakeup queued (a Wakeup event), not yet served.
	pingAt                 []int64
	awake, owedWake, woken []bool
	// scan: the LLCs idleSibling scans (the lowest domain's, else all)
	// and SIS_UTIL's budget; unstacks: its moves no drawn migration has
	// paid for yet.
	scan     *ksim.LLCScans
	unstacks int
	place    ksim.Placements
	every    int64 // blocked-load cadence of an idle CPU, without the softirq
	// bal: each cpu's balance softirq, nil without DomainCPUs (6.1's
	// walks: 6.12's intervals and gate are the same); busy at a tick with
	// a group task queued; only a running tick raises it.
	bal  *ksim.Softirqs
	tick int64
	// Measured in the model, for its duty line: the tasks' time running
	// and waiting runnable, and the cycles they took.
	ran, waited int64
	readyAt     []int64 // when each task was woken (its wait's start) or began to run
	due         []int64 // each task's next wakeup on its grid of cycles

	// Each CPU's group cfs_rq's virtual time (fair, the version kern's),
	// each task's vruntime's last update (vAt), run's end (end), run
	// left once preempted (left; -1: none) and run count (runs: a
	// preempted run's block event is stale).
	kern            ksim.Kernel
	end, left, runs []int64
	preempted       int64
	scratch         []*ksim.Task // the lists queued hands ksim
	// v6.12's DELAY_DEQUEUE (Config.DelayDequeue): the tasks left
	// queued sched_delayed on each CPU, and the migrations drawn for
	// wakeups that could not take them (a delayed task wakes where it is,
	// ttwu_runnable()), which the next wakeups that can take.
	dd       bool
	fair     []ksim.Fair
	vAt      []int64
	delayed  [][]int
	isDelay  []bool
	owed     int
	lagLimit int64
	// The delayed dequeues and the requeues of delayed tasks, for the
	// row (SimRow.Delayed, Requeued).
	nDelayed, nRequeued int64

	// The idle loops' tick-stop decisions, with the softirq (bal), and
	// the idle ticks: all, and those whose leaf had crossed a period.
	idle      *ksim.IdleCPUs
	idleTicks [2]int64
	// groupTicks: the ticks that found a group task running, and those
	// whose leaf had crossed a period as they came (the count's
	// group-tick-crossed-%).
	groupTicks [2]int64
	groupAges  ageBins // their leaves' ages

	// The emulator's host (Config.TickLate): lateMedian, ns, the median
	// lateness of a busy cpu's tick, drawn from lateRng, a stream of its
	// own; frozen, until when each cpu's vCPU is not run (the ticks
	// due meanwhile are its late tick); lateTicks and latePeriods, the
	// busy ticks made late and their lateness in PELT periods, capped at
	// one, summed (the count's busy-tick-lateness-period-%, for the
	// model's side).
	lateMedian  int64
	lateRng     uint64
	frozen      []int64
	lateTicks   int64
	latePeriods float64
}

// newPairSim puts 2·pairs tasks of the given weight on the cpus (task i on
// cpu i mod len(cpus), asleep, load_avg weight/2 as the seed workload's
// tasks start), one partner waking the other first.
func newPairSim(cpus []*cfsmodel.CPU, pairs int, mig, moves float64, weight uint64, gap int64, run, runnable float64, hz ksim.HZ, seed uint64, kern ksim.Kernel, delayDequeue bool) (*pairSim, error) {
	n := 2 * pairs
	cycle := float64(n) * 2 * float64(gap) / float64(len(cpus))
	s := &pairSim{
		cpus: cpus, rqs: make([]ksim.RQ, len(cpus)), tasks: make([]*cfsmodel.Task, n), ks: make([]ksim.Task, n),
		rng: seed, migAt: uint64(min(max(mig, 0), 1) * (1 << 32)), moveAt: uint64(min(max(moves, 0), 1) * (1 << 32)), moveRng: seed ^ 0x6d6f7665, every: ksim.NohzBlockedEvery(hz), tick: hz.TickNs(),
		readyAt: make([]int64, n), due: make([]int64, n), cycle: int64(cycle), kern: kern, end: make([]int64, n), left: make([]int64, n), runs: make([]int64, n),
		dd: delayDequeue, fair: make([]ksim.Fair, len(cpus)), vAt: make([]int64, n), delayed: make([][]int, len(cpus)), isDelay: make([]bool, n),
		// update_entity_lag()'s limit: max(2·slice, TICK_NSEC).
		lagLimit: max(2*ksim.BaseSlice(len(cpus)), hz.TickNs()),
	}
	s.run = int64(run * cycle)
	s.wait = int64(max(runnable-run, 0) * cycle)
	// cycle = 2·(wait + run - tail): the tail is the runnable share past
	// half the cycle, within the run; past that, the wait gives.
	s.tail = int64(max(runnable-0.5, 0) * cycle)
	s.tail = min(s.tail, s.run*9/10)
	s.wait = max(min(s.wait, s.cycle/2-s.run+s.tail), 0)
	s.pingAt = make([]int64, n)
	s.moving, s.movingOn, s.moves = make([]bool, n), make([]int, len(cpus)), make([]int64, n)
	s.awake, s.owedWake, s.woken = make([]bool, n), make([]bool, n), make([]bool, n)
	for i := range s.rqs {
		s.rqs[i] = ksim.RQ{CPU: i, Queue: make([]*ksim.Task, 0, n)}
	}
	for i := range n {
		c := cpus[i%len(cpus)]
		t := &cfsmodel.Task{ID: i}
		if err := t.SE.Init(weight); err != nil {
			return nil, err
		}
		c.RQ.Seed(&t.SE, weight/2, false)
		c.Local = append(c.Local, t)
		c.Tasks++
		s.tasks[i] = t
		s.ks[i] = ksim.Task{ID: i, CPU: c.Self, Weight: int64(weight)}
		s.left[i] = -1
	}
	for _, c := range cpus {
		c.RQ.SeedGroups(cfsmodel.GroupShares(c.RQ.TGShares(), len(cpus)))
		for l := c.RQ; l != nil; l = l.Parent() {
			l.Flush()
			l.ResetStats()
		}
		s.q.Push(ksim.Event{T: c.Next, CPU: c.Self, Kind: ksim.Tick})
	}
	// Each pair's first wakeup, at a phase of its own within a cycle.
	for p := range pairs {
		at := cfsmodel.ClockBase + int64(cfsmodel.NextRand(&s.rng)%uint64(max(int64(cycle), 1)))
		s.q.Push(ksim.Event{T: at, CPU: s.ks[2*p].CPU, Kind: ksim.Wakeup, Arg: int64(2 * p)})
	}
	return s, nil
}

// spread draws a duration of mean m, uniform over [m/2, 3m/2).
func (s *pairSim) spread(m int64) int64 {
	return m/2 + int64(float64(m)*ksim.Uniform(cfsmodel.NextRand(&s.rng)))
}

// lateTick is a late tick's Arg: the tick due earlier, made late by the
// emulator's host (pairSim.freeze), whose next tick is queued already.
const lateTick = 1

// runUntil serves the events before end.
func (s *pairSim) runUntil(end int64) {
	for s.q.Len() > 0 && s.q.Peek().T < end {
		e := s.q.Pop()
		switch e.Kind {
		case ksim.Tick:
			if e.Arg == lateTick {
				s.tickAt(e.T, e.CPU)
				break
			}
			// The next tick stays on its grid, whenever this one runs.
			s.q.Push(ksim.Event{T: e.T + s.tick, CPU: e.CPU, Kind: ksim.Tick})
			// A tick due while its vCPU is not run is the late tick's
			// (the hrtimer fires once for the periods it missed).
			if e.T >= s.frozen[e.CPU] && !s.freeze(e.T, e.CPU) {
				s.tickAt(e.T, e.CPU)
			}
		case ksim.Wakeup:
			s.woken[e.Arg] = false
			s.wake(e.T, int(e.Arg), e.CPU)
		case pairReady:
			s.ready(e.T, int(e.Arg))
		case pairBlock:
			if id := int(e.Arg & (1<<32 - 1)); e.Arg>>32 == s.runs[id] {
				s.block(e.T, id)
			}
		case pairPing:
			if id := int(e.Arg & (1<<32 - 1)); e.Arg>>32 == s.runs[id] && s.pingAt[id] >= 0 {
				s.ping(e.T, id)
			}
		case pairMovedSleep:
			// Only the move that set it: an earlier move's run may
			// have been ended by a wakeup, and the task moved again.
			if id := int(e.Arg & (1<<32 - 1)); e.Arg>>32 == s.moves[id] {
				s.movedSleep(e.T, id)
			}
		}
	}
}

// freeze draws whether cpu's tick due at now runs late (Config.TickLate):
// a tick that finds one of the group's tasks running does, by a lateness
// drawn exponentially about the count's median. Its vCPU stands still
// meanwhile (the emulator's host runs it later): the run in progress
// ends and pings that much later (ksim.Queue.Delay), so the late tick's
// entity_tick() finds the running task's cfs_rqs as they were before it.
// What other cpus do to this one meanwhile (a wakeup enqueued here, a
// queued wakee's wait ending) is not held back: the kernel's remote
// enqueue takes the rq's lock, not its vCPU, and the wait stands for the
// cpu's other work, whose events the model does not run. The runs were
// drawn shorter to make room (Simulate: stallShare). Another cpu's tick
// is on time: nothing of the group's runs there to find stale. It queues
// the late tick and says whether it did.
func (s *pairSim) freeze(now int64, cpu int) bool {
	curr := s.rqs[cpu].Curr
	if s.lateMedian <= 0 || curr == nil {
		return false
	}
	u := ksim.Uniform(cfsmodel.NextRand(&s.lateRng))
	late := int64(-float64(s.lateMedian) * math.Log2(1-u))
	s.lateTicks++
	s.latePeriods += min(float64(late)/countPeriod, 1)
	if late <= 0 {
		return false
	}
	// The late tick first, then the cpu's events, a nanosecond on.
	s.q.Delay(cpu, now, late+1, pairBlock, pairPing)
	s.end[curr.ID] += late + 1
	if s.pingAt[curr.ID] >= 0 {
		s.pingAt[curr.ID] += late + 1
	}
	s.frozen[cpu] = now + late + 1
	s.q.Push(ksim.Event{T: now + late, CPU: cpu, Kind: ksim.Tick, Arg: lateTick})
	return true
}

// stallShare is the share of a running cpu's time its host's stalls take
// where each tick that finds it running starts one of a lateness
// exponential about median (ns), tick ns apart. The ticks fall on the
// running time outside the stalls one per tick on average (those due
// within a stall are its late tick), each adding a mean stall m/ln 2:
// the stalls are (m/ln 2)/tick of that time, x/(1+x) of all of it.
func stallShare(median, tick int64) float64 {
	if median <= 0 || tick <= 0 {
		return 0
	}
	x := float64(median) / math.Ln2 / float64(tick)
	return x / (1 + x)
}

// countPeriod is the PELT period as kernel count's lateness figure takes
// it (1024 µs), ns.
const countPeriod = 1024e3

// tickAt is the tick on cpu: entity_tick() of the running group task, or,
// with none of the group's tasks queued there, the nohz blocked update.
// With the softirq, a cpu whose tick is stopped runs none of it: the nohz
// idle balancer updates its blocked load every 32 ms
// (ksim.NohzBlockedEvery, nohz.next_blocked) on its behalf; a kept tick
// on an idle cpu wakes it, and the idle loop asks the governor again
// (ksim.Governor.Woke by the tick: menu_update() learns the sleep as
// 45 ms, which get_typical_interval() drops as an outlier where the cpu's
// other idles agree).
func (s *pairSim) tickAt(now int64, cpu int) {
	c, rq := s.cpus[cpu], &s.rqs[cpu]
	switch {
	case s.bal != nil && s.idle.Stopped[cpu]:
		if now >= c.Blocked {
			c.RQ.UpdateBlocked(now)
			c.Blocked = now + s.every
		}
	case s.bal != nil:
		if rq.Curr != nil {
			s.groupTick(now, c)
			c.RQ.Tick(now, &s.tasks[rq.Curr.ID].SE)
		} else if a := c.RQ.Avg(); len(c.Queued) == 0 && s.movingOn[cpu] == 0 {
			// An idle tick: is the leaf past a period (the tick trace's)?
			s.idleTicks[0]++
			if a.Crossed(uint64(now)) {
				s.idleTicks[1]++
			}
		}
		if s.bal.Tick(now, cpu, c.RQ.NrRunning() > 0, func() { c.RQ.UpdateBlocked(now) }) {
			s.scan.Balance(now, cpu)
		}
		if s.idle.Idle(cpu) {
			s.enterIdle(now, cpu, true)
		}
	case rq.Curr != nil:
		s.groupTick(now, c)
		c.RQ.Tick(now, &s.tasks[rq.Curr.ID].SE)
	case c.RQ.NrRunning() == 0 && now >= c.Blocked:
		c.Idle++
		c.RQ.UpdateBlocked(now)
		c.Blocked = now + s.every
	}
}

// groupTick counts a tick that finds a group task running on c, and
// whether its leaf had crossed a period (what entity_tick() decays).
func (s *pairSim) groupTick(now int64, c *cfsmodel.CPU) {
	s.groupTicks[0]++
	a := c.RQ.Avg()
	if a.Crossed(uint64(now)) {
		s.groupTicks[1]++
	}
	s.groupAges.add(int64(uint64(now) - a.LastUpdateTime))
}

// ageBins are a histogram of leaf ages, in bins of 1024 ns (PELT's
// unit) up to 16 PELT periods, the last bin holding the older: a median
// to the µs in fixed memory, where a run of many cpus and seconds would
// otherwise keep every tick's age.
type ageBins [1 << 14]int64

// add counts an age, ns; a negative one (a clock behind the leaf's) as 0.
func (b *ageBins) add(ns int64) {
	b[min(max(ns, 0)>>10, int64(len(b)-1))]++
}

// medianUs is the median age's bin start, µs; 0 for none.
func (b *ageBins) medianUs() float64 {
	var n int64
	for _, c := range b {
		n += c
	}
	var seen int64
	for i, c := range b {
		if seen += c; c > 0 && 2*seen > n {
			return float64(i<<10) / 1e3
		}
	}
	return 0
}

// enterIdle is the idle loop's tick decision on cpu at now, none of the
// group's tasks queued (ksim.IdleCPUs.Enter); a stopped tick leaves the
// cpu's blocked load to the nohz idle balancer.
func (s *pairSim) enterIdle(now int64, cpu int, ticked bool) {
	if s.idle.Enter(now, cpu, ticked, s.tick, func() float64 { return ksim.Uniform(cfsmodel.NextRand(&s.rng)) }) {
		s.cpus[cpu].Blocked = now + s.every
	}
}

// wake is try_to_wake_up() of task id by a task on cpu waker: it picks the
// task's CPU (its previous one, or a migration), moves its load there if
// it migrates, and enqueues it (enqueue_task_fair()); it runs once its
// wait is over.
func (s *pairSim) wake(now int64, id, waker int) {
	s.movedSleep(now, id) // a moved task's run there ends before it wakes
	k, t := &s.ks[id], s.tasks[id]
	from := s.cpus[k.CPU]
	to := from
	migrate := len(s.cpus) > 1 && cfsmodel.NextRand(&s.rng)>>32 < s.migAt
	if s.isDelay[id] {
		// ttwu_runnable(): still queued where it slept, it stays.
		if migrate {
			s.owed++
		}
		s.requeue(now, id)
	} else {
		if !migrate && s.owed > 0 && len(s.cpus) > 1 {
			migrate = true
			s.owed--
		}
		// A stacked pair parts (idleSibling); the move takes the place
		// of the next migration drawn.
		switch dst := s.idleSibling(k.CPU, waker); {
		case dst >= 0 && !migrate:
			to = s.cpus[dst]
			s.unstacks++
		case dst >= 0: // the drawn migration is the move
			to, migrate = s.cpus[dst], false
		case migrate && s.unstacks > 0:
			migrate = false
			s.unstacks--
		}
		if migrate {
			dst := waker
			if dst == k.CPU {
				dst = ksim.OtherCPU(cfsmodel.NextRand(&s.rng), k.CPU, len(s.cpus))
			}
			to = s.cpus[dst]
		}
		cfsmodel.Remove(&from.Local, t)
		if to != from {
			from.Moved += int64(counter.RemoveEntityLoadAvg(&t.SE))
		}
		if s.bal != nil {
			s.idle.Exit(now, to.Self)
		}
		to.RQ.Enqueue(now, &t.SE)
		s.runCurr(now, to.Self)
		to.Queued = append(to.Queued, t)
		s.kern.PlaceWakee(&s.fair[to.Self], &s.fair[from.Self], k, len(s.cpus))
		s.place.Place(k.CPU, waker, to.Self)
		k.CPU = to.Self
	}
	to.Wakeups++
	if to.Self == waker {
		to.LocalWakeups++
	}
	k.Seq++
	s.awake[id] = true
	s.readyAt[id] = now
	s.due[id] = max(s.due[id], now-s.cycle) + s.cycle
	s.q.Push(ksim.Event{T: now + s.spread(s.wait), CPU: to.Self, Kind: pairReady, Arg: int64(id)})
}

// idleSibling is the idle cpu select_idle_sibling() finds for a wakee on
// cpu woken by a task running there: select_idle_cpu()'s scan of the LLC
// (ksim.LLCScans.Sibling) within SIS_UTIL's budget (v6.0 on: the LLC's
// nr_idle_scan, which its cpus' balance softirqs update from the time
// they ran the group's tasks, ksim.LLCScans); -1 where the wakee is not
// stacked on its busy waker's cpu, or none is idle.
func (s *pairSim) idleSibling(cpu, waker int) int {
	if cpu != waker || s.rqs[cpu].Curr == nil || s.scan.Size < 2 {
		return -1
	}
	return s.scan.Sibling(cpu, s, s.kern.ScanStart(cpu), s.bal != nil && s.kern.SISUtil, &s.place)
}

// Idle is select_idle_cpu()'s ksim.Idler: no group task on cpu.
func (s *pairSim) Idle(cpu int) bool {
	return s.rqs[cpu].Curr == nil && len(s.cpus[cpu].Queued) == 0 && s.movingOn[cpu] == 0
}

// runCurr is update_curr() of the group task running on cpu, if any.
func (s *pairSim) runCurr(now int64, cpu int) {
	if c := s.rqs[cpu].Curr; c != nil {
		s.kern.UpdateCurr(&s.fair[cpu], c, now-s.vAt[c.ID], s.queued(cpu, c), len(s.cpus))
		s.vAt[c.ID] = now
	}
}

// queued lists the tasks queued on cpu's group cfs_rq but skip, the
// running one included.
func (s *pairSim) queued(cpu int, skip *ksim.Task) []*ksim.Task {
	s.scratch = s.scratch[:0]
	for _, t := range s.cpus[cpu].Queued {
		if k := &s.ks[t.ID]; k != skip {
			s.scratch = append(s.scratch, k)
		}
	}
	return s.scratch
}

// requeue is the wakeup of delayed task id: enqueue_task_fair() with
// ENQUEUE_DELAYED, requeue_delayed_entity()'s DELAY_ZERO
// (ksim.Fair.RequeueDelayed), then its update_load_avg(cfs_rq, se, 0)
// (counter.CfsRq.RequeueDelayed).
func (s *pairSim) requeue(now int64, id int) {
	cpu := s.ks[id].CPU
	s.runCurr(now, cpu)
	s.fair[cpu].RequeueDelayed(&s.ks[id], s.lagLimit)
	s.cpus[cpu].RQ.RequeueDelayed(now, &s.tasks[id].SE)
	s.isDelay[id] = false
	cfsmodel.Remove(&s.delayed[cpu], id)
	s.nRequeued++
}

// ready ends task id's wait: it runs now if its CPU runs none of the
// group's tasks, else after those queued before it.
func (s *pairSim) ready(now int64, id int) {
	k := &s.ks[id]
	rq := &s.rqs[k.CPU]
	rq.Enqueue(k)
	if rq.Curr == k {
		// The cpu comes to the group from a task outside it or idle:
		// set_next_task_fair(), every level's set_next_entity().
		s.cpus[k.CPU].RQ.SetNext(now, &s.tasks[id].SE)
		s.start(now, id)
		return
	}
	s.runCurr(now, k.CPU)
	if curr := rq.Curr; s.kern.WakeupPreempt(&s.fair[k.CPU], curr, k, s.queued(k.CPU, curr), len(s.cpus)) {
		// The switch with curr still queued (put_prev_entity(),
		// set_next_entity() on the leaf); its run resumes later.
		rq.Preempt(k)
		s.ran += now - s.readyAt[curr.ID]
		s.readyAt[curr.ID], s.left[curr.ID] = now, s.end[curr.ID]-now
		if s.pingAt[curr.ID] >= 0 {
			s.pingAt[curr.ID] -= now // what is left of the run before its ping
		}
		s.runs[curr.ID]++
		s.preempted++
		s.cpus[k.CPU].RQ.Switch(now, &s.tasks[curr.ID].SE, &s.tasks[id].SE)
		s.start(now, id)
	}
}

// start begins task id's run on its CPU, or resumes a preempted one
// (set_next_entity(): under EEVDF, RUN_TO_PARITY's stash of its deadline).
func (s *pairSim) start(now int64, id int) {
	s.waited += now - s.readyAt[id]
	s.readyAt[id] = now
	s.vAt[id] = now
	s.scan.Run(now, s.ks[id].CPU)
	if s.kern.EEVDF {
		s.ks[id].Picked()
	}
	d := s.left[id]
	switch {
	case d < 0:
		d = s.spread(s.run)
		s.pingAt[id] = -1
		if s.tail > 0 {
			s.pingAt[id] = now + d - min(s.spread(s.tail), d*9/10)
		}
	case s.pingAt[id] >= 0: // resumed before its ping: what was left
		s.pingAt[id] += now
	}
	s.left[id], s.end[id] = -1, now+d
	s.q.Push(ksim.Event{T: now + d, CPU: s.ks[id].CPU, Kind: pairBlock, Arg: int64(id) | s.runs[id]<<32})
	if s.pingAt[id] >= 0 {
		s.q.Push(ksim.Event{T: s.pingAt[id], CPU: s.ks[id].CPU, Kind: pairPing, Arg: int64(id) | s.runs[id]<<32})
	}
}

// block ends task id's run: it pings its partner (the pipe's write)
// unless its tail's ping did, and blocks (the read: dequeue_task_fair()),
// and the next of the group's tasks queued on the CPU runs.
func (s *pairSim) block(now int64, id int) {
	k := &s.ks[id]
	cpu := k.CPU
	s.ran += now - s.readyAt[id]
	s.runCurr(now, cpu)
	if s.pingAt[id] != pinged {
		s.ping(now, id)
	}
	if s.owedWake[id] {
		// Pinged while running: no sleep, a wakeup (the package doc).
		s.owedWake[id] = false
		s.cpus[cpu].Wakeups++
		if s.ks[id^1].CPU == cpu {
			s.cpus[cpu].LocalWakeups++
		}
		s.due[id] = max(s.due[id], now-s.cycle) + s.cycle
		s.readyAt[id] = now
		s.start(now, id)
		return
	}
	s.awake[id] = false
	c, t := s.cpus[cpu], s.tasks[id]
	// A move comes before the sleep, and its dequeue is a full one.
	if to := s.moveTo(cpu); to != nil {
		s.dequeue(now, id, false, to)
	} else if s.dd && !s.fair[cpu].Eligible(k) {
		// dequeue_entity()'s DELAY_DEQUEUE: not eligible, it stays
		// queued, sched_delayed.
		c.RQ.DelayDequeue(now, &t.SE)
		s.isDelay[id] = true
		s.delayed[cpu] = append(s.delayed[cpu], id)
		s.nDelayed++
	} else {
		s.dequeue(now, id, false, nil)
	}
	rq := &s.rqs[cpu]
	rq.Block()
	if rq.Curr == nil {
		s.scan.Stop(now, cpu)
		// The pick finds the group with nothing to run but its delayed
		// tasks: pick_next_entity() dequeues each (dequeue_entities(rq,
		// se, DEQUEUE_SLEEP | DEQUEUE_DELAYED)).
		for len(s.delayed[cpu]) > 0 {
			d := s.delayed[cpu][0]
			cfsmodel.Remove(&s.delayed[cpu], d)
			s.isDelay[d] = false
			s.dequeue(now, d, true, nil)
		}
	}
	if s.bal != nil && c.RQ.NrRunning() == 0 {
		s.bal.Newidle(now, cpu)
		s.enterIdle(now, cpu, false)
	}
	// The context switch: to the group's next task, put_prev_entity()
	// and set_next_entity() on the leaf alone (is_same_group()); to a
	// task outside the group or idle, put_prev_task_fair() on every
	// level still queued.
	prev := &t.SE
	if s.moving[id] {
		prev = &gone // queued on its new cpu now: nothing of it left here
	}
	if rq.Curr != nil {
		c.RQ.Switch(now, prev, &s.tasks[rq.Curr.ID].SE)
		s.start(now, rq.Curr.ID)
	} else {
		c.RQ.PutPrev(now, prev)
	}
}

// ping is task id's write to its partner. The partner wakes at once, or,
// where the cycle has room left (the pipe's transit through the guest),
// when its next wakeup is due on its grid of one a cycle, which a late
// wakeup catches up on: every task wakes once a cycle on average, as the
// count measured, however long each run, wait and tail was drawn.
func (s *pairSim) ping(now int64, id int) {
	s.pingAt[id] = pinged
	partner := id ^ 1
	if s.awake[partner] || s.woken[partner] {
		// Still running, or its wakeup on the way: it will not sleep
		// at its next block (its read finds this write's byte too).
		s.owedWake[partner] = true
		return
	}
	if due := s.due[partner]; due <= now {
		s.runCurr(now, s.ks[id].CPU)
		s.wake(now, partner, s.ks[id].CPU)
	} else {
		s.woken[partner] = true
		s.q.Push(ksim.Event{T: due, CPU: s.ks[id].CPU, Kind: ksim.Wakeup, Arg: int64(partner)})
	}
}

// dequeue is dequeue_task_fair() of task id, sleeping: every level's
// update_load_avg(UPDATE_TG), and under EEVDF its lag kept
// (update_entity_lag()), DELAY_ZERO's "if (sched_feat(DELAY_ZERO) &&
// se->vlag > 0) se->vlag = 0;" for a delayed one (ksim.Kernel.DequeueSleeper).
func (s *pairSim) dequeue(now int64, id int, wasDelayed bool, to *cfsmodel.CPU) {
	k, t := &s.ks[id], s.tasks[id]
	c := s.cpus[k.CPU]
	cfsmodel.Remove(&c.Queued, t)
	s.kern.DequeueSleeper(&s.fair[k.CPU], k, s.lagLimit, s.queued(k.CPU, nil))
	if wasDelayed {
		k.VLag = min(k.VLag, 0)
	}
	if to != nil {
		// Moved while running (moveTo): detached here at once
		// (dequeue_entity()'s DO_DETACH), attached there, asleep there;
		// before v6.6 its vruntime taken into the new cfs_rq's frame.
		c.RQ.Dequeue(now, &t.SE, true)
		to.RQ.Enqueue(now, &t.SE)
		if !s.kern.EEVDF {
			s.fair[to.Self].Migrate(k, &s.fair[c.Self])
		}
		c = to
		if s.moveRun > 0 {
			// Its run on the new cpu before the sleep, that cpu out
			// of idle meanwhile (the stopper's kick).
			k.CPU = c.Self
			s.moving[id] = true
			s.movingOn[c.Self]++
			s.moves[id]++
			if s.bal != nil {
				s.idle.Exit(now, c.Self)
			}
			s.q.Push(ksim.Event{T: now + s.moveRun, CPU: c.Self, Kind: pairMovedSleep, Arg: int64(id) | s.moves[id]<<32})
			return
		}
	}
	c.RQ.Dequeue(now, &t.SE, false)
	c.Local = append(c.Local, t)
	k.CPU = c.Self
}

// gone stands for a switch's prev no longer queued on this cpu's cfs_rq
// (put_prev_entity() skips an entity not on_rq).
var gone counter.Entity

// movedSleep is the sleep of task id on the cpu a move took it to, its
// trial's run there over (Config.MoveRun); nothing if it is not there.
func (s *pairSim) movedSleep(now int64, id int) {
	if !s.moving[id] {
		return
	}
	s.moving[id] = false
	cpu := s.ks[id].CPU
	s.movingOn[cpu]--
	c, t := s.cpus[cpu], s.tasks[id]
	c.RQ.Dequeue(now, &t.SE, false)
	c.Local = append(c.Local, t)
	if s.bal != nil && c.RQ.NrRunning() == 0 && s.movingOn[cpu] == 0 && s.rqs[cpu].Curr == nil {
		// Nothing left on that cpu: it goes idle again, as block()'s.
		s.bal.Newidle(now, cpu)
		s.enterIdle(now, cpu, false)
	}
}

// moveTo draws whether a task about to sleep on cpu was first moved while
// running (Config.RunMoves), and where to: nil, or another cpu at
// random. Such a move (the migrate shape's sched_setaffinity(), which the
// stopper's move_queued_task() carries out, or the balancer's
// detach_task()) deactivate_task()s it TASK_ON_RQ_MIGRATING, so
// dequeue_entity() detaches its load at once (DO_DETACH: v6.1 to v7.3),
// where a wakeup's move leaves it for the old cpu's next update
// (remove_entity_load_avg()). Its run there before it sleeps is
// Config.MoveRun's (dequeue, movedSleep); that time is beside the fed
// run and runnable shares, not carved out of them.
func (s *pairSim) moveTo(cpu int) *cfsmodel.CPU {
	if len(s.cpus) < 2 || cfsmodel.NextRand(&s.moveRng)>>32 >= s.moveAt {
		return nil
	}
	return s.cpus[ksim.OtherCPU(cfsmodel.NextRand(&s.moveRng), cpu, len(s.cpus))]
}

// Config is a pairs run: loadavg.SimConfig's fields of the same names,
// which say what each is and where kernel model takes it from.
type Config struct {
	CPUs, Nodes, Pairs, Weight, HZ, DomainCPUs int
	Duration, Gap, MoveRun, TickLate           time.Duration
	Run, Runnable, RunMoves, WakeupMig         float64
	DelayDequeue, EEVDF                        bool
	TickStopShare                              float64
	TickStopMeasured                           bool
	IdleTick                                   ksim.IdleTickRule
	Seed                                       uint64
}

// Out is what a pairs run measured besides the cfs_rqs' counts: the
// tasks' run and runnable shares, the balance softirqs, v6.12's delayed
// dequeues and requeues, the tick stops and idle entries, the wakeup
// preemptions, the placements, and the idle ticks (all, and those whose
// leaf had crossed a period).
type Out struct {
	Run, Runnable               float64
	Softirqs, Delayed, Requeued int64
	TickStops, Idles, Preempted int64
	Place                       ksim.Placements
	IdleTicks, GroupTicks       [2]int64
	GroupAgeUs                  float64 // the median age of the leaf at GroupTicks[0]
	// LateTicks are the busy ticks Config.TickLate made late, and
	// LatePeriod their mean lateness in PELT periods (1024 µs), capped
	// at one: the count's busy-tick-lateness-period-%, as a share.
	LateTicks  int64
	LatePeriod float64
}

// Simulate runs variant v's stores under the pairs workload for
// cfg.Duration of kernel time and returns the CPUs, for the row's counts,
// and what else it measured.
func Simulate(cfg Config, v counter.Variant, stores []counter.Store) (cpus []*cfsmodel.CPU, out Out, err error) {
	n := cfg.CPUs
	cpus = make([]*cfsmodel.CPU, n)
	for i := range cpus {
		rq, err := counter.NewCfsRqPath(stores, v.Write, v.Read, i, i*cfg.Nodes/n)
		if err != nil {
			return nil, out, err
		}
		r := cfsmodel.CPUSeed(i, cfg.Seed)
		// Each CPU's PELT periods and ticks at a phase of its own, as
		// the seed workload's clocks have them.
		rq.Init(cfsmodel.ClockBase - int64(cfsmodel.NextRand(&r)%ksim.PeltPeriod))
		cpus[i] = &cfsmodel.CPU{RQ: rq, Self: i, Away: &cfsmodel.SleeperQueue{}, Next: cfsmodel.ClockBase + int64(cfsmodel.NextRand(&r)%uint64(ksim.HZ(cfg.HZ).TickNs()))}
	}
	kern := ksim.Linux61
	if cfg.EEVDF || cfg.DelayDequeue {
		kern = ksim.Linux612
	}
	s, err := newPairSim(cpus, cfg.Pairs, cfg.WakeupMig, cfg.RunMoves, uint64(cfg.Weight), int64(cfg.Gap), cfg.Run, cfg.Runnable, ksim.HZ(cfg.HZ), cfsmodel.CPUSeed(n, cfg.Seed), kern, cfg.DelayDequeue)
	if err != nil {
		return nil, out, err
	}
	s.moveRun = int64(cfg.MoveRun)
	s.lateMedian, s.lateRng, s.frozen = int64(cfg.TickLate), cfsmodel.CPUSeed(n, cfg.Seed)^0x6c617465, make([]int64, n)
	// The count's runs are the guest's time, its host's stalls in them
	// included: the model's are drawn without, the stalls (freeze) added.
	if f := stallShare(s.lateMedian, s.tick); f > 0 && f < 1 {
		s.run, s.tail = int64(float64(s.run)*(1-f)), int64(float64(s.tail)*(1-f))
	}
	s.scan = ksim.NewLLCScans(n, cfg.DomainCPUs)
	if cfg.DomainCPUs > 0 {
		s.bal = ksim.NewSoftirqs(ksim.Linux61, n, cfg.DomainCPUs, ksim.HZ(cfg.HZ))
		share := -1.0
		if cfg.TickStopMeasured {
			share = cfg.TickStopShare
		}
		s.idle = ksim.NewIdleCPUs(n, cfg.IdleTick, share)
		// Every cpu starts idle, its tasks asleep.
		for i := range n {
			s.enterIdle(cfsmodel.ClockBase, i, false)
		}
		s.idle.Stops, s.idle.Entries = 0, 0
	}
	end := cfsmodel.ClockBase + int64(cfg.Duration)
	s.runUntil(end)
	for id := range s.moving {
		s.movedSleep(end, id) // a trial's run cut off by the end: asleep where it went
	}
	if s.bal != nil {
		for _, k := range s.bal.Runs {
			out.Softirqs += k
		}
	}
	span := float64(2*cfg.Pairs) * float64(cfg.Duration)
	out.Run, out.Runnable = float64(s.ran)/span, float64(s.ran+s.waited)/span
	out.Delayed, out.Requeued, out.Preempted, out.IdleTicks, out.Place = s.nDelayed, s.nRequeued, s.preempted, s.idleTicks, s.place
	out.GroupTicks = s.groupTicks
	out.GroupAgeUs = s.groupAges.medianUs()
	if s.idle != nil {
		out.TickStops, out.Idles = s.idle.Stops, s.idle.Entries
	}
	out.LateTicks, out.LatePeriod = s.lateTicks, s.latePeriods/float64(max(s.lateTicks, 1))
	return cpus, out, nil
}
