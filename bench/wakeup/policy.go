package wakeup

// The kernel's wakeup placement as select_task_rq_fair() walks it in seed
// 004's kernels (4.13 with the two tip fixes before the patch, next-20170926
// after it): with want_affine and cpu != prev_cpu, wake_affine() decides
// between the waking cpu and prev_cpu, and select_idle_sibling() then looks
// for an idle cpu around that choice:
//
//	if (affine_sd) {
//		sd = NULL; /* Prefer wake_affine over balance flags */
//		if (cpu == prev_cpu)
//			goto pick_cpu;
//		if (wake_affine(affine_sd, p, prev_cpu, sync))
//			new_cpu = cpu;
//	}
//	if (!sd) {
//	pick_cpu:
//		if (sd_flag & SD_BALANCE_WAKE) /* XXX always ? */
//			new_cpu = select_idle_sibling(p, prev_cpu, new_cpu);
//	}

// Kernel constants the pre-patch comparison reads.
const (
	// nice0Load is NICE_0_LOAD (scale_load_down'd, as the 4.13 load
	// figures are) and SCHED_CAPACITY_SCALE: a nice-0 task's full
	// weight, and one cpu's capacity.
	nice0Load = 1024
	// affineImbalancePct is the imbalance_pct of the domain wake_affine
	// is called with across LLCs: sd_init()'s default 125, as 4.13 gives
	// every level above the LLC (117 is the MC level's, which never
	// spans two LLCs). prev_eff_load's factor is 100 + (125-100)/2 = 112.
	affineImbalancePct = 125
)

// An llcStats is struct llc_stats of the pre-patch kernel, as
// get_llc_stats() filled it from sd_llc_shared.
type llcStats struct {
	nrRunning, load, capacity int64
	hasCapacity               bool
}

// wakeAffineLLC is the pre-patch kernel's wake_affine_llc() (removed by the
// seed's patch; 4.13.0 + 90001d67be2f + a731ebe6f17b), line for line: "Can
// a task be moved from prev_cpu to this_cpu without causing a load
// imbalance that would trigger the load balancer?" currentLoad is
// task_h_load(current), the waker's; taskLoad task_h_load(p), the wakee's.
func wakeAffineLLC(prev, this llcStats, sync bool, currentLoad, taskLoad, imbalancePct int64) bool {
	// If sync wakeup then subtract the (maximum possible) effect of
	// the currently running task from the load of the current LLC.
	if sync {
		// in this case load hits 0 and this LLC is considered 'idle'
		if currentLoad > this.load {
			return true
		}
		this.load -= currentLoad
	}
	// if the old cache has capacity, stay there
	if prev.hasCapacity && prev.nrRunning < this.nrRunning+1 {
		return false
	}
	// if this cache has capacity, come here
	if this.hasCapacity && this.nrRunning+1 < prev.nrRunning {
		return true
	}
	// Check to see if we can move the load without causing too much
	// imbalance.
	thisEff := 100 * prev.capacity
	prevEff := (100 + (imbalancePct-100)/2) * this.capacity
	thisEff *= this.load + taskLoad
	prevEff *= prev.load - taskLoad
	return thisEff <= prevEff
}

// wakeAffineBasic is the patched wake_affine(), PeterZ's "utter basics": "If
// we can run _now_ on the waking CPU, go there, otherwise meh."
//
//	if (idle_cpu(this_cpu))
//		affine = true;
//	else if (sync && cpu_rq(this_cpu)->nr_running == 1)
//		affine = true;
func wakeAffineBasic(thisIdle, sync bool, thisNrRunning int64) bool {
	if thisIdle {
		return true
	}
	return sync && thisNrRunning == 1
}

// nrRunning is cpu c's rq->nr_running as the model has it: the woken tasks
// queued on it, and on the waking cpu its waker, which is running.
func (w *worker) nrRunning(c int32) int64 {
	n := int64(w.rqs[c].nr.Load())
	if c == w.me {
		n++
	}
	return n
}

// idleCPU is idle_cpu(c): nothing running and nothing queued. The waking
// cpu runs its waker, so it is never idle here; another cpu's waker is
// between wakeups (a client waiting for its server's reply), so that cpu is
// idle when no woken task waits on it. Each test reads c's rq line, as
// idle_cpu() reads a remote rq.
func (w *worker) idleCPU(c int32) bool {
	return c != w.me && w.rqs[c].nr.Load() == 0
}

// liveStats is what update_sd_lb_stats() would find on cpu c's LLC now, as
// this cpu sees it: every runnable task at a nice-0 task's full weight,
// every cpu at full capacity (sum_nr_running, group_load and
// group_capacity summed over the LLC's groups). 4.13's group_load is
// target_load()/source_load() at the domain's busy_idx 2: rq->cpu_load[1],
// the tick's decayed average of the PELT runnable load, against its
// instantaneous value; a cpu whose tasks have run for a while shows about
// nice0Load a task either way, which is what this counts.
func (w *worker) liveStats(c int32) (nr, load, capacity int64) {
	nr = w.nrRunning(c)
	for _, p := range w.lay.peers[c] {
		nr += w.nrRunning(p)
	}
	return nr, nr * nice0Load, int64(1+len(w.lay.peers[c])) * nice0Load
}

// balanceLLC is the end of this cpu's load balance of its LLC domain, the
// lines 90001d67be2f added to update_sd_lb_stats():
//
//	WRITE_ONCE(shared->nr_running,	sds->total_running);
//	WRITE_ONCE(shared->load,	sds->total_load);
//	WRITE_ONCE(shared->capacity,	sds->total_capacity);
//
// No task is ever moved (the model has no load balancer to move one), so
// the balance finds the domain balanced and its interval stays at the
// maximum: the next one is balanceEvery later.
func (w *worker) balanceLLC() {
	nr, load, capacity := w.liveStats(w.me)
	sh := w.lay.shared[w.me]
	sh.nrRunning.Store(nr)
	sh.load.Store(load)
	sh.capacity.Store(capacity)
	w.balances++
	w.balanceAt += w.balanceEvery
}

// balanceTimes is when a busy cpu of an LLC of size cpus first balances the
// LLC domain, and how often after that, in ns of kernel time.
// rebalance_domains() balances a domain once jiffies pass sd->last_balance
// + get_sd_balance_interval(sd, busy): sd->balance_interval ms, times
// sd->busy_factor on a busy cpu. sd_init() starts balance_interval at
// min_interval = sd_weight ms with busy_factor 32, and load_balance()
// doubles it up to max_interval = 2·sd_weight after every balance that
// finds nothing to move (out_balanced: "tune up the balancing interval").
// So the first balance comes 32·size ms after the domains were built and
// the next ones every 64·size ms. Every cpu of the LLC balances its own
// copy of the domain (should_we_balance(): its local group at the LLC level
// is its own core, of which it is the first idle or first cpu), each on its
// own tick, from the same last_balance: so all write sd_llc_shared at about
// the same time, every 64·size ms, on a machine whose cpus stay busy.
func balanceTimes(size int) (first, every int64) {
	const busyFactor = 32
	ms := int64(size) * busyFactor * 1e6
	return ms, 2 * ms
}

// llcStatsOf is get_llc_stats() for cpu c's LLC: false where there is no
// sd_llc_shared (an LLC of one cpu); else the last balance's snapshot, or
// with stats=live the runqueues now. has_capacity compares nr_running with
// per_cpu(sd_llc_size, c).
func (w *worker) llcStatsOf(c int32) (llcStats, bool) {
	sh := w.lay.shared[c]
	if sh == nil {
		return llcStats{}, false
	}
	size := int64(1 + len(w.lay.peers[c]))
	var s llcStats
	if w.live {
		s.nrRunning, s.load, s.capacity = w.liveStats(c)
	} else {
		s.nrRunning, s.load, s.capacity = sh.nrRunning.Load(), sh.load.Load(), sh.capacity.Load()
	}
	s.hasCapacity = s.nrRunning < size
	return s, true
}

// wakeAffine is the policy's wake_affine(p, prev_cpu, sync) on this cpu
// (cpu != prev_cpu): whether the task is to run here rather than on prev.
func (w *worker) wakeAffine(prev int32, sync bool) bool {
	switch w.wake {
	case wakeLLCStats:
		// "If the wakeup is across cache domains, try to evaluate if
		// movement makes sense, otherwise rely on
		// select_idle_siblings() to do placement inside the cache
		// domain." Every task weighs nice0Load, the waker (current)
		// and the wakee alike: see doc.go.
		if w.lay.llc[prev] == w.lay.llc[w.me] {
			return false
		}
		// if (!get_llc_stats(&prev_stats, prev_cpu) ||
		//     !get_llc_stats(&this_stats, this_cpu))
		//	return false;
		ps, ok := w.llcStatsOf(prev)
		if !ok {
			return false
		}
		ts, ok := w.llcStatsOf(w.me)
		if !ok {
			return false
		}
		return wakeAffineLLC(ps, ts, sync, nice0Load, nice0Load, affineImbalancePct)
	default: // wakeBasic
		return wakeAffineBasic(w.idleCPU(w.me), sync, w.nrRunning(w.me))
	}
}

// selectTaskRq is select_task_rq_fair()'s wakeup path for the kernel
// policies: wake_affine() unless the task last ran here, then
// select_idle_sibling() around the choice.
func (w *worker) selectTaskRq(prev int32, sync bool) int32 {
	target := prev
	if prev != w.me {
		w.affineTries++
		if w.wakeAffine(prev, sync) {
			w.affine++
			target = w.me
		}
	}
	return w.selectIdleSibling(prev, target)
}

// selectIdleSibling is select_idle_sibling(p, prev, target) of seed 004's
// kernels, with its early returns:
//
//	if (idle_cpu(target))
//		return target;
//	/* If the previous cpu is cache affine and idle, don't be stupid. */
//	if (prev != target && cpus_share_cache(prev, target) && idle_cpu(prev))
//		return prev;
//	... select_idle_core(), select_idle_cpu(), select_idle_smt() ...
//	return target;
//
// p->recent_used_cpu, the third shortcut of later kernels, came in 4.16
// (Mel Gorman's 32e839dda3ba); it is not in these kernels. The model has no
// SMT, so select_idle_core() and select_idle_smt() find nothing, and
// select_idle_cpu() is its loop over the target's LLC,
// for_each_cpu_wrap(cpu, sched_domain_span(sd), target): the target first
// (busy, or the first return would have taken it), then the rest in wrap
// order. The model keeps no rq->avg_idle, so there is no SIS_PROP budget:
// its floor, nr = 4, lets three cpus be probed, which binds only on LLCs of
// more than four cpus (so there the model finds idle cpus a little more
// often than the kernel would).
func (w *worker) selectIdleSibling(prev, target int32) int32 {
	w.sisCalls++
	if w.idleCPU(target) {
		w.sisTarget++
		return target
	}
	if prev != target && w.lay.llc[prev] == w.lay.llc[target] && w.idleCPU(prev) {
		w.sisPrev++
		return prev
	}
	w.sisScans++
	// select_idle_cpu() probes the target first, though the first test
	// found it busy.
	w.probes++
	if w.idleCPU(target) {
		return target
	}
	for _, c := range w.lay.peers[target] {
		w.probes++
		if w.idleCPU(c) {
			w.sisFound++
			return c
		}
	}
	return target
}

// The kernel policies, after the three of the model's first version.
const (
	wakeLLCStats = wakeIdle + 1 + iota // the pre-patch wake_affine(), then select_idle_sibling()
	wakeBasic                          // the patched one, then select_idle_sibling()
)

// policyName is the wake= value of p.
func policyName(p policy) string { return policyNames[p] }
