package idlemask

import (
	"fmt"
	"sync/atomic"

	"github.com/contend/contend/bench"
)

// The units the scenario reports beside ns/op.
var (
	MaskWrites = bench.Unit{Name: "mask-writes/op", Better: bench.Lower,
		Doc: "atomic writes to the shared idle mask, per event"}
	CPUsScanned = bench.Unit{Name: "cpus-scanned/op", Better: bench.Lower,
		Doc: "runqueues probed by wakeup searches, per event"}
	FoundIdle = bench.Unit{Name: "found-idle-%", Better: bench.Higher,
		Doc: "wakeups that found an idle CPU, per cent"}
	Wrong = bench.Unit{Name: "wrong-%", Better: bench.Lower,
		Doc: "wakeups the mask answered wrongly, per cent"}
)

func init() {
	bench.Register(&bench.Spec{
		Name:      "idlemask",
		BenchName: "IdleMask",
		Summary:   "per-LLC idle cpumask (seed 003): who writes the shared word how often, and what a scan of it saves",
		Keys: []string{
			"update=always|laststate|tick|none   exact mask; the patch (last_idle_state filter, cleared at tick); same without the filter; no mask (scan=all only)",
			"scan=mask|all    wakeup search: idle mask AND allowed, or every CPU of the LLC (select_idle_cpu before the patch)",
			"busy=P           duty cycle: percent of non-wakeup events that find the CPU busy, 0..100",
			"wake=P           percent of events that are wakeups searching for an idle CPU, 0..100",
			"llc=N            simulated LLC width in CPUs, 1..4096; the workers of one real LLC own contiguous shares of it",
			"tick=N           events of one simulated CPU per scheduler tick, 1..1000000",
		},
		Quick: []string{
			"update=always/scan=mask/busy=90/wake=10/llc=48/tick=100",
			"update=laststate/scan=mask/busy=90/wake=10/llc=48/tick=100",
			"update=none/scan=all/busy=90/wake=10/llc=48/tick=100",
		},
		Full:  idleMaskFull(),
		Units: []bench.Unit{MaskWrites, CPUsScanned, FoundIdle, Wrong},
		New:   newIdleMask,
	})
}

// idleMaskFull is the sweep behind the two claims: write counts of
// the policies at three duty cycles, the search with and without the mask
// (and with no mask at all), the search alone (wake=100), and the patch's
// staleness against the tick length.
func idleMaskFull() []string {
	var vs []string
	for _, busy := range []string{"50", "90", "99"} {
		for _, us := range []string{"always/scan=mask", "laststate/scan=mask", "tick/scan=mask",
			"always/scan=all", "laststate/scan=all", "none/scan=all"} {
			vs = append(vs, "update="+us+"/busy="+busy+"/wake=10/llc=48/tick=100")
		}
	}
	for _, busy := range []string{"50", "90", "99"} {
		for _, scan := range []string{"mask", "all"} {
			vs = append(vs, "update=always/scan="+scan+"/busy="+busy+"/wake=100/llc=48/tick=100")
		}
	}
	// How stale the patch's mask is depends on how many idle entries a
	// tick spans (uperf's "80 times between two ticks"): at busy=90, about
	// 1, 10 and 100 here.
	for _, tick := range []string{"10", "1000"} {
		vs = append(vs, "update=laststate/scan=mask/busy=90/wake=10/llc=48/tick="+tick)
	}
	return vs
}

// The update policies, indexing imUpdateNames.
type imUpdate int

const (
	imAlways imUpdate = iota
	imLastState
	imTick
	imNone
)

var imUpdateNames = []string{"always", "laststate", "tick", "none"}

// imPad is the padding on each side of shared words and per-CPU lines: a
// 64-byte line plus its neighbour, which the adjacent-line prefetcher fetches
// with it.
const imPad = 128

// imMaxLLC bounds llc=: CONFIG_NR_CPUS is at most 8192, and an LLC of 4096
// CPUs is already far beyond any machine.
const imMaxLLC = 4096

// imAuditEvery: one failed mask search in this many is audited for an idle
// CPU the mask missed.
const imAuditEvery = 64

type idleMask struct {
	params   *bench.Params
	update   imUpdate
	scanMask bool
	busy     int // percent
	wake     int // percent
	width    int // llc=
	tick     int

	llcs    []*imLLC
	shares  []imShare
	workers []*imWorker
	// auditEvery is imAuditEvery; tests set 1 to audit every failure.
	auditEvery int64
}

func newIdleMask(variant string) (bench.Scenario, error) {
	p, err := bench.ParseParams("idlemask", variant,
		"update=laststate", "scan=mask", "busy=90", "wake=10", "llc=48", "tick=100")
	if err != nil {
		return nil, err
	}
	s := &idleMask{params: p, auditEvery: imAuditEvery}
	update, err := p.Choice("update", imUpdateNames...)
	if err != nil {
		return nil, err
	}
	for i, name := range imUpdateNames {
		if update == name {
			s.update = imUpdate(i)
		}
	}
	scan, err := p.Choice("scan", "mask", "all")
	if err != nil {
		return nil, err
	}
	s.scanMask = scan == "mask"
	if s.update == imNone && s.scanMask {
		return nil, fmt.Errorf("idlemask: update=none keeps no mask for scan=mask to read (use scan=all)")
	}
	if s.busy, err = p.Int("busy", 0, 100); err != nil {
		return nil, err
	}
	if s.wake, err = p.Int("wake", 0, 100); err != nil {
		return nil, err
	}
	if s.width, err = p.Int("llc", 1, imMaxLLC); err != nil {
		return nil, err
	}
	if s.tick, err = p.Int("tick", 1, 1_000_000); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *idleMask) Variant() string { return s.params.String() }

// An imLLC is one simulated last-level cache: its idle mask, the runqueue of
// each of its CPUs, and its span.
type imLLC struct {
	// mask is sds_idle_cpus(sd->shared): the middle of a buffer with
	// imPad bytes of unused words on each side.
	mask []atomic.Uint64
	buf  []atomic.Uint64 // mask and its padding
	// rqs is cpu_rq(cpu) for each CPU, filled in by the CPU's owner.
	rqs   []*imCPU
	width int
}

func newIMLLC(width int) *imLLC {
	nw := (width + 63) / 64
	pad := imPad / 8
	buf := make([]atomic.Uint64, pad+nw+pad)
	return &imLLC{mask: buf[pad : pad+nw : pad+nw], buf: buf, rqs: make([]*imCPU, width), width: width}
}

// An imCPU is the part of one simulated CPU's runqueue that matters here, on
// lines of its own: remote wakeups read idle; only the owner writes either
// field.
type imCPU struct {
	_ [imPad]byte
	// idle is 1 while the CPU runs its idle task: what
	// available_idle_cpu() finds when a wakeup probes this runqueue. Its
	// owner stores it only when the state changes, as the kernel writes
	// rq->curr only at a context switch.
	idle atomic.Uint32
	// last is rq->last_idle_state (update=laststate), the mask bit as this
	// CPU last wrote it. sched_init() starts it at 1; here it starts equal
	// to the initial state.
	last uint32
	_    [imPad - 8]byte
}

// An imShare is one worker's part of the simulated LLCs: CPUs [lo, hi) of
// LLC llc.
type imShare struct{ llc, lo, hi int }

// imPlan divides simulated LLCs of width CPUs among workers whose real LLCs
// are realLLC (one entry per worker; -1 when unknown). The workers of one real
// LLC, in index order, share ceil(n/width) simulated LLCs as evenly as
// possible, and the workers of one simulated LLC own contiguous shares of it,
// at least one CPU each.
func imPlan(realLLC []int, width int) (shares []imShare, nllc int) {
	var order []int
	groups := map[int][]int{}
	for i, l := range realLLC {
		if _, ok := groups[l]; !ok {
			order = append(order, l)
		}
		groups[l] = append(groups[l], i)
	}
	shares = make([]imShare, len(realLLC))
	for _, l := range order {
		ws := groups[l]
		k := (len(ws) + width - 1) / width
		for j := range k {
			chunk := ws[j*len(ws)/k : (j+1)*len(ws)/k]
			for m, wi := range chunk {
				shares[wi] = imShare{llc: nllc, lo: m * width / len(chunk), hi: (m + 1) * width / len(chunk)}
			}
			nllc++
		}
	}
	return shares, nllc
}

func (s *idleMask) Start(env *bench.Env) error {
	realLLC := make([]int, len(env.CPUs))
	for i, cpu := range env.CPUs {
		realLLC[i] = -1
		if t := env.Topology; t != nil && cpu >= 0 && cpu < len(t.CPUs) {
			realLLC[i] = t.CPUs[cpu].LLC
		}
	}
	var n int
	s.shares, n = imPlan(realLLC, s.width)
	s.llcs = make([]*imLLC, n)
	for i := range s.llcs {
		s.llcs[i] = newIMLLC(s.width)
	}
	s.workers = make([]*imWorker, len(env.CPUs))
	return nil
}

// imPercent scales a percentage to a threshold for the top or bottom 32 bits
// of a random word: a 32-bit draw below it happens with probability p/100.
func imPercent(p int) uint64 { return uint64(p) << 32 / 100 }

func (s *idleMask) Worker(info bench.WorkerInfo) (bench.Worker, error) {
	sh := s.shares[info.Index]
	llc := s.llcs[sh.llc]
	nw := len(llc.mask)
	w := &imWorker{
		mask:       llc.mask,
		rqs:        llc.rqs,
		lo:         sh.lo,
		hi:         sh.hi,
		cur:        sh.lo,
		update:     s.update,
		scanMask:   s.scanMask,
		busyT:      imPercent(s.busy),
		wakeT:      imPercent(s.wake),
		tick:       int32(s.tick),
		auditEvery: s.auditEvery,
		// Each CPU's sched_domain has its own copy of the span, the
		// task carries its allowed mask, and select_idle_mask is per
		// CPU: all three are the worker's own, touched first here on
		// its pinned thread.
		span:    make([]uint64, nw),
		allowed: make([]uint64, nw),
		scratch: make([]uint64, nw),
		tickIn:  make([]int32, sh.hi-sh.lo),
		rng:     0x9e3779b97f4a7c15 * uint64(info.Index+1),
	}
	for c := range llc.width {
		w.span[c/64] |= 1 << (c % 64)
	}
	copy(w.allowed, w.span)
	// The worker's runqueues, allocated and first touched on its thread.
	rqs := make([]imCPU, sh.hi-sh.lo)
	for c := sh.lo; c < sh.hi; c++ {
		rq := &rqs[c-sh.lo]
		r := w.next()
		// Start each CPU in a state drawn from the duty cycle, with an
		// exact mask, so the run does not begin with a warm-up from
		// sd_init's all-idle mask; stagger the ticks.
		if uint64(uint32(r)) >= w.busyT {
			rq.idle.Store(1)
			rq.last = 1
			if s.update != imNone {
				w.mask[c/64].Or(1 << (c % 64))
			}
		}
		w.tickIn[c-sh.lo] = int32(1 + (r>>32)%uint64(s.tick))
		llc.rqs[c] = rq
	}
	s.workers[info.Index] = w
	return w, nil
}

func (s *idleMask) Finish(res *bench.Result) error {
	var t imCounts
	for _, w := range s.workers {
		t.add(&w.imCounts)
	}
	if t.events != res.Ops {
		return fmt.Errorf("idlemask: workers counted %d events, runner counted %d operations", t.events, res.Ops)
	}
	if err := s.check(); err != nil {
		return err
	}
	ops := float64(res.Ops)
	found, wrong := 0.0, 0.0
	if t.wakeups > 0 {
		found = 100 * float64(t.found) / float64(t.wakeups)
		missed := 0.0
		if t.audits > 0 {
			missed = float64(t.missed) * float64(t.fails) / float64(t.audits)
		}
		wrong = 100 * (float64(t.staleWakeups) + missed) / float64(t.wakeups)
	}
	res.AddMetric(MaskWrites, float64(t.writes)/ops)
	res.AddMetric(CPUsScanned, float64(t.probes)/ops)
	res.AddMetric(FoundIdle, found)
	res.AddMetric(Wrong, wrong)
	return nil
}

// check verifies the mask against the runqueues once every worker has
// stopped (workers stop between whole events): exact for update=always; for
// laststate and tick a superset of the idle CPUs (only a tick clears a bit,
// and only for a busy CPU); for laststate also the bit equal to
// last_idle_state.
func (s *idleMask) check() error {
	if s.update == imNone {
		return nil
	}
	for li, llc := range s.llcs {
		for c, rq := range llc.rqs {
			if rq == nil {
				continue // no worker owned it (a failed start)
			}
			bit := llc.mask[c/64].Load()>>(c%64)&1 != 0
			idle := rq.idle.Load() != 0
			switch {
			case s.update == imAlways && bit != idle:
				return fmt.Errorf("idlemask: update=always: llc %d cpu %d: mask bit %v, cpu idle %v after the run", li, c, bit, idle)
			case idle && !bit:
				return fmt.Errorf("idlemask: update=%s: llc %d cpu %d is idle but not in the mask after the run", imUpdateNames[s.update], li, c)
			case s.update == imLastState && bit != (rq.last != 0):
				return fmt.Errorf("idlemask: update=laststate: llc %d cpu %d: mask bit %v, last_idle_state %d", li, c, bit, rq.last)
			}
		}
	}
	return nil
}

// imCounts are one worker's statistics.
type imCounts struct {
	events       int64 // operations
	writes       int64 // atomic writes to the mask words
	probes       int64 // runqueues a search looked at
	wakeups      int64
	found        int64 // wakeups that found an idle CPU
	staleWakeups int64 // mask searches that probed a busy candidate
	fails        int64 // mask searches that found nothing
	audits       int64 // failed mask searches audited
	missed       int64 // audited failures, not already stale, with an idle CPU the mask did not offer
}

func (c *imCounts) add(o *imCounts) {
	c.events += o.events
	c.writes += o.writes
	c.probes += o.probes
	c.wakeups += o.wakeups
	c.found += o.found
	c.staleWakeups += o.staleWakeups
	c.fails += o.fails
	c.audits += o.audits
	c.missed += o.missed
}

// An imWorker owns CPUs [lo, hi) of one simulated LLC. Everything here is
// written only by its own thread and padded from its neighbours; the shared
// state is what mask and rqs point to.
type imWorker struct {
	_ [imPad]byte
	imCounts
	rng    uint64
	cur    int     // the CPU of the next event
	tickIn []int32 // events until each owned CPU's next tick

	mask                   []atomic.Uint64
	rqs                    []*imCPU
	span, allowed, scratch []uint64
	lo, hi                 int
	busyT, wakeT           uint64
	auditEvery             int64
	tick                   int32
	update                 imUpdate
	scanMask               bool
	_                      [imPad]byte
}

// next is xorshift64*: cheap, deterministic per worker, good enough to
// schedule events.
func (w *imWorker) next() uint64 {
	x := w.rng
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	w.rng = x
	return x * 2685821657736338717
}

func (w *imWorker) Run(n int) { idleMaskEvents(w, n) }

// idleMaskEvents is the hot loop: n events, each on the next of the worker's
// CPUs. perf annotate finds the shared-word writes (LOCK OR/AND) here and
// the scan in selectIdleCPU.
//
//go:noinline
func idleMaskEvents(w *imWorker, n int) {
	for range n {
		c := w.cur
		if w.cur++; w.cur == w.hi {
			w.cur = w.lo
		}
		r := w.next()
		rq := w.rqs[c]
		switch {
		case r>>32 < w.wakeT:
			w.wakeup(c)
		case uint64(uint32(r)) >= w.busyT:
			w.idleEntry(c, rq)
		case rq.idle.Load() != 0:
			w.idleExit(c, rq)
		}
		if i := c - w.lo; w.tickIn[i] == 1 {
			w.tickIn[i] = w.tick
			w.schedulerTick(c, rq)
		} else {
			w.tickIn[i]--
		}
	}
	w.events += int64(n)
}

// setBit is cpumask_set_cpu() on the shared mask: a locked OR, which takes the
// line exclusive whether or not the bit changes.
func (w *imWorker) setBit(c int) {
	w.mask[c/64].Or(1 << (c % 64))
	w.writes++
}

// clearBit is cpumask_clear_cpu(): a locked AND.
func (w *imWorker) clearBit(c int) {
	w.mask[c/64].And(^(uint64(1) << (c % 64)))
	w.writes++
}

// idleEntry is the CPU switching to (or staying in) its idle task and
// cpuidle_idle_call() running update_idle_cpumask(this_rq(), true).
func (w *imWorker) idleEntry(c int, rq *imCPU) {
	if rq.idle.Load() == 0 {
		rq.idle.Store(1)
	}
	switch w.update {
	case imAlways, imTick:
		w.setBit(c)
	case imLastState:
		// idle_state = set_idle || sched_idle_cpu(cpu);
		// if (rq->last_idle_state == idle_state)
		//	return;
		if rq.last != 1 {
			w.setBit(c)
			rq.last = 1
		}
	}
}

// idleExit is the CPU picking a task after idle. Only the exact mask hears of
// it; the patch leaves the bit set until the tick.
func (w *imWorker) idleExit(c int, rq *imCPU) {
	rq.idle.Store(0)
	if w.update == imAlways {
		w.clearBit(c)
	}
}

// schedulerTick is scheduler_tick() calling update_idle_cpumask(rq, false):
//
//	/*
//	 * If called from scheduler tick, only update
//	 * idle cpumask if the CPU is busy, as idle
//	 * cpumask is also updated on idle entry.
//	 */
//	if (!set_idle && idle_cpu(cpu))
//		return;
//
// update=always rewrites the bit either way.
func (w *imWorker) schedulerTick(c int, rq *imCPU) {
	idle := rq.idle.Load() != 0
	switch w.update {
	case imAlways:
		if idle {
			w.setBit(c)
		} else {
			w.clearBit(c)
		}
	case imLastState:
		if idle || rq.last == 0 {
			return
		}
		w.clearBit(c)
		rq.last = 0
	case imTick:
		if !idle {
			w.clearBit(c)
		}
	}
}
