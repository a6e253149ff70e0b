package wakeup

import "github.com/contend/contend/bench/ksim"

// Wakeup placement, select_task_rq_fair() of each policy's kernel: 4.13's
// (the pre-patch wake_affine_llc(), and PeterZ's "utter basics" patch of
// seed 004, which next-20170926 carried) and 6.1's (wake_affine_idle()
// then wake_affine_weight()). Both kernels walk the waking cpu's domains
// the same way:
//
//	if (sd_flag & SD_BALANCE_WAKE) {
//		record_wakee(p);
//		want_affine = !wake_wide(p) && ... cpumask_test_cpu(cpu, &p->cpus_allowed);
//	}
//	for_each_domain(cpu, tmp) {
//		if (want_affine && (tmp->flags & SD_WAKE_AFFINE) &&
//		    cpumask_test_cpu(prev_cpu, sched_domain_span(tmp))) {
//			affine_sd = tmp;
//			break;
//		}
//		if (tmp->flags & sd_flag)
//			sd = tmp;
//		else if (!want_affine)
//			break;
//	}
//	if (affine_sd) {
//		sd = NULL;
//		if (cpu == prev_cpu)
//			goto pick_cpu;
//		if (wake_affine(affine_sd, p, prev_cpu, sync))
//			new_cpu = cpu;
//	}
//	if (!sd) {
//	pick_cpu:
//		new_cpu = select_idle_sibling(p, prev_cpu, new_cpu);
//	}
//
// (6.1 writes the same: new_cpu = wake_affine(...) when cpu != prev_cpu,
// then the fast path.) Every level here has SD_WAKE_AFFINE (sd_init() sets
// it; only NUMA levels beyond RECLAIM_DISTANCE clear it, and the presets
// have none) and none SD_BALANCE_WAKE, so sd stays NULL: a wake_wide()
// wakeup goes to select_idle_sibling(p, prev, prev). wake_cap() (4.13) and
// the energy-aware path (6.1) find symmetric capacities and do nothing.

// A policy is the kernel a simulation runs.
type policy int8

const (
	polLLCStats policy = iota // 4.13.0 + 90001d67be2f + a731ebe6f17b: wake_affine_llc()
	polBasic                  // the same with the seed's patch: idle_cpu() || sync && nr_running == 1
	pol61                     // 6.1: wake_affine_idle() then wake_affine_weight()
)

var policyNames = []string{"llcstats", "basic", "v6.1"}

func (p policy) String() string { return policyNames[p] }

// kver is the kernel version whose sd_init() and balancer the policy runs.
func (p policy) kver() kver {
	if p == pol61 {
		return v61
	}
	return v413
}

// recordWakee is record_wakee(p), on current:
//
//	if (time_after(jiffies, current->wakee_flip_decay_ts + HZ)) {
//		current->wakee_flips >>= 1;
//		current->wakee_flip_decay_ts = jiffies;
//	}
//	if (current->last_wakee != p) {
//		current->last_wakee = p;
//		current->wakee_flips++;
//	}
func recordWakee(current, p *ktask, jiffies, hz int64) {
	if jiffies > current.flipDecay+hz {
		current.wakeeFlips >>= 1
		current.flipDecay = jiffies
	}
	if current.lastWakee != p.id {
		current.lastWakee = p.id
		current.wakeeFlips++
	}
}

// wakeWide is wake_wide(p): a waker flipping between many wakees, each
// flipping too, is a 1:N relationship to spread rather than pull in.
// factor is this cpu's sd_llc_size, 1 where there is no LLC domain (the
// s390x guest), so there any two tasks that each wake more than one other
// count as wide.
//
//	if (master < slave)
//		swap(master, slave);
//	if (slave < factor || master < slave * factor)
//		return 0;
//	return 1;
func wakeWide(current, p *ktask, factor int) bool {
	master, slave := current.wakeeFlips, p.wakeeFlips
	if master < slave {
		master, slave = slave, master
	}
	f := uint32(factor)
	return !(slave < f || master < slave*f)
}

// selectTaskRq is select_task_rq_fair(p, prev, SD_BALANCE_WAKE, sync) run
// by current on c: the cpu p is to run on, and what to call the move if it
// is one.
func (k *ksys) selectTaskRq(p, current *ktask, c *kcpu, prev int32, sync bool) (int32, cause) {
	recordWakee(current, p, k.jiffies(), int64(k.hz))
	wantAffine := !wakeWide(current, p, c.llcSize)
	if !wantAffine {
		k.c.wakeWide++
	}
	var affineSD *domain
	if wantAffine {
		for _, sd := range c.sd {
			if spans(sd, prev) {
				affineSD = sd
				break
			}
		}
	}
	newCPU, why := prev, causeSIS
	if affineSD != nil && c.id != prev {
		if t := k.wakeAffine(affineSD, p, current, c, prev, sync); t != prev {
			newCPU, why = t, causeWakeAffine
		}
	}
	cpu := k.selectIdleSibling(p, prev, newCPU)
	if cpu != newCPU {
		why = causeSIS
	}
	return cpu, why
}

// llcSpan is sched_domain_span(sd_llc) of cpu, which has one.
func (k *ksys) llcSpan(cpu int32) []int {
	for _, sd := range k.cpus[cpu].sd {
		if sd.llc {
			return sd.Span
		}
	}
	return nil
}

func spans(sd *domain, cpu int32) bool {
	// Spans are runs of consecutive ids.
	return cpu >= sd.span[0] && cpu <= sd.span[len(sd.span)-1]
}

// sharesCache is cpus_share_cache(): the same sd_llc_id.
func (k *ksys) sharesCache(a, b int32) bool { return k.cpus[a].llcID == k.cpus[b].llcID }

// wakeAffine is the policy's wake_affine(sd, p, prev, sync) on c (c is not
// prev): the cpu to wake on, counted as schedstat's
// nr_wakeups_affine_attempts and nr_wakeups_affine count.
func (k *ksys) wakeAffine(sd *domain, p, current *ktask, c *kcpu, prev int32, sync bool) int32 {
	k.c.affineAttempts++
	p.affineAttempts++
	target, affine := prev, false
	switch k.pol {
	case polLLCStats:
		// "If the wakeup is across cache domains, try to evaluate
		// if movement makes sense, otherwise rely on
		// select_idle_siblings() to do placement inside the cache
		// domain."
		if !k.sharesCache(prev, c.id) && k.wakeAffineLLC(sd, p, current, c.id, prev, sync) {
			target, affine = c.id, true
		}
	case polBasic:
		// "If we can run _now_ on the waking CPU, go there,
		// otherwise meh."
		if c.idle() || (sync && c.nrRunning() == 1) {
			target, affine = c.id, true
		}
	case pol61:
		t, ok := k.wakeAffineIdle(c, prev, sync)
		if !ok {
			t, ok = k.wakeAffineWeight(sd, p, current, c, prev, sync)
		}
		if ok {
			// 6.1 counts an affine wakeup whenever either
			// returned a cpu, prev included.
			target, affine = t, true
		}
	}
	if affine {
		k.c.affine++
		p.affine++
	}
	return target
}

// An llcStats is struct llc_stats as get_llc_stats() fills it.
type llcStats struct {
	nrRunning, load, capacity int64
	hasCapacity               bool
}

// llcStatsOf is get_llc_stats(): false where per_cpu(sd_llc_shared, cpu)
// is NULL (no LLC domain: the s390x guest).
func (k *ksys) llcStatsOf(cpu int32) (llcStats, bool) {
	c := k.cpus[cpu]
	var sh *llcShared
	for _, sd := range c.sd {
		if sd.llc {
			sh = sd.shared
		}
	}
	if sh == nil {
		return llcStats{}, false
	}
	return llcStats{sh.nrRunning, sh.load, sh.capacity, sh.nrRunning < int64(c.llcSize)}, true
}

// wakeAffineLLC is the pre-patch kernel's wake_affine_llc(), line for line
// (the seed's diff removes it): "Can a task be moved from prev_cpu to
// this_cpu without causing a load imbalance that would trigger the load
// balancer?"
func (k *ksys) wakeAffineLLC(sd *domain, p, current *ktask, this, prev int32, sync bool) bool {
	ps, ok := k.llcStatsOf(prev)
	if !ok {
		return false
	}
	ts, ok := k.llcStatsOf(this)
	if !ok {
		return false
	}
	if sync {
		cur := int64(current.loadNow(k.now))
		if cur > ts.load { // "in this case load hits 0 and this LLC is considered 'idle'"
			return true
		}
		ts.load -= cur
	}
	if ps.hasCapacity && ps.nrRunning < ts.nrRunning+1 { // "if the old cache has capacity, stay there"
		return false
	}
	if ts.hasCapacity && ts.nrRunning+1 < ps.nrRunning { // "if this cache has capacity, come here"
		return true
	}
	taskLoad := int64(p.loadNow(k.now))
	thisEff := 100 * ps.capacity * (ts.load + taskLoad)
	prevEff := int64(100+(sd.imbalancePct-100)/2) * ts.capacity * (ps.load - taskLoad)
	return thisEff <= prevEff
}

// wakeAffineIdle is 6.1's wake_affine_idle(): an idle waking cpu (an
// interrupt) pulls only within the LLC ("an interrupt intensive workload
// could force all tasks onto one node depending on the IO topology or IRQ
// affinity settings"), and prefers an idle prev there; a sync waker alone
// on its cpu pulls.
func (k *ksys) wakeAffineIdle(c *kcpu, prev int32, sync bool) (int32, bool) {
	if c.idle() && k.sharesCache(c.id, prev) {
		if k.cpus[prev].idle() {
			return prev, true
		}
		return c.id, true
	}
	if sync && c.nrRunning() == 1 {
		return c.id, true
	}
	return 0, false
}

// wakeAffineWeight is 6.1's wake_affine_weight() with WA_BIAS: this cpu's
// load (less the waker's on a sync wakeup) plus the task's, against prev's
// less the task's, prev's side given half the domain's imbalance_pct.
// cpu_load() is the cfs_rq's load_avg, blocked load included: p's own
// decaying load is still prev's, which is why it is taken off.
func (k *ksys) wakeAffineWeight(sd *domain, p, current *ktask, c *kcpu, prev int32, sync bool) (int32, bool) {
	thisEff := k.cpuLoad(c)
	if sync {
		cur := current.loadNow(k.now)
		if cur > thisEff {
			return c.id, true
		}
		thisEff -= cur
	}
	taskLoad := p.loadNow(k.now)
	thisEff = (thisEff + taskLoad) * 100 * nice0Load
	prevEff := (k.cpuLoad(k.cpus[prev]) - taskLoad) * float64(100+(sd.imbalancePct-100)/2) * nice0Load
	if sync {
		prevEff++
	}
	if thisEff < prevEff {
		return c.id, true
	}
	return 0, false
}

// selectIdleSibling is select_idle_sibling(p, prev, target): the target if
// idle; prev if it shares the target's LLC and is idle; (6.1) p's
// recent_used_cpu on the same terms; where the target has no sd_llc (the
// s390x guest) the target; else the first idle cpu of the target's LLC in
// for_each_cpu_wrap() order from the target (select_idle_cpu(); no SMT, so
// select_idle_core() and select_idle_smt() find nothing), else the target.
// The scan is not cut short: 4.13's SIS_PROP and 6.1's SIS_UTIL budgets
// are not modelled (they bind only on LLCs larger than the scan finds an
// idle cpu in).
func (k *ksys) selectIdleSibling(p *ktask, prev, target int32) int32 {
	if k.cpus[target].idle() {
		return target
	}
	if prev != target && k.sharesCache(prev, target) && k.cpus[prev].idle() {
		return prev
	}
	if k.ver == v61 {
		recent := p.recentUsedCPU
		p.recentUsedCPU = prev
		if recent != prev && recent != target && k.sharesCache(recent, target) && k.cpus[recent].idle() {
			return recent
		}
	}
	tc := k.cpus[target]
	if tc.llcSize == 1 {
		return target
	}
	found := target
	ksim.WrapFrom(k.llcSpan(target), int(target), func(cpu int) bool {
		if k.cpus[cpu].idle() {
			found = int32(cpu)
			return false
		}
		return true
	})
	return found
}
