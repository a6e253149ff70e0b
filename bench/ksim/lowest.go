package ksim

// A LowestDomain is one CPU's lowest sched domain alone as a Balancer: the
// cadence of its softirq and newidle walks (rq->next_balance, the
// domain's intervals) with nothing found to move, for a scenario whose
// word the walks' timing touches, not their outcome (bench/loadavg's
// pairs: update_blocked_averages() from each balance softirq). Its groups
// are single CPUs, so should_we_balance() picks the walker; the root
// domain is never overloaded (one runnable task per CPU), so a newidle
// walk only pulls rq->next_balance in.
type LowestDomain struct {
	Kernel      Kernel
	HZ          HZ
	MaxInterval int64 // max_load_balance_interval, jiffies
	Dom         Balance
	RQ          RQBalance
}

func (d *LowestDomain) Levels() int                           { return 1 }
func (d *LowestDomain) Domain(int) *Balance                   { return &d.Dom }
func (d *LowestDomain) Serialized(int) bool                   { return false }
func (d *LowestDomain) ShouldWeBalance(int, IdleType) bool    { return true }
func (d *LowestDomain) TakeFlag(int) bool                     { return true }
func (d *LowestDomain) ReleaseFlag(int)                       {}
func (d *LowestDomain) Pass(int, IdleType, bool) (bool, bool) { return false, false }
func (d *LowestDomain) Idle() bool                            { return true }
func (d *LowestDomain) Clock() (int64, bool)                  { return 0, false }
func (d *LowestDomain) Overloaded() bool                      { return false }
func (d *LowestDomain) Runnable() bool                        { return false }

// Interval is get_sd_balance_interval() of the domain, busy or not.
func (d *LowestDomain) Interval(_ int, busy bool) int64 {
	return d.Kernel.BalanceInterval(d.Dom.Interval, busy, d.HZ, d.MaxInterval)
}

// Softirqs are the balance softirqs of n CPUs, each on its lowest
// domain alone (LowestDomain), for a scenario whose word
// update_blocked_averages() touches (bench/loadavg's pairs): every
// SCHED_SOFTIRQ a CPU runs, busy or idle, starts with
// update_blocked_averages() of that CPU (v6.1 and v6.12 fair.c,
// run_rebalance_domains() / sched_balance_softirq(), before
// rebalance_domains()), and the tick raises it
// (trigger_load_balance(): "if (time_after_eq(jiffies, rq->next_balance))
// raise_softirq(SCHED_SOFTIRQ);"), so its cadence is rq->next_balance's,
// which BalanceDomains moves to sd->last_balance +
// get_sd_balance_interval(sd, busy) and NewidleBalance, on a CPU about
// to go idle, in to sd->last_balance + the idle interval. With no
// find_busiest_group(), a pass leaves sd->balance_interval at
// min_interval, as load_balance() does on an imbalance.
type Softirqs struct {
	Kernel Kernel
	HZ     HZ
	TickNs int64 // ns per jiffy: each CPU's jiffies, now/TickNs
	CPUs   []LowestDomain
	Runs   []int64 // softirqs run, per CPU
}

// NewSoftirqs is the softirq state of n CPUs whose lowest sched domain
// spans domainCPUs (sd_init(): balance_interval and min_interval the
// domain's weight in ms, max_interval twice it), at hz.
func NewSoftirqs(k Kernel, n, domainCPUs int, hz HZ) *Softirqs {
	b := &Softirqs{Kernel: k, HZ: hz, TickNs: hz.TickNs(), CPUs: make([]LowestDomain, n), Runs: make([]int64, n)}
	w := int64(domainCPUs)
	for i := range b.CPUs {
		b.CPUs[i] = LowestDomain{Kernel: k, HZ: hz, MaxInterval: MaxLoadBalanceInterval(hz, n),
			Dom: Balance{Interval: w, MinInterval: w, MaxInterval: 2 * w}}
		b.CPUs[i].RQ.Init()
	}
	return b
}

// Tick is trigger_load_balance() on cpu at now: where rq->next_balance
// is due, the softirq, its update_blocked_averages() (blocked, the
// scenario's) and then rebalance_domains() as busy or idle; it says
// whether the softirq ran.
func (b *Softirqs) Tick(now int64, cpu int, busy bool, blocked func()) bool {
	d := &b.CPUs[cpu]
	j := now / b.TickNs
	if j-d.RQ.NextBalance < 0 {
		return false
	}
	b.Runs[cpu]++
	blocked()
	idle := CPUIdle
	if busy {
		idle = CPUNotIdle
	}
	b.Kernel.BalanceDomains(d, &d.RQ, j, b.HZ, idle)
	return true
}

// Newidle is newidle_balance() for cpu, about to go idle at now.
func (b *Softirqs) Newidle(now int64, cpu int) {
	d := &b.CPUs[cpu]
	b.Kernel.NewidleBalance(d, &d.RQ, now/b.TickNs, b.HZ)
}
