package wakeup

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/wakeup/sysbench"
)

// SimConfig is a simulation of seed 004's guest: sysbench oltp's clients
// and MySQL's server threads on a simulated kernel, one run per vCPU count
// and policy, on kernel time, from one thread. Zero fields take the
// defaults, each of which says where it comes from.
type SimConfig struct {
	// CPUs are the guest sizes swept (default 4, 8, 16, 32): seed 004
	// does not give its guest's vCPU count.
	CPUs []int
	// Topology is the guest's: "s390" (default; the seed's guest as
	// read so far, every vCPU its own core, DIE the only level, no
	// sd_llc), "s390llcN" (s390 with the topology facility, the host
	// LPAR's: MC over chips of N cpus, the LLC) or "llcN" (x86 sockets
	// of N cpus, one LLC each).
	Topology string
	// Policies are the rows (default llcstats, basic, v6.1).
	Policies []string
	// HZ is CONFIG_HZ (default 100 on s390, arch/s390's defconfig and
	// the distributions' choice; 250 on llcN, Kconfig.hz's default and
	// Debian's).
	HZ int
	// Threads is sysbench's --num-threads: client tasks, each with its
	// own server thread (default 40: PeterZ's smallest thread count in
	// the seed where the patch helped, 10690 → 22327 tps; at 20 and
	// below it moved under 5%; Eric Farman's is not given).
	Threads int
	// Servers is the server threads (default Threads: MySQL's thread
	// per connection, client i served by server i); fewer serve the
	// clients round robin, each statement in arrival order (1: the
	// kernel oracle's one UDP server answering every client).
	Servers int
	// Think and Service are the mean cpu time of a client's and a
	// server's burst per statement (default 8.8 µs and 38 µs: PeterZ's
	// 2-thread run, 2136.94 tps, is 936 µs per transaction per thread
	// on a nearly idle machine, 46.8 µs per statement of 20; the split
	// between client and server is not in the seed and is estimated).
	Think, Service time.Duration
	// Statements per transaction (default 20: sysbench 0.4's oltp
	// complex mode, 10 point selects, 4 range queries, 2 updates, a
	// delete, an insert, BEGIN and COMMIT).
	Statements int
	// IO is the commit's log flush latency (default 0: none; the seed
	// says nothing of the guest's storage), IRQ where its completion
	// interrupt lands: idle, cpu0 or local (default idle on s390, the
	// floating interrupt's rule; cpu0 on llcN).
	IO  time.Duration
	IRQ string
	// IdleWake is what waking an idle vCPU costs before the woken task
	// runs: the IPI, the exit and the host's wakeup of the vCPU thread
	// (default 20 µs, estimated; a wakeup onto the waker's own cpu or a
	// busy one pays none).
	IdleWake time.Duration
	// IdleWakeShape spreads IdleWake: each wakeup of an idle vCPU costs
	// IdleWake times one of these factors, drawn evenly (equal quantiles
	// of the delay over their mean: the guest's pending spells, read by
	// the kernel's wake trace, kernel.WakeTrace.PendingUs); nil, every
	// one costs IdleWake. The trace sees a spell only where a wakeup's
	// record falls in it, so spells shorter than the records' spacing
	// (some 90 µs on the lab's guests) are mostly missed and the shape
	// leans long; its mean is IdleWake's all the same. Under TCG on a
	// host with fewer cpus than vCPUs, a kicked vCPU's thread waits for
	// a host cpu: most such waits are short and a few last milliseconds,
	// while a pair on one cpu wakes its partner with no IPI at all.
	IdleWakeShape []float64
	// ScanFigures counts what each stacked wakee's select_idle_cpu()
	// meets (SimRow.Place's NoScan, PendingMate, IdleMate, ScanFinds),
	// as the kernel's wake trace does, for kernel wakeups-model: a scan
	// of the LLC at every stacked wakeup (some 60 ns each; 1000 tasks
	// on 64 cpus, all stacked, run 20 % longer with it).
	ScanFigures bool
	// Pull is the cpu time a task's first run on a cpu other than its
	// last adds: its working set pulled from the other cache (default
	// 10 µs, estimated: 256 lines of 64 B, the pinned benchmark's
	// lines=256, at about 40 ns a line; the pinned benchmark measures
	// the real figure on the machine it runs on).
	Pull time.Duration
	// LBCost is one level's newidle balance cost, 6.1's
	// max_newidle_lb_cost gate (default 5 µs, estimated).
	LBCost time.Duration
	// Duration is the kernel time simulated per run (default 5s, the
	// seed's window).
	Duration time.Duration
	// Warmup is the kernel time run before counting starts (default 3s:
	// record_wakee() halves wakee_flips once a second, so a pair that
	// wakes only each other needs two decays to show the flips of a
	// benchmark that has been running, as the seed's had; -1 for none).
	Warmup time.Duration
	// Seed perturbs the bursts' draws (default 1).
	Seed uint64
	// Others are the guest's other threads, each asleep on a timer for
	// OthersPeriod on average and running OthersBurst when it fires
	// (default none; period 10 ms, sysmon's longest sleep, and burst
	// 5 µs, estimated). The timer's interrupt wakes the thread from
	// whatever runs on the cpu it slept on, so record_wakee() charges a
	// flip to a workload task it interrupts: what makes a pair "wide"
	// on one-cpu LLCs. They are not counted: every figure is the
	// workload's. The 6.1 check sets them from the guest's measured Go
	// runtime threads (contend kernel wakeups-model).
	Others                    int
	OthersPeriod, OthersBurst time.Duration
	// Tail is the cpu time a waker runs on after it has woken its
	// partner, before it blocks: the rest of the send syscall and the
	// way into the receive (default 0: the send is the burst's end and
	// the task blocks at once, as on hardware, where the rest is a few
	// µs). In a TCG guest it is hundreds of µs, and while it runs a
	// partner woken onto the same cpu waits: two runnable tasks there,
	// for the balancer to see. Part of Think and Service, not added:
	// each burst is Think (or Service) less Tail, then the send, then
	// Tail.
	Tail time.Duration
	// Test is sysbench's --test: "oltp" (default: clients and server
	// threads, above) or "threads" (Threads threads, each event
	// Yields rounds of lock a mutex, sched_yield(), unlock, over
	// Locks mutexes: package sysbench; Servers, Think, Service, Statements,
	// IO do not apply).
	Test string
	// Locks and Yields are sysbench's --thread-locks and
	// --thread-yields (default 8 and 1000, sb_threads.c's defaults; the
	// seed gives neither).
	Locks, Yields int
	// Lock is the cpu a threads-test thread runs from its unlock to its
	// next lock attempt, the loop and the uncontended pthread calls
	// (default 200 ns, estimated), and Yield the sched_yield() syscall's
	// round trip with its schedule() (default 1 µs, estimated).
	Lock, Yield time.Duration
	// IdleTick is how an idle cpu's loop decides the tick (ksim.IdleLoop;
	// default the governor, menu, as on the seed's machines; the lab's
	// guests have no cpuidle driver, and kernel wakeups-model gives the
	// counted kernel's driver-less rule).
	IdleTick ksim.IdleTickRule `json:",omitempty"`
}

// Limits of a simulation: beyond them it is a typo or would run for hours.
const (
	simMaxCPUs     = 1024
	simMaxThreads  = 8192
	simMaxDuration = time.Minute
)

// params are one run's: a SimConfig with one cpu count and one policy, in
// the units the kernel model reads.
type params struct {
	cpus                   int
	topo                   topo
	pol                    policy
	hz                     int
	idleWake, pull, lbCost int64
	wakeShape              []float64 // IdleWakeShape over its mean
	scanFigures            bool
	duration, warmup       int64
	topoName, policyLabel  string
	work                   sysbench.Config
	idleTick               ksim.IdleTickRule
}

func (c SimConfig) withDefaults() SimConfig {
	if len(c.CPUs) == 0 {
		c.CPUs = []int{4, 8, 16, 32}
	}
	if c.Topology == "" {
		c.Topology = "s390"
	}
	if len(c.Policies) == 0 {
		c.Policies = slices.Clone(policyNames)
	}
	s390 := strings.HasPrefix(c.Topology, "s390")
	if c.HZ == 0 {
		c.HZ = 250
		if s390 {
			c.HZ = 100
		}
	}
	if c.IRQ == "" {
		c.IRQ = "cpu0"
		if s390 {
			c.IRQ = "idle"
		}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Threads == 0 {
		c.Threads = 40
	}
	if c.Servers == 0 {
		c.Servers = c.Threads
	}
	if c.Statements == 0 {
		c.Statements = 20
	}
	def(&c.Think, 8800*time.Nanosecond)
	def(&c.Service, 38*time.Microsecond)
	def(&c.IdleWake, 20*time.Microsecond)
	def(&c.Pull, 10*time.Microsecond)
	def(&c.LBCost, 5*time.Microsecond)
	def(&c.OthersPeriod, 10*time.Millisecond)
	def(&c.OthersBurst, 5*time.Microsecond)
	def(&c.Duration, 5*time.Second)
	switch c.Warmup {
	case 0:
		c.Warmup = 3 * time.Second
	case -1:
		c.Warmup = 0
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Test == "" {
		c.Test = sysbench.Tests[0]
	}
	if c.Locks == 0 {
		c.Locks = 8
	}
	if c.Yields == 0 {
		c.Yields = 1000
	}
	def(&c.Lock, 200*time.Nanosecond)
	def(&c.Yield, time.Microsecond)
	return c
}

// runs checks the config and lists its runs.
func (c SimConfig) runs() ([]params, error) {
	t, err := parseTopo(c.Topology)
	if err != nil {
		return nil, fmt.Errorf("simulate wakeup: %w", err)
	}
	irq := slices.Index(sysbench.IRQs, c.IRQ)
	if irq < 0 {
		return nil, fmt.Errorf("simulate wakeup: irq %q: want one of %s", c.IRQ, strings.Join(sysbench.IRQs, ", "))
	}
	switch {
	case c.HZ != 100 && c.HZ != 250 && c.HZ != 300 && c.HZ != 1000:
		return nil, fmt.Errorf("simulate wakeup: hz %d: want 100, 250, 300 or 1000 (CONFIG_HZ)", c.HZ)
	case c.Threads < 1 || c.Threads > simMaxThreads:
		return nil, fmt.Errorf("simulate wakeup: threads %d out of range [1, %d]", c.Threads, simMaxThreads)
	case c.Servers < 1 || c.Servers > c.Threads:
		return nil, fmt.Errorf("simulate wakeup: servers %d out of range [1, threads %d]", c.Servers, c.Threads)
	case c.Statements < 1 || c.Statements > 1000:
		return nil, fmt.Errorf("simulate wakeup: statements %d out of range [1, 1000]", c.Statements)
	case c.Duration < 0 || c.Duration > simMaxDuration:
		return nil, fmt.Errorf("simulate wakeup: duration %s out of range (0, %s]", c.Duration, simMaxDuration)
	case c.Others < 0 || c.Others > simMaxThreads:
		return nil, fmt.Errorf("simulate wakeup: others %d out of range [0, %d]", c.Others, simMaxThreads)
	case c.OthersPeriod < time.Microsecond || c.OthersPeriod > time.Second:
		return nil, fmt.Errorf("simulate wakeup: others-period %s out of range [1µs, 1s]", c.OthersPeriod)
	case c.OthersBurst < 0 || c.OthersBurst > time.Second:
		return nil, fmt.Errorf("simulate wakeup: others-burst %s out of range [0, 1s]", c.OthersBurst)
	case c.Warmup < 0 || c.Warmup > simMaxDuration:
		return nil, fmt.Errorf("simulate wakeup: warmup %s out of range [0, %s]", c.Warmup, simMaxDuration)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"think", c.Think}, {"service", c.Service}, {"idlewake", c.IdleWake}, {"pull", c.Pull}, {"lbcost", c.LBCost}} {
		if d.v < 0 || d.v > time.Second {
			return nil, fmt.Errorf("simulate wakeup: %s %s out of range [0, 1s]", d.name, d.v)
		}
	}
	shape, err := spreadShape(c.IdleWakeShape)
	if err != nil {
		return nil, err
	}
	if c.Tail < 0 || c.Tail > min(c.Think, c.Service) {
		return nil, fmt.Errorf("simulate wakeup: tail %s out of range [0, min(think, service) %s]", c.Tail, min(c.Think, c.Service))
	}
	if c.Think+c.Service <= 0 {
		return nil, fmt.Errorf("simulate wakeup: think %s and service %s: a statement needs some cpu time", c.Think, c.Service)
	}
	test := slices.Index(sysbench.Tests, c.Test)
	switch {
	case test < 0:
		return nil, fmt.Errorf("simulate wakeup: test %q: want one of %s", c.Test, strings.Join(sysbench.Tests, ", "))
	case c.Locks < 1 || c.Locks > simMaxThreads:
		return nil, fmt.Errorf("simulate wakeup: locks %d out of range [1, %d]", c.Locks, simMaxThreads)
	case c.Yields < 1 || c.Yields > 1_000_000:
		return nil, fmt.Errorf("simulate wakeup: yields %d out of range [1, 1000000]", c.Yields)
	case c.Lock <= 0 || c.Lock > time.Second || c.Yield <= 0 || c.Yield > time.Second:
		return nil, fmt.Errorf("simulate wakeup: lock %s, yield %s: want each in (0, 1s]", c.Lock, c.Yield)
	}
	if c.IO < 0 || c.IO > time.Second {
		return nil, fmt.Errorf("simulate wakeup: io %s out of range [0, 1s]", c.IO)
	}
	var ps []params
	for _, n := range c.CPUs {
		if n < 2 || n > simMaxCPUs {
			return nil, fmt.Errorf("simulate wakeup: cpus %d out of range [2, %d]", n, simMaxCPUs)
		}
		for _, name := range c.Policies {
			pol := slices.Index(policyNames, name)
			if pol < 0 {
				return nil, fmt.Errorf("simulate wakeup: policy %q: want one of %s", name, strings.Join(policyNames, ", "))
			}
			ps = append(ps, params{cpus: n, topo: t, pol: policy(pol), hz: c.HZ,
				idleWake: int64(c.IdleWake), wakeShape: shape, scanFigures: c.ScanFigures, pull: int64(c.Pull), lbCost: int64(c.LBCost),
				duration: int64(c.Duration), warmup: int64(c.Warmup), topoName: t.name, policyLabel: name, idleTick: c.IdleTick,
				work: sysbench.Config{Seed: c.Seed, Test: test, Threads: c.Threads, Servers: c.Servers, Statements: c.Statements,
					Think: int64(c.Think), Service: int64(c.Service), Tail: int64(c.Tail), IO: int64(c.IO), IRQ: irq,
					Others: c.Others, OthersPeriod: int64(c.OthersPeriod), OthersBurst: int64(c.OthersBurst),
					Locks: c.Locks, Yields: c.Yields, Lock: int64(c.Lock), Yield: int64(c.Yield)}})
		}
	}
	return ps, nil
}

// simulate runs one: the kernel, the workload, the clock to the end.
func simulate(p params, trace func(task, cpu int)) (*ksys, error) {
	k, err := newKsys(p)
	if err != nil {
		return nil, fmt.Errorf("simulate wakeup: %w", err)
	}
	k.w = sysbench.New(k, &p.work)
	k.push(k.hz.TickNs(), evTick, 0, 0)
	for k.step(p.warmup) {
	}
	// The seed's window is 5 s of a benchmark already running: counts
	// start after the warm-up, by when the pairs' wakee_flips have
	// decayed as a running benchmark's have.
	k.c = simCounts{}
	for _, c := range k.cpus {
		c.busyNs = 0
		if c.Curr != nil {
			c.lastStart = k.now
		}
	}
	k.trace = trace
	end := p.warmup + p.duration
	for k.step(end) {
	}
	k.now = end
	return k, nil
}

// spreadShape is IdleWakeShape's factors over their mean (nil for none),
// or what is wrong with them.
func spreadShape(f []float64) ([]float64, error) {
	if len(f) == 0 {
		return nil, nil
	}
	var sum float64
	for _, x := range f {
		if !(x >= 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("simulate wakeup: idlewake shape %v: want finite factors, 0 or more", f)
		}
		sum += x
	}
	if sum == 0 {
		return nil, fmt.Errorf("simulate wakeup: idlewake shape %v: all 0", f)
	}
	out := make([]float64, len(f))
	for i, x := range f {
		out[i] = x * float64(len(f)) / sum
	}
	return out, nil
}

// A SimRow is one run's results, from the model's own bookkeeping.
type SimRow struct {
	CPUs   int
	Policy string
	// Migrations are set_task_cpu() calls per 5 s of kernel time, by
	// cause (causeNames order) and in all: perf's cpu-migrations, the
	// seed's "guest cpu migrations".
	Migrations [nCauses]float64
	Total      float64
	// ByCause is Migrations keyed by cause name, for -json readers (the
	// kernel check compares them with the lab kernel's).
	ByCause map[string]float64
	// Wakeups per 5 s; Affine and AffineAttempts are schedstat's
	// nr_wakeups_affine and nr_wakeups_affine_attempts summed over the
	// tasks, per 5 s; WakeWide the wakeups wake_wide() called wide.
	Wakeups, Affine, AffineAttempts, WakeWide float64
	// LocalWakeups per 5 s are those placed on the waking cpu
	// (schedstat's nr_wakeups_local).
	LocalWakeups float64
	// Preempted per 5 s are the workload's tasks a wakee preempted:
	// their involuntary switches (the model's only ones; no tick
	// preempts).
	Preempted             float64
	SyncPct, IdleWakerPct float64
	// TPS is transactions per second of kernel time (the threads
	// test's events per second); WaitUs the time runnable before a run
	// (from a wakeup or a preemption) per wakeup, µs; IPIPct the wakeups
	// that had to wake an idle vCPU, per cent; Busy the cpus' mean busy share.
	TPS, WaitUs, IPIPct, BusyPct float64
	// Balances per 5 s, by idle type (idle, busy, newly idle).
	Balances [3]float64
	// Place counts the workload's wakeups as the kernel's wake trace
	// does (stacked or split, parted or joined; what a stacked wakee's
	// scan met, where SimConfig.ScanFigures asks), over the counted
	// window.
	Place ksim.Placements `json:"placements"`
}

func row(k *ksys, p params) SimRow {
	per5 := 5e9 / float64(p.duration)
	c := &k.c
	r := SimRow{CPUs: p.cpus, Policy: p.policyLabel,
		Wakeups: float64(c.wakeups) * per5, Affine: float64(c.affine) * per5,
		AffineAttempts: float64(c.affineAttempts) * per5, WakeWide: float64(c.wakeWide) * per5, LocalWakeups: float64(c.localWakeups) * per5, Preempted: float64(c.preempted) * per5,
		SyncPct: pct(c.syncWakeups, c.wakeups), IdleWakerPct: pct(c.idleWakers, c.wakeups),
		TPS:    float64(c.transactions) * 1e9 / float64(p.duration),
		WaitUs: float64(c.waitNs) / 1e3 / float64(max(c.wakeups, 1)),
		IPIPct: pct(c.ipiWakes, c.wakeups), Place: c.place}
	r.ByCause = map[string]float64{}
	for i, m := range c.migrations {
		r.Migrations[i] = float64(m) * per5
		r.Total += r.Migrations[i]
		r.ByCause[causeNames[i]] = r.Migrations[i]
	}
	for i, b := range c.balances {
		r.Balances[i] = float64(b) * per5
	}
	var busy int64
	for _, cpu := range k.cpus {
		busy += cpu.busyNs
	}
	r.BusyPct = 100 * float64(busy) / float64(p.duration) / float64(p.cpus)
	return r
}

// BalancerMigrations are the row's migrations per 5 s by the load
// balancer's causes (periodic, newidle, nohz, active): on a guest without
// LLCs, every migration the pre-patch kernel makes.
func (r SimRow) BalancerMigrations() float64 {
	return r.Migrations[causePeriodic] + r.Migrations[causeNewidle] + r.Migrations[causeNohz] + r.Migrations[causeActive]
}

func pct(a, b int64) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// Simulate runs every cpu count and policy of the config.
func Simulate(cfg SimConfig) (*SimTable, error) {
	cfg = cfg.withDefaults()
	ps, err := cfg.runs()
	if err != nil {
		return nil, err
	}
	t := &SimTable{Config: cfg}
	for _, p := range ps {
		k, err := simulate(p, nil)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row(k, p))
	}
	return t, nil
}
