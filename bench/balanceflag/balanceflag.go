package balanceflag

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contend/contend/bench"
)

// The units the scenario reports beside ns/op.
var (
	CAS = bench.Unit{Name: "cas/op", Better: bench.Lower,
		Doc: "cmpxchg attempts on sched_balance_running, per tick"}
	CASFails = bench.Unit{Name: "cas-fails/op", Better: bench.Lower,
		Doc: "cmpxchg attempts that found the flag taken, per tick"}
	Balances = bench.Unit{Name: "balances/op", Better: bench.Check,
		Doc: "periodic balancing passes done, per tick: must match across orders"}
	NewidleBalances = bench.Unit{Name: "newidle-balances/op", Better: bench.Check,
		Doc: "newidle balancing passes done, per tick: must match across orders"}
	Hold = bench.Unit{Name: "hold-ns/op", Better: bench.Lower,
		Doc: "time the flag was held, per tick"}
)

func init() {
	bench.Register(&bench.Spec{
		Name:      "balanceflag",
		BenchName: "BalanceFlag",
		Summary:   "sched_balance_running: cmpxchg on every balance tick, or only when due and designated",
		Keys: []string{
			"order=cmpxchg-first|check-first|check-first+newidle   before 3324b2180c17, after it, after 522fb20fbdbe too",
			"cs=N              critical section (the balancing pass): local-work steps, 1..1000000",
			"interval=auto|N   balance interval in ticks: the kernel's for the worker count, or N in 1..1000000",
			"group=N           workers per balance group; the first is the designated balancer, 1..4096",
			"newidle=N         the worker goes newly idle every N ticks (0: never), 0..1000000",
			"work=N            local work (dependent arithmetic steps) per tick, 0..100000",
		},
		Quick: []string{
			"order=cmpxchg-first/cs=50/interval=auto/group=1/newidle=0/work=100",
			"order=check-first/cs=50/interval=auto/group=1/newidle=0/work=100",
		},
		Full: []string{
			"order=cmpxchg-first/cs=50/interval=auto/group=1/newidle=0/work=100",
			"order=check-first/cs=50/interval=auto/group=1/newidle=0/work=100",
			"order=cmpxchg-first/cs=50/interval=auto/group=1/newidle=0/work=1000",
			"order=check-first/cs=50/interval=auto/group=1/newidle=0/work=1000",
			"order=cmpxchg-first/cs=50/interval=auto/group=1/newidle=16/work=100",
			"order=check-first/cs=50/interval=auto/group=1/newidle=16/work=100",
			"order=check-first+newidle/cs=50/interval=auto/group=1/newidle=16/work=100",
		},
		Units: []bench.Unit{CAS, CASFails, Balances, NewidleBalances, Hold},
		New:   newBalanceFlag,
	})
}

// The orders of sched_balance_domains() and sched_balance_rq().
type bfOrder int

const (
	bfCmpxchgFirst   bfOrder = iota // before 3324b2180c17: cmpxchg, then the interval check
	bfCheckFirst                    // after it: interval, should_we_balance, then try_cmpxchg
	bfCheckFirstIdle                // after 522fb20fbdbe too: newidle passes take the flag
)

// bfOrderNames are the order= values, indexed by bfOrder.
var bfOrderNames = []string{"cmpxchg-first", "check-first", "check-first+newidle"}

// Kernel constants the auto interval is built from (mainline kernel source,
// not the seed: kernel/sched/topology.c sd_init() and kernel/sched/fair.c).
const (
	// bfHZ is CONFIG_HZ. At 1000 a jiffy is a millisecond and
	// msecs_to_jiffies() is the identity, so sd_init's millisecond
	// intervals read directly as ticks.
	bfHZ = 1000
	// bfBusyFactor is sd_init's ".busy_factor = 16": a busy CPU balances
	// sixteen times less often than an idle one.
	bfBusyFactor = 16
)

// bfMaxLoadBalanceInterval is max_load_balance_interval after
// update_max_interval(): "max_load_balance_interval = HZ*num_online_cpus()/10",
// the seed's "Scale the max sched_balance_rq interval with the number of CPUs
// in the system. This trades load-balance latency on larger machines for less
// cross talk."
func bfMaxLoadBalanceInterval(cpus int) int64 { return int64(bfHZ * cpus / 10) }

// bfBalanceInterval is get_sd_balance_interval(sd, cpu_busy) for a domain
// whose sd->balance_interval is balanceMs, on a machine of cpus CPUs:
//
//	unsigned long interval = sd->balance_interval;
//	if (cpu_busy)
//		interval *= sd->busy_factor;
//	interval = msecs_to_jiffies(interval);
//	if (cpu_busy)
//		interval -= 1;
//	interval = clamp(interval, 1UL, max_load_balance_interval);
//
// The "-= 1" (Vincent Guittot, v5.10) keeps busy intervals of nested domains
// from being multiples of each other.
func bfBalanceInterval(balanceMs int64, busy bool, cpus int) int64 {
	interval := balanceMs
	if busy {
		interval *= bfBusyFactor
	}
	// msecs_to_jiffies(interval) is the identity at HZ=1000.
	if busy {
		interval--
	}
	return min(max(interval, 1), bfMaxLoadBalanceInterval(cpus))
}

// bfLinePad keeps a word alone on its cache line, and clear of the adjacent
// line the L2 prefetcher pulls in pairs on Intel parts: 128 bytes each side.
const bfLinePad = 128

// A bfWord is an atomic word alone on its line. sched_balance_running is one,
// and so is the mutual-exclusion checker, so that neither shares a line with
// anything a worker writes on every tick.
type bfWord struct {
	_ [bfLinePad]byte
	v atomic.Int32
	_ [bfLinePad - 4]byte
}

type balanceFlag struct {
	params   *bench.Params
	order    bfOrder
	cs       int
	interval int // fixed interval in ticks; 0 means the kernel's (auto)
	group    int
	newidle  int
	work     int

	// running is sched_balance_running. Go's CompareAndSwap and Store are
	// sequentially consistent: at least the acquire and release the kernel
	// asks for. On amd64 the take is the kernel's LOCK CMPXCHG exactly; the
	// release is an XCHG where the kernel's atomic_set_release is a plain
	// MOV under x86-TSO, so each drop costs us a little more than it costs
	// the kernel, in both orders, per take.
	running *bfWord
	// inCS counts workers inside a serialized critical section; whoever
	// finds another already there has seen mutual exclusion fail.
	inCS    *bfWord
	workers []*bfWorker
	cpus    int
	// clockCost is bfClockCost, read before the run.
	clockCost time.Duration

	// csHook, when set by a test, runs inside every critical section.
	csHook func()
}

func newBalanceFlag(variant string) (bench.Scenario, error) {
	p, err := bench.ParseParams("balanceflag", variant,
		"order=cmpxchg-first", "cs=50", "interval=auto", "group=1", "newidle=0", "work=100")
	if err != nil {
		return nil, err
	}
	s := &balanceFlag{params: p}
	order, err := p.Choice("order", bfOrderNames...)
	if err != nil {
		return nil, err
	}
	for i, name := range bfOrderNames {
		if order == name {
			s.order = bfOrder(i)
		}
	}
	if s.cs, err = p.Int("cs", 1, 1_000_000); err != nil {
		return nil, err
	}
	if iv := p.Get("interval"); iv != "auto" {
		n, err := strconv.Atoi(iv)
		if err != nil || strconv.Itoa(n) != iv || n < 1 || n > 1_000_000 {
			return nil, fmt.Errorf("balanceflag: interval=%q: want auto or a tick count in [1, 1000000]", iv)
		}
		s.interval = n
	}
	if s.group, err = p.Int("group", 1, 4096); err != nil {
		return nil, err
	}
	if s.newidle, err = p.Int("newidle", 0, 1_000_000); err != nil {
		return nil, err
	}
	if s.work, err = p.Int("work", 0, 100_000); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *balanceFlag) Variant() string { return s.params.String() }

func (s *balanceFlag) Start(env *bench.Env) error {
	s.running = new(bfWord)
	s.inCS = new(bfWord)
	s.cpus = len(env.CPUs)
	s.workers = make([]*bfWorker, s.cpus)
	s.clockCost = bfClockCost()
	return nil
}

func (s *balanceFlag) Worker(info bench.WorkerInfo) (bench.Worker, error) {
	w := &bfWorker{
		s:          s,
		running:    &s.running.v,
		designated: info.Index%s.group == 0,
		serialIdle: s.order == bfCheckFirstIdle,
		work:       s.work,
		cs:         s.cs,
		newidle:    int64(s.newidle),
		idleIn:     int64(s.newidle),
		// sd_init: ".balance_interval = sd_weight", the domain spanning
		// every worker; ".last_balance = jiffies", and jiffies start at 0.
		balanceMs: int64(s.cpus),
	}
	w.interval = w.sdInterval()
	s.workers[info.Index] = w
	return w, nil
}

func (s *balanceFlag) Finish(res *bench.Result) error {
	var ticks, cas, fails, balances, idle, takes, overlaps int64
	var holds []time.Duration
	for _, w := range s.workers {
		ticks += w.jiffies
		cas += w.cas
		fails += w.casFails
		balances += w.balances
		idle += w.newidleBalances
		takes += w.takes
		overlaps += w.overlaps
		holds = append(holds, w.holds[:min(w.nHolds, len(w.holds))]...)
	}
	if ticks != res.Ops {
		return fmt.Errorf("balanceflag: workers counted %d ticks, runner counted %d operations", ticks, res.Ops)
	}
	if overlaps > 0 {
		return fmt.Errorf("balanceflag: mutual exclusion broken: %d critical sections found another worker inside", overlaps)
	}
	if v := s.running.v.Load(); v != 0 {
		return fmt.Errorf("balanceflag: sched_balance_running left at %d after the run", v)
	}
	ops := float64(max(res.Ops, 1))
	var hold float64
	if len(holds) > 0 {
		// The median timed hold, less the clock read it contains, times
		// every take: how long the flag was held, per operation. The
		// median, because a user thread can be preempted holding the
		// flag (a softirq cannot), and one such hold would outweigh a
		// million ordinary ones in a mean.
		slices.Sort(holds)
		median := holds[len(holds)/2] - s.clockCost
		hold = float64(max(median, 0)) * float64(takes) / ops
	}
	res.AddMetric(CAS, float64(cas)/ops)
	res.AddMetric(CASFails, float64(fails)/ops)
	res.AddMetric(Balances, float64(balances)/ops)
	res.AddMetric(NewidleBalances, float64(idle)/ops)
	res.AddMetric(Hold, hold)
	return nil
}

// The cpu_idle_type values sched_balance_rq() is called with here.
type bfIdle int

const (
	bfNotIdle   bfIdle = iota // CPU_NOT_IDLE: the periodic pass of a busy CPU
	bfNewlyIdle               // CPU_NEWLY_IDLE: about to go idle
)

// bfHoldSampleMask picks which takes are timed: one in 64. Two clock reads on
// every take would more than double the cost of a cmpxchg-first tick at
// work=0; one take in 64 costs about a nanosecond per tick there, and a
// second's run still times thousands of holds in either order.
const bfHoldSampleMask = 63

// bfHoldSamples is how many timed holds a worker keeps (the latest ones).
const bfHoldSamples = 512

// A bfWorker is one CPU: its jiffies, its sched_domain's balance state and
// its counters, written only by its own thread, padded so no other worker's
// line and neither shared word sits next to them. Counters are summed in
// Finish, after the runner has stopped every worker.
type bfWorker struct {
	_ [bfLinePad]byte

	jiffies     int64 // this CPU's ticks: one per operation
	lastBalance int64 // sd->last_balance
	interval    int64 // get_sd_balance_interval(sd, busy), cached
	balanceMs   int64 // sd->balance_interval (ms)
	idleIn      int64 // ticks until this CPU next goes newly idle
	newidle     int64 // newidle period in ticks (0: never)
	sink        uint64
	holdStart   time.Duration // since bfEpoch, when this hold is timed

	cas             int64 // cmpxchg attempts
	casFails        int64 // attempts that found the flag taken
	takes           int64 // attempts that got it
	balances        int64 // periodic passes that did the balancing work
	newidleBalances int64 // newidle passes that did it
	overlaps        int64 // critical sections that found another inside
	nHolds          int   // holds timed so far; the latest are in holds

	running    *atomic.Int32
	s          *balanceFlag
	work, cs   int
	designated bool // first CPU of its group: should_we_balance() says yes
	serialIdle bool // newidle passes go through the flag (522fb20fbdbe)
	timing     bool // this hold is being timed

	holds [bfHoldSamples]time.Duration // a ring of timed holds

	_ [bfLinePad]byte
}

// bfEpoch is the origin of hold timings: time.Since reads the monotonic clock.
var bfEpoch = time.Now()

// bfClockCost is what one clock read costs here: the least gap between two
// back-to-back reads. A timed hold spans one read beyond the hold itself, so
// Finish takes it off each sample.
var bfClockCost = sync.OnceValue(func() time.Duration {
	best := time.Duration(math.MaxInt64)
	prev := time.Since(bfEpoch)
	for range 1000 {
		now := time.Since(bfEpoch)
		if d := now - prev; d > 0 && d < best {
			best = d
		}
		prev = now
	}
	if best == math.MaxInt64 {
		return 0 // the clock never moved between reads: nothing to take off
	}
	return best
})

func (w *bfWorker) Run(n int) {
	if w.s.order == bfCmpxchgFirst {
		balanceTickCmpxchgFirst(w, n)
		return
	}
	balanceTickCheckFirst(w, n)
}

// balanceTickCmpxchgFirst is n ticks of sched_balance_domains() before
// 3324b2180c17: the flag is taken on every pass, and only then is the interval
// looked at. This is the function whose LOCK CMPXCHG the seed's perf annotate
// shows; perf annotate must find it by name.
//
//go:noinline
func balanceTickCmpxchgFirst(w *bfWorker, n int) {
	for range n {
		w.jiffies++
		w.sink = bfTickWork(w.sink, w.work)
		// need_serialize = sd->flags & SD_SERIALIZE;
		// if (need_serialize) {
		//	if (atomic_cmpxchg_acquire(&sched_balance_running, 0, 1))
		//		goto out;
		// }
		//
		// A failed cmpxchg leaves sd->last_balance alone, so the domain
		// is still due on the next tick: the pass is retried, not lost.
		// (The cmpxchg is written out here rather than through tryLock
		// so that it is this function's instruction in perf annotate.)
		w.cas++
		if w.running.CompareAndSwap(0, 1) {
			w.took()
			// if (time_after_eq(jiffies, sd->last_balance + interval)) {
			if w.due() {
				w.periodicHeld()
			} else {
				// if (need_serialize)
				//	atomic_set_release(&sched_balance_running, 0);
				w.unlock()
			}
		} else {
			w.casFails++
		}
		if w.newidle != 0 {
			w.newidleTick()
		}
	}
}

// balanceTickCheckFirst is n ticks of sched_balance_domains() after
// 3324b2180c17: the interval first, and the flag only inside
// sched_balance_rq(), after should_we_balance(). With order=check-first+newidle
// the newidle passes take the flag too.
//
//go:noinline
func balanceTickCheckFirst(w *bfWorker, n int) {
	for range n {
		w.jiffies++
		w.sink = bfTickWork(w.sink, w.work)
		// if (time_after_eq(jiffies, sd->last_balance + interval)) {
		//	if (sched_balance_rq(cpu, rq, sd, idle, &continue_balancing)) {
		if w.due() {
			w.balanceRQ(bfNotIdle, false)
			// sd->last_balance = jiffies;
			// interval = get_sd_balance_interval(sd, busy);
			w.lastBalance = w.jiffies
			w.interval = w.sdInterval()
		}
		if w.newidle != 0 {
			w.newidleTick()
		}
	}
}

// bfTickWork is the rest of a tick: the running task's work and
// sched_tick()'s. It stays out of line so that a profile charges it to
// itself, as the kernel's profile charges the tick's work to the tick's own
// functions, and the balance loops' samples are the balance walk alone: the
// seed's 99.39% is a share of sched_balance_domains()'s samples, not of the
// tick's.
//
//go:noinline
func bfTickWork(x uint64, steps int) uint64 { return bench.LocalWork(x, steps) }

// due is time_after_eq(jiffies, sd->last_balance + interval).
func (w *bfWorker) due() bool { return w.jiffies-(w.lastBalance+w.interval) >= 0 }

// sdInterval is the current get_sd_balance_interval(sd, busy) of this CPU,
// busy because the worker runs its tick work, or the fixed interval.
func (w *bfWorker) sdInterval() int64 {
	if w.s.interval > 0 {
		return int64(w.s.interval)
	}
	return bfBalanceInterval(w.balanceMs, true, w.s.cpus)
}

// tryLock is atomic_try_cmpxchg_acquire(&sched_balance_running, &zero, 1),
// with its counts.
func (w *bfWorker) tryLock() bool {
	w.cas++
	if !w.running.CompareAndSwap(0, 1) {
		w.casFails++
		return false
	}
	w.took()
	return true
}

// took counts a successful take and times one in bfHoldSampleMask+1 holds.
func (w *bfWorker) took() {
	w.takes++
	if w.takes&bfHoldSampleMask == 0 {
		w.startHold()
	}
}

// unlock is atomic_set_release(&sched_balance_running, 0).
func (w *bfWorker) unlock() {
	if w.timing {
		w.endHold()
	}
	w.running.Store(0)
}

//go:noinline
func (w *bfWorker) startHold() {
	w.timing = true
	w.holdStart = time.Since(bfEpoch)
}

//go:noinline
func (w *bfWorker) endHold() {
	w.holds[w.nHolds%bfHoldSamples] = time.Since(bfEpoch) - w.holdStart
	w.nHolds++
	w.timing = false
}

// periodicHeld is the due branch of the old sched_balance_domains(), entered
// holding the flag and leaving it released, also when the balancing pass
// panics (the deferred release is the "if (need_serialize)
// atomic_set_release(...)" that follows the branch).
func (w *bfWorker) periodicHeld() {
	defer w.unlock()
	w.balanceRQ(bfNotIdle, true)
	// sd->last_balance = jiffies;
	// interval = get_sd_balance_interval(sd, busy);
	w.lastBalance = w.jiffies
	w.interval = w.sdInterval()
}

// newidleTick counts down to this CPU's next newidle balance.
func (w *bfWorker) newidleTick() {
	if w.idleIn--; w.idleIn == 0 {
		w.idleIn = w.newidle
		// sched_balance_newidle(): no interval check, only a cost
		// estimate (not modelled) decides whether a domain is tried.
		w.balanceRQ(bfNewlyIdle, false)
	}
}

// balanceRQ is sched_balance_rq() on the serialized domain. held says the
// caller already holds the flag (the old order). The flag, when this pass takes
// it, is released on every way out, panics included:
//
//	out:
//		if (need_unlock)
//			atomic_set_release(&sched_balance_running, 0);
func (w *bfWorker) balanceRQ(idle bfIdle, held bool) {
	// redo:
	//	if (!should_we_balance(&env)) {
	//		*continue_balancing = 0;
	//		goto out_balanced;
	//	}
	// (continue_balancing would stop the walk at this level; the
	// serialized domain is the top of this model, so there is nothing
	// above to skip.)
	if !w.shouldWeBalance(idle) {
		w.outBalanced(idle)
		return
	}
	serialized := held
	// if (!need_unlock && (sd->flags & SD_SERIALIZE) && idle != CPU_NEWLY_IDLE) {
	//	int zero = 0;
	//	if (!atomic_try_cmpxchg_acquire(&sched_balance_running, &zero, 1))
	//		goto out_balanced;
	//	need_unlock = true;
	// }
	// (522fb20fbdbe drops "&& idle != CPU_NEWLY_IDLE". Before
	// 3324b2180c17 newidle passes never touched the flag at all.)
	if !held && (idle != bfNewlyIdle || w.serialIdle) && w.s.order != bfCmpxchgFirst {
		if !w.tryLock() {
			// "load-balancing passes triggered while another one is
			// executing are skipped and not re-tried"
			w.outBalanced(idle)
			return
		}
		defer w.unlock()
		serialized = true
	}
	w.criticalSection(serialized)
	if idle == bfNewlyIdle {
		w.newidleBalances++
	} else {
		w.balances++
	}
	w.outBalanced(idle)
}

// shouldWeBalance is should_we_balance() for CPUs that are all busy:
//
//	if (env->idle == CPU_NEWLY_IDLE) { ... return 1; }
//	...
//	/* Are we the first CPU of this group ? */
//	return group_balance_cpu(sg) == env->dst_cpu;
func (w *bfWorker) shouldWeBalance(idle bfIdle) bool {
	return idle == bfNewlyIdle || w.designated
}

// outBalanced is the tail of sched_balance_rq() when nothing was moved, which
// in this model is always:
//
//	if (env.idle == CPU_NEWLY_IDLE || ...)
//		goto out;
//	/* tune up the balancing interval */
//	if (... || sd->balance_interval < sd->max_interval)
//		sd->balance_interval *= 2;
//
// with sd_init's ".max_interval = 2*sd_weight".
func (w *bfWorker) outBalanced(idle bfIdle) {
	if idle == bfNewlyIdle {
		return
	}
	if w.balanceMs < 2*int64(w.s.cpus) {
		w.balanceMs *= 2
	}
}

// criticalSection is the balancing pass itself: cs steps of local arithmetic.
// A serialized pass checks that it is alone, and leaves the checker balanced
// even if it panics.
func (w *bfWorker) criticalSection(serialized bool) {
	if serialized {
		if w.s.inCS.v.Add(1) != 1 {
			w.overlaps++
		}
		defer w.s.inCS.v.Add(-1)
	}
	if w.s.csHook != nil {
		w.s.csHook()
	}
	w.sink = bench.LocalWork(w.sink, w.cs)
}
