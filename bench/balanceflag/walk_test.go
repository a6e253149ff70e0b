package balanceflag

import (
	"testing"

	"github.com/contend/contend/bench/ksim"
)

// countOps is a flag that is always free and passes that cost nothing,
// counting what the walks ask of them.
type countOps struct {
	takes, releases, passes, serialized int
	walkOwner
}

func (o *countOps) takeFlag(*level) bool { o.takes++; return true }
func (o *countOps) releaseFlag(*level)   { o.releases++ }
func (o *countOps) pass(_ *level, serialized bool) {
	o.passes++
	if serialized {
		o.serialized++
	}
}

// walkCPU is CPU cpu of an 8-CPU machine (cores of 2, nodes of 4, one NUMA
// level) at jiffies j, with each level's last_balance given.
func walkCPU(order ksim.SerializeOrder, cpu int, j int64, last ...int64) *cpuState {
	m := &model{topo: topology{cpus: 8, smt: 2, group: 4, snc: 1}, order: order, hz: 1000, busy: 100}
	c := &cpuState{m: m, cpu: cpu, jiffies: j, levels: m.topo.levels(cpu)}
	c.initIntervals(nil)
	for i := range c.levels {
		c.levels[i].bal.LastBalance = last[i]
	}
	return c
}

func passes(c *cpuState) [3]int64 {
	return [3]int64{c.levels[0].passes, c.levels[1].passes, c.levels[2].passes}
}

// The due check per level (time_after_eq(jiffies, last_balance + interval),
// busy intervals 31, 63 and 127 for spans of 2, 4 and 8) and the designated
// CPU per level, in both orders.
func TestBalanceDomainsDuePerLevel(t *testing.T) {
	for _, tt := range []struct {
		name        string
		order       ksim.SerializeOrder
		cpu         int
		last        [3]int64 // smt, llc, all
		passes      [3]int64
		cas, stops  int64
		nextBalance int64
	}{
		// SMT due exactly (69+31 = 100), LLC one jiffy short (38+63),
		// NUMA overdue: CPU 0 balances SMT and NUMA; next_balance is
		// the LLC's 101.
		{"cpu 0 check-first", ksim.SerializeInRQ, 0, [3]int64{69, 38, -27}, [3]int64{1, 0, 1}, 1, 0, 101},
		{"cpu 0 cmpxchg-first", ksim.SerializeFirst, 0, [3]int64{69, 38, -27}, [3]int64{1, 0, 1}, 1, 0, 101},
		// Nothing due: the old order still takes the flag, the new not.
		{"cpu 0 none due, cmpxchg-first", ksim.SerializeFirst, 0, [3]int64{90, 90, 90}, [3]int64{}, 1, 0, 121},
		{"cpu 0 none due, check-first", ksim.SerializeInRQ, 0, [3]int64{90, 90, 90}, [3]int64{}, 0, 0, 121},
		// CPU 1, CPU 0's sibling: its own SMT group's first, not its
		// core's or node's. LLC due: should_we_balance() fails there and
		// the walk stops before the NUMA domain, in either order; the
		// LLC's last_balance still moves to 100 and its interval doubles
		// (to 127), so next_balance is the SMT level's 90+31.
		{"cpu 1 llc due, cmpxchg-first", ksim.SerializeFirst, 1, [3]int64{90, 37, -27}, [3]int64{}, 0, 1, 121},
		{"cpu 1 llc due, check-first", ksim.SerializeInRQ, 1, [3]int64{90, 37, -27}, [3]int64{}, 0, 1, 121},
		// LLC not due, NUMA due: the old order takes the flag and fails
		// should_we_balance() under it; the new never takes it.
		{"cpu 1 numa due, cmpxchg-first", ksim.SerializeFirst, 1, [3]int64{90, 90, -27}, [3]int64{}, 1, 0, 121},
		{"cpu 1 numa due, check-first", ksim.SerializeInRQ, 1, [3]int64{90, 90, -27}, [3]int64{}, 0, 0, 121},
	} {
		c := walkCPU(tt.order, tt.cpu, 100, tt.last[:]...)
		var ops countOps
		balanceDomains(c, &ops, notIdle)
		if got := passes(c); got != tt.passes || c.cas != tt.cas || c.stops != tt.stops || c.rq.NextBalance != tt.nextBalance {
			t.Errorf("%s: passes %v, cmpxchg %d, stops %d, next_balance %d; want %v, %d, %d, %d",
				tt.name, got, c.cas, c.stops, c.rq.NextBalance, tt.passes, tt.cas, tt.stops, tt.nextBalance)
		}
		if ops.takes != ops.releases || int64(ops.takes) != c.cas {
			t.Errorf("%s: %d takes, %d releases, %d counted", tt.name, ops.takes, ops.releases, c.cas)
		}
	}
}

// An idle CPU's intervals have no busy_factor: at jiffies 10 from sd_init's
// last_balance of 0 every level is due idle (2, 4 and 8 jiffies) and none
// busy (31, 63, 127). After the idle passes each balance_interval has
// doubled, and next_balance is the SMT level's 10+4.
func TestBalanceDomainsIdleIntervals(t *testing.T) {
	idle := walkCPU(ksim.SerializeInRQ, 0, 10, 0, 0, 0)
	balanceDomains(idle, &countOps{}, idleCPU)
	if got := passes(idle); got != [3]int64{1, 1, 1} || idle.rq.NextBalance != 14 {
		t.Errorf("idle walk: passes %v, next_balance %d; want every level, 14", got, idle.rq.NextBalance)
	}
	for i, want := range []int64{4, 8, 16} {
		if l := idle.levels[i]; l.bal.Interval != want || l.interval != want || l.bal.LastBalance != 10 {
			t.Errorf("idle walk, %s: balance_interval %d ms, interval %d, last_balance %d; want %d, %d, 10",
				kindNames[l.kind], l.bal.Interval, l.interval, l.bal.LastBalance, want, want)
		}
	}
	busy := walkCPU(ksim.SerializeInRQ, 0, 10, 0, 0, 0)
	balanceDomains(busy, &countOps{}, notIdle)
	if got := passes(busy); got != [3]int64{} || busy.rq.NextBalance != 31 {
		t.Errorf("busy walk: passes %v, next_balance %d; want none, 31", got, busy.rq.NextBalance)
	}
}

// A newidle walk balances every level whoever the group designates, without
// doubling any interval or moving last_balance, takes the flag only in
// check-first+newidle, and pulls rq->next_balance in to the earliest idle
// interval (the SMT level's last_balance 0 + 2).
func TestNewidleBalance(t *testing.T) {
	for _, tt := range []struct {
		order ksim.SerializeOrder
		cas   int64
	}{{ksim.SerializeFirst, 0}, {ksim.SerializeInRQ, 0}, {ksim.SerializeInRQNewidle, 1}} {
		c := walkCPU(tt.order, 1, 50, 0, 0, 0)
		c.rq.NextBalance = 31
		var ops walkOps = &countOps{}
		newidleBalance(c, ops)
		if got := passes(c); got != [3]int64{} {
			t.Errorf("%s: periodic passes %v, want none", orderNames[tt.order], got)
		}
		for i := range c.levels {
			l := &c.levels[i]
			if l.newidlePasses != 1 || l.bal.Interval != int64(l.weight) || l.bal.LastBalance != 0 {
				t.Errorf("%s %s: %d newidle passes, balance_interval %d, last_balance %d; want 1, %d, 0",
					orderNames[tt.order], kindNames[l.kind], l.newidlePasses, l.bal.Interval, l.bal.LastBalance, l.weight)
			}
		}
		if c.cas != tt.cas || c.newidleBalances != 1 || c.rq.NextBalance != 2 {
			t.Errorf("%s: cmpxchg %d, serialized newidle passes %d, next_balance %d; want %d, 1, 2",
				orderNames[tt.order], c.cas, c.newidleBalances, c.rq.NextBalance, tt.cas)
		}
	}
}

// A worker at busy= below 100 runs no task in its idle ticks, goes newly
// idle when it turns idle, and balances itself then with the idle
// intervals: many more walks than busy.
func TestBalanceFlagBusyShare(t *testing.T) {
	count := func(variant string) (softirqs, newidle, idleTicks int64) {
		_, ws := setup(t, variant+"/smt=1/group=1/cs=0", 1)
		ws[0].Run(2000)
		return ws[0].softirqs, ws[0].newidleWalks, ws[0].idleTicks
	}
	bs, bn, bi := count("busy=100")
	hs, hn, hi := count("busy=50")
	if bn != 0 || bi != 0 || bs > 40 {
		t.Errorf("busy=100: %d softirqs, %d newidle walks, %d idle ticks; want under 40, 0, 0", bs, bn, bi)
	}
	// About 1000 idle ticks, half of them after a busy one; idle
	// intervals of 2 to 4 jiffies.
	if hi < 900 || hi > 1100 || hn < 400 || hn > 600 || hs < 10*bs {
		t.Errorf("busy=50: %d softirqs, %d newidle walks, %d idle ticks; want ten times %d, about 500, about 1000", hs, hn, hi, bs)
	}
}
