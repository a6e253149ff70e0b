package loadavg

import (
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/counter"
)

// The balance softirq's part in tg->load_avg's writes, for the pairs
// workload: every SCHED_SOFTIRQ a CPU runs starts with
// update_blocked_averages() of that CPU, busy or idle (v6.1 and v6.12
// fair.c, run_rebalance_domains() / sched_balance_softirq()):
//
//	if (nohz_idle_balance(this_rq, idle))
//		return;
//	/* normal load balance */
//	update_blocked_averages(this_rq->cpu);
//	rebalance_domains(this_rq, idle);
//
// whose __update_blocked_fair() runs update_cfs_rq_load_avg() on each of
// the CPU's cfs_rqs, update_tg_load_avg() where it decayed, and
// update_load_avg() of each group entity on its parent
// (counter.CfsRq.UpdateBlocked). The tick raises the softirq
// (trigger_load_balance(): "if (time_after_eq(jiffies, rq->next_balance))
// raise_softirq(SCHED_SOFTIRQ);"), so how often it runs is how
// rq->next_balance moves:
//
//   - rebalance_domains() sets it to sd->last_balance + interval once the
//     interval has passed (last_balance = jiffies), the interval being
//     get_sd_balance_interval(sd, busy) (ksim.Kernel.BalanceInterval:
//     sd->balance_interval = the domain's weight in ms, sd_init(); ×
//     busy_factor 16 and "- 1" on a busy CPU, v5.10 on, as 6.1 and 6.12
//     have them);
//   - newidle_balance() / sched_balance_newidle(), on every CPU about to
//     go idle, pulls it in to sd->last_balance + the idle interval when it
//     does not balance (update_next_balance(): the root domain not
//     overloaded, or avg_idle below max_newidle_lb_cost, which for pairs
//     of pingers, one runnable task per CPU, is the case).
//
// The model takes each CPU's lowest domain only (the one with the
// smallest interval, which the minimum over the domains mostly is), and a
// CPU is busy at a tick when the group has a task queued on it
// (this_rq->idle_balance is idle_cpu() at the tick; the guest's other
// tasks, which would make more ticks busy, are not modelled). The softirq
// is raised only by a running tick: an idle CPU whose tick the governor
// stopped (pairs.go, ksim.Governor) raises none, and its blocked load is
// updated every 32 ms on its behalf (nohz.next_blocked).
type pairBalance struct {
	idle, busy int64   // get_sd_balance_interval(sd, 0 / 1), ns
	last, next []int64 // sd->last_balance and rq->next_balance of each CPU, ns
	softirqs   []int64 // softirqs run, per CPU
}

// newPairBalance is the softirq state of n CPUs whose lowest sched domain
// spans domainCPUs, at hz, ticks tick ns apart.
func newPairBalance(n, domainCPUs int, hz ksim.HZ, tick int64) *pairBalance {
	maxInterval := ksim.MaxLoadBalanceInterval(hz, n)
	b := &pairBalance{
		idle:     ksim.Mainline.BalanceInterval(int64(domainCPUs), false, hz, maxInterval) * tick,
		busy:     ksim.Mainline.BalanceInterval(int64(domainCPUs), true, hz, maxInterval) * tick,
		last:     make([]int64, n),
		next:     make([]int64, n),
		softirqs: make([]int64, n),
	}
	return b
}

// tick is trigger_load_balance() on cpu at now, and the softirq it raises:
// update_blocked_averages() of the CPU's cfs_rqs (rq), then
// rebalance_domains()' interval test and next_balance.
func (b *pairBalance) tick(now int64, cpu int, rq *counter.CfsRq) {
	if now < b.next[cpu] {
		return
	}
	b.softirqs[cpu]++
	rq.UpdateBlocked(now)
	interval := b.idle
	if rq.NrRunning() > 0 {
		interval = b.busy
	}
	if now >= b.last[cpu]+interval {
		b.last[cpu] = now
	}
	b.next[cpu] = b.last[cpu] + interval
}

// newidle is newidle_balance()'s update_next_balance() for cpu, about to
// go idle: rq->next_balance comes in to sd->last_balance + the idle
// interval.
func (b *pairBalance) newidle(cpu int) {
	b.next[cpu] = min(b.next[cpu], b.last[cpu]+b.idle)
}
