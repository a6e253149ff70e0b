package balanceflag

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
)

// The units the scenario reports beside ns/op. A tick is one operation.
var (
	CAS = bench.Unit{Name: "cas/op", Better: bench.Lower,
		Doc: "cmpxchg attempts on sched_balance_running, per tick"}
	CASFails = bench.Unit{Name: "cas-fails/op", Better: bench.Lower,
		Doc: "cmpxchg attempts that found the flag taken, per tick"}
	Balances = bench.Unit{Name: "balances/op", Better: bench.Check,
		Doc: "periodic balancing passes of the serialized domain done, per tick: a check, the orders must agree"}
	NewidleBalances = bench.Unit{Name: "newidle-balances/op", Better: bench.Check,
		Doc: "newidle balancing passes of the serialized domain done, per tick: a check, the orders must agree"}
	Stops = bench.Unit{Name: "stops/op", Better: bench.Check,
		Doc: "domain walks should_we_balance() stopped below the serialized domain, per tick: a check, the orders must agree"}
	Softirqs = bench.Unit{Name: "softirqs/op", Better: bench.Lower,
		Doc: "balance softirqs run (rq->next_balance due), per tick"}
	Hold = bench.Unit{Name: "hold-sec/op", Better: bench.Lower,
		Doc: "time the flag was held, seconds per tick"}
	Held = bench.Unit{Name: "held-%", Better: bench.Lower,
		Doc: "share of the run's wall time the flag was held (its utilization), per cent"}
	FlagShare = bench.Unit{Name: "flag-%", Better: bench.Lower,
		Doc: "share of the workers' time spent on the flag (cmpxchg, failed cmpxchg, release), per cent: the seed's 7.8% of all cycles"}
)

func init() {
	bench.Register(&bench.Spec{
		Name:      "balanceflag",
		BenchName: "BalanceFlag",
		Summary:   "sched_balance_running: cmpxchg on every balance softirq that reaches the NUMA domain, or only when due and designated",
		Keys: []string{
			"order=cmpxchg-first|check-first|check-first+newidle   before 3324b2180c17, after it, after 522fb20fbdbe too",
			"pace=off|on       off: ticks back to back (stress); on: one tick per 1/HZ of wall time, aligned across workers (the kernel's rate)",
			"phase=spread|aligned   the workers' domains start spread over their intervals, as CPUs drift apart after boot, or all in phase, as sd_init leaves them",
			"hz=1000|250       CONFIG_HZ: the jiffy, and the balance intervals in jiffies",
			"span=auto|N       CPUs in the serialized (NUMA) domain, 2..8192; auto: one group per worker (workers x group)",
			"group=N           CPUs per group of the NUMA domain (the LLC/node below it), 1..4096; its first CPU is the designated balancer",
			"smt=1|2           threads per core: 2 adds the SMT domain below the LLC, whose short interval drives the softirq",
			"cs=D              update_sd_lb_stats() cost per CPU of a balanced domain's span, 0..100us (a pass over N CPUs spins N*D)",
			"interval=auto|N   the serialized domain's balance interval in jiffies: the kernel's, or N in 1..1000000",
			"newidle=N         the worker goes newly idle every N ticks (0: never), 0..1000000",
			"work=N            the task's local work (dependent arithmetic steps) per tick, 0..100000",
			"release=" + strings.Join(bfReleaseNames, "|") + "  atomic_set_release: mov is the kernel's plain MOV on x86, xchg Go's atomic store (XCHG); store elsewhere",
		},
		Quick: []string{
			bfDefaults("order=cmpxchg-first", "pace=off"),
			bfDefaults("order=check-first", "pace=off"),
			bfDefaults("order=cmpxchg-first", "pace=on"),
			bfDefaults("order=check-first", "pace=on"),
		},
		Full:  bfFull(),
		Units: []bench.Unit{CAS, CASFails, Balances, NewidleBalances, Stops, Softirqs, Hold, Held, FlagShare},
		New:   newBalanceFlag,
	})
}

// bfKeys are the variant's keys and defaults, in canonical order.
var bfKeys = []string{
	"order=cmpxchg-first", "pace=off", "phase=spread", "hz=1000", "span=auto", "group=16", "smt=2",
	"cs=100ns", "interval=auto", "newidle=0", "work=100", "release=" + bfReleaseNames[0],
}

// bfDefaults is the canonical variant with the given key=value parts set.
func bfDefaults(parts ...string) string {
	p, err := bench.ParseParams("balanceflag", strings.Join(parts, "/"), bfKeys...)
	if err != nil {
		panic(err)
	}
	return p.String()
}

// bfFull is a full sweep: both orders stressed on the default machine and on
// a domain the size of the seed's (a 2-socket Granite Rapids with SNC: 512
// CPUs, nodes of 86), paced with the domains spread and in step, stressed
// with local work enough to keep the flag held for a small share of a tick,
// and with newidle passes. (A paced variant takes its ticks' wall time: a
// second per thousand ticks a worker, four at HZ=250.)
func bfFull() []string {
	var vs []string
	for _, order := range []string{"cmpxchg-first", "check-first"} {
		vs = append(vs,
			bfDefaults("order="+order, "pace=off"),
			bfDefaults("order="+order, "pace=off", "span=512", "group=86"),
			bfDefaults("order="+order, "pace=on"),
			bfDefaults("order="+order, "pace=on", "phase=aligned"),
			bfDefaults("order="+order, "work=1000"))
	}
	for _, order := range bfOrderNames {
		vs = append(vs, bfDefaults("order="+order, "newidle=16"))
	}
	return vs
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

// A bfWord is an atomic word alone on its line. sched_balance_running is one,
// and so is the mutual-exclusion checker, so that neither shares a line with
// anything a worker writes on every tick. v is a plain int32 reached only
// through sync/atomic and, for release=mov, the assembly store.
type bfWord struct {
	_ [bench.LinePad]byte
	v int32
	_ [bench.LinePad - 4]byte
}

type balanceFlag struct {
	params   *bench.Params
	order    bfOrder
	pace     bool
	aligned  bool // phase=aligned
	hz       int
	span     int // 0: auto
	group    int
	smt      int
	cs       time.Duration // per CPU of a domain's span
	interval int           // fixed interval in jiffies; 0 means the kernel's (auto)
	newidle  int
	work     int
	release  int // index into bfReleaseNames

	// running is sched_balance_running. Taken with LOCK CMPXCHG
	// (atomic.CompareAndSwapInt32), the kernel's instruction; released
	// with bfStore.
	running *bfWord
	// inCS counts workers inside a serialized critical section; whoever
	// finds another already there has seen mutual exclusion fail.
	inCS    *bfWord
	workers []*bfWorker
	cpus    int // CPUs of the simulated machine: the serialized domain's span
	// clockCost is bfClockCost, read before the run.
	clockCost int64

	// csHook, when set by a test, runs inside every critical section.
	csHook func()
}

func newBalanceFlag(variant string) (bench.Scenario, error) {
	p, err := bench.ParseParams("balanceflag", variant, bfKeys...)
	if err != nil {
		return nil, err
	}
	s := &balanceFlag{params: p}
	order, err := p.Choice("order", bfOrderNames...)
	if err != nil {
		return nil, err
	}
	s.order = bfOrder(slices.Index(bfOrderNames, order))
	pace, err := p.Choice("pace", "off", "on")
	if err != nil {
		return nil, err
	}
	s.pace = pace == "on"
	phase, err := p.Choice("phase", "spread", "aligned")
	if err != nil {
		return nil, err
	}
	s.aligned = phase == "aligned"
	hz, err := p.Choice("hz", "1000", "250")
	if err != nil {
		return nil, err
	}
	s.hz, _ = strconv.Atoi(hz)
	if s.span, err = bfAutoInt(p, "span", "a CPU count", 2, 8192); err != nil {
		return nil, err
	}
	if s.group, err = p.Int("group", 1, 4096); err != nil {
		return nil, err
	}
	smt, err := p.Choice("smt", "1", "2")
	if err != nil {
		return nil, err
	}
	s.smt, _ = strconv.Atoi(smt)
	if s.group%s.smt != 0 {
		return nil, fmt.Errorf("balanceflag: group=%d is not a whole number of smt=%d cores", s.group, s.smt)
	}
	if s.span > 0 && s.span < s.group {
		return nil, fmt.Errorf("balanceflag: span=%d is smaller than one group=%d", s.span, s.group)
	}
	cs, err := ktime.ParseDuration("cs", p.Get("cs"), 0, 100*time.Microsecond)
	if err != nil {
		return nil, fmt.Errorf("balanceflag: %w", err)
	}
	s.cs = cs
	if s.interval, err = bfAutoInt(p, "interval", "a jiffy count", 1, 1_000_000); err != nil {
		return nil, err
	}
	if s.newidle, err = p.Int("newidle", 0, 1_000_000); err != nil {
		return nil, err
	}
	if s.work, err = p.Int("work", 0, 100_000); err != nil {
		return nil, err
	}
	rel, err := p.Choice("release", bfReleaseNames...)
	if err != nil {
		return nil, err
	}
	s.release = slices.Index(bfReleaseNames, rel)
	// cs= in its canonical spelling, so that "cs=0.1us" and "cs=100ns"
	// name one variant.
	parts := strings.Split(p.String(), "/")
	for i, part := range parts {
		if strings.HasPrefix(part, "cs=") {
			parts[i] = "cs=" + ktime.Format(cs)
		}
	}
	if s.params, err = bench.ParseParams("balanceflag", strings.Join(parts, "/"), bfKeys...); err != nil {
		return nil, err
	}
	return s, nil
}

// bfAutoInt reads key's value: auto (0) or what, a count in [lo, hi] in
// its canonical spelling (no sign, no leading zero).
func bfAutoInt(p *bench.Params, key, what string, lo, hi int) (int, error) {
	v := p.Get(key)
	if v == "auto" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || strconv.Itoa(n) != v || n < lo || n > hi {
		return 0, fmt.Errorf("balanceflag: %s=%q: want auto or %s in [%d, %d]", key, v, what, lo, hi)
	}
	return n, nil
}

func (s *balanceFlag) Variant() string { return s.params.String() }

// Notes says which release instruction ran, for the results' notes.
func (s *balanceFlag) Notes() []string {
	return []string{"release=" + bfReleaseNames[s.release] + ": " + bfReleaseDoc[bfReleaseNames[s.release]]}
}

// bfReleaseDoc says what each release= value executes.
var bfReleaseDoc = map[string]string{
	"mov":   "a plain MOV (Go assembly), the kernel's atomic_set_release on x86",
	"xchg":  "Go's atomic store, an XCHG on amd64 (a full barrier the kernel does not pay)",
	"store": "Go's atomic store (STLR on arm64, the kernel's smp_store_release there)",
}

func (s *balanceFlag) Start(env *bench.Env) error {
	w := len(env.CPUs)
	s.cpus = s.span
	if s.cpus == 0 {
		s.cpus = max(w*s.group, 2)
	}
	if groups := s.cpus / s.group; w > groups*s.group {
		return fmt.Errorf("balanceflag: span=%d in groups of %d holds %d CPUs, fewer than the %d workers", s.cpus, s.group, groups*s.group, w)
	}
	s.running = new(bfWord)
	s.inCS = new(bfWord)
	s.workers = make([]*bfWorker, w)
	s.clockCost = bfClockCost()
	return nil
}

// cpuOf is the simulated CPU worker i of w is: the first CPU of group i, so
// that every worker is a "sched group leader directly under NUMA domain", the
// CPUs the changelog says raced for the flag; with more workers than groups
// the next ones take the second CPU of each group (an SMT sibling), and so on.
func (s *balanceFlag) cpuOf(i int) int {
	groups := s.cpus / s.group
	return (i%groups)*s.group + i/groups
}

func (s *balanceFlag) Worker(info bench.WorkerInfo) (bench.Worker, error) {
	cpu := s.cpuOf(info.Index)
	w := &bfWorker{
		s:          s,
		running:    &s.running.v,
		cpu:        cpu,
		serialIdle: s.order == bfCheckFirstIdle,
		work:       s.work,
		newidle:    int64(s.newidle),
		idleIn:     int64(s.newidle),
		pacer:      ktime.Pacer{On: s.pace},
		rng:        0x9e3779b97f4a7c15 * uint64(info.Index+1),
		tickNs:     int64(time.Second) / int64(s.hz),
		release:    s.release,
		clockCost:  s.clockCost,
		levels:     s.levels(cpu),
		holdCap:    4*int64(s.cpus)*int64(s.cs) + bfHoldSlack,
	}
	w.every = bfFlagEvery
	if s.pace {
		w.every = 1
	}
	w.timeShift = 64 - uint(bits.TrailingZeros64(uint64(w.every)))
	for i := range w.levels {
		l := &w.levels[i]
		l.interval = w.sdInterval(l)
		if !s.aligned {
			// sd_init() sets every CPU's last_balance to the same
			// jiffies, but idle periods, newidle passes and lost
			// flags soon put CPUs out of step; worker i starts i/W
			// of an interval early, so the workers' passes are
			// evenly spread, not all due in the same tick.
			l.lastBalance = -int64(info.Index) * l.interval / int64(info.Workers)
		}
	}
	s.workers[info.Index] = w
	return w, nil
}

// levels is the sched_domain hierarchy of simulated CPU cpu, lowest first:
// SMT (smt=2: the two threads of a core, groups of one CPU), the LLC (group
// CPUs, groups of one core) when it is wider than a core, and the serialized
// NUMA domain (span CPUs, groups of group CPUs), always present. A domain no
// wider than its child is degenerate and the kernel drops it; so is it here.
// Each domain starts as sd_init() leaves it: balance_interval = sd_weight ms,
// last_balance = jiffies (0).
func (s *balanceFlag) levels(cpu int) []bfLevel {
	var ls []bfLevel
	if s.smt > 1 {
		ls = append(ls, bfLevel{weight: s.smt, designated: true})
	}
	if s.group > s.smt {
		ls = append(ls, bfLevel{weight: s.group, designated: cpu%s.smt == 0})
	}
	ls = append(ls, bfLevel{weight: s.cpus, designated: cpu%s.group == 0, serialize: true})
	for i := range ls {
		ls[i].balanceMs = int64(ls[i].weight)
	}
	return ls
}

func (s *balanceFlag) Finish(res *bench.Result) error {
	var ticks, cas, fails, balances, idle, stops, softirqs, overlaps, holdNs int64
	var share ktime.Share
	for _, w := range s.workers {
		ticks += w.jiffies
		cas += w.cas
		fails += w.casFails
		balances += w.balances
		idle += w.newidleBalances
		stops += w.stops
		softirqs += w.softirqs
		overlaps += w.overlaps
		holdNs += w.holdSum
		share.Merge(&w.share)
	}
	if ticks != res.Ops {
		return fmt.Errorf("balanceflag: workers counted %d ticks, runner counted %d operations", ticks, res.Ops)
	}
	if overlaps > 0 {
		return fmt.Errorf("balanceflag: mutual exclusion broken: %d critical sections found another worker inside", overlaps)
	}
	if v := atomic.LoadInt32(&s.running.v); v != 0 {
		return fmt.Errorf("balanceflag: sched_balance_running left at %d after the run", v)
	}
	ops := float64(max(res.Ops, 1))
	hold := float64(holdNs) * 1e-9 / ops
	var held float64
	if res.Elapsed > 0 {
		held = 100 * float64(holdNs) / float64(res.Elapsed.Nanoseconds())
	}
	pct, _ := share.Percent()
	res.AddMetric(CAS, float64(cas)/ops)
	res.AddMetric(CASFails, float64(fails)/ops)
	res.AddMetric(Balances, float64(balances)/ops)
	res.AddMetric(NewidleBalances, float64(idle)/ops)
	res.AddMetric(Stops, float64(stops)/ops)
	res.AddMetric(Softirqs, float64(softirqs)/ops)
	res.AddMetric(Hold, hold)
	res.AddMetric(Held, held)
	res.AddMetric(FlagShare, pct)
	return nil
}
