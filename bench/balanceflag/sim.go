package balanceflag

import (
	"fmt"
	"slices"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// The simulation: the pinned workers' walks (balanceDomains,
// newidleBalance) on every CPU of a machine of any size, one thread, kernel
// time, the flag's line priced instead of contended for real. Each CPU is a
// coroutine of ksim.Driver, yielding at every event that touches the line
// or waits for a time; the driver serves them in kernel-time order (ties by
// CPU number). The line is one FIFO server: an access that finds it owned
// by another CPU waits until it is free, then takes SimConfig.CAS (one
// handoff); one that finds it free and its own takes SimConfig.Local. A
// cmpxchg succeeds when the flag is clear at the end of its access; a
// release holds the line like any access but costs its CPU nothing (the
// store buffer), and clears the flag when served. A pass costs CS per CPU
// of its span.

// SimConfig describes a simulation. Zero fields take the defaults, except
// Newidle, where zero means never.
type SimConfig struct {
	CPUs     int           // CPUs of the machine (default 512)
	Sockets  int           // sockets (default 2)
	SNC      int           // sub-NUMA clusters (nodes) per socket (default 2)
	SMT      int           // threads per core (default 2)
	HZ       int           // CONFIG_HZ, 1000 or 250 (default 1000)
	Busy     int           // per cent of CPUs busy in a tick, 1..100 (default 90)
	Newidle  int           // a busy CPU also goes newly idle every Newidle ticks (0: only when it turns idle)
	Duration time.Duration // kernel time simulated per order (default 1s)
	CAS      time.Duration // one contended cmpxchg or release: a line handoff (required)
	Local    time.Duration // one on a line this CPU already holds (default 10ns)
	CS       time.Duration // a balancing pass's cost per CPU of its span (default 100ns)
	Seed     uint64        // of the idle pattern (default 1)
	Orders   []string      // order= values simulated (default all three)
	// ksim.Kernel's NI_RANDOM and NI_RATE: a counted kernel's (kernel model).
	NewidleRandom, NewidleRate bool `json:",omitempty"`

	// SkewTick is skew_tick=1: tick_setup_sched_timer() offsets CPU i's tick
	// by i × ((TICK_NSEC >> 1) / num_possible_cpus()); false (the default)
	// ticks every CPU at the same instant.
	SkewTick bool `json:",omitempty"`
	// Jitter delays each CPU's tick work (the softirq, and the newly idle
	// moments after it) by a draw in [0, Jitter) per CPU and tick: what
	// runs before SCHED_SOFTIRQ. Zero (the default): one burst, the worst case.
	Jitter time.Duration `json:",omitempty"`
	// NewidlePerTick is how many short idle periods a busy CPU has in a tick
	// that has them (every Newidle ticks, or NewidleShare of them drawn:
	// ksim.TickPattern.ShortShare), in its first half (default 1).
	NewidlePerTick int     `json:",omitempty"`
	NewidleShare   float64 `json:",omitempty"`
	// NewidleCost is each level's max_newidle_lb_cost at the start, lowest
	// first, the last for any above (kernel model: the guest's); default 0.
	NewidleCost []time.Duration `json:",omitempty"`
	// Stacked is the share of a busy CPU's ticks finding a second task queued
	// (rq->nr_running >= 2, a kick's reason); kernel model's from the count.
	Stacked float64 `json:",omitempty"`
	// ShortIdle is a busy CPU's short idle, its newidle walk's start to the
	// wakeup: the sample ttwu_do_activate() feeds rq->avg_idle, which cuts
	// the walk. Zero (the default): avg_idle's cap, 2*max_idle_balance_cost,
	// which no walk of the default costs reaches. A CPU idle for whole ticks
	// feeds its real idle time either way.
	ShortIdle time.Duration `json:",omitempty"`
	// CASRemote is one handoff of the flag's line from the other socket, CAS
	// then one within (default 0: every handoff at CAS). Ties (aligned ticks)
	// go by CPU number, one socket's burst before the other's; jitter mixes.
	CASRemote time.Duration `json:",omitempty"`
	// IdleTick is the idle loop's tick rule (ksim.IdleLoop): when an idle
	// CPU's tick stops (sim.tickStop). The governor's stand-in, as before
	// the rule was an input, is IdleTickStop's: stop at idle entry.
	IdleTick ksim.IdleTickRule `json:",omitempty"`
	// FreshIdle, IdlePull, IdleQueued and TickCorr are ksim.TickPattern's
	// Fresh, Pull, Queued and Corr (Pull and Queued with FreshIdle and
	// IdleTickAfterTick only): each idle tick falls in an idle begun since
	// the CPU's last tick (kernel model: the guest's mean idle under half a
	// tick); the shares of idle ticks whose CPU_IDLE pass pulls a task (the
	// guest's CPU_IDLE pulls over its idle ticks) and that find a task
	// already queued, so balance CPU_NOT_IDLE (its tick trace), neither
	// stopping the tick; a CPU's state's correlation at successive ticks
	// (its tick trace); WalkIdle is TickPattern's (its kicks' records).
	FreshIdle  bool    `json:",omitempty"`
	IdlePull   float64 `json:",omitempty"`
	TickCorr   float64 `json:",omitempty"`
	IdleQueued float64 `json:",omitempty"`
	WalkIdle   float64 `json:",omitempty"`
}

// Limits: beyond them a simulation is a typo or would run for hours.
const (
	simMaxCPUs     = 4096
	simMaxDuration = time.Minute
	// simMaxNewidlePerTick: more short idles than that in one tick are
	// a typo (the seed gives no rate at all).
	simMaxNewidlePerTick = 64
)

func (c SimConfig) withDefaults() SimConfig {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.CPUs, 512)
	def(&c.Sockets, 2)
	def(&c.SNC, 2)
	def(&c.SMT, 2)
	def(&c.HZ, 1000)
	def(&c.Busy, 90)
	def(&c.NewidlePerTick, 1)
	if c.Duration == 0 {
		c.Duration = time.Second
	}
	if c.Local == 0 {
		c.Local = 10 * time.Nanosecond
	}
	if c.CS == 0 {
		c.CS = 100 * time.Nanosecond
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if len(c.Orders) == 0 {
		c.Orders = orderNames
	}
	return c
}

func (c SimConfig) validate() error {
	bad := func(f string, a ...any) error { return fmt.Errorf("simulate balanceflag: "+f, a...) }
	switch {
	case c.CPUs < 2 || c.CPUs > simMaxCPUs:
		return bad("cpus %d out of range [2, %d]", c.CPUs, simMaxCPUs)
	case c.Sockets < 1 || c.SNC < 1 || c.SMT < 1 || c.SMT > 8:
		return bad("sockets %d, snc %d, smt %d: want sockets and snc at least 1, smt 1..8", c.Sockets, c.SNC, c.SMT)
	case c.CPUs%(c.Sockets*c.SNC) != 0 || c.CPUs/(c.Sockets*c.SNC)%c.SMT != 0:
		return bad("cpus %d is not %d sockets × %d nodes of whole %d-thread cores", c.CPUs, c.Sockets, c.SNC, c.SMT)
	case c.HZ != 1000 && c.HZ != 250:
		return bad("hz %d: want 1000 or 250", c.HZ)
	case c.Busy < 1 || c.Busy > 100:
		return bad("busy %d out of range [1, 100]", c.Busy)
	case c.Newidle < 0:
		return bad("newidle %d: want 0 (only when a cpu turns idle) or a period in ticks", c.Newidle)
	case c.Duration < 10*time.Millisecond || c.Duration > simMaxDuration:
		return bad("duration %v out of range [10ms, %v]", c.Duration, simMaxDuration)
	case c.CASRemote < 0:
		return bad("cas-remote %v: want a positive duration (or 0: every handoff at cas)", c.CASRemote)
	case c.CAS <= 0 || c.Local < 0 || c.CS < 0:
		return bad("cas %v, local %v, cs %v: want a positive cas and no negative cost", c.CAS, c.Local, c.CS)
	case c.NewidlePerTick < 1 || c.NewidlePerTick > simMaxNewidlePerTick:
		return bad("newidle-per-tick %d out of range [1, %d]", c.NewidlePerTick, simMaxNewidlePerTick)
	case c.ShortIdle < 0 || int64(c.ShortIdle) >= ksim.HZ(c.HZ).TickNs():
		return bad("short-idle %v out of range [0, %v): a short idle ends within its tick", c.ShortIdle, time.Duration(ksim.HZ(c.HZ).TickNs()))
	case c.IdleTick > ksim.IdleTickAfterTick || !(c.Stacked >= 0 && c.Stacked <= 1) || !(c.IdlePull >= 0 && c.IdleQueued >= 0 && c.IdlePull+c.IdleQueued <= 1) || !(c.TickCorr >= 0 && c.TickCorr <= 0.95) || !(c.NewidleShare >= 0 && c.NewidleShare <= 1 && c.WalkIdle >= 0 && c.WalkIdle <= 1):
		return bad("idle tick rule %d, stacked share %g, idle pull %g, idle queued %g, tick corr %g, newidle share %g, walk idle %g: want a known rule, shares in [0, 1] (pull and queued together too), corr in [0, 0.95]", c.IdleTick, c.Stacked, c.IdlePull, c.IdleQueued, c.TickCorr, c.NewidleShare, c.WalkIdle)
	case c.FreshIdle && c.IdleTick == ksim.IdleTickGovernor || (c.IdlePull > 0 || c.IdleQueued > 0) && (!c.FreshIdle || c.IdleTick != ksim.IdleTickAfterTick):
		return bad("fresh-idle %v, idle-pull %g, idle-queued %g, idle tick %v: fresh idles need a driver-less idle loop (stop or after-tick), idle-pull and idle-queued need fresh idles and after-tick", c.FreshIdle, c.IdlePull, c.IdleQueued, c.IdleTick.Name())
	case c.Jitter < 0 || int64(c.Jitter) >= ksim.HZ(c.HZ).TickNs():
		return bad("jitter %v out of range [0, %v): a tick's work must start within its tick", c.Jitter, time.Duration(ksim.HZ(c.HZ).TickNs()))
	}
	for _, o := range c.Orders {
		if !slices.Contains(orderNames, o) {
			return bad("unknown order %q (want %v)", o, orderNames)
		}
	}
	return nil
}

// topo is the machine the config describes.
func (c SimConfig) topo() topology {
	return topology{cpus: c.CPUs, smt: c.SMT, group: c.CPUs / (c.Sockets * c.SNC), snc: c.SNC}
}

// checked is c with its defaults, or why it cannot be simulated.
func (c SimConfig) checked() (SimConfig, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return c, err
	}
	if err := c.topo().check(); err != nil {
		return c, fmt.Errorf("simulate %w", err)
	}
	return c, nil
}

// Simulate runs the model once per order on cfg.CPUs virtual CPUs.
func Simulate(cfg SimConfig) (*SimTable, error) {
	cfg, err := cfg.checked()
	if err != nil {
		return nil, err
	}
	tab := &SimTable{Config: cfg}
	for _, o := range cfg.Orders {
		s := newSim(cfg, ksim.SerializeOrder(slices.Index(orderNames, o)))
		s.run()
		tab.Rows = append(tab.Rows, s.row(o))
	}
	return tab, nil
}

// A sim is one order's run.
type sim struct {
	cfg    SimConfig
	m      model
	cpus   []cpuState
	all    []int // every CPU's number, the span of the nohz walk
	hz     ksim.HZ
	ticks  int64
	tickNs int64
	pat    ksim.TickPattern // the idle draws, tick times and tick stops

	lineFree  int64 // when the line's current access ends
	lineOwner int   // the CPU whose cache holds it (-1: none yet)
	flag      bool  // sched_balance_running

	busyNs     int64 // non-idle time: busy ticks, and the nohz balancer's walks
	busyTicks  int64 // the ticks CPUs were busy at (sched_tick() on a busy CPU)
	flagNs     int64 // time CPUs spent in flag accesses, waiting included
	nohzRuns   int64
	nohzPasses int64      // the passes nohzWalk ran, on idle CPUs' behalf
	nohz       *ksim.Nohz // the nohz balancer's state (nohz.idle_cpus_mask, nr_busy_cpus, next_balance)
	nohzTick   int64      // the tick nohzILB was computed for
	nohzILB    int        // that tick's kicked balancer, find_new_ilb() (-1: none kicked)

	// ilb()'s idle CPUs at its tick (it never yields), and the walks'
	// rq->next_balance: made once, so neither allocates.
	ilbJ      int64
	ilbIdle   func(cpu int) bool
	ilbInMask func(cpu int) bool
	walkNext  func(cpu int) int64
	ilbRQ     func(cpu int) ksim.KickRQ // a busy CPU's rq at tick ilbJ: a second task at cfg.Stacked

	handoffs, remoteHandoffs int64 // the line's moves between CPUs, and those across sockets

	// onNohz, when a test sets it, sees each CPU the nohz balancer
	// balances: tick, balancer, CPU.
	onNohz func(j int64, ilb, cpu int)
}

// A simProc is one CPU's coroutine in the driver (ksim.Proc: its kernel
// time, and the line's answer to its last access) and the walkOps of the
// walks it runs.
type simProc struct {
	*ksim.Proc
	s *sim
	walkOwner
	// This CPU's nohz walk, its own: a walk yields at each flag access,
	// and another CPU's may run meanwhile.
	walkJ       int64
	walkIdle    func(cpu int) bool
	walkBalance func(cpu int)
}

// newSimProc is CPU p's coroutine state, its walk callbacks made once.
func newSimProc(s *sim, kp *ksim.Proc) *simProc {
	p := &simProc{Proc: kp, s: s}
	p.walkIdle = func(b int) bool {
		return b == p.CPU && s.pat.Idle(b, p.walkJ) || b != p.CPU && s.pat.IdleAtWalk(b, p.walkJ)
	}
	p.walkBalance = func(b int) {
		c := &s.cpus[b]
		c.jiffies = p.walkJ
		if s.onNohz != nil {
			s.onNohz(p.walkJ, p.CPU, b)
		}
		balanceDomains(c, p, idleCPU)
	}
	return p
}

func newSim(cfg SimConfig, order ksim.SerializeOrder) *sim {
	s := &sim{cfg: cfg, lineOwner: -1, nohzTick: -1, hz: ksim.HZ(cfg.HZ)}
	s.tickNs = s.hz.TickNs()
	s.pat = ksim.TickPattern{Seed: cfg.Seed, Busy: cfg.Busy, HZ: s.hz, CPUs: cfg.CPUs, Skew: cfg.SkewTick, Jit: int64(cfg.Jitter),
		Newidle: cfg.Newidle, PerTick: cfg.NewidlePerTick, Rule: cfg.IdleTick, Fresh: cfg.FreshIdle, Pull: cfg.IdlePull, Queued: cfg.IdleQueued, Corr: cfg.TickCorr, ShortShare: cfg.NewidleShare, WalkIdle: cfg.WalkIdle}
	s.ticks = s.hz.Ticks(int64(cfg.Duration))
	s.m = model{topo: cfg.topo(), order: order, hz: cfg.HZ, busy: cfg.Busy, corr: cfg.TickCorr, seed: cfg.Seed, niRandom: cfg.NewidleRandom, niRate: cfg.NewidleRate}
	s.cpus = make([]cpuState, cfg.CPUs)
	s.all = make([]int, cfg.CPUs)
	llc := make([]int, cfg.CPUs)
	for i := range s.cpus {
		c := &s.cpus[i]
		*c = cpuState{m: &s.m, cpu: i, levels: s.m.topo.levels(i)}
		c.initIntervals(cfg.NewidleCost)
		c.rq.Init() // the idle statistics, as sched_init() starts them
		c.rq.Rand = cfg.Seed<<32 ^ uint64(i)
		c.spreadPhase(i, cfg.CPUs)
		s.all[i] = i
		// sd_llc_shared: the node's, none for a node of one CPU
		// (its domain degenerates).
		llc[i] = -1
		if g := s.m.topo.group; g > 1 {
			llc[i] = i / g
		}
	}
	s.nohz = ksim.NewNohz(cfg.CPUs, llc)
	s.ilbIdle = func(b int) bool { return s.pat.Idle(b, s.ilbJ) }
	s.ilbInMask = func(b int) bool { return s.pat.InMask(b, s.ilbJ) }
	s.walkNext = func(b int) int64 { return s.cpus[b].rq.NextBalance }
	s.ilbRQ = func(b int) ksim.KickRQ {
		if ksim.Uniform(ksim.Mix(s.cfg.Seed^uint64(b)<<40^uint64(s.ilbJ)^0x57ac)) < s.cfg.Stacked {
			return ksim.KickRQ{NrRunning: 2}
		}
		return ksim.KickRQ{NrRunning: 1}
	}
	return s
}

// run runs every CPU's coroutine to the end on the shared driver, which
// serves their line accesses in kernel-time order (ties by CPU number).
func (s *sim) run() {
	d := ksim.Driver{Serve: s.serve}
	d.Run(len(s.cpus), func(p *ksim.Proc) { newSimProc(s, p).body() })
}

// serve is the line's answer to one access: a cmpxchg (ksim.Access) or the
// release store (ksim.Release).
func (s *sim) serve(p *ksim.Proc, e ksim.Event) {
	start := max(e.T, s.lineFree)
	var done int64
	switch {
	case s.lineOwner == p.CPU && e.T >= s.lineFree:
		done = e.T + int64(s.cfg.Local)
	case s.lineOwner >= 0 && s.cfg.CASRemote > 0 && s.socket(s.lineOwner) != s.socket(p.CPU):
		done = start + int64(s.cfg.CASRemote)
	default:
		done = start + int64(s.cfg.CAS)
	}
	if s.lineOwner >= 0 && s.lineOwner != p.CPU {
		s.handoffs++
		if s.socket(s.lineOwner) != s.socket(p.CPU) {
			s.remoteHandoffs++
		}
	}
	s.lineFree, s.lineOwner = done, p.CPU
	p.Done = done
	switch e.Kind {
	case ksim.Access:
		p.OK = !s.flag
		s.flag = true
	case ksim.Release:
		s.flag = false
	}
}

// socket is the socket of CPU cpu (CPUs are numbered socket by socket).
func (s *sim) socket(cpu int) int { return cpu / (s.cfg.CPUs / s.cfg.Sockets) }

// body is a CPU's life: tick by tick, each at its tickStart and its work
// after its jitter (by default all CPUs' ticks at the same instant,
// skew_tick=0, with no jitter: what ksim's Proc.Ticks does).
func (p *simProc) body() {
	s := p.s
	for j := int64(1); j <= s.ticks; j++ {
		if !p.WaitUntil(s.pat.TickStart(p.CPU, j)+s.pat.Jitter(p.CPU, j)) || !p.tick(j) {
			return
		}
	}
}

// tick is tick j of this CPU: sched_balance_trigger()'s softirq when
// rq->next_balance is due, CPU_NOT_IDLE on a busy CPU and on an idle one
// whose tick fires CPU_IDLE (or CPU_NOT_IDLE where it finds a task
// queued); the nohz balancer's walk on the CPU find_new_ilb() picks; then
// the tick's short idles (TickPattern.HasShortIdles) and the moment a CPU
// idle next tick goes idle, each a newidle walk. A CPU that was idle wakes
// at its tick's start, feeding rq->avg_idle its idle since the walk began.
func (p *simProc) tick(j int64) bool {
	s := p.s
	c := &s.cpus[p.CPU]
	c.jiffies = j
	idle := s.pat.Idle(p.CPU, j)
	if idle {
		start := p.Now
		if s.pat.Fires(p.CPU, j) {
			c.keptTicks++
			if j-c.rq.NextBalance >= 0 {
				// rq->idle_balance = idle_cpu(cpu): false where a task
				// is queued already.
				kind := idleCPU
				if s.pat.FindsQueued(p.CPU, j) {
					kind = notIdle
				}
				balanceDomains(c, p, kind)
			}
		}
		if p.CPU == s.ilb(j) {
			p.nohzWalk(j)
		}
		// Fresh idles: the tick's span has the cpu's idle entries as a
		// busy tick's has, each its newidle walk.
		ok := p.shortIdles(j, s.pat.TickStart(p.CPU, j))
		s.busyNs += p.Now - start
		return ok
	}
	s.busyNs += s.tickNs
	s.busyTicks++
	t0 := s.pat.TickStart(p.CPU, j)
	c.wokeUp(t0)
	if j-c.rq.NextBalance >= 0 {
		balanceDomains(c, p, notIdle)
	}
	if !p.shortIdles(j, t0) {
		return false
	}
	if s.pat.Idle(p.CPU, j+1) {
		if !p.WaitUntil(s.pat.GoIdleAt(p.CPU, j)) {
			return false
		}
		c.jiffies = j
		c.idleStamp = p.Now
		newidleBalance(c, p)
	}
	return true
}

// shortIdles runs the short idle periods of tick j, which starts at t0,
// where the tick has them (TickPattern.HasShortIdles), each at its offset;
// false when the run ended first.
func (p *simProc) shortIdles(j, t0 int64) bool {
	if !p.s.pat.HasShortIdles(p.CPU, j) {
		return true
	}
	for _, off := range p.s.pat.ShortIdles(p.s.pat.Hash(p.CPU, j)) {
		if !p.WaitUntil(t0 + off) {
			return false
		}
		p.shortIdle(j)
	}
	return true
}

// shortIdle is one short idle period of a busy CPU in tick j: its newidle
// walk, then idle until ShortIdle after the walk began (or the walk's end,
// if later), when a wakeup feeds the period to rq->avg_idle. With
// ShortIdle zero the period is taken as long as avg_idle's cap, and the
// CPU's time is left alone, as before the cutoff was modelled; otherwise
// the idle part is not busy time.
func (p *simProc) shortIdle(j int64) {
	s, c := p.s, &p.s.cpus[p.CPU]
	c.jiffies = j
	start := p.Now
	c.idleStamp = start
	newidleBalance(c, p)
	d := 2 * c.rq.MaxIdleBalanceCost
	if s.cfg.ShortIdle > 0 {
		d = int64(s.cfg.ShortIdle)
		s.busyNs -= max(0, start+d-p.Now)
		p.Now = max(p.Now, start+d)
	}
	c.wokeUp(start + max(d, p.Now-start))
}

// ilb is the nohz balancer kicked in tick j, -1 for none, computed once a
// tick, at its start, before any walk of it (ksim.Nohz.TickKicks): a CPU
// idle in the tick is in the mask unless its tick stops in it, after the
// kicks (tickStop). Of the kick's reasons (equal capacities) a busy CPU's
// second task (ilbRQ) and the LLC's nr_busy_cpus > 1 can hold; a CPU alone
// in its LLC (no sd_llc_shared) kicks for the first only.
func (s *sim) ilb(j int64) int {
	if s.nohzTick != j {
		s.nohzTick, s.ilbJ = j, j
		s.nohzILB = s.nohz.TickKicks(j, s.hz, s.ilbIdle, s.ilbInMask, s.walkNext, s.ilbRQ)
	}
	return s.nohzILB
}

// nohzWalk is _nohz_idle_balance() on this CPU, the nohz balancer
// (ksim.Nohz.IdleBalance): every idle CPU of the mask whose
// rq->next_balance has come gets sched_balance_domains(rq, CPU_IDLE), from
// this CPU's successor round to itself. Every walk's flag accesses are
// this CPU's, one after another.
func (p *simProc) nohzWalk(j int64) {
	s := p.s
	s.nohzRuns++
	p.walkJ = j
	s.nohzPasses += int64(s.nohz.IdleBalance(p.CPU, j, s.hz, p.walkIdle, s.walkNext, p.walkBalance))
}

func (p *simProc) takeFlag(l *level) bool {
	t := p.Now
	p.Do(ksim.Event{T: t, Kind: ksim.Access})
	p.Now = p.Done
	l.flagNs += p.Done - t
	p.s.flagNs += p.Done - t
	return p.OK
}

func (p *simProc) releaseFlag(*level) { p.Do(ksim.Event{T: p.Now, Kind: ksim.Release}) }

func (p *simProc) pass(l *level, _ bool) { p.Now += int64(l.weight) * int64(p.s.cfg.CS) }

// now is the walking CPU's kernel time, sched_clock_cpu() (clocked).
func (p *simProc) now() int64 { return p.Now }
