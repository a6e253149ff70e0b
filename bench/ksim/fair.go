package ksim

import "math"

// select_task_rq_fair() on a wakeup (kernel/sched/fair.c): record_wakee(),
// wake_wide(), each version's wake_affine(), then select_idle_sibling()
// (sis.go). A scenario answers for the runqueues, loads and domains through
// a FairView; the version's rules are its Kernel's.

// WakeAffineKind is which wake_affine() a version runs.
type WakeAffineKind int8

const (
	// WakeAffineLLC is 4.13's with 90001d67be2f and a731ebe6f17b (seed
	// 004's pre-patch kernel): across LLCs, wake_affine_llc() on the
	// sd_llc_shared statistics; within one, nothing (select_idle_sibling()
	// places).
	WakeAffineLLC WakeAffineKind = iota
	// WakeAffineBasic is PeterZ's "utter basics" patch of seed 004
	// (next-20170926): "If we can run _now_ on the waking CPU, go there,
	// otherwise meh."
	WakeAffineBasic
	// WakeAffineIdleWeight is wake_affine_idle() then wake_affine_weight()
	// with WA_IDLE, WA_WEIGHT and WA_BIAS, the v4.14 rework every later
	// version keeps.
	WakeAffineIdleWeight
)

// WakeeFlips is the record_wakee()/wake_wide() state of a task_struct.
type WakeeFlips struct {
	Flips   uint32 // wakee_flips
	DecayTS int64  // wakee_flip_decay_ts, jiffies
	Last    int32  // last_wakee, as the scenario's task id; -1: none
}

// RecordWakee is record_wakee(p) on current, for a wakee whose id is p:
//
//	if (time_after(jiffies, current->wakee_flip_decay_ts + HZ)) {
//		current->wakee_flips >>= 1;
//		current->wakee_flip_decay_ts = jiffies;
//	}
//	if (current->last_wakee != p) {
//		current->last_wakee = p;
//		current->wakee_flips++;
//	}
func RecordWakee(current *WakeeFlips, p int32, jiffies int64, hz HZ) {
	if jiffies > current.DecayTS+int64(hz) {
		current.Flips >>= 1
		current.DecayTS = jiffies
	}
	if current.Last != p {
		current.Last = p
		current.Flips++
	}
}

// WakeWide is wake_wide(p): a waker flipping between many wakees, each
// flipping too, is a 1:N relationship to spread rather than pull in.
// factor is the waking CPU's sd_llc_size, 1 where there is no LLC domain,
// so there any two tasks that each wake more than one other count as wide.
//
//	if (master < slave)
//		swap(master, slave);
//	if (slave < factor || master < slave * factor)
//		return 0;
//	return 1;
func WakeWide(current, p *WakeeFlips, factor int) bool {
	master, slave := current.Flips, p.Flips
	if master < slave {
		master, slave = slave, master
	}
	f := uint32(factor)
	return !(slave < f || master < slave*f)
}

// LLCStats is struct llc_stats as 4.13's get_llc_stats() fills it from
// sd_llc_shared (90001d67be2f's "some variables from the most recent
// sd_lb_stats for this domain").
type LLCStats struct {
	NrRunning, Load, Capacity int64
	HasCapacity               bool
}

// A FairView is what select_task_rq_fair() reads of the machine, the waker
// and the wakee, as a scenario keeps them. The load methods may move the
// scenario's PELT sums to now: they are called in the kernel's order, each
// only where the kernel reads it.
type FairView interface {
	SISView
	// CPULoad is the load wake_affine() reads of cpu: 4.13's
	// weighted_cpuload() (runnable_load_avg), later cpu_load()
	// (cfs_rq load_avg, blocked load included).
	CPULoad(cpu int) float64
	// WakerLoad and WakeeLoad are task_h_load(current) and
	// task_h_load(p).
	WakerLoad() float64
	WakeeLoad() float64
	// LLCStats is get_llc_stats(cpu): false where sd_llc_shared is NULL.
	LLCStats(cpu int) (LLCStats, bool)
	// AffineDomain is the lowest domain of this with SD_WAKE_AFFINE whose
	// span holds prev, as for_each_domain() finds it: its imbalance_pct;
	// false where none does.
	AffineDomain(this, prev int) (imbalancePct int, ok bool)
	// LLCSize is per_cpu(sd_llc_size, cpu): 1 where sd_llc is NULL.
	LLCSize(cpu int) int
	// IdleScan is select_idle_cpu()'s candidates for a wakeup on target
	// (sched_domain_span(sd_llc) and p->cpus_ptr, as CPU-id bits) and its
	// budget nr (math.MaxInt for none; SISPropNr, SISUtilNr).
	IdleScan(target int) (cpus []uint64, nr int)
}

// WakeAffine is version k's wake_affine(sd, p, this, prev, sync), for a
// domain of imbalance_pct pct: the CPU to wake on, and whether it counts
// as affine (schedstat's nr_wakeups_affine; every call is an attempt,
// nr_wakeups_affine_attempts). A version before the v4.14 rework answers
// this or prev; a later one whichever of them wake_affine_idle() or
// wake_affine_weight() returned.
func (k Kernel) WakeAffine(v FairView, pct, this, prev int, sync bool) (target int, affine bool) {
	switch k.Affine {
	case WakeAffineLLC:
		// "If the wakeup is across cache domains, try to evaluate if
		// movement makes sense, otherwise rely on
		// select_idle_siblings() to do placement inside the cache
		// domain."
		if !v.SharesCache(prev, this) && wakeAffineLLC(v, pct, this, prev, sync) {
			return this, true
		}
	case WakeAffineBasic:
		// "If we can run _now_ on the waking CPU, go there, otherwise
		// meh."
		if v.Idle(this) || (sync && v.NrRunning(this) == 1) {
			return this, true
		}
	case WakeAffineIdleWeight:
		t := k.wakeAffineIdle(v, this, prev, sync)
		if t < 0 {
			t = wakeAffineWeight(v, pct, this, prev, sync)
		}
		if t >= 0 {
			return t, true
		}
	}
	return prev, false
}

// wakeAffineLLC is the pre-patch kernel's wake_affine_llc(), line for line
// (the seed's diff removes it): "Can a task be moved from prev_cpu to
// this_cpu without causing a load imbalance that would trigger the load
// balancer?"
func wakeAffineLLC(v FairView, pct, this, prev int, sync bool) bool {
	ps, ok := v.LLCStats(prev)
	if !ok {
		return false
	}
	ts, ok := v.LLCStats(this)
	if !ok {
		return false
	}
	if sync {
		cur := int64(v.WakerLoad())
		if cur > ts.Load { // "in this case load hits 0 and this LLC is considered 'idle'"
			return true
		}
		ts.Load -= cur
	}
	if ps.HasCapacity && ps.NrRunning < ts.NrRunning+1 { // "if the old cache has capacity, stay there"
		return false
	}
	if ts.HasCapacity && ts.NrRunning+1 < ps.NrRunning { // "if this cache has capacity, come here"
		return true
	}
	taskLoad := int64(v.WakeeLoad())
	thisEff := 100 * ps.Capacity * (ts.Load + taskLoad)
	prevEff := int64(100+(pct-100)/2) * ts.Capacity * (ps.Load - taskLoad)
	return thisEff <= prevEff
}

// wakeAffineIdle is wake_affine_idle(): an idle waking CPU (an interrupt)
// pulls only within the LLC ("an interrupt intensive workload could force
// all tasks onto one node depending on the IO topology or IRQ affinity
// settings"), and prefers an idle prev there; a sync waker alone on its
// CPU pulls; from v5.11 an idle prev anywhere is kept
// (WakeAffineIdlePrev). -1 is nr_cpumask_bits: no answer.
func (k Kernel) wakeAffineIdle(v FairView, this, prev int, sync bool) int {
	if v.Idle(this) && v.SharesCache(this, prev) {
		if v.Idle(prev) {
			return prev
		}
		return this
	}
	if sync && v.NrRunning(this) == 1 {
		return this
	}
	if k.WakeAffineIdlePrev && v.Idle(prev) {
		return prev
	}
	return -1
}

// wakeAffineWeight is wake_affine_weight() with WA_BIAS: this CPU's load
// (less the waker's on a sync wakeup) plus the task's, against prev's
// less the task's, prev's side given half the domain's imbalance_pct
// (capacities are equal here and cancel). cpu_load() is the cfs_rq's
// load_avg, blocked load included: p's own decaying load is still prev's,
// which is why it is taken off.
func wakeAffineWeight(v FairView, pct, this, prev int, sync bool) int {
	const capacity = 1024 // capacity_of(), SCHED_CAPACITY_SCALE on both sides
	thisEff := v.CPULoad(this)
	if sync {
		cur := v.WakerLoad()
		if cur > thisEff {
			return this
		}
		thisEff -= cur
	}
	taskLoad := v.WakeeLoad()
	thisEff = (thisEff + taskLoad) * 100 * capacity
	prevEff := (v.CPULoad(prev) - taskLoad) * float64(100+(pct-100)/2) * capacity
	if sync {
		prevEff++
	}
	if thisEff < prevEff {
		return this
	}
	return -1
}

// A Placement is what select_task_rq_fair() decided for one wakeup, and how.
type Placement struct {
	CPU int // where the task runs
	// Wide: wake_wide() said so, want_affine is 0, and the fast path
	// runs from prev (select_idle_sibling(p, prev, prev)).
	Wide bool
	// Attempted: wake_affine() ran (an affine domain spans prev, and
	// the waking CPU is not prev); Affine: it counted the wakeup affine.
	Attempted, Affine bool
	// Target is new_cpu as select_idle_sibling() got it: prev, or what
	// wake_affine() returned.
	Target int
	// Shortcut is select_idle_sibling()'s early return, if one placed it;
	// else Probes is how many CPUs select_idle_cpu() probed, and
	// BudgetOut whether its nr ran out first.
	Shortcut  Shortcut
	Probes    int
	BudgetOut bool
}

// SelectTaskRqFair is select_task_rq_fair(p, prev, SD_BALANCE_WAKE or
// WF_TTWU, sync) of version k, run by current on CPU this, where current's
// and p's wakee flips are waker and wakee and p's id is pid:
//
//	record_wakee(p);
//	want_affine = !wake_wide(p) && cpumask_test_cpu(cpu, p->cpus_ptr);
//	for_each_domain(cpu, tmp) {
//		if (want_affine && (tmp->flags & SD_WAKE_AFFINE) &&
//		    cpumask_test_cpu(prev_cpu, sched_domain_span(tmp))) {
//			if (cpu != prev_cpu)
//				new_cpu = wake_affine(tmp, p, cpu, prev_cpu, sync);
//			sd = NULL;
//			break;
//		}
//		...
//	}
//	... new_cpu = select_idle_sibling(p, prev_cpu, new_cpu);
//
// (4.13 spells it with affine_sd and "goto pick_cpu" when cpu ==
// prev_cpu, to the same effect.) No domain modelled has SD_BALANCE_WAKE,
// so the slow path (find_idlest_cpu()) never runs, and a wide wakeup goes
// to select_idle_sibling(p, prev, prev); wake_cap() (4.13) and the
// energy-aware path find symmetric capacities and do nothing. v4.16 to
// v5.14's "if (want_affine) current->recent_used_cpu = cpu;" is not
// modelled: no scenario runs select_task_rq_fair() on those versions.
func (k Kernel) SelectTaskRqFair(v FairView, waker, wakee *WakeeFlips, pid int32, jiffies int64, hz HZ, this, prev int, sync bool) Placement {
	RecordWakee(waker, pid, jiffies, hz)
	pl := Placement{Target: prev, Wide: WakeWide(waker, wakee, v.LLCSize(this))}
	if !pl.Wide && this != prev {
		if pct, ok := v.AffineDomain(this, prev); ok {
			pl.Attempted = true
			pl.Target, pl.Affine = k.WakeAffine(v, pct, this, prev, sync)
		}
	}
	pl.CPU, pl.Shortcut, pl.Probes, pl.BudgetOut = k.SelectIdleSibling(v, this, pl.Target)
	return pl
}

// SelectIdleSibling is select_idle_sibling(p, prev, target) of version k
// on CPU this, for a machine without SMT (select_idle_core() and
// select_idle_smt() find nothing): the shortcuts (SISShortcut); the target
// where it has no sd_llc; else select_idle_cpu() over v.IdleScan's
// candidates and budget; else the target. It returns the CPU, the shortcut
// that gave it (NoShortcut: the scan or the fallback), the probes and
// whether the budget ran out.
func (k Kernel) SelectIdleSibling(v FairView, this, target int) (cpu int, s Shortcut, probes int, out bool) {
	if cpu, s := k.SISShortcut(v, this, target); s != NoShortcut {
		return cpu, s, 0, false
	}
	if v.LLCSize(target) == 1 {
		return target, NoShortcut, 0, false
	}
	cpus, nr := v.IdleScan(target)
	cpu, probes, out = SelectIdleCPU(cpus, v, k.ScanStart(target), nr)
	if cpu < 0 {
		cpu = target
	}
	return cpu, NoShortcut, probes, out
}

// NoBudget is select_idle_cpu()'s nr with no budget in force: INT_MAX.
const NoBudget = math.MaxInt
