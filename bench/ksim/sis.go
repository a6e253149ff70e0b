package ksim

import (
	"math"
	"math/bits"
)

// select_idle_sibling() and select_idle_cpu() (kernel/sched/fair.c): where
// a woken task runs within the LLC of the target wake_affine() chose. The
// kernel reads runqueues, sd_llc and the task; a scenario answers for them
// through a SISView (bench/idlemask from its runqueue lines and its idle
// mask, bench/wakeup from its runqueues), and hands select_idle_cpu() the
// candidates it scans (the idle mask, or sched_domain_span(sd_llc)).

// An Idler says which CPUs are idle as the scenario knows them:
// available_idle_cpu(cpu) || sched_idle_cpu(cpu).
type Idler interface {
	Idle(cpu int) bool
}

// A SISView is what select_idle_sibling()'s shortcuts read of the machine,
// the wakee and the waker.
type SISView interface {
	Idler
	// SharesCache is cpus_share_cache(a, b): the same sd_llc_id.
	SharesCache(a, b int) bool
	// Allowed is cpumask_test_cpu(cpu, p->cpus_ptr).
	Allowed(cpu int) bool
	// PrevRecent is the wakee's prev_cpu and p->recent_used_cpu, asked
	// only once the target is found busy (a scenario that draws them
	// draws no more than it uses).
	PrevRecent() (prev, recent int)
	// SetRecent is "p->recent_used_cpu = prev;".
	SetRecent(prev int)
	// NrRunning is cpu_rq(cpu)->nr_running.
	NrRunning(cpu int) int
	// PerCPUKthread is is_per_cpu_kthread(current) && in_task(): the
	// waker is a kthread bound to this CPU (asked last: a scenario may
	// draw it).
	PerCPUKthread() bool
}

// A Shortcut names which of select_idle_sibling()'s early returns placed a
// wakeup.
type Shortcut int8

const (
	NoShortcut   Shortcut = iota // none: select_idle_cpu() is next
	ShortTarget                  // "if (available_idle_cpu(target) ...) return target;"
	ShortPrev                    // prev shares the target's cache and is idle
	ShortKthread                 // a per-cpu kthread woke it on its own CPU, prev: it stacks there
	ShortRecent                  // p->recent_used_cpu shares the cache and is idle
)

// RecentUsedRule is what a version's select_idle_sibling() does with
// p->recent_used_cpu.
type RecentUsedRule int8

const (
	// RecentNone: no recent_used_cpu (before v4.16).
	RecentNone RecentUsedRule = iota
	// RecentOnHit: v4.16 (Mel Gorman's "sched/fair: Use a recently used
	// CPU as an idle candidate and the basis for SIS") up to v5.14:
	// "p->recent_used_cpu = prev;" only when it returns recent_used_cpu.
	RecentOnHit
	// RecentAlways: from v5.15, 89aafd67f28c ("sched/fair: Use prev
	// instead of new target as recent_used_cpu"): set to prev on every
	// wakeup that reaches the test, before it.
	RecentAlways
)

// SISShortcut is select_idle_sibling(p, prev, target)'s early returns of
// version k, run on CPU this (smp_processor_id()), before sd_llc is looked
// at (the capacity tests of asymmetric machines are not modelled; every
// CPU fits):
//
//	if (available_idle_cpu(target) || sched_idle_cpu(target)) return target;
//	if (prev != target && cpus_share_cache(prev, target) &&
//	    (available_idle_cpu(prev) || sched_idle_cpu(prev))) return prev;
//	if (is_per_cpu_kthread(current) && in_task() &&	// v5.6 on
//	    prev == smp_processor_id() && this_rq()->nr_running <= 1) return prev;
//	recent_used_cpu = p->recent_used_cpu;			// v4.16 on
//	p->recent_used_cpu = prev;				// v5.15 on
//	if (recent_used_cpu != prev && recent_used_cpu != target &&
//	    cpus_share_cache(recent_used_cpu, target) &&
//	    (available_idle_cpu(recent_used_cpu) || ...) &&
//	    cpumask_test_cpu(p->recent_used_cpu, p->cpus_ptr)) {
//		p->recent_used_cpu = prev;			// v4.16 to v5.14
//		return recent_used_cpu;
//	}
//
// It returns the CPU and which shortcut gave it, or -1 and NoShortcut.
// (v5.15 to v6.4 test p->recent_used_cpu, prev by then, against cpus_ptr,
// which ae2ad293d6be fixed in v6.5; recent_used_cpu is tested here, which
// is the same wherever prev is allowed.)
func (k Kernel) SISShortcut(v SISView, this, target int) (int, Shortcut) {
	if v.Idle(target) {
		return target, ShortTarget
	}
	prev, recent := v.PrevRecent()
	if prev != target && v.SharesCache(prev, target) && v.Idle(prev) {
		return prev, ShortPrev
	}
	if k.KthreadStack && prev == this && v.NrRunning(this) <= 1 && v.PerCPUKthread() {
		return prev, ShortKthread
	}
	if k.RecentUsed == RecentNone {
		return -1, NoShortcut
	}
	if k.RecentUsed == RecentAlways {
		v.SetRecent(prev)
	}
	if recent != prev && recent != target && v.SharesCache(recent, target) && v.Allowed(recent) && v.Idle(recent) {
		if k.RecentUsed == RecentOnHit {
			v.SetRecent(prev)
		}
		return recent, ShortRecent
	}
	return -1, NoShortcut
}

// ScanStart is where version k's select_idle_cpu() starts its
// for_each_cpu_wrap() for a wakeup on target: the target itself, or from
// v5.15 the CPU after it (ScanFromNext).
func (k Kernel) ScanStart(target int) int {
	if k.ScanFromNext {
		return target + 1
	}
	return target
}

// SISPropNr is the SIS_PROP scan budget of select_idle_cpu() from v4.11
// (1ad3aaf3fcd2, "sched/core: Implement new approach to scale
// select_idle_cpu()") to v5.12, SIS_AVG_CPU off as by default:
//
//	avg_idle = this_rq()->avg_idle / 512;
//	avg_cost = this_sd->avg_scan_cost + 1;
//	...
//	if (sched_feat(SIS_PROP)) {
//		u64 span_avg = sd->span_weight * avg_idle;
//		if (span_avg > 4*avg_cost)
//			nr = div_u64(span_avg, avg_cost);
//		else
//			nr = 4;
//	}
//
// avgIdle is the waking CPU's rq->avg_idle and avgScanCost its sd_llc's
// avg_scan_cost, both in ns; span is the LLC's weight. The loop then stops
// at "if (!--nr) return -1;", so at most nr-1 CPUs are probed: 3 when busy.
// (v6.0 turned SIS_PROP off by default for SIS_UTIL, SISUtilNr.)
func SISPropNr(span, avgIdle, avgScanCost int64) int {
	avgIdle /= 512
	avgCost := avgScanCost + 1
	spanAvg := span * avgIdle
	if spanAvg > 4*avgCost {
		return int(min(spanAvg/avgCost, math.MaxInt32))
	}
	return 4
}

// SISUtilNr is the SIS_UTIL scan budget of select_idle_cpu(), on by default
// from v6.0 (70fb5ccf2ebb, "sched/fair: Introduce SIS_UTIL to search idle
// CPU based on sum of util_avg"), from the LLC's sd_llc_shared:
//
//	/* because !--nr is the condition to stop scan */
//	nr = READ_ONCE(sd_share->nr_idle_scan) + 1;
//	/* overloaded LLC is unlikely to have idle cpu/core */
//	if (nr == 1)
//		return -1;
//
// (nr 1 makes SelectIdleCPU return at once, budget out, no probe.)
// nr_idle_scan starts at 0 (sd_llc_shared is kzalloc'd), so no wakeup
// scans before the LLC's first periodic balance: UpdateIdleCPUScan.
func SISUtilNr(nrIdleScan int) int { return nrIdleScan + 1 }

// UpdateIdleCPUScan is update_idle_cpu_scan() (v6.0 on): the LLC's
// nr_idle_scan, as a periodic or idle balance of the level whose span is
// the LLC (span_weight == sd_llc_size; not a newly idle one) leaves it, from
// the sum of its CPUs' cpu_util_cfs() (sumUtil, SCHED_CAPACITY_SCALE per
// CPU at full use) and the level's imbalance_pct:
//
//	x = sum_util;
//	do_div(x, llc_weight);
//	pct = env->sd->imbalance_pct;
//	tmp = x * x * pct * pct;
//	do_div(tmp, 10000 * SCHED_CAPACITY_SCALE);
//	tmp = min_t(long, tmp, SCHED_CAPACITY_SCALE);
//	y = SCHED_CAPACITY_SCALE - tmp;
//	y *= llc_weight;
//	do_div(y, SCHED_CAPACITY_SCALE);
//
// "The number of CPUs to search drops as sum_util increases, when sum_util
// hits 85% or above, the scan stops": on an LLC of 4 at imbalance_pct 117,
// 2 at half use, 0 from 85 %.
func UpdateIdleCPUScan(sumUtil int64, llcWeight, imbalancePct int) int {
	const scale = 1024 // SCHED_CAPACITY_SCALE
	x := uint64(max(sumUtil, 0)) / uint64(llcWeight)
	pct := uint64(imbalancePct)
	tmp := min(x*x*pct*pct/(10000*scale), scale)
	y := (scale - tmp) * uint64(llcWeight) / scale
	return int(y)
}

// A CPUUtil is a cpu's cfs_rq util_avg, which SIS_UTIL's
// update_idle_cpu_scan() sums over the LLC (cpu_util_cfs()): PELT of the
// time the cpu ran a task. The kernel's average rises and decays through
// every 1024 µs period; here it is brought to now only when read (each
// balance of an LLC level, milliseconds apart), the time run since the
// last read taken as spread evenly over it. Left out: a migrating task's
// util_avg moving with it, and util_est (the enqueued tasks' estimates,
// which cpu_util_cfs() takes when larger). A model adds each finished
// run's time to Ran.
type CPUUtil struct {
	Avg float64 // util_avg at At, of SCHED_CAPACITY_SCALE
	At  int64
	// Ran, plus now less the current run's start while one runs, is the
	// time run since At; a read mid-run takes off what it counted.
	Ran int64
}

// Read is cpu_util_cfs() now, the cpu running since runStart where
// running.
func (u *CPUUtil) Read(now, runStart int64, running bool) float64 {
	ran := u.Ran
	if running {
		ran += now - runStart
	}
	if dt := now - u.At; dt > 0 {
		frac := min(max(float64(ran)/float64(dt), 0), 1)
		d := Decay(dt)
		u.Avg = u.Avg*d + Nice0LoadDown*frac*(1-d)
	}
	u.At, u.Ran = now, 0
	if running {
		u.Ran = runStart - now
	}
	return u.Avg
}

// LLCScans are the SIS_UTIL state of a machine's LLCs, for a scenario
// with no sched domains of its own: each cpu's cpu_util_cfs() (CPUUtil,
// and the start of its current run; -1 where it runs none), and each
// LLC's nr_idle_scan as its last periodic or idle balance left it
// (UpdateIdleCPUScan over its cpus, at sd_init()'s imbalance_pct of
// 117; 0 before the first, as sd_llc_shared starts kzalloc'd), with the
// LLC's span, the candidates select_idle_cpu() scans. LLCs are Size
// consecutive cpus.
type LLCScans struct {
	Size     int
	Util     []CPUUtil
	runStart []int64
	nr       []int
	masks    [][]uint64
}

// NewLLCScans lays out n idle cpus in LLCs of size (one LLC where size
// is 0 or over n).
func NewLLCScans(n, size int) *LLCScans {
	if size <= 0 || size > n {
		size = max(n, 1)
	}
	l := &LLCScans{Size: size, Util: make([]CPUUtil, n), runStart: make([]int64, n), nr: make([]int, (n+size-1)/size)}
	for base := 0; base < n; base += size {
		m := make([]uint64, (n+63)/64)
		for c := base; c < min(base+size, n); c++ {
			m[c/64] |= 1 << (c % 64)
		}
		l.masks = append(l.masks, m)
	}
	for i := range l.runStart {
		l.runStart[i] = -1
	}
	return l
}

// Run is cpu starting to run a task at now, where it ran none.
func (l *LLCScans) Run(now int64, cpu int) {
	if l.runStart[cpu] < 0 {
		l.runStart[cpu] = now
	}
}

// Stop is cpu running its last task out at now.
func (l *LLCScans) Stop(now int64, cpu int) {
	if l.runStart[cpu] >= 0 {
		l.Util[cpu].Ran += now - l.runStart[cpu]
		l.runStart[cpu] = -1
	}
}

// Balance is a periodic or idle balance of cpu's LLC level at now:
// update_idle_cpu_scan() over the LLC's cpus.
func (l *LLCScans) Balance(now int64, cpu int) {
	base := cpu / l.Size * l.Size
	var sum int64
	for c := base; c < min(base+l.Size, len(l.Util)); c++ {
		sum += int64(l.Util[c].Read(now, l.runStart[c], l.runStart[c] >= 0))
	}
	l.nr[cpu/l.Size] = UpdateIdleCPUScan(sum, min(l.Size, len(l.Util)-base), 117)
}

// Scan is select_idle_cpu()'s candidates for a wakeup on target, its
// LLC's span, and SIS_UTIL's budget (SISUtilNr).
func (l *LLCScans) Scan(target int) ([]uint64, int) {
	return l.masks[target/l.Size], SISUtilNr(l.nr[target/l.Size])
}

// Sibling is select_idle_cpu()'s scan of target's LLC for a wakee
// stacked on its busy waker's cpu (select_idle_sibling() found target
// busy, and prev is target), from start, within SIS_UTIL's budget where
// budget is set (else unbounded: no periodic balance leaves
// nr_idle_scan): the idle cpu found, or -1. It records in p what the
// scan met, as the kernel's wake trace reads it.
func (l *LLCScans) Sibling(target int, idle Idler, start int, budget bool, p *Placements) int {
	llc, nr := l.Scan(target)
	if !budget {
		nr = math.MaxInt
		p.Unbudgeted++
	}
	c, _, _ := SelectIdleCPU(llc, idle, start, nr)
	mate := c
	if mate < 0 && nr != math.MaxInt { // the budget may have stopped short of one
		mate, _, _ = SelectIdleCPU(llc, idle, start, math.MaxInt)
	}
	p.NoScan += b2i(nr == 1)
	p.IdleMate += b2i(mate >= 0)
	p.ScanFinds += b2i(c >= 0)
	p.BusyMate += b2i(busyMate(llc, idle, target))
	return c
}

// busyMate is whether a cpu of llc other than target is busy.
func busyMate(llc []uint64, idle Idler, target int) bool {
	return AnyMate(llc, target, func(c int) bool { return !idle.Idle(c) })
}

// AnyMate is whether f holds for a cpu of llc (its CPU-id bits) other
// than target.
func AnyMate(llc []uint64, target int, f func(cpu int) bool) bool {
	for i, word := range llc {
		for ; word != 0; word &= word - 1 {
			if c := i*64 + bits.TrailingZeros64(word); c != target && f(c) {
				return true
			}
		}
	}
	return false
}

// Placements counts a model's wakeups of pairs as the kernel's wake
// trace does (internal/kernel's WakeTrace). A pair's wakeups are of two
// populations: Stacked, the wakee's previous cpu the waker's (the pair on
// one cpu), and split; a wakeup Parted a stacked pair (put elsewhere) or
// Joined a split one (put on the waker's cpu). Of the stacked wakeups
// Sibling scanned for, NoScan met the LLC's budget 0, IdleMate an idle
// cpu of the LLC and BusyMate a busy one besides the target, ScanFinds
// an idle one within the budget's reach, PendingMate one idle but for a
// wakeup on its way to it (a model that has such a state); Unbudgeted
// scanned with no budget kept.
type Placements struct {
	Wakes, Stacked, Parted, Joined int64
	NoScan, IdleMate, BusyMate     int64
	ScanFinds, PendingMate         int64
	Unbudgeted                     int64
}

// Place records a wakeup of a task from prev to to by a task on waker.
func (p *Placements) Place(prev, waker, to int) {
	p.Wakes++
	switch {
	case prev == waker:
		p.Stacked++
		p.Parted += b2i(to != waker)
	case to == waker:
		p.Joined++
	}
}

// SelectIdleCPU is the loop of select_idle_cpu(),
//
//	for_each_cpu_wrap(cpu, cpus, start) {
//		if (!--nr)
//			return -1;
//		if (available_idle_cpu(cpu) || sched_idle_cpu(cpu))
//			break;
//	}
//
// over the candidate words cpus (the bits of CPU ids; the idle mask, or
// sched_domain_span(sd_llc) and p->cpus_ptr): the set bits from start up,
// then from 0 up to start, word at a time. start is ScanStart's (a start
// past the last word wraps to 0). It returns the first candidate idle
// reports idle, or -1; how many CPUs it probed; and whether the budget nr
// ran out first (math.MaxInt for no budget). It allocates nothing:
// bench/idlemask's pinned run calls it in its hot loop.
//
//go:noinline
func SelectIdleCPU(cpus []uint64, idle Idler, start, nr int) (cpu, probes int, out bool) {
	n := len(cpus)
	if start >= n*64 {
		start = 0
	}
	tw, tb := start/64, uint(start%64)
	// Step k visits word tw+k (mod n): at k 0 the start's word from the
	// start up, at k n the same word below the start.
	for k := 0; k <= n && n > 0; k++ {
		i := tw + k
		if i >= n {
			i -= n
		}
		word := cpus[i]
		switch k {
		case 0:
			word &= ^uint64(0) << tb
		case n:
			word &= 1<<tb - 1
		}
		for ; word != 0; word &= word - 1 {
			if nr--; nr == 0 {
				return -1, probes, true
			}
			c := i*64 + bits.TrailingZeros64(word)
			probes++
			if idle.Idle(c) {
				return c, probes, false
			}
		}
	}
	return -1, probes, false
}

// An SMTView is what select_idle_core() and select_idle_smt() read of an
// SMT machine, beside the runqueues.
type SMTView interface {
	Idler
	// SMTMask is cpu_smt_mask(cpu), within the LLC, as the run of
	// consecutive CPU ids first to last.
	SMTMask(cpu int) (first, last int)
	// Allowed is cpumask_test_cpu(cpu, p->cpus_ptr).
	Allowed(cpu int) bool
}

// SelectIdleCore is v5.11's select_idle_core() once test_idle_cores()
// has said yes (sd_llc_shared->has_idle_cores is the caller's word, and so
// is the set_idle_cores(target, 0) a -1 calls for: "Failed to find an
// idle core; stop looking for one."):
//
//	cpumask_and(cpus, sched_domain_span(sd), p->cpus_ptr);
//	for_each_cpu_wrap(core, cpus, target) {
//		bool idle = true;
//		for_each_cpu(cpu, cpu_smt_mask(core)) {
//			if (!available_idle_cpu(cpu)) {
//				idle = false;
//				break;
//			}
//		}
//		cpumask_andnot(cpus, cpus, cpu_smt_mask(core));
//		if (idle)
//			return core;
//	}
//
// over cpus, the candidate words of an LLC of n CPUs (which it clears as
// it goes). It returns the CPU the loop is at when it finds a wholly idle
// core (the core's first thread or not), or -1, and the CPUs probed.
func SelectIdleCore(cpus []uint64, v SMTView, target, n int) (cpu, probes int) {
	for i := range n {
		core := (target + i) % n
		if cpus[core/64]>>(core%64)&1 == 0 {
			continue // a thread of a core already looked at
		}
		first, last := v.SMTMask(core)
		idle := true
		for c := first; c <= last; c++ {
			probes++
			if !v.Idle(c) {
				idle = false
				break
			}
		}
		for c := first; c <= last; c++ {
			cpus[c/64] &^= 1 << (c % 64)
		}
		if idle {
			return core, probes
		}
	}
	return -1, probes
}

// SelectIdleSMT is v5.11's select_idle_smt(), after select_idle_cpu()
// found nothing: the target's core's threads in id order, the target's
// included (available_idle_cpu() reads its runqueue too):
//
//	for_each_cpu(cpu, cpu_smt_mask(target)) {
//		if (!cpumask_test_cpu(cpu, p->cpus_ptr) ||
//		    !cpumask_test_cpu(cpu, sched_domain_span(sd)))
//			continue;
//		if (available_idle_cpu(cpu) || sched_idle_cpu(cpu))
//			return cpu;
//	}
//
// It returns the CPU or -1, and the CPUs probed.
func SelectIdleSMT(v SMTView, target int) (cpu, probes int) {
	first, last := v.SMTMask(target)
	for c := first; c <= last; c++ {
		if !v.Allowed(c) {
			continue
		}
		probes++
		if v.Idle(c) {
			return c, probes
		}
	}
	return -1, probes
}
