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
