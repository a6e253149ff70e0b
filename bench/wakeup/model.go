package wakeup

import (
	"fmt"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
)

// The model: tasks with working sets, per-cpu wake lists, and the worker that
// is one cpu waking tasks and running the tasks woken onto it.

// sampleEvery: one run in this many, of tasks that moved and separately of
// tasks that stayed, is timed for sec/migration. Both kinds pay the same two
// clock reads as often, so the timing does not tilt ns/op between policies.
// Each worker keeps the last sampleKeep times of each kind: sec/migration is
// a difference of medians, because a timed run that the hypervisor or another
// thread preempts takes milliseconds, and one such run in ten thousand would
// move a mean by more than a migration costs.
const (
	sampleEvery = 16
	sampleKeep  = 2048
)

// A samples is the timing of one kind of run: one run in every is timed, and
// the last sampleKeep times are kept in a ring.
type samples struct {
	every, left int32   // time one run in every; left counts down to the next
	ns          []int64 // capacity sampleKeep, allocated with the worker
	n           int64   // times recorded, also past the ring's length
}

func newSamples(every int32) samples {
	return samples{every: every, left: every, ns: make([]int64, 0, sampleKeep)}
}

// due reports whether this run is to be timed, and counts it.
func (s *samples) due() bool {
	if s.left--; s.left > 0 {
		return false
	}
	s.left = s.every
	return true
}

func (s *samples) add(d int64) {
	if len(s.ns) < cap(s.ns) {
		s.ns = append(s.ns, d)
	} else {
		s.ns[s.n%int64(len(s.ns))] = d
	}
	s.n++
}

// A task is a sleeping or woken task: its task_struct's wakeup fields on a
// line of their own, and its working set.
type task struct {
	_ [bench.LinePad]byte
	// state is 0 while the task sleeps and 1 from the wakeup that claims
	// it (try_to_wake_up's p->__state / p->on_rq transition) until it has
	// run and gone back to sleep.
	state atomic.Uint32
	// cpu is task_cpu(p): where the task last ran, until a wakeup places
	// it; only the waker that claimed it writes it (set_task_cpu).
	cpu atomic.Int32
	// next links the task into a cpu's wake list: the index+1 of the task
	// queued before it, 0 at the end (p->wake_entry.llist).
	next atomic.Int32
	// ran is the cpu that last ran the task, the one whose cache holds its
	// working set modified; runs counts its runs. Both are written only by
	// the cpu running it, ordered by the state and wake-list atomics.
	ran  int32
	idx  int32 // its home cpu (its partner's) is idx / tasks
	runs int64
	// words is the working set: lines of stride words, each run
	// incrementing the first word of every line, which takes the line
	// exclusive in the running cpu's cache.
	words  []uint64
	stride int
	_      [bench.LinePad]byte
}

// newTask allocates a task with lines lines of lineBytes each, at home on
// cpu and placed there, its working set aligned to a line. Call it on cpu's pinned thread, so that
// the first touch puts the memory on cpu's node.
func newTask(idx, cpu, lines, lineBytes int) *task {
	stride := lineBytes / 8
	buf := make([]uint64, (lines+1)*stride)
	off := 0
	if r := uintptr(unsafe.Pointer(&buf[0])) % uintptr(lineBytes); r != 0 {
		off = (lineBytes - int(r)) / 8
	}
	t := &task{idx: int32(idx), ran: int32(cpu), words: buf[off : off+lines*stride], stride: stride}
	t.cpu.Store(int32(cpu))
	return t
}

// A runqueue is the part of a cpu's rq that a remote wakeup writes: its wake
// list (rq->wake_list, a lock-free stack that __ttwu_queue_wakelist pushes
// on and sched_ttwu_pending empties in one exchange) and how many woken tasks
// wait on it, which the idle search reads.
type runqueue struct {
	_    [bench.LinePad]byte
	head atomic.Int32 // index+1 of the last task pushed, 0 when empty
	nr   atomic.Int32 // tasks pushed and not yet run
	_    [bench.LinePad - 8]byte
}

// push is llist_add: the waker links the task in front of the list.
func (rq *runqueue) push(t *task) {
	for {
		old := rq.head.Load()
		t.next.Store(old)
		if rq.head.CompareAndSwap(old, t.idx+1) {
			return
		}
	}
}

// A layout is what the workers know of each other: LLC and node of each
// (model) cpu, and for each the other cpus of its LLC in the order the idle
// search probes them; and each LLC's sched_domain_shared, which the pre-patch
// wake_affine() reads.
type layout struct {
	llc, node []int32
	peers     [][]int32
	// shared is per_cpu(sd_llc_shared, c) for each cpu c: one per LLC,
	// nil for an LLC of one cpu, whose domain degenerates (sd_degenerate:
	// a span of weight 1), so that 4.13 has no sd_llc and no
	// sd_llc_shared for it (update_top_cache_domain).
	shared []*llcShared
}

// An llcShared is the part of struct sched_domain_shared that 90001d67be2f
// added for wake_affine_llc(): "some variables from the most recent
// sd_lb_stats for this domain". Every cpu of the LLC writes it at the end of
// its load balance of the LLC domain (update_sd_lb_stats), and wakers on
// other LLCs read it, so it is one more line handed between caches, written
// once a balance interval. Zero until the first balance, as kzalloc_node
// left it.
type llcShared struct {
	_         [bench.LinePad]byte
	nrRunning atomic.Int64 // sds->total_running: the LLC's runnable tasks
	load      atomic.Int64 // sds->total_load
	capacity  atomic.Int64 // sds->total_capacity
	_         [bench.LinePad - 24]byte
}

// newLayout orders each cpu's LLC peers as for_each_cpu_wrap() does from the
// cpu after it: by cpu id, wrapping, itself left out. Workers are the model's
// cpus; cpus breaks ties between workers (all 0 when unpinned) by index.
func newLayout(llc, node []int32, cpus []int) *layout {
	n := len(llc)
	l := &layout{llc: llc, node: node, peers: make([][]int32, n), shared: make([]*llcShared, n)}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cpus[a] - cpus[b] })
	for i := range n {
		at := slices.Index(order, int32(i))
		for k := 1; k < n; k++ {
			if c := order[(at+k)%n]; llc[c] == llc[i] {
				l.peers[i] = append(l.peers[i], c)
			}
		}
	}
	// One llcShared per LLC of two cpus or more, found through its first
	// cpu's, as sd_init() attaches the sds of the domain's first cpu.
	byLLC := map[int32]*llcShared{}
	for i := range n {
		if len(l.peers[i]) == 0 {
			continue
		}
		if byLLC[llc[i]] == nil {
			byLLC[llc[i]] = new(llcShared)
		}
		l.shared[i] = byLLC[llc[i]]
	}
	return l
}

// counts are one worker's tallies; Finish adds them up.
type counts struct {
	attempts    int64 // wakeups tried (operations)
	noops       int64 // tries that found the task awake
	wakeups     int64 // tries that claimed a sleeping task
	awayWakers  int64 // wakeups made on another cpu than the task's home
	migrations  int64 // wakeups placing the task on another cpu
	crossLLC    int64 // ... on another LLC
	crossNode   int64 // ... on another node
	remoteWakes int64 // wakeups pushed onto another cpu's wake list

	runs  int64 // tasks run on this cpu
	moved int64 // runs of a task that last ran on another cpu: each pulls lines= lines

	// The kernel policies' decisions (wake=llcstats, wake=basic).
	syncWakeups int64 // wakeups flagged WF_SYNC
	affineTries int64 // wake_affine() calls: wakeups of a task that last ran elsewhere
	affine      int64 // ... that said yes
	sisCalls    int64 // select_idle_sibling() calls
	sisTarget   int64 // ... returned early: the target idle
	sisPrev     int64 // ... returned early: prev idle and sharing the target's LLC
	sisScans    int64 // ... went on to select_idle_cpu()'s scan
	sisFound    int64 // ... whose scan found an idle cpu other than the target
	probes      int64 // runqueues the scans probed, the target included
	balances    int64 // load balances of this cpu's LLC that wrote its llcShared (wake=llcstats)
}

func (c *counts) add(o *counts) {
	c.attempts += o.attempts
	c.noops += o.noops
	c.wakeups += o.wakeups
	c.awayWakers += o.awayWakers
	c.migrations += o.migrations
	c.crossLLC += o.crossLLC
	c.crossNode += o.crossNode
	c.remoteWakes += o.remoteWakes
	c.runs += o.runs
	c.moved += o.moved
	c.syncWakeups += o.syncWakeups
	c.affineTries += o.affineTries
	c.affine += o.affine
	c.sisCalls += o.sisCalls
	c.sisTarget += o.sisTarget
	c.sisPrev += o.sisPrev
	c.sisScans += o.sisScans
	c.sisFound += o.sisFound
	c.probes += o.probes
	c.balances += o.balances
}

// A worker is one cpu: the waker that runs on it, and whatever tasks are
// woken onto it. Everything here is its own, padded from its neighbours; the
// shared state is what tasks and rqs point to.
type worker struct {
	_ [bench.LinePad]byte
	counts
	rng  uint64
	me   int32
	wake policy
	migT uint64 // a 32-bit draw below migT makes an away wakeup
	// syncT: a 32-bit draw below it makes a WF_SYNC wakeup; 0 never, and
	// syncAll always, without a draw.
	syncT uint64

	tasks []*task
	rqs   []*runqueue
	lay   *layout
	ncpu  uint64 // workers
	per   uint64 // tasks at home on each cpu

	gap int64 // kernel time per wakeup: the worker's clock is attempts × gap
	// The pre-patch policy's LLC statistics: live reads the runqueues at
	// the wakeup (stats=live); otherwise this cpu balances its LLC when its
	// clock reaches balanceAt, then every balanceEvery (0: never, as for an
	// LLC of one cpu or another policy).
	live                    bool
	balanceAt, balanceEvery int64
	stayT, movedT           samples // run times of tasks that stayed, that moved
	_                       [bench.LinePad]byte
}

// next is xorshift64*: cheap, deterministic per worker.
func (w *worker) next() uint64 { return bench.XorShift(&w.rng) }

func (w *worker) Run(n int) { wakeupLoop(w, n) }

// wakeupLoop is the hot loop: n operations, each first running what other
// cpus woke onto this one, then one wakeup made here: of one of its own
// partners' tasks (a home wakeup), or, with probability mig=, of a task at
// home on another cpu picked at random (an away wakeup). perf annotate finds
// the working-set pulls in touchLines and the handoff in wakeTask.
//
//go:noinline
func wakeupLoop(w *worker, n int) {
	now := w.attempts * w.gap
	for range n {
		w.drain()
		if now += w.gap; w.balanceEvery > 0 && now >= w.balanceAt {
			w.balanceLLC()
		}
		k, away := w.pick()
		if w.wakeTask(k) && away {
			w.awayWakers++
		}
	}
	w.attempts += int64(n)
}

// drain is sched_ttwu_pending(): take the whole wake list in one exchange
// and run each task on it. A cpu nobody woke anything onto only reads its
// own line.
func (w *worker) drain() {
	rq := w.rqs[w.me]
	if rq.head.Load() == 0 {
		return
	}
	h := rq.head.Swap(0)
	var n int32
	for h != 0 {
		t := w.tasks[h-1]
		h = t.next.Load() // before run: once asleep, t may be pushed elsewhere
		w.run(t)
		n++
	}
	rq.nr.Add(-n)
}

// pick draws the task to wake and whether it is an away wakeup, from one draw
// and without a division: the low half decides away or home; the high half is
// a fraction whose multiples by the number of choices pick the other cpu and
// then the task.
func (w *worker) pick() (k int32, away bool) {
	r := w.next()
	x := r >> 32
	home := uint64(w.me)
	if away = uint64(uint32(r)) < w.migT; away {
		x *= w.ncpu - 1
		if home += 1 + x>>32; home >= w.ncpu {
			home -= w.ncpu
		}
		x &= 1<<32 - 1
	}
	return int32(home*w.per + (x*w.per)>>32), away
}

// wakeTask is try_to_wake_up() of task k on this cpu: claim it, let the policy
// place it (select_task_rq), and run it here or push it onto the target's
// wake list. It reports whether the task was asleep.
//
//go:noinline
func (w *worker) wakeTask(k int32) bool {
	t := w.tasks[k]
	if !t.state.CompareAndSwap(0, 1) {
		w.noops++
		return false
	}
	w.wakeups++
	prev := t.cpu.Load()
	target := w.place(prev)
	if target != prev {
		w.migrations++
		if w.lay.llc[prev] != w.lay.llc[target] {
			w.crossLLC++
		}
		if w.lay.node[prev] != w.lay.node[target] {
			w.crossNode++
		}
		t.cpu.Store(target)
	}
	if target == w.me {
		w.run(t)
		return true
	}
	w.remoteWakes++
	rq := w.rqs[target]
	rq.nr.Add(1)
	rq.push(t)
	return true
}

// place is the policy: where a task that last ran on prev runs when this cpu
// wakes it.
func (w *worker) place(prev int32) int32 {
	switch w.wake {
	case wakeAffine:
		return w.me
	case wakePrev:
		return prev
	case wakeIdle:
		return w.selectIdle(prev)
	}
	return w.selectTaskRq(prev, w.sync())
}

// syncAll is syncT for sync=100: every wakeup WF_SYNC.
const syncAll = 1 << 32

// sync draws whether this wakeup is WF_SYNC (the waker will sleep soon
// after, as a client does once it has sent its query), and counts it.
func (w *worker) sync() bool {
	s := w.syncT == syncAll || (w.syncT > 0 && w.next()>>32 < w.syncT)
	if s {
		w.syncWakeups++
	}
	return s
}

// selectIdle is select_idle_sibling(p, prev, this_cpu) with this cpu busy
// (it is running the waker): prev if it shares this cpu's LLC and is idle,
// else the first idle cpu of the LLC in wrap order from this cpu, else this
// cpu. Idle means no woken task waits on it; each probe reads that cpu's rq
// line, as available_idle_cpu() reads a remote rq.
func (w *worker) selectIdle(prev int32) int32 {
	if prev != w.me && w.lay.llc[prev] == w.lay.llc[w.me] && w.rqs[prev].nr.Load() == 0 {
		return prev
	}
	for _, c := range w.lay.peers[w.me] {
		if w.rqs[c].nr.Load() == 0 {
			return c
		}
	}
	return w.me
}

// run is the task running on this cpu: it reads and writes every line of its
// working set, pulling each from the cpu that last ran it if that was not this
// one, then sleeps.
func (w *worker) run(t *task) {
	moved := t.ran != w.me
	times := &w.stayT
	if moved {
		times = &w.movedT
	}
	if times.due() {
		start := ktime.Wall()
		touchLines(t.words, t.stride)
		times.add(ktime.Wall() - start)
	} else {
		touchLines(t.words, t.stride)
	}
	if moved {
		w.moved++
		t.ran = w.me
	}
	t.runs++
	w.runs++
	t.state.Store(0)
}

// touchLines increments the first word of each line: a read for ownership of
// every line of the working set, the whole of a migration's cache cost here.
//
//go:noinline
func touchLines(words []uint64, stride int) {
	for i := 0; i < len(words); i += stride {
		words[i]++
	}
}

// The scenario's shared state.
type wakeup struct {
	cfg     config
	variant string

	line    int    // cache line size in bytes
	fake    string // the fake topology's label, "" on a real one
	derived bool   // some worker's LLC is the scheduler's, derived without a reported cache (affinity.SchedLLC)
	cpus    []int
	lay     *layout
	tasks   []*task     // tasks × workers, filled in by Worker
	rqs     []*runqueue // one per worker, filled in by Worker
	workers []*worker
}

func (s *wakeup) Start(env *bench.Env) error {
	n := len(env.CPUs)
	if n < 2 {
		return fmt.Errorf("wakeup: %d worker: a migration needs at least 2 cpus", n)
	}
	s.line = 64
	llc, node := make([]int32, n), make([]int32, n)
	if t := env.Topology; t != nil {
		s.line = t.CacheLine()
		if t.IsFake() {
			s.fake = t.Label()
		}
		// The scheduler's LLCs (sd_llc): a reported one by its index, one
		// derived without a reported cache after them, in the order met.
		derived := map[string]int32{}
		for i, cpu := range env.CPUs {
			llc[i] = -1
			switch g, d := t.SchedLLC(cpu); {
			case !d && !g.Empty():
				llc[i] = int32(t.CPUs[cpu].LLC)
			case d:
				id, ok := derived[g.String()]
				if !ok {
					id = int32(len(t.LLCs) + len(derived))
					derived[g.String()] = id
				}
				llc[i] = id
				s.derived = true
			}
		}
	}
	for i := range node {
		node[i] = int32(env.Nodes[i])
		if s.cfg.llc > 0 {
			// llc=N: the model's own LLCs, N consecutive workers
			// each, whatever the host's caches are.
			llc[i] = int32(i / s.cfg.llc)
		}
	}
	s.cpus = env.CPUs
	s.lay = newLayout(llc, node, env.CPUs)
	s.tasks = make([]*task, n*s.cfg.tasks)
	s.rqs = make([]*runqueue, n)
	s.workers = make([]*worker, n)
	return nil
}

// setClasses gives the model cpus other LLCs and nodes than Start found, for
// tests that work out crossings by hand on a made-up machine. The layout is
// replaced in place: the workers share it.
func (s *wakeup) setClasses(llc, node []int32) {
	*s.lay = *newLayout(llc, node, s.cpus)
	for _, w := range s.workers {
		if w != nil {
			s.schedule(w)
		}
	}
}

// schedule sets when w balances its LLC, for wake=llcstats reading 4.13's
// snapshot: never on an LLC of one cpu, which has no sd_llc_shared.
func (s *wakeup) schedule(w *worker) {
	w.balanceAt, w.balanceEvery = 0, 0
	if s.cfg.wake == wakeLLCStats && !s.cfg.live && s.lay.shared[w.me] != nil {
		w.balanceAt, w.balanceEvery = balanceTimes(1 + len(s.lay.peers[w.me]))
	}
}

// Worker builds cpu info.Index's wake list and the tasks at home on it (so
// their memory is first touched on its node), and the worker itself.
func (s *wakeup) Worker(info bench.WorkerInfo) (bench.Worker, error) {
	i := info.Index
	s.rqs[i] = new(runqueue)
	w := &worker{
		rng:    uint64(i+1)*0x9E3779B97F4A7C15 | 1,
		me:     int32(i),
		wake:   s.cfg.wake,
		migT:   uint64(s.cfg.mig) << 32 / 10000,
		syncT:  uint64(s.cfg.sync) << 32 / 100,
		tasks:  s.tasks,
		rqs:    s.rqs,
		lay:    s.lay,
		ncpu:   uint64(len(s.workers)),
		per:    uint64(s.cfg.tasks),
		gap:    int64(len(s.workers)) * 1e9 / int64(s.cfg.rate),
		stayT:  newSamples(sampleEvery),
		movedT: newSamples(sampleEvery),
		live:   s.cfg.live,
	}
	s.schedule(w)
	for j := range s.cfg.tasks {
		k := i*s.cfg.tasks + j
		s.tasks[k] = newTask(k, i, s.cfg.lines, s.line)
	}
	s.workers[i] = w
	return w, nil
}
