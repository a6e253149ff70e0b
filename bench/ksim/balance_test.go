package ksim

import "testing"

// fakeLB is a Balancer over doms, with every pass of cost 1 µs on its clock
// and the moves, idleness and flag a test sets.
type fakeLB struct {
	doms       []Balance
	serialize  []bool
	swb        []bool // should_we_balance() per level (periodic passes)
	moves      []bool // a pass moves tasks
	flagFree   bool
	timed      bool
	overloaded bool
	t          int64
	passes     []IdleType
	levels     []int
	takes      int
	releases   int
}

func (f *fakeLB) Levels() int           { return len(f.doms) }
func (f *fakeLB) Domain(i int) *Balance { return &f.doms[i] }
func (f *fakeLB) Serialized(i int) bool { return f.serialize[i] }
func (f *fakeLB) Interval(i int, busy bool) int64 {
	return Mainline.BalanceInterval(f.doms[i].Interval, busy, 1000, 1000)
}
func (f *fakeLB) Idle() bool           { return false }
func (f *fakeLB) Overloaded() bool     { return f.overloaded }
func (f *fakeLB) Runnable() bool       { return false }
func (f *fakeLB) Clock() (int64, bool) { return f.t, f.timed }
func (f *fakeLB) ReleaseFlag(int)      { f.releases++ }
func (f *fakeLB) ShouldWeBalance(i int, idle IdleType) bool {
	return idle == CPUNewlyIdle || f.swb[i]
}

func (f *fakeLB) TakeFlag(int) bool {
	f.takes++
	return f.flagFree
}

func (f *fakeLB) Pass(i int, idle IdleType, _ bool) (bool, bool) {
	f.passes = append(f.passes, idle)
	f.levels = append(f.levels, i)
	f.t += 1000
	return f.moves[i], !f.moves[i]
}

func newFake(n int) *fakeLB {
	f := &fakeLB{flagFree: true, overloaded: true, timed: true}
	for i := range n {
		w := int64(2 << i)
		f.doms = append(f.doms, Balance{Interval: w, MinInterval: w, MaxInterval: 2 * w})
		f.serialize = append(f.serialize, i == n-1)
		f.swb = append(f.swb, true)
		f.moves = append(f.moves, false)
	}
	return f
}

// update_newidle_cost(): a dearer pass raises the max at once; a cheaper
// one decays it by 253/256, at most once a second (HZ jiffies after the
// last change), and only then says need_decay. Before v5.16 a new max does
// not restart the second, and a newidle pass's cost never decays it.
func TestUpdateNewidleCost(t *testing.T) {
	// 4.13: the raise at 10 leaves next_decay alone (LastDecay 0), so
	// the decay comes at 1001; a newidle cost below the max (at 2012)
	// decays nothing.
	for _, run := range []struct {
		k     Kernel
		steps []struct {
			j, cost, max, last int64
			decay              bool
		}
	}{
		{Mainline, []struct {
			j, cost, max, last int64
			decay              bool
		}{
			{10, 5000, 5000, 10, false},       // raised
			{500, 4000, 5000, 10, false},      // cheaper, within the second
			{1010, 0, 5000, 10, false},        // exactly HZ later: time_after is strict
			{1011, 0, 4941, 1011, true},       // 5000*253/256
			{1500, 4941, 4941, 1011, false},   // equal is not more
			{2012, 100, 4883, 2012, true},     // 4941*253/256
			{2013, 90000, 90000, 2013, false}, // raised again
		}},
		{Linux413, []struct {
			j, cost, max, last int64
			decay              bool
		}{
			{10, 5000, 5000, 0, false},
			{1001, 0, 4941, 1001, true},
			{2012, 100, 4941, 1001, false},
			{2013, 0, 4883, 2013, true},
		}},
	} {
		var b Balance
		for _, tt := range run.steps {
			if got := run.k.UpdateNewidleCost(&b, tt.cost, tt.j, 1000); got != tt.decay || b.MaxNewidleLBCost != tt.max || b.LastDecay != tt.last {
				t.Errorf("%s, jiffies %d, cost %d: need_decay %v, max %d, last_decay %d; want %v, %d, %d",
					run.k.Name, tt.j, tt.cost, got, b.MaxNewidleLBCost, b.LastDecay, tt.decay, tt.max, tt.last)
			}
		}
	}
}

// The periodic walk takes the flag where each order does: SerializeFirst
// on every visit of the serialized domain, due or not; SerializeInRQ only
// for a due pass that should_we_balance() lets run.
func TestBalanceDomainsSerialize(t *testing.T) {
	for _, tt := range []struct {
		order     SerializeOrder
		j         int64
		swbTop    bool
		takes     int
		topPassed bool
	}{
		{SerializeFirst, 1, true, 1, false},  // top not due at 1 (busy interval 127): taken anyway
		{SerializeInRQ, 1, true, 0, false},   // not due: not taken
		{SerializeFirst, 200, true, 1, true}, // due
		{SerializeInRQ, 200, true, 1, true},
		{SerializeFirst, 200, false, 1, false}, // due, taken, should_we_balance() fails under it
		{SerializeInRQ, 200, false, 0, false},
	} {
		f := newFake(3)
		f.swb[2] = tt.swbTop
		k := Mainline
		k.Serialize = tt.order
		var rq RQBalance
		rq.Init()
		k.BalanceDomains(f, &rq, tt.j, 1000, CPUNotIdle)
		top := len(f.levels) > 0 && f.levels[len(f.levels)-1] == 2
		if f.takes != tt.takes || f.releases != f.takes || top != tt.topPassed {
			t.Errorf("order %d at %d, swb %v: %d takes, %d releases, top passed %v; want %d, %d, %v",
				tt.order, tt.j, tt.swbTop, f.takes, f.releases, top, tt.takes, tt.takes, tt.topPassed)
		}
	}
}

// A walk stopped by should_we_balance() goes on only to the domains due
// their decay, balancing nothing there; a move makes the walk ask
// idle_cpu() again; next_balance is the earliest of the domains visited.
func TestBalanceDomainsStop(t *testing.T) {
	f := newFake(3)
	f.swb[0] = false
	for i := range f.doms {
		f.doms[i].MaxNewidleLBCost = 25600
	}
	var rq RQBalance
	rq.Init()
	w := Mainline.BalanceDomains(f, &rq, 2000, 1000, CPUNotIdle)
	if !w.Stopped || w.DecayVisits != 2 || len(f.passes) != 0 || f.doms[2].MaxNewidleLBCost != 25300 {
		t.Errorf("stopped walk: %+v, passes %v, top max %d; want stopped, 2 decay visits, none, 25300", w, f.passes, f.doms[2].MaxNewidleLBCost)
	}
	if rq.MaxIdleBalanceCost != MigrationCost {
		t.Errorf("max_idle_balance_cost %d, want the floor %d", rq.MaxIdleBalanceCost, MigrationCost)
	}
	// SMT's interval doubled by out_balanced (2 → 4 ms, busy ×16 - 1 = 63).
	if rq.NextBalance != 2000+63 {
		t.Errorf("next_balance %d, want %d", rq.NextBalance, 2000+63)
	}
}

// The newidle walk: 6.1 gates on the lowest domain's max_newidle_lb_cost
// and 4.13 on sysctl_sched_migration_cost; both cut where avg_idle no
// longer covers the costs so far, and stop at a pull.
func TestNewidleBalance(t *testing.T) {
	for _, tt := range []struct {
		name    string
		k       Kernel
		avgIdle int64
		max     [3]int64
		moves   [3]bool
		passes  int
		cut     bool
	}{
		{"6.1 all", Linux61, 1_000_000, [3]int64{}, [3]bool{}, 3, false},
		{"6.1 gate", Linux61, 1000, [3]int64{2000, 0, 0}, [3]bool{}, 0, true},
		{"4.13 gate", Linux413, 400_000, [3]int64{}, [3]bool{}, 0, true},
		{"6.1 cut at 2", Linux61, 10_000, [3]int64{1000, 1000, 9000}, [3]bool{}, 2, true},
		{"pull at 1", Linux61, 1_000_000, [3]int64{}, [3]bool{false, true, false}, 2, false},
	} {
		f := newFake(3)
		for i := range f.doms {
			f.doms[i].MaxNewidleLBCost = tt.max[i]
			f.moves[i] = tt.moves[i]
		}
		rq := RQBalance{AvgIdle: tt.avgIdle, MaxIdleBalanceCost: MigrationCost, NextBalance: 1 << 40}
		w := tt.k.NewidleBalance(f, &rq, 10, 1000)
		if len(f.passes) != tt.passes || w.Cut != tt.cut {
			t.Errorf("%s: %d passes, cut %v; want %d, %v", tt.name, len(f.passes), w.Cut, tt.passes, tt.cut)
		}
		if rq.NextBalance > 10+2 {
			t.Errorf("%s: next_balance %d, want the lowest domain's idle interval, 12", tt.name, rq.NextBalance)
		}
	}
}

// The walks and should_we_balance() allocate nothing of their own: a
// pinned benchmark runs them in its hot loop.
func TestWalksDoNotAllocate(t *testing.T) {
	f := newFake(3)
	f.passes, f.levels = make([]IdleType, 0, 1024), make([]int, 0, 1024)
	var rq RQBalance
	rq.Init()
	j := int64(0)
	if a := testing.AllocsPerRun(50, func() {
		j += 100
		Mainline.BalanceDomains(f, &rq, j, 1000, CPUIdle)
		Mainline.NewidleBalance(f, &rq, j, 1000)
	}); a != 0 {
		t.Errorf("BalanceDomains and NewidleBalance allocate %v times a run, want 0", a)
	}
	group, core := []int{0, 1, 2, 3, 4, 5, 6, 7}, [][]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}}
	busy := 3
	if a := testing.AllocsPerRun(50, func() {
		Mainline.ShouldWeBalance(4, group, false, func(c int) bool { return c != busy }, func(c int) []int { return core[c/2] })
	}); a != 0 {
		t.Errorf("ShouldWeBalance allocates %v times a call, want 0", a)
	}
}

// should_we_balance() of mainline passes over an idle CPU of a busy core
// for the first idle core's first CPU, and takes it only when no core is
// idle; 6.1 takes the first idle CPU whatever its core.
func TestShouldWeBalanceIdleCore(t *testing.T) {
	group, core := []int{0, 1, 2, 3}, func(c int) []int { return []int{c &^ 1, c | 1} }
	for _, tt := range []struct {
		k    Kernel
		idle [4]bool
		want int
	}{
		{Mainline, [4]bool{false, true, true, true}, 2}, // cpu 1's core is busy
		{Linux61, [4]bool{false, true, true, true}, 1},
		{Mainline, [4]bool{false, true, true, false}, 1}, // no idle core: the first idle SMT
		{Mainline, [4]bool{}, 0},                         // all busy: group_balance_cpu()
	} {
		for cpu := range 4 {
			got := tt.k.ShouldWeBalance(cpu, group, false, func(c int) bool { return tt.idle[c] }, core)
			if got != (cpu == tt.want) {
				t.Errorf("%s, idle %v, cpu %d: %v; want only cpu %d", tt.k.Name, tt.idle, cpu, got, tt.want)
			}
		}
	}
}

// sched_balance_rq() counts its calls per idle type at entry, before
// should_we_balance(), as schedstat's lb_count does: a periodic walk whose
// lowest level should not balance counts that level's call and stops.
func TestBalanceRQLBCount(t *testing.T) {
	f := newFake(3)
	f.swb[0] = false
	Mainline.BalanceRQ(f, 0, CPUIdle, false)
	Mainline.BalanceRQ(f, 1, CPUNotIdle, false)
	Mainline.BalanceRQ(f, 1, CPUNewlyIdle, false)
	if got := f.doms[0].LBCount; got != [3]int64{1, 0, 0} {
		t.Errorf("level 0 lb_count %v, want one CPU_IDLE call though it did not balance", got)
	}
	if got := f.doms[1].LBCount; got != [3]int64{0, 1, 1} {
		t.Errorf("level 1 lb_count %v, want one CPU_NOT_IDLE and one CPU_NEWLY_IDLE call", got)
	}
	if len(f.passes) != 2 {
		t.Errorf("passes %v, want the two that balanced", f.passes)
	}
}
