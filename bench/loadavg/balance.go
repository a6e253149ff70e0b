package loadavg

import (
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/counter"
)

// The balance softirq's part in tg->load_avg's writes, for the pairs
// workload: every SCHED_SOFTIRQ a CPU runs, busy or idle, starts with
// update_blocked_averages() of that CPU (v6.1 and v6.12 fair.c,
// run_rebalance_domains() / sched_balance_softirq(), before
// rebalance_domains()), whose __update_blocked_fair() runs
// update_cfs_rq_load_avg() on each of its cfs_rqs, update_tg_load_avg()
// where it decayed, and update_load_avg() of each group entity on its
// parent (counter.CfsRq.UpdateBlocked). The tick raises it
// (trigger_load_balance(): "if (time_after_eq(jiffies, rq->next_balance))
// raise_softirq(SCHED_SOFTIRQ);"), so its cadence is rq->next_balance's,
// which ksim's walks move as for every scenario: rebalance_domains()
// (ksim.Kernel.BalanceDomains) to sd->last_balance +
// get_sd_balance_interval(sd, busy), newidle_balance()
// (ksim.Kernel.NewidleBalance), on a CPU about to go idle, in to
// sd->last_balance + the idle interval.
//
// What the walks find is ksim.LowestDomain's: each CPU's lowest domain
// alone (the smallest interval, which the minimum over the domains mostly
// is), no task moved. With no find_busiest_group(), a pass leaves
// sd->balance_interval at min_interval, as load_balance() does on an
// imbalance: which of the guest's passes find what, the counts do not
// say. A CPU is busy at a tick when the group has a task queued on it
// (the guest's other tasks are not modelled: the count's busy share is
// taken with its probes running, in the workload's own events, so it does
// not say how busy a cpu without the group's tasks is). Only a running tick
// raises the softirq: a CPU whose tick stopped (pairs.go) has its blocked
// load updated every 32 ms on its behalf (nohz.next_blocked).
type pairBalance struct {
	hz       ksim.HZ
	tickNs   int64 // ns per jiffy: each CPU's jiffies, now/tickNs, advance one a tick, whatever its phase
	cpus     []ksim.LowestDomain
	softirqs []int64 // softirqs run, per CPU
}

// pairKernel is the version whose walks the pairs workload runs: 6.1's and
// 6.12's balance intervals and newidle gate are the same (v5.10's
// busy_factor 16 and "- 1", v5.16's newidle costs).
var pairKernel = ksim.Linux61

// newPairBalance is the softirq state of n CPUs whose lowest sched domain
// spans domainCPUs, at hz, ticks tick ns apart.
func newPairBalance(n, domainCPUs int, hz ksim.HZ, tick int64) *pairBalance {
	b := &pairBalance{hz: hz, tickNs: tick, cpus: make([]ksim.LowestDomain, n), softirqs: make([]int64, n)}
	w := int64(domainCPUs)
	for i := range b.cpus {
		// sd_init(): balance_interval and min_interval the domain's
		// weight in ms, max_interval twice it.
		b.cpus[i] = ksim.LowestDomain{Kernel: pairKernel, HZ: hz, MaxInterval: ksim.MaxLoadBalanceInterval(hz, n),
			Dom: ksim.Balance{Interval: w, MinInterval: w, MaxInterval: 2 * w}}
		b.cpus[i].RQ.Init()
	}
	return b
}

// tick is trigger_load_balance() on cpu at now, and the softirq it raises:
// update_blocked_averages() of the CPU's cfs_rqs (rq), then
// rebalance_domains().
func (b *pairBalance) tick(now int64, cpu int, rq *counter.CfsRq) {
	d := &b.cpus[cpu]
	j := now / b.tickNs
	if j-d.RQ.NextBalance < 0 {
		return
	}
	b.softirqs[cpu]++
	rq.UpdateBlocked(now)
	idle := ksim.CPUIdle
	if rq.NrRunning() > 0 {
		idle = ksim.CPUNotIdle
	}
	pairKernel.BalanceDomains(d, &d.RQ, j, b.hz, idle)
}

// newidle is newidle_balance() for cpu, about to go idle at now.
func (b *pairBalance) newidle(now int64, cpu int) {
	d := &b.cpus[cpu]
	pairKernel.NewidleBalance(d, &d.RQ, now/b.tickNs, b.hz)
}
