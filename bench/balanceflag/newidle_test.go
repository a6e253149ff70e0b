package balanceflag

import (
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// timedOps is countOps on a clock: a pass of a domain costs 1 µs per
// cpu of its span, so an 8-cpu machine's newidle passes cost 2, 4 and 8 µs.
type timedOps struct {
	countOps
	t int64
}

func (o *timedOps) pass(l *level, serialized bool) {
	o.countOps.pass(l, serialized)
	o.t += int64(l.weight) * 1000
}
func (o *timedOps) now() int64 { return o.t }

// rq->avg_idle: 1/8 of each sample's distance, capped at twice
// max_idle_balance_cost; a wakeup of a cpu that was not idle changes
// nothing.
func TestWokeUpAvgIdle(t *testing.T) {
	c := walkCPU(ksim.SerializeInRQ, 0, 10, 0, 0, 0)
	c.rq.Init()
	if c.rq.AvgIdle != 1_000_000 || c.rq.MaxIdleBalanceCost != 500_000 {
		t.Fatalf("avg_idle %d, max_idle_balance_cost %d; want sched_init's 1 ms and 500 µs", c.rq.AvgIdle, c.rq.MaxIdleBalanceCost)
	}
	c.wokeUp(5_000_000) // not idle
	for _, tt := range []struct{ stamp, wake, avg int64 }{
		{0 + 1, 200_001, 900_000},       // 1e6 + (200000-1e6)/8
		{1_000_000, 1_000_000, 787_500}, // a zero-length idle
		{0 + 1, 5_000_001, 1_000_000},   // capped at 2*500 µs
	} {
		c.idleStamp = tt.stamp
		c.wokeUp(tt.wake)
		if c.rq.AvgIdle != tt.avg || c.idleStamp != 0 {
			t.Errorf("idle %d..%d: avg_idle %d, idle_stamp %d; want %d, 0", tt.stamp, tt.wake, c.rq.AvgIdle, c.idleStamp, tt.avg)
		}
	}
}

// The avg_idle cutoff on a timed walk: it stops at the first domain whose
// max_newidle_lb_cost and the walk's cost so far exceed avg_idle, or
// before any pass when the lowest domain's alone does; either way the
// lowest domain's next_balance is pulled in. An untimed walk (the pinned
// workers') is never cut.
func TestNewidleAvgIdleCutoff(t *testing.T) {
	for _, tt := range []struct {
		name    string
		avgIdle int64
		max     [3]int64 // max_newidle_lb_cost per level before the walk
		passes  int      // newidle passes done
		cut     int64
	}{
		{"long idle: every level", 1_000_000, [3]int64{2000, 4000, 8000}, 3, 0},
		{"costs unknown: cut once the first pass is priced", 1_000, [3]int64{}, 1, 1}, // 1 µs < 2 µs + 0
		{"stops below the numa level", 10_000, [3]int64{2000, 4000, 8000}, 2, 1},      // 2+4+8 > 10 µs
		{"stops below the llc", 5_000, [3]int64{2000, 4000, 8000}, 1, 1},              // 2+4 > 5 µs
		{"early out", 1_500, [3]int64{2000, 4000, 8000}, 0, 1},                        // 1.5 < 2 µs
	} {
		c := walkCPU(ksim.SerializeInRQNewidle, 0, 100, 90, 90, 90)
		c.rq.Init()
		c.rq.AvgIdle = tt.avgIdle
		for i := range c.levels {
			c.levels[i].bal.MaxNewidleLBCost = tt.max[i]
		}
		c.rq.NextBalance = 1000
		var ops timedOps
		newidleBalance(c, &ops)
		if ops.passes != tt.passes || c.newidleCut != tt.cut {
			t.Errorf("%s: %d passes, %d cut; want %d, %d", tt.name, ops.passes, c.newidleCut, tt.passes, tt.cut)
		}
		// The SMT domain's idle interval: 90 + 2 jiffies.
		if c.rq.NextBalance != 92 {
			t.Errorf("%s: next_balance %d, want 92 (the lowest domain's, pulled in cut or not)", tt.name, c.rq.NextBalance)
		}
		// Every pass done measured its cost: 2, 4, 8 µs.
		for i := range c.levels {
			want := tt.max[i]
			if i < tt.passes {
				want = max(want, int64(c.levels[i].weight)*1000)
			}
			if c.levels[i].bal.MaxNewidleLBCost != want {
				t.Errorf("%s: level %d max_newidle_lb_cost %d, want %d", tt.name, i, c.levels[i].bal.MaxNewidleLBCost, want)
			}
		}
		u := walkCPU(ksim.SerializeInRQNewidle, 0, 100, 90, 90, 90)
		u.rq.AvgIdle = tt.avgIdle
		var plain countOps
		newidleBalance(u, &plain)
		if plain.passes != 3 || u.newidleCut != 0 {
			t.Errorf("%s, untimed: %d passes, %d cut; want 3, 0", tt.name, plain.passes, u.newidleCut)
		}
	}
}

// need_decay: a periodic walk stopped below the top by should_we_balance()
// goes on to the domains above only in a jiffy one of them is due its
// decay, and there it balances nothing and takes no flag, in either order.
func TestBalanceDomainsNeedDecay(t *testing.T) {
	for _, order := range []ksim.SerializeOrder{ksim.SerializeFirst, ksim.SerializeInRQ} {
		// CPU 1 (CPU 0's sibling): the LLC is due and not its to balance,
		// so the walk stops before the NUMA domain (as in
		// TestBalanceDomainsDuePerLevel).
		run := func(j, lastDecay int64) (*cpuState, countOps) {
			c := walkCPU(order, 1, j, j-10, j-63, j-200)
			for i := range c.levels {
				c.levels[i].bal.LastDecay = lastDecay
				c.levels[i].bal.MaxNewidleLBCost = 25600
			}
			var ops countOps
			balanceDomains(c, &ops, notIdle)
			return c, ops
		}
		c, ops := run(2000, 1500)
		if c.stops != 1 || c.decayVisits != 0 || ops.takes != 0 || c.levels[2].bal.MaxNewidleLBCost != 25600 {
			t.Errorf("order %d, no decay due: %d stops, %d decay visits, %d cmpxchg, numa max %d; want 1, 0, 0, 25600",
				order, c.stops, c.decayVisits, ops.takes, c.levels[2].bal.MaxNewidleLBCost)
		}
		c, ops = run(2000, 999)
		if c.stops != 1 || c.decayVisits != 1 || ops.takes != 0 || c.levels[2].bal.MaxNewidleLBCost != 25300 || c.levels[2].passes != 0 {
			t.Errorf("order %d, decay due: %d stops, %d decay visits, %d cmpxchg, numa max %d, %d passes; want 1, 1, 0, 25300, 0",
				order, c.stops, c.decayVisits, ops.takes, c.levels[2].bal.MaxNewidleLBCost, c.levels[2].passes)
		}
		if c.rq.MaxIdleBalanceCost != ksim.MigrationCost {
			t.Errorf("order %d: max_idle_balance_cost %d, want sysctl_sched_migration_cost (the costs sum to 76 µs)", order, c.rq.MaxIdleBalanceCost)
		}
	}
}

// Short idles a tick: each is one more newidle walk of the same busy
// ticks, exactly; the turning-idle walks stay as they are.
func TestSimNewidlePerTick(t *testing.T) {
	cfg := SimConfig{CPUs: 32, SNC: 1, Duration: 50 * time.Millisecond, CAS: 100 * time.Nanosecond, Newidle: 3}
	walks := func(k int) int64 {
		c := cfg
		c.NewidlePerTick = k
		s := simFor(t, c, "check-first+newidle")
		var n int64
		for i := range s.cpus {
			n += s.cpus[i].newidleWalks
		}
		return n
	}
	c := cfg.withDefaults()
	var shortTicks int64
	for cpu := range c.CPUs {
		for j := int64(1); j <= 50; j++ {
			if !idleAt(c.Seed, c.Busy, cpu, j) && (j+int64(cpu))%3 == 0 {
				shortTicks++
			}
		}
	}
	one, four := walks(1), walks(4)
	if walks(0) != one || four-one != 3*shortTicks || shortTicks == 0 {
		t.Errorf("newidle walks %d with one a tick, %d with four; want 3 × %d short-idle ticks more", one, four, shortTicks)
	}
}

// Short idles of 1 µs on cpus that are never idle for a tick: avg_idle
// falls from 1 ms to the 1.8 µs a walk cut below the socket level costs
// within about 40 walks ((7/8)^40 of 1 ms is 5 µs, the socket level's
// threshold), so nine walks in ten of 500 are cut before the serialized
// domains, and with check-first+newidle their cmpxchg go with them (what
// is left is the first 40 walks and the periodic passes); the
// walks themselves are as many as before.
func TestSimShortIdleCuts(t *testing.T) {
	cfg := SimConfig{CPUs: 64, Busy: 100, Duration: 500 * time.Millisecond, CAS: 100 * time.Nanosecond, Newidle: 1}
	long := simFor(t, cfg, "check-first+newidle")
	cfg.ShortIdle = time.Microsecond
	short := simFor(t, cfg, "check-first+newidle")
	sum := func(s *sim) (walks, cut, cas int64) {
		for i := range s.cpus {
			c := &s.cpus[i]
			walks, cut, cas = walks+c.newidleWalks, cut+c.newidleCut, cas+c.cas
			if c.rq.AvgIdle > 2*c.rq.MaxIdleBalanceCost || c.rq.AvgIdle < 0 {
				t.Errorf("cpu %d: avg_idle %d out of [0, %d]", i, c.rq.AvgIdle, 2*c.rq.MaxIdleBalanceCost)
			}
		}
		return
	}
	lw, lc, lcas := sum(long)
	sw, sc, scas := sum(short)
	if lc != 0 || sw != lw || sc < sw*9/10 || scas*8 > lcas {
		t.Errorf("long idles: %d walks, %d cut, %d cmpxchg; 1 µs: %d walks, %d cut, %d cmpxchg; want none cut, then the same walks, nine in ten cut and at most an eighth of the cmpxchg",
			lw, lc, lcas, sw, sc, scas)
	}
	// 20 µs idles: their idle part, what the walk leaves of 20 µs, is
	// not cycles.
	cfg.ShortIdle = 20 * time.Microsecond
	idle20 := simFor(t, cfg, "check-first+newidle")
	if d := long.busyNs - idle20.busyNs; d <= 0 || d > sw*int64(cfg.ShortIdle) {
		t.Errorf("busy time %d ns with 20 µs idles, %d without; want less, by at most %d walks × 20 µs", idle20.busyNs, long.busyNs, sw)
	}
}
