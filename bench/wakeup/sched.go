package wakeup

import (
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/wakeup/sysbench"
)

// The simulated scheduler core: runqueues, tasks, running, sleeping and
// waking. A cpu runs one task at a time to the end of its burst unless a
// wakee preempts it: each cpu's one cfs_rq keeps its tasks' vruntimes
// (ksim.RQ.CFS), and check_preempt_curr() decides by the policy's kernel
// (ksim.Kernel.PreemptRQ: CFS's wakeup granularity against the sleeper
// credit; EEVDF's pick where a version has it). Otherwise a woken task
// waits its turn in FIFO order, and no tick preempts. Placement at wakeup
// is fair.go's, load balancing balance.go's, what tasks do package
// sysbench's.

// A migration cause: where set_task_cpu() was called from.
type cause int8

const (
	causeWakeAffine cause = iota // select_task_rq_fair(): wake_affine() said this cpu
	causeSIS                     // select_idle_sibling() chose another cpu of the LLC
	causePeriodic                // rebalance_domains() on a busy cpu's tick
	causeNewidle                 // idle_balance()/newidle_balance() as a cpu went idle
	causeNohz                    // nohz_idle_balance() on behalf of a tickless idle cpu
	causeActive                  // active_load_balance_cpu_stop(): the running task pushed
	nCauses
)

var causeNames = [nCauses]string{"wake_affine", "select_idle_sibling", "periodic", "newidle", "nohz", "active"}

// sysctl_sched_nr_migrate: at most 32 tasks looked at per balance.
const nrMigrate = 32

// A ktask is a task_struct, as far as placement and balancing read it:
// ksim's Task (its id, task_cpu(p), whether it runs, waits or sleeps) and
// what this model adds.
type ktask struct {
	ksim.Task
	flips          ksim.WakeeFlips // record_wakee()/wake_wide() state
	recentUsedCPU  int             // p->recent_used_cpu (6.1's select_idle_sibling)
	execStart      int64           // when it last ran (se.exec_start): task_hot()
	la             float64
	laAt           int64
	burst          int64 // ns of work left in its current burst
	ran            int   // the cpu whose cache holds its working set
	wokenAt        int64 // when it was last woken (the wait it sees)
	isIdle         bool  // one of the per-cpu idle tasks (swapper/N): a waker only
	yielded        bool  // queued by sched_yield(), not by a wakeup
	nrMigrations   int64
	wakeups        int64 // schedstat nr_wakeups
	affineAttempts int64 // nr_wakeups_affine_attempts
	affine         int64 // nr_wakeups_affine
}

// loadNow is the task's load_avg at now.
func (t *ktask) loadNow(now int64) float64 {
	d := ksim.Decay(now - t.laAt)
	t.laAt = now
	if t.State != ksim.TaskSleeping {
		t.la = nice0Load - (nice0Load-t.la)*d
	} else {
		t.la *= d
	}
	return t.la
}

// A kcpu is one cpu's rq: ksim's RQ (the running task, the FIFO of
// queued ones, nr_running, rq->idle_stamp, 0 once woken, and
// rq->next_balance, avg_idle and max_idle_balance_cost as ksim's balance
// walks keep them) and what this model adds.
type kcpu struct {
	ksim.RQ
	gen uint32 // bumped when Curr stops early: stale burst ends are dropped
	// waking: an IPI is on its way to this idle cpu (a halted vCPU
	// costs idleWake to start); it is not idle_cpu() meanwhile.
	waking bool
	// tickStopped is ts->tick_stopped: idle with its tick stopped (the
	// nohz mask is ksys.nohz's, which c leaves at its first busy tick).
	tickStopped bool
	sd          []*domain
	llcID       int
	llcSize     int
	idleTask    *ktask // swapper/N: current for an interrupt on an idle cpu
	// PELT sums of the tasks whose task_cpu() is this cpu.
	runnable, blocked ksim.PeltSet
	activeBusy        bool // rq->active_balance: a stopper is on its way
	// resched is need_resched: the task a wakee is to preempt once the
	// event is done (reschedule); nil: none.
	resched   *ksim.Task
	busyNs    int64
	lastStart int64
	util      ksim.CPUUtil // cpu_util_cfs() for SIS_UTIL (fair.go)
}

// idle is idle_cpu(): nothing running, nothing queued, no wakeup pending.
func (c *kcpu) idle() bool { return c.Idle() && !c.waking }

// counts are the simulation's tallies.
type simCounts struct {
	migrations     [nCauses]int64
	wakeups        int64
	syncWakeups    int64
	irqWakeups     int64 // wakeups from an interrupt
	idleWakers     int64 // ... that found the waking cpu idle (case 1 of the patch)
	affineAttempts int64
	affine         int64
	wakeWide       int64 // wakeups wake_wide() sent to the slow path (want_affine 0)
	ipiWakes       int64 // wakeups that had to wake an idle cpu by IPI
	waitNs         int64 // woken → running, summed
	pulls          int64 // runs on another cpu than the working set's
	balances       [3]int64
	transactions   int64
	statements     int64
	localWakeups   int64 // placed on the waking cpu: schedstat's nr_wakeups_local
	preempted      int64 // switched out by a wakee: involuntary switches
	// place counts the wakeups as the kernel's wake trace does: stacked
	// (prev the waking cpu) or split, parted or joined, and what a
	// stacked wakee's scan met (stackedScan).
	place ksim.Placements
}

func (s *simCounts) totalMigrations() int64 {
	var n int64
	for _, m := range s.migrations {
		n += m
	}
	return n
}

// The model's event kinds, as ksim's queue orders them.
const (
	evBurstEnd = ksim.User     // the cpu's current task reaches the end of its burst; Arg: the cpu's gen
	evResched  = ksim.IdleExit // an idle cpu an IPI woke runs what was queued; Arg: the cpu's gen
	evTick     = ksim.Tick     // one jiffy: every busy cpu's scheduler_tick()
	evIRQ      = ksim.Wakeup   // an I/O completion interrupt; CPU -1: chosen when it fires; Arg: the task
)

// A ksys is the simulated kernel.
type ksys struct {
	now   int64 // ns of kernel time: one clock, the driver's
	hz    ksim.HZ
	kern  ksim.Kernel
	q     ksim.Queue
	ver   kver
	pol   policy
	cpus  []*kcpu
	tasks []*ktask
	// rd->overload: some cpu had two tasks runnable since the top level
	// was last balanced.
	overload bool
	// The nohz idle balancer's state: nohz.idle_cpus_mask, nr_cpus,
	// each LLC's nr_busy_cpus, nohz.next_balance.
	nohz  *ksim.Nohz
	gov   []ksim.IdleCPU // each cpu's idle loop (balance.go)
	p     params
	w     *sysbench.Workload
	c     simCounts
	trace func(task, cpu int) // each run's start, for the pinned replay; nil: none
	// llcMask is each LLC's span as CPU-id bits, at its sd_llc_id (its
	// first cpu): select_idle_cpu()'s candidates.
	llcMask [][]uint64
	wk      waking  // the wakeup select_task_rq_fair() is placing
	resched []*kcpu // the cpus whose resched is set
	rng     uint64  // the idle wakeups' delays (params.wakeShape)
}

// newKsys builds the kernel for the config: cpus, their domains, the idle
// tasks.
func newKsys(p params) (*ksys, error) {
	k := &ksys{hz: ksim.HZ(p.hz), ver: p.pol.kver(), pol: p.pol, p: p, rng: p.work.Seed*0x9E3779B97F4A7C15 ^ 0x1d1e | 1}
	k.kern = p.pol.kernel()
	sds, llcID, llcSize, err := buildDomains(k.ver, p.topo, p.cpus)
	if err != nil {
		return nil, err
	}
	for i := range p.cpus {
		c := &kcpu{RQ: ksim.RQ{CPU: i}, sd: sds[i], llcID: llcID[i], llcSize: llcSize[i], tickStopped: true}
		c.RQBalance.Init()
		c.idleTask = &ktask{Task: ksim.Task{ID: -1 - i, CPU: i}, flips: ksim.WakeeFlips{Last: -1}, isIdle: true}
		c.blocked.At, c.runnable.Runnable = 0, true
		k.cpus = append(k.cpus, c)
	}
	llc := make([]int, p.cpus) // each cpu's sd_llc_shared: none on an LLC of one
	for i, c := range k.cpus {
		llc[i] = -1
		if c.llcSize > 1 {
			llc[i] = c.llcID
		}
	}
	k.nohz = ksim.NewNohz(p.cpus, llc).ForKernel(k.kern)
	for i := range p.cpus {
		k.nohz.EnterIdle(i) // the cpus start idle, their ticks stopped
	}
	k.llcMask = make([][]uint64, p.cpus)
	for _, c := range k.cpus {
		m := k.llcMask[c.llcID]
		if m == nil {
			m = make([]uint64, (p.cpus+63)/64)
			k.llcMask[c.llcID] = m
		}
		m[c.CPU/64] |= 1 << (c.CPU % 64)
	}
	return k, nil
}

// jiffies is the tick count now.
func (k *ksys) jiffies() int64 { return k.hz.Jiffies(k.now) }

// push schedules an event.
func (k *ksys) push(at int64, kind ksim.Kind, cpu int, arg int64) {
	k.q.Push(ksim.Event{T: at, CPU: cpu, Kind: kind, Arg: arg})
}

// addTask creates a sleeping task whose task_cpu() is cpu.
func (k *ksys) addTask(cpu int) *ktask {
	t := &ktask{Task: ksim.Task{ID: len(k.tasks), CPU: cpu, Weight: nice0Load}, ran: cpu, flips: ksim.WakeeFlips{Last: -1}, recentUsedCPU: cpu}
	k.tasks = append(k.tasks, t)
	k.cpus[cpu].blocked.Add(k.now, 0)
	return t
}

// setTaskCPU is set_task_cpu(): the one place a task changes cpu, counted
// by cause. Its load goes with it (6.1's migrate_task_rq_fair() removes it
// from the old cfs_rq; 4.13 counts only runnable load in what it reads).
func (k *ksys) setTaskCPU(t *ktask, to int, why cause) {
	if t.CPU == to {
		return
	}
	la := t.loadNow(k.now)
	from, dst := k.cpus[t.CPU], k.cpus[to]
	if t.State == ksim.TaskSleeping {
		from.blocked.Remove(k.now, la)
		dst.blocked.Add(k.now, la)
	} else {
		from.runnable.Remove(k.now, la)
		dst.runnable.Add(k.now, la)
	}
	t.CPU = to
	t.nrMigrations++
	if k.counted(t) {
		k.c.migrations[why]++
	}
}

// counted says whether t is the workload's (counted) rather than one of
// the guest's other threads.
func (k *ksys) counted(t *ktask) bool { return k.w == nil || !k.w.Other(t.ID) }

// cpuLoad is the load the version's balancer and wake_affine read: 4.13's
// weighted_cpuload() (runnable_load_avg: runnable tasks only), 6.1's
// cpu_load() (cfs_rq load_avg: blocked tasks' decaying load too).
func (k *ksys) cpuLoad(c *kcpu) float64 {
	l := c.runnable.Value(k.now)
	if k.ver == v61 {
		l += c.blocked.Value(k.now)
	}
	return l
}

// enqueue puts a woken task, last on cpu prev, on cpu c's queue
// (activate_task(), placed by its vruntime) and checks preemption: its
// load turns from blocked to runnable.
func (k *ksys) enqueue(t *ktask, c *kcpu, from, prev int) {
	la := t.loadNow(k.now)
	c.blocked.Remove(k.now, la)
	c.runnable.Add(k.now, la)
	k.kern.WakeRQ(&c.RQ, &k.cpus[prev].RQ, &t.Task, k.now, len(k.cpus))
	k.attach(t, c, from)
}

// attach queues a runnable task on c (a woken one, or one a balance moved)
// and wakes c if it is idle: at once if the cpu doing it is c itself, else
// after the IPI and the halted vCPU's wakeup (idleWake).
func (k *ksys) attach(t *ktask, c *kcpu, from int) {
	c.Activate(&t.Task)
	if c.NrRunning >= 2 {
		k.overload = true // add_nr_running(): rd->overload
	}
	if c.Curr != nil || c.waking {
		// check_preempt_curr(), unless need_resched is set already;
		// its switch is the event's end's (reschedule), where the
		// kernel's return from the interrupt or syscall schedules.
		if c.Curr != nil && c.resched == nil && k.kern.PreemptRQ(&c.RQ, &t.Task, k.now, len(k.cpus)) {
			c.NextBuddy(&t.Task)
			c.resched = c.Curr
			k.resched = append(k.resched, c)
		}
		return
	}
	c.waking = true
	c.gen++
	delay := int64(0)
	if from != c.CPU {
		delay = k.p.idleWake
		if sh := k.p.wakeShape; len(sh) > 0 {
			delay = int64(float64(delay) * sh[bench.XorShift(&k.rng)%uint64(len(sh))])
		}
		k.c.ipiWakes++
	}
	k.push(k.now+delay, evResched, c.CPU, int64(c.gen))
}

// migrate is a balance's move of queued t to dst, run from cpu from:
// detach_task() (its vruntime off its cfs_rq, set_task_cpu()), then
// attach_task() (onto dst's, which may preempt).
func (k *ksys) migrate(t *ktask, dst *kcpu, why cause, from int) {
	if !k.kern.MoveRQ(&k.cpus[t.CPU].RQ, &dst.RQ, &t.Task, k.now, k.hz, len(k.cpus)) {
		panic("wakeup: dequeue of a task not queued") // an invariant of the model, not input
	}
	k.setTaskCPU(t, dst.CPU, why)
	k.attach(t, dst, from)
}

// runNext is __schedule() on c: the next queued task runs, or c goes idle
// and newly-idle balances first.
func (k *ksys) runNext(c *kcpu) {
	c.waking = false
	if len(c.Queue) == 0 {
		k.goIdle(c)
		if len(c.Queue) == 0 {
			return
		}
		c.waking = false
	}
	k.run(c, k.tasks[c.PickNext().ID])
}

// run starts t, just made c's current task: set_next_entity(), and its
// burst (or the rest of it) from now.
func (k *ksys) run(c *kcpu, t *ktask) {
	k.kern.SetNextRQ(&c.RQ, k.now)
	c.tickStopped = false // tick_nohz_idle_exit()
	c.lastStart = k.now
	if k.counted(t) && !t.yielded {
		k.c.waitNs += k.now - t.wokenAt
	}
	t.yielded = false
	if t.ran != c.CPU && k.counted(t) {
		// The working set follows the task: its first run here pulls
		// it from the cache of the cpu it last ran on.
		t.burst += k.p.pull
		t.ran = c.CPU
		k.c.pulls++
	}
	if k.trace != nil {
		k.trace(t.ID, c.CPU)
	}
	c.gen++
	k.push(k.now+t.burst, evBurstEnd, c.CPU, int64(c.gen))
}

// goIdle is c going idle: idle_balance() may pull a task; if not, the
// governor decides whether the tick stops (stopTick; a stop is
// nohz_balance_enter_idle()).
func (k *ksys) goIdle(c *kcpu) {
	c.IdleStamp = max(k.now, 1)
	// idle_balance(), 6.1's newidle_balance(): each level's pass priced
	// at lbcost=.
	k.kern.NewidleBalance(k.walk(c, causeNewidle, c.CPU), &c.RQBalance, k.jiffies(), k.hz)
	if len(c.Queue) > 0 {
		c.IdleStamp = 0 // "if (pulled_task) this_rq->idle_stamp = 0"
		return
	}
	k.nohz.IdleEntry(c.CPU) // 4.13's tick_nohz_idle_enter(): set_cpu_sd_state_idle()
	k.stopIdleTick(c, k.stopTick(c))
}

// burstEnd is c's current task finishing its burst: the workload says what
// it does (wake a partner, sleep), then c schedules.
func (k *ksys) burstEnd(c *kcpu) {
	t := k.tasks[c.Curr.ID]
	t.burst = 0
	c.busyNs += k.now - c.lastStart
	c.util.Ran += k.now - c.lastStart
	t.execStart = k.now
	switch k.w.Act(t.ID, c.CPU) {
	case sysbench.Yield:
		if len(c.Queue) == 0 {
			break // yield_task_fair(): "if (unlikely(rq->nr_running == 1)) return;"
		}
		// yield_task_fair() makes t the skip buddy, so pick_next_entity()
		// runs another first: on FIFO queues, t goes behind them. Not a
		// wakeup: its wait is not counted as one. (Its run was counted in
		// busyNs above.)
		t.yielded = true
		k.kern.UpdateCurrRQ(&c.RQ, k.now, len(k.cpus)) // yield_task_fair()
		c.PutPrev(false)
		k.runNext(c)
		return
	case sysbench.Block:
		// The task blocks: dequeue_task(), its load now blocked.
		la := t.loadNow(k.now)
		c.runnable.Remove(k.now, la)
		k.kern.SleepRQ(&c.RQ, k.now, k.hz, len(k.cpus))
		c.blocked.Add(k.now, la)
		k.runNext(c)
		return
	}
	// It goes on running: another burst, no sleep.
	c.lastStart = k.now
	c.gen++
	k.push(k.now+t.burst, evBurstEnd, c.CPU, int64(c.gen))
}

// stop stops c's running task early (the stopper of an active balance, a
// wakee's preemption), to wait runnable with the rest of its burst; the
// caller puts it back (ksim.RQ.PutPrev, Preempt).
func (k *ksys) stop(c *kcpu) *ktask {
	t := k.tasks[c.Curr.ID]
	k.kern.UpdateCurrRQ(&c.RQ, k.now, len(k.cpus))
	t.burst -= k.now - c.lastStart
	t.burst = max(t.burst, 0)
	t.execStart = k.now
	c.busyNs += k.now - c.lastStart
	c.util.Ran += k.now - c.lastStart
	t.wokenAt = k.now
	c.gen++
	return t
}

// reschedule is __schedule() on each cpu whose resched a wakeup set, at
// the end of the event that set it: the running task, if it is still the
// one to preempt, goes back at the queue's head behind the next buddy,
// which runs. One that blocked or yielded meanwhile has scheduled already.
func (k *ksys) reschedule() {
	for _, c := range k.resched {
		prev := c.resched
		c.resched = nil
		if c.Curr != prev || len(c.Queue) == 0 {
			continue
		}
		if t := k.stop(c); k.counted(t) {
			k.c.preempted++
		}
		c.Preempt(c.Queue[0])
		k.run(c, k.tasks[c.Curr.ID])
	}
	k.resched = k.resched[:0]
}

// tryToWakeUp is try_to_wake_up(p) by current (a task, or c's idle task
// for an interrupt on an idle cpu) on c: select_task_rq_fair() places it,
// set_task_cpu() moves it, ttwu_do_wakeup() queues it.
func (k *ksys) tryToWakeUp(p *ktask, current *ktask, c *kcpu, sync bool) {
	if p.State != ksim.TaskSleeping {
		return
	}
	if !k.counted(p) {
		// The other threads' wakeups move them and flip their
		// wakers' wakee_flips, but count nowhere.
		saved := k.c
		defer func() {
			mig, bal := k.c.migrations, k.c.balances
			k.c = saved
			k.c.migrations, k.c.balances = mig, bal
		}()
	}
	k.c.wakeups++
	p.wakeups++
	if sync {
		k.c.syncWakeups++
	}
	prev := p.CPU
	if prev == c.CPU && k.p.scanFigures && k.counted(p) {
		k.stackedScan(c)
	}
	cpu, why := k.selectTaskRq(p, current, c, prev, sync)
	k.c.place.Place(int(prev), int(c.CPU), cpu)
	k.setTaskCPU(p, cpu, why)
	if cpu == c.CPU {
		k.c.localWakeups++
	}
	dst := k.cpus[cpu]
	// ttwu_do_wakeup(): an idle rq learns how long it was idle.
	dst.WokeUp(k.now, dst.IdleStamp)
	dst.IdleStamp = 0
	p.wokenAt = k.now
	k.enqueue(p, dst, c.CPU, prev)
}

// stackedScan records what select_idle_cpu() meets for a wakee whose
// prev_cpu is c, the waking cpu (ksim.Placements, as the wake trace
// reads it): the LLC's SIS_UTIL budget 0, a cpu of the LLC beside c idle
// but for the IPI on its way (waking), an idle one, and one within the
// budget's reach from c's next. c itself is not beside: an interrupt's
// wakeup on idle c of a task whose prev is c finds c idle, and
// select_idle_sibling() returns it before any scan; the scan from c's
// next visits c last, so a scan that finds c found nothing beside. A
// cpu with no LLC domain scans nothing (select_idle_sibling() returns
// the target).
//
// Not inlined: tryToWakeUp stays as small as it was for the runs that do
// not ask for the figures.
//
//go:noinline
func (k *ksys) stackedScan(c *kcpu) {
	if c.llcShared() == nil {
		return
	}
	llc, nr := k.IdleScan(int(c.CPU))
	pl, start := &k.c.place, k.kern.ScanStart(int(c.CPU))
	if nr == 1 {
		pl.NoScan++
	}
	if ksim.AnyMate(llc, int(c.CPU), func(m int) bool { return k.cpus[m].waking && k.cpus[m].Curr == nil }) {
		pl.PendingMate++
	}
	// One scan with no budget: the first idle cpu, and whether the
	// budget's nr - 1 probes reach it.
	if mate, probes, _ := ksim.SelectIdleCPU(llc, k, start, ksim.NoBudget); mate >= 0 && mate != int(c.CPU) {
		pl.IdleMate++
		if nr == ksim.NoBudget || probes < nr {
			pl.ScanFinds++
		}
	}
}

// step runs the next event; false when none is left before end.
func (k *ksys) step(end int64) bool {
	if k.q.Len() == 0 || k.q.Peek().T > end {
		return false
	}
	e := k.q.Pop()
	k.now = e.T
	switch e.Kind {
	case evBurstEnd:
		c := k.cpus[e.CPU]
		if uint32(e.Arg) == c.gen && c.Curr != nil {
			k.burstEnd(c)
		}
	case evResched:
		c := k.cpus[e.CPU]
		if uint32(e.Arg) == c.gen && c.Curr == nil {
			k.runNext(c)
		}
	case evTick:
		k.tick()
		k.push(k.now+k.hz.TickNs(), evTick, 0, 0)
	case evIRQ:
		k.w.Interrupt(int(e.Arg), e.CPU)
	}
	if len(k.resched) > 0 {
		k.reschedule()
	}
	return true
}

// The sysbench.Kernel the workload runs on.

func (k *ksys) Now() int64                { return k.now }
func (k *ksys) CPUs() int                 { return len(k.cpus) }
func (k *ksys) NewTask(cpu int) int       { return k.addTask(cpu).ID }
func (k *ksys) TaskCPU(id int) int        { return k.tasks[id].CPU }
func (k *ksys) Sleeping(id int) bool      { return k.tasks[id].State == ksim.TaskSleeping }
func (k *ksys) SetBurst(id int, ns int64) { k.tasks[id].burst = ns }
func (k *ksys) Running(cpu int) bool      { return k.cpus[cpu].Curr != nil }

// Start makes a new task runnable on its cpu, its wait counted from now.
func (k *ksys) Start(id int) {
	t := k.tasks[id]
	t.wokenAt = k.now
	k.enqueue(t, k.cpus[t.CPU], t.CPU, t.CPU)
}

// Wake is try_to_wake_up(id) by what cpu runs: its current task, or its
// idle task (swapper/N) for an interrupt on an idle cpu.
func (k *ksys) Wake(id, cpu int, sync bool) {
	c := k.cpus[cpu]
	current := c.idleTask
	if c.Curr != nil {
		current = k.tasks[c.Curr.ID]
	}
	k.tryToWakeUp(k.tasks[id], current, c, sync)
}

// Interrupt arms an interrupt that calls the workload's Interrupt.
func (k *ksys) Interrupt(at int64, cpu, id int) { k.push(at, evIRQ, cpu, int64(id)) }

// Count counts the workload's events.
func (k *ksys) Count(e sysbench.Event) {
	switch e {
	case sysbench.Statement:
		k.c.statements++
	case sysbench.Transaction:
		k.c.transactions++
	case sysbench.IRQWakeup:
		k.c.irqWakeups++
	case sysbench.IdleWaker:
		k.c.idleWakers++
	}
}
