package balanceflag

import (
	"fmt"
	"math/bits"
	"strings"
	"sync/atomic"
	"time"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
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
		Name:       "balanceflag",
		BenchName:  "BalanceFlag",
		Summary:    "sched_balance_running: cmpxchg on every balance softirq that reaches the NUMA domain, or only when due and designated",
		Keys:       keys,
		HotSymbols: []string{"balanceTicks", "(*worker).takeFlag", "(*worker).releaseFlag"},
		Quick: []string{
			variantWith("order=cmpxchg-first", "pace=off"),
			variantWith("order=check-first", "pace=off"),
			variantWith("order=cmpxchg-first", "pace=on"),
			variantWith("order=check-first", "pace=on"),
		},
		Full:     fullSweep(),
		Units:    append([]bench.Unit{CAS, CASFails, Balances, NewidleBalances, Stops, Softirqs, Hold, Held, FlagShare, NohzWrites}, kernelSecUnits...),
		New:      newBalanceFlag,
		Simulate: &bench.Simulation{Usage: SimUsage, Flags: SimFlags},
		// release= defaults to the arch's kernel instruction: mov on
		// amd64, stlr on arm64.
		Lab:      &bench.LabTest{Variant: "order=cmpxchg-first/pace=off/phase=spread/hz=1000/span=auto/group=16/smt=2/cs=100ns/interval=auto/newidle=0/work=100/release=(mov|stlr)"},
		Findings: []int{5, 8, 14},
	})
}

// keys are the variant's keys, in canonical order.
var keys = []bench.Key{
	{Name: "order", Default: "cmpxchg-first", Domain: bench.OneOf(orderNames...),
		Doc: "before 3324b2180c17, after it, after 522fb20fbdbe too"},
	{Name: "pace", Default: "off", Domain: bench.OneOf("off", "on"),
		Doc: "off: ticks back to back (stress); on: one tick per 1/HZ of wall time, aligned across workers (the kernel's rate)"},
	{Name: "phase", Default: "spread", Domain: bench.OneOf("spread", "aligned"),
		Doc: "the workers' domains start spread over their intervals, as CPUs drift apart after boot, or all in phase, as sd_init leaves them"},
	{Name: "hz", Default: "1000", Domain: bench.OneOf("1000", "250"),
		Doc: "CONFIG_HZ: the jiffy, and the balance intervals in jiffies"},
	{Name: "span", Default: "auto", Domain: autoOr(2, 8192),
		Doc: "CPUs in the serialized (NUMA) domain; auto: one group per worker (workers x group)"},
	{Name: "group", Default: "16", Domain: bench.IntRange(1, 4096),
		Doc: "CPUs per group of the NUMA domain (the LLC/node below it); its first CPU is the designated balancer"},
	{Name: "smt", Default: "2", Domain: bench.OneOf("1", "2"),
		Doc: "threads per core: 2 adds the SMT domain below the LLC, whose short interval drives the softirq"},
	{Name: "cs", Default: "100ns", Domain: bench.DurationRange(0, 100*time.Microsecond),
		Doc: "update_sd_lb_stats() cost per CPU of a balanced domain's span (a pass over N CPUs spins N*D)"},
	{Name: "interval", Default: "auto", Domain: autoOr(1, 1_000_000),
		Doc: "the serialized domain's balance interval in jiffies: the kernel's (auto), or N"},
	{Name: "newidle", Default: "0", Domain: bench.IntRange(0, 1_000_000),
		Doc: "the worker goes newly idle every N ticks (0: never)"},
	{Name: "work", Default: "100", Domain: bench.IntRange(0, 100_000),
		Doc: "the task's local work (dependent arithmetic steps) per tick"},
	{Name: "release", Default: releaseNames[0], Domain: bench.OneOf(releaseNames...),
		Doc: "atomic_set_release: mov is the kernel's plain MOV on x86, xchg Go's atomic store (XCHG); on arm64 stlr is the kernel's STLR (Go's atomic store too), dmb a full barrier and a plain store; store elsewhere"},
	// Issue 23's keys, left out of the name at their defaults so that
	// every result recorded before them keeps its name.
	{Name: "snc", Default: "1", Domain: bench.IntRange(1, 8), OmitDefault: true,
		Doc: "sub-NUMA clusters (nodes of group= CPUs) per socket: above 1 every CPU has two SD_SERIALIZE levels, its socket and the machine"},
	{Name: "busy", Default: "100", Domain: bench.IntRange(1, 100), OmitDefault: true,
		Doc: "per cent of CPUs busy in a tick (drawn per CPU and tick): an idle CPU balances with its idle interval and goes newly idle when it turns idle"},
	{Name: "nohz", Default: "none", Domain: bench.OneOf("none", "counter", "weight"), OmitDefault: true,
		Doc: "the nohz struct's words as idle ticks stop and busy ones restart (nohz.go): none (not modelled); counter: nohz.idle_cpus_mask and the atomic nohz.nr_cpus, before 5d86d542f68f; weight: the mask alone, the kick testing cpumask_empty(), after it"},
}

// autoOr is a domain of auto (0 to the constructor) or a count in [lo, hi].
func autoOr(lo, hi int) bench.Domain { return bench.Or(bench.OneOf("auto"), bench.IntRange(lo, hi)) }

// variantWith is the canonical variant with the given key=value parts set.
func variantWith(parts ...string) string {
	p, err := bench.ParseParams("balanceflag", strings.Join(parts, "/"), keys)
	if err != nil {
		panic(err)
	}
	return p.String()
}

// fullSweep is a full sweep: both orders stressed on the default machine and on
// a domain the size of the seed's (a 2-socket Granite Rapids with SNC: 512
// CPUs, nodes of 86), paced with the domains spread and in step, stressed
// with local work enough to keep the flag held for a small share of a tick,
// and with newidle passes. (A paced variant takes its ticks' wall time: a
// second per thousand ticks a worker, four at HZ=250.)
func fullSweep() []string {
	var vs []string
	for _, order := range []string{"cmpxchg-first", "check-first"} {
		vs = append(vs,
			variantWith("order="+order, "pace=off"),
			variantWith("order="+order, "pace=off", "span=512", "group=86"),
			variantWith("order="+order, "pace=on"),
			variantWith("order="+order, "pace=on", "phase=aligned"),
			variantWith("order="+order, "work=1000"))
	}
	for _, order := range orderNames {
		vs = append(vs, variantWith("order="+order, "newidle=16"))
	}
	// The seed's machine as the kernel balances it (issue 23): 2 sockets
	// of SNC-2 nodes of 128 CPUs, so two SD_SERIALIZE levels; an OLTP
	// load leaving a tenth of the CPUs idle in a tick and sending busy
	// ones newly idle every other tick.
	for _, order := range []string{"cmpxchg-first", "check-first"} {
		vs = append(vs, variantWith("order="+order, "span=512", "group=128", "snc=2", "busy=90", "newidle=2"))
	}
	// nohz.nr_cpus before and after 5d86d542f68f, on that machine and
	// load, after the flag's fix.
	for _, nohz := range []string{"counter", "weight"} {
		vs = append(vs, variantWith("order=check-first", "span=512", "group=128", "snc=2", "busy=90", "newidle=2", "nohz="+nohz))
	}
	return vs
}

// orderNames are the order= values, indexed by ksim.SerializeOrder, where
// the walk takes the flag: SerializeFirst (before 3324b2180c17: cmpxchg,
// then the interval check), SerializeInRQ (after it: interval,
// should_we_balance, then try_cmpxchg), SerializeInRQNewidle (after
// 522fb20fbdbe too: newidle passes take the flag).
var orderNames = []string{"cmpxchg-first", "check-first", "check-first+newidle"}

// A paddedWord is an atomic word alone on its line. sched_balance_running is one,
// and so is the mutual-exclusion checker, so that neither shares a line with
// anything a worker writes on every tick. v is a plain int32 reached only
// through sync/atomic and, for release=mov, the assembly store.
type paddedWord struct {
	_ [bench.LinePad]byte
	v int32
	_ [bench.LinePad - 4]byte
}

type balanceFlag struct {
	params   *bench.Params
	order    ksim.SerializeOrder
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
	release  int // index into releaseNames
	snc      int // nodes per socket
	busy     int // per cent of CPUs busy in a tick
	nohz     int // nohz= (nohz.go)

	// nohzState is the machine's nohz struct, nil with nohz=none.
	nohzState *bench.Nohz

	// model is what every worker's walks share, read only, set by Start.
	model model

	// running is sched_balance_running. Taken with LOCK CMPXCHG
	// (atomic.CompareAndSwapInt32), the kernel's instruction; released
	// with storeRelease.
	running *paddedWord
	// inCS counts workers inside a serialized critical section; whoever
	// finds another already there has seen mutual exclusion fail.
	inCS    *paddedWord
	workers []*worker
	cpus    int // CPUs of the simulated machine: the serialized domain's span
	// clockCost is clockReadCost, read before the run.
	clockCost int64

	// csHook, when set by a test, runs inside every critical section.
	csHook func()
}

func newBalanceFlag(variant string) (bench.Scenario, error) {
	p, err := bench.ParseParams("balanceflag", variant, keys)
	if err != nil {
		return nil, err
	}
	s := &balanceFlag{params: p,
		order:   ksim.SerializeOrder(p.Index("order")),
		pace:    p.Get("pace") == "on",
		aligned: p.Get("phase") == "aligned",
		hz:      p.Int("hz"),
		span:    autoValue(p, "span"),
		group:   p.Int("group"),
		smt:     p.Int("smt"),
		cs:      p.Duration("cs"),
		// 0 is the kernel's interval (auto).
		interval: autoValue(p, "interval"),
		newidle:  p.Int("newidle"),
		work:     p.Int("work"),
		release:  p.Index("release"),
		snc:      p.Int("snc"),
		busy:     p.Int("busy"),
		nohz:     p.Index("nohz"),
	}
	if s.span > 0 {
		if err := (topology{cpus: s.span, smt: s.smt, group: s.group, snc: s.snc}).check(); err != nil {
			return nil, err
		}
	} else if s.group%s.smt != 0 {
		return nil, fmt.Errorf("balanceflag: group=%d is not a whole number of smt=%d cores", s.group, s.smt)
	}
	return s, nil
}

// autoValue is an autoOr key's count, 0 for auto.
func autoValue(p *bench.Params, key string) int {
	if p.Get(key) == "auto" {
		return 0
	}
	return p.Int(key)
}

func (s *balanceFlag) Variant() string { return s.params.String() }

// Notes says which release instruction ran, for the results' notes.
func (s *balanceFlag) Notes() []string {
	return []string{"release=" + releaseNames[s.release] + ": " + releaseDoc[releaseNames[s.release]]}
}

// releaseDoc says what each release= value executes.
var releaseDoc = map[string]string{
	"mov":   "a plain MOV (Go assembly), the kernel's atomic_set_release on x86",
	"xchg":  "Go's atomic store, an XCHG on amd64 (a full barrier the kernel does not pay)",
	"stlr":  "a store-release STLR (Go assembly), the kernel's atomic_set_release on arm64, and Go's atomic store there",
	"dmb":   "DMB ISH then a plain STR (Go assembly), the generic smp_store_release: a full barrier the kernel does not pay on arm64",
	"store": "Go's atomic store",
}

func (s *balanceFlag) Start(env *bench.Env) error {
	w := len(env.CPUs)
	s.cpus = s.span
	if s.cpus == 0 {
		s.cpus = max(w*s.group, 2)
	}
	if s.span == 0 && s.snc > 1 {
		// Whole sockets, at least two, so that both NUMA levels exist.
		socket := s.group * s.snc
		s.cpus = max((w+s.snc-1)/s.snc, 2) * socket
	}
	if groups := s.cpus / s.group; w > groups*s.group {
		return fmt.Errorf("balanceflag: span=%d in groups of %d holds %d CPUs, fewer than the %d workers", s.cpus, s.group, groups*s.group, w)
	}
	s.model = model{topo: topology{cpus: s.cpus, smt: s.smt, group: s.group, snc: s.snc},
		order: s.order, hz: s.hz, interval: s.interval, busy: s.busy, seed: idleSeed}
	if err := s.model.topo.check(); err != nil {
		return err
	}
	s.running = new(paddedWord)
	s.inCS = new(paddedWord)
	s.workers = make([]*worker, w)
	s.nohzState = nil
	if s.nohz != nohzNone {
		s.nohzState = bench.NewNohz(s.cpus, s.nohz == nohzCounter)
	}
	s.clockCost = clockReadCost()
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
	w := &worker{
		cpuState:  cpuState{m: &s.model, cpu: cpu, levels: s.model.topo.levels(cpu)},
		s:         s,
		running:   &s.running.v,
		work:      s.work,
		newidle:   int64(s.newidle),
		idleIn:    int64(s.newidle),
		pacer:     ktime.Pacer{On: s.pace},
		rng:       0x9e3779b97f4a7c15 * uint64(info.Index+1),
		tickNs:    int64(time.Second) / int64(s.hz),
		release:   s.release,
		clockCost: s.clockCost,
		holdCap:   4*int64(s.cpus)*int64(s.cs) + holdSlack,
		nohz:      s.nohzState,
	}
	w.every = flagEvery
	if s.pace {
		w.every = 1
	}
	w.timeShift = 64 - uint(bits.TrailingZeros64(uint64(w.every)))
	w.initIntervals(nil)
	if !s.aligned {
		// Worker i starts i/W of an interval early, so the workers'
		// passes are evenly spread, not all due in the same tick.
		w.spreadPhase(info.Index, info.Workers)
	}
	s.workers[info.Index] = w
	return w, nil
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
	if err := s.checkNohz(); err != nil {
		return err
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
	if s.nohzState != nil {
		var nw int64
		for _, w := range s.workers {
			nw += w.nohzWrites
		}
		res.AddMetric(NohzWrites, float64(nw)/ops)
	}
	s.levelMetrics(res, ticks, cas, fails)
	return nil
}
