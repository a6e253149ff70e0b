package wakeup

import (
	"github.com/contend/contend/bench/ksim"
)

// Wakeup placement, select_task_rq_fair() of each policy's kernel, as
// bench/ksim writes it (fair.go, sis.go) on this model's runqueues: 4.13's
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

// kernel is the ksim version whose wakeup path the policy runs: 4.13 with
// wake_affine_llc() (llcstats), next-20170926 with the seed's patch
// (basic), 6.1. Their balance intervals are the kver's too.
func (p policy) kernel() ksim.Kernel {
	switch p {
	case polBasic:
		return ksim.Next20170926
	case pol61:
		return ksim.Linux61
	}
	return ksim.Linux413
}

// A waking is the wakeup in progress, as select_task_rq_fair() reads it
// through the ksim.FairView the ksys is (below).
type waking struct {
	p, current *ktask
}

// selectTaskRq is select_task_rq_fair(p, prev, SD_BALANCE_WAKE, sync) run
// by current on c (ksim's, on this model's runqueues): the cpu p is to run
// on, and what to call the move if it is one. It keeps the counts
// schedstat keeps: nr_wakeups_affine_attempts and nr_wakeups_affine.
func (k *ksys) selectTaskRq(p, current *ktask, c *kcpu, prev int, sync bool) (int, cause) {
	k.wk = waking{p: p, current: current}
	pl := k.kern.SelectTaskRqFair(k, &current.flips, &p.flips, int32(p.ID), k.jiffies(), k.hz, int(c.CPU), int(prev), sync)
	k.wk = waking{}
	if pl.Wide {
		k.c.wakeWide++
	}
	if pl.Attempted {
		k.c.affineAttempts++
		p.affineAttempts++
	}
	if pl.Affine {
		k.c.affine++
		p.affine++
	}
	why := causeSIS
	if pl.Target != int(prev) && pl.CPU == pl.Target {
		why = causeWakeAffine
	}
	return int(pl.CPU), why
}

// The ksim.FairView of the model's runqueues, for the wakeup in k.wk.

// Idle is idle_cpu(): nothing running, nothing queued, no wakeup pending.
func (k *ksys) Idle(cpu int) bool { return k.cpus[cpu].idle() }

// SharesCache is cpus_share_cache(): the same sd_llc_id.
func (k *ksys) SharesCache(a, b int) bool { return k.cpus[a].llcID == k.cpus[b].llcID }

// Allowed: every task may run anywhere.
func (k *ksys) Allowed(int) bool { return true }

// PrevRecent is the wakee's task_cpu() and p->recent_used_cpu.
func (k *ksys) PrevRecent() (prev, recent int) {
	return int(k.wk.p.CPU), int(k.wk.p.recentUsedCPU)
}

// SetRecent is "p->recent_used_cpu = prev;".
func (k *ksys) SetRecent(prev int) { k.wk.p.recentUsedCPU = int(prev) }

// NrRunning is rq->nr_running.
func (k *ksys) NrRunning(cpu int) int { return k.cpus[cpu].NrRunning }

// PerCPUKthread: the model has no per-cpu kthreads.
func (k *ksys) PerCPUKthread() bool { return false }

// CPULoad is the version's cpu load (cpuLoad).
func (k *ksys) CPULoad(cpu int) float64 { return k.cpuLoad(k.cpus[cpu]) }

// WakerLoad and WakeeLoad are the tasks' load_avg now (one level: no
// task groups, so task_h_load() is the task's own).
func (k *ksys) WakerLoad() float64 { return k.wk.current.loadNow(k.now) }
func (k *ksys) WakeeLoad() float64 { return k.wk.p.loadNow(k.now) }

// llcShared is per_cpu(sd_llc_shared, cpu): nil where there is no LLC
// domain (the s390x guest).
func (c *kcpu) llcShared() *llcShared {
	for _, sd := range c.sd {
		if sd.llc {
			return sd.shared
		}
	}
	return nil
}

// LLCStats is get_llc_stats(): false where per_cpu(sd_llc_shared, cpu) is
// NULL.
func (k *ksys) LLCStats(cpu int) (ksim.LLCStats, bool) {
	c := k.cpus[cpu]
	sh := c.llcShared()
	if sh == nil {
		return ksim.LLCStats{}, false
	}
	return ksim.LLCStats{NrRunning: sh.nrRunning, Load: sh.load, Capacity: sh.capacity, HasCapacity: sh.nrRunning < int64(c.llcSize)}, true
}

// AffineDomain is the lowest of this cpu's domains whose span holds prev
// (every level has SD_WAKE_AFFINE: see the top of this file).
func (k *ksys) AffineDomain(this, prev int) (int, bool) {
	for _, sd := range k.cpus[this].sd {
		// Spans are runs of consecutive ids.
		if int(prev) >= sd.Span[0] && int(prev) <= sd.Span[len(sd.Span)-1] {
			return sd.imbalancePct, true
		}
	}
	return 0, false
}

// LLCSize is sd_llc_size.
func (k *ksys) LLCSize(cpu int) int { return k.cpus[cpu].llcSize }

// IdleScan is select_idle_cpu()'s candidates, the target's LLC, and its
// budget: 6.1's SIS_UTIL, nr_idle_scan + 1 from the target's
// sd_llc_shared (ksim.SISUtilNr); none on 4.13, whose SIS_PROP is not
// modelled (its avg_scan_cost would need a probe's price the model has
// not measured).
func (k *ksys) IdleScan(target int) ([]uint64, int) {
	c := k.cpus[target]
	nr := ksim.NoBudget
	if k.kern.SISUtil {
		if sh := c.llcShared(); sh != nil {
			nr = ksim.SISUtilNr(sh.nrIdleScan)
		}
	}
	return k.llcMask[c.llcID], nr
}

// cpuUtilCFS is cpu_util_cfs(c) now (ksim.CPUUtil).
func (k *ksys) cpuUtilCFS(c *kcpu) float64 { return c.util.Read(k.now, c.lastStart, c.Curr != nil) }

// updateIdleCPUScan is update_idle_cpu_scan() at the end of 6.1's
// update_sd_lb_stats() (ksim.UpdateIdleCPUScan): a periodic or idle (not
// newly idle) balance of the level whose span is the LLC writes the LLC's
// nr_idle_scan from the sum of its cpus' utilisation.
func (k *ksys) updateIdleCPUScan(sd *domain, idle ksim.IdleType) {
	if !k.kern.SISUtil || idle == ksim.CPUNewlyIdle || !sd.llc || sd.shared == nil {
		return
	}
	var sum int64
	for _, id := range sd.Span {
		sum += int64(k.cpuUtilCFS(k.cpus[id])) // util_avg is an integer
	}
	sd.shared.nrIdleScan = ksim.UpdateIdleCPUScan(sum, len(sd.Span), sd.imbalancePct)
}
