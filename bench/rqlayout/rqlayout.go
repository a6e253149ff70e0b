package rqlayout

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/contend/contend/bench"
)

// The scenario's units; see the package comment for how each is computed.
var (
	PickLines = bench.Unit{Name: "pick-lines", Better: bench.Lower,
		Doc: "cache lines pick_next_task_fair()'s fields span (by construction)"}
	WokenPickLines = bench.Unit{Name: "woken-pick-lines", Better: bench.Lower,
		Doc: "of those, the lines a remote wakeup writes: the lock's, nr_running's, clock's (by construction)"}
	LockSpins = bench.Unit{Name: "lock-spins/op", Better: bench.Lower,
		Doc: "loads spent waiting for a held rq lock, per operation"}
	Wakeups = bench.Unit{Name: "wakeups/op", Better: bench.Lower,
		Doc: "remote wakeups made, per operation"}
)

// keys are the variant's keys, in canonical order.
var keys = []bench.Key{
	{Name: "layout", Default: "before", Domain: bench.OneOf("before", "after"),
		Doc: "struct rq before or after 89951fc1f820's reorder"},
	{Name: "picks", Default: "16", Domain: bench.IntRange(1, 1000000),
		Doc: "__schedule() picks per remote wakeup (16: the commit's 38:1 load:store ratio on the pick_next fields)"},
	{Name: "work", Default: "0", Domain: bench.IntRange(0, 100000),
		Doc: "local work (dependent arithmetic steps) per operation"},
}

func init() {
	bench.Register(&bench.Spec{
		Name:       "rqlayout",
		BenchName:  "RqLayout",
		Summary:    "struct rq's lock, pick_next and clock fields before and after Blake Jones's reorder: remote wakers lock and write while the owner picks",
		Keys:       keys,
		Quick:      []string{"layout=before/picks=16/work=0", "layout=after/picks=16/work=0"},
		Full:       []string{"layout=before/picks=16/work=0", "layout=after/picks=16/work=0", "layout=before/picks=1/work=0", "layout=after/picks=1/work=0"},
		Units:      []bench.Unit{PickLines, WokenPickLines, LockSpins, Wakeups},
		HotSymbols: []string{"scheduleLoop", "(*rq).lock"},
		New:        newRqLayout,
		NoSimulate: "nothing on kernel time: the commit's figures are cycles of the same code on other lines, which only a real run measures",
		Lab:        &bench.LabTest{Variant: "layout=before/picks=16/work=0"},
		Findings:   []int{12},
	})
}

// A field is a byte offset into struct rq.
type field int

// layout is where one struct rq keeps its hot fields.
type layout struct {
	lock                                 field
	nrRunning, nrNuma, nrPreferred       field
	ttwuPending, cpuCapacity, curr, idle field
	clock, clockTask                     field
	size                                 int
}

const line = 64 // the kernel's L1_CACHE_BYTES on x86, what ____cacheline_aligned aligns to

// The two layouts (see the package comment). before: __lock at 0 with
// nr_running and the NUMA counters, ttwu_pending at 104 (after nohz_csd,
// aligned to its 32 bytes, at 64), curr and idle on line 16 beside clock,
// clock_task on the next line, cpu_capacity on line 24. after: the
// pick_next fields on line 0, __lock on line 1, clock beside clock_task.
var layouts = [...]layout{
	{lock: 0, nrRunning: 4, nrNuma: 8, nrPreferred: 12, ttwuPending: 104,
		curr: 16 * line, idle: 16*line + 8, clock: 16*line + 48,
		clockTask: 17 * line, cpuCapacity: 24 * line, size: 26 * line},
	{nrRunning: 0, nrNuma: 4, nrPreferred: 8, ttwuPending: 12, cpuCapacity: 16,
		curr: 24, idle: 40, lock: line,
		clock: 4 * line, clockTask: 4*line + 8, size: 6 * line},
}

// pickFields are the fields pick_next_task_fair() reads.
func (l *layout) pickFields() []field {
	return []field{l.nrRunning, l.nrNuma, l.nrPreferred, l.ttwuPending, l.cpuCapacity, l.curr, l.idle}
}

// lines returns the pick's lines and those a wakeup writes.
func (l *layout) lines() (pick, woken int) {
	seen := map[field]bool{}
	for _, f := range l.pickFields() {
		seen[f/line] = true
	}
	for _, f := range []field{l.lock, l.nrRunning, l.clock, l.clockTask} {
		if seen[f/line] {
			seen[f/line] = false
			woken++
		}
	}
	return len(seen), woken
}

type rqLayout struct {
	params  *bench.Params
	layout  *layout
	picks   int
	work    int
	rqs     []*rq
	workers []*worker
}

func newRqLayout(variant string) (bench.Scenario, error) {
	p, err := bench.ParseParams("rqlayout", variant, keys)
	if err != nil {
		return nil, err
	}
	return &rqLayout{params: p, layout: &layouts[p.Index("layout")], picks: p.Int("picks"), work: p.Int("work")}, nil
}

func (s *rqLayout) Variant() string { return s.params.String() }

func (s *rqLayout) Start(env *bench.Env) error {
	s.rqs = make([]*rq, len(env.CPUs))
	s.workers = make([]*worker, len(env.CPUs))
	return nil
}

// Worker allocates the worker's rq on its own thread, so that it lands on
// the worker's node as a per-cpu rq does; the next worker's rq is looked
// up at the first Run, once every worker has made its own.
func (s *rqLayout) Worker(w bench.WorkerInfo) (bench.Worker, error) {
	r := newRQ(s.layout)
	s.rqs[w.Index] = r
	wk := &worker{s: s, index: w.Index, own: r, picks: s.picks, work: s.work, until: s.picks, sink: uint64(w.Index) + 1}
	s.workers[w.Index] = wk
	return wk, nil
}

func (s *rqLayout) Finish(res *bench.Result) error {
	var ops, woken, ran, queued, spins int64
	for i, w := range s.workers {
		ops += w.ops
		woken += w.wakeups
		ran += w.ran
		spins += w.spins
		queued += int64(*w.own.u32(s.layout.nrRunning))
		if l := atomic.LoadUint32(w.own.u32(s.layout.lock)); l != 0 {
			return fmt.Errorf("rqlayout: rq %d is still locked after the run", i)
		}
	}
	if ops != res.Ops {
		return fmt.Errorf("rqlayout: workers ran %d picks, runner counted %d operations", ops, res.Ops)
	}
	if woken != ran+queued {
		return fmt.Errorf("rqlayout: %d wakeups made, %d run and %d still queued: a wakeup was lost", woken, ran, queued)
	}
	pick, wl := s.layout.lines()
	n := float64(max(res.Ops, 1))
	res.AddMetric(PickLines, float64(pick))
	res.AddMetric(WokenPickLines, float64(wl))
	res.AddMetric(LockSpins, float64(spins)/n)
	res.AddMetric(Wakeups, float64(woken)/n)
	return nil
}

// An rq is one struct rq's bytes, aligned to a 128-byte pair of lines.
type rq struct {
	buf  []byte
	base unsafe.Pointer
	l    *layout
}

func newRQ(l *layout) *rq {
	buf := bench.AlignedBytes(l.size, bench.LinePad)
	return &rq{buf: buf, base: unsafe.Pointer(unsafe.SliceData(buf)), l: l}
}

func (r *rq) u32(f field) *uint32 { return (*uint32)(unsafe.Add(r.base, f)) }
func (r *rq) u64(f field) *uint64 { return (*uint64)(unsafe.Add(r.base, f)) }

// lock takes the rq's lock: a compare-and-swap from 0, and while another
// holds it, loads until it reads 0 (the queued spinlock's fast path and a
// waiter's spin, without the MCS queue). It returns the loads spent
// waiting.
//
//go:noinline
func (r *rq) lock() int64 {
	l := r.u32(r.l.lock)
	var spins int64
	for !atomic.CompareAndSwapUint32(l, 0, 1) {
		for atomic.LoadUint32(l) != 0 {
			spins++
		}
	}
	return spins
}

func (r *rq) unlock() { atomic.StoreUint32(r.u32(r.l.lock), 0) }

type worker struct {
	s     *rqLayout
	index int
	own   *rq
	next  *rq
	picks int
	work  int

	until   int // picks left before the next wakeup
	ops     int64
	wakeups int64
	ran     int64
	spins   int64
	sink    uint64
	_       [bench.LinePad]byte
}

func (w *worker) Run(n int) {
	if w.next == nil {
		w.next = w.s.rqs[(w.index+1)%len(w.s.rqs)]
	}
	w.sink = scheduleLoop(w, n)
	w.ops += int64(n)
}

// scheduleLoop is the hot loop: n __schedule() calls on the worker's own
// rq, with a wakeup onto the next worker's every picks of them. Every
// field is read and written under its rq's lock, as in the kernel.
//
//go:noinline
func scheduleLoop(w *worker, n int) uint64 {
	own, l, x := w.own, w.own.l, w.sink
	for range n {
		w.spins += own.lock()
		x++
		*own.u64(l.clock) = x // update_rq_clock()
		*own.u64(l.clockTask) = x
		// pick_next_task_fair()'s reads.
		nr := *own.u32(l.nrRunning)
		sum := uint64(nr) + uint64(*own.u32(l.nrNuma)) + uint64(*own.u32(l.nrPreferred)) +
			uint64(*own.u32(l.ttwuPending)) + *own.u64(l.cpuCapacity) + *own.u64(l.curr) + *own.u64(l.idle)
		if nr > 0 { // run the woken task; it sleeps again
			*own.u32(l.nrRunning) = nr - 1
			*own.u64(l.curr) = x
			w.ran++
		}
		own.unlock()
		x ^= sum
		if w.until--; w.until == 0 {
			w.until = w.picks
			w.wake()
		}
		x = bench.LocalWork(x, w.work)
	}
	return x
}

// wake is try_to_wake_up() onto the next worker's rq in the same LLC:
// ttwu_queue() takes its lock, update_rq_clock(), ttwu_do_activate()
// enqueues, wakeup_preempt() reads curr.
func (w *worker) wake() {
	r, l := w.next, w.next.l
	w.spins += r.lock()
	c := *r.u64(l.clock) + 1
	*r.u64(l.clock) = c
	*r.u64(l.clockTask) = c
	*r.u32(l.nrRunning)++
	w.sink += *r.u64(l.curr)
	r.unlock()
	w.wakeups++
}
