package ksim

import (
	"slices"
	"testing"
)

// recorder is a NohzObserver that writes down the paths it hears.
type recorder struct{ got []string }

func (r *recorder) Enter(cpu int)   { r.got = append(r.got, "enter") }
func (r *recorder) Blocked(cpu int) { r.got = append(r.got, "blocked") }
func (r *recorder) Exit(cpu int)    { r.got = append(r.got, "exit") }
func (r *recorder) Kick(cpu int, tickless bool) {
	if tickless {
		r.got = append(r.got, "kick tickless")
	} else {
		r.got = append(r.got, "kick")
	}
}

// TestNohzEnterExit: the mask, nr_cpus and nr_busy_cpus follow the tick
// stops (nohz_balance_enter_idle()) and the busy ticks' restarts
// (nohz_balance_exit_idle()), each path heard once, a repeated enter only
// storing has_blocked_load.
func TestNohzEnterExit(t *testing.T) {
	// cpus 0-3 share an LLC, 4 is alone in its own (no sd_llc_shared).
	n := NewNohz(5, []int{0, 0, 0, 0, -1})
	rec := &recorder{}
	n.Obs = rec
	if busy, ok := n.NrBusy(0); busy != 4 || !ok {
		t.Fatalf("at boot NrBusy(0) = %d, %v; want 4, true (sd_init: all busy)", busy, ok)
	}
	if _, ok := n.NrBusy(4); ok {
		t.Fatalf("NrBusy(4) has an sd_llc_shared; want none for an LLC of one")
	}
	if !n.EnterIdle(1) || n.EnterIdle(1) {
		t.Fatalf("EnterIdle(1) twice: want the first to enter the mask, the second not")
	}
	n.EnterIdle(4)
	if !n.Tickless() || !n.Stopped(1) || !n.Stopped(4) || n.Stopped(0) {
		t.Errorf("after stops on 1 and 4: tickless %v, stopped 0/1/4 %v/%v/%v", n.Tickless(), n.Stopped(0), n.Stopped(1), n.Stopped(4))
	}
	if busy, _ := n.NrBusy(0); busy != 3 {
		t.Errorf("NrBusy(0) after cpu 1 stopped = %d, want 3 (set_cpu_sd_state_idle)", busy)
	}
	if n.ExitIdle(0) {
		t.Errorf("ExitIdle(0) of a cpu never stopped: want false")
	}
	n.ExitIdle(1)
	n.ExitIdle(4)
	if n.Tickless() {
		t.Errorf("every cpu restarted: want none tickless")
	}
	if busy, _ := n.NrBusy(0); busy != 4 {
		t.Errorf("NrBusy(0) after cpu 1 restarted = %d, want 4 (set_cpu_sd_state_busy)", busy)
	}
	want := []string{"enter", "blocked", "blocked", "enter", "blocked", "exit", "exit"}
	if !slices.Equal(rec.got, want) {
		t.Errorf("paths heard %v, want %v", rec.got, want)
	}
}

// TestBalancerKick: nohz_balancer_kick() exits nohz first, returns with
// no cpu tickless or nohz.next_balance not due, then takes the reasons in
// the kernel's order.
func TestBalancerKick(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stopped []int // cpus whose tick stopped, of 0-3 in one LLC
		next    int64 // nohz.next_balance
		rq      KickRQ
		want    KickReason
	}{
		{"none tickless", nil, 0, KickRQ{NrRunning: 3}, KickNone},
		{"not due", []int{2}, 11, KickRQ{NrRunning: 3}, KickNone},
		{"two tasks", []int{2, 3}, 10, KickRQ{NrRunning: 2}, KickNrRunning},
		{"capacity before the LLC", []int{3}, 10, KickRQ{NrRunning: 1, ReducedCapacity: true}, KickCapacity},
		{"LLC busy", []int{3}, 10, KickRQ{NrRunning: 1}, KickLLCBusy},
		{"LLC alone busy", []int{1, 2, 3}, 10, KickRQ{NrRunning: 1}, KickNone},
		{"the kicker's restart counts it busy", []int{0, 1, 2}, 10, KickRQ{NrRunning: 1}, KickLLCBusy},
	} {
		n := NewNohz(4, []int{0, 0, 0, 0})
		for _, c := range tc.stopped {
			n.EnterIdle(c)
		}
		n.NextBalance = tc.next
		if got := n.BalancerKick(0, 10, tc.rq); got != tc.want {
			t.Errorf("%s: BalancerKick = %d, want %d", tc.name, got, tc.want)
		}
		if n.Stopped(0) {
			t.Errorf("%s: the kicker is still in the mask", tc.name)
		}
	}
	if got := KickReasonOf(KickRQ{NrRunning: 1}, 2, false); got != KickNone {
		t.Errorf("KickReasonOf with no sd_llc_shared = %d, want none", got)
	}
}

// TestFindNewILBAndIdleBalance: the balancer is the first idle cpu of the
// mask other than the kicker; its walk goes from its successor round to
// itself, balancing the due and leaving nohz.next_balance at the earliest.
func TestFindNewILBAndIdleBalance(t *testing.T) {
	n := NewNohz(8, make([]int, 8))
	for _, c := range []int{1, 3, 4, 6} {
		n.EnterIdle(c)
	}
	idle := func(c int) bool { return c != 4 } // 4 woke, not yet restarted
	if got := n.FindNewILB(1, idle); got != 3 {
		t.Errorf("FindNewILB(self 1) = %d, want 3", got)
	}
	if got := n.FindNewILB(0, idle); got != 1 {
		t.Errorf("FindNewILB(self 0) = %d, want 1", got)
	}
	next := []int64{0, 100, 0, 50, 0, 0, 200, 0}
	var walked []int
	passes := n.IdleBalance(3, 100, 250, idle, func(c int) int64 { return next[c] }, func(c int) {
		walked = append(walked, c)
		next[c] = 100 + int64(c)
	})
	if want := []int{1, 3}; passes != 2 || !slices.Equal(walked, want) {
		t.Errorf("IdleBalance from 3 balanced %v (%d passes), want %v: 6 not due, 4 not idle, order 6, 1, 3", walked, passes, want)
	}
	if n.NextBalance != 101 {
		t.Errorf("nohz.next_balance = %d, want 101 (cpu 1's after its pass)", n.NextBalance)
	}
	if got := FindNewILB(4, -1, func(int) bool { return false }); got != -1 {
		t.Errorf("FindNewILB with none idle = %d, want -1", got)
	}
}

// TestNohzWalked: up to v5.8 an idle walk pulls nohz.next_balance in to
// the walked CPU's rq->next_balance, never out; a busy walk, or a version
// without the tail, leaves it.
func TestNohzWalked(t *testing.T) {
	for _, tt := range []struct {
		name   string
		k      Kernel
		idle   IdleType
		rqNext int64
		want   int64
	}{
		{"4.13 idle walk, earlier", Linux413, CPUIdle, 90, 90},
		{"4.13 idle walk, later", Linux413, CPUIdle, 110, 100},
		{"4.13 busy walk", Linux413, CPUNotIdle, 90, 100},
		{"6.1 idle walk", Linux61, CPUIdle, 90, 100},
	} {
		n := NewNohz(1, []int{-1})
		n.NextBalance = 100
		n.Walked(tt.k, &RQBalance{NextBalance: tt.rqNext}, Walk{Idle: tt.idle})
		if n.NextBalance != tt.want {
			t.Errorf("%s: nohz.next_balance %d, want %d", tt.name, n.NextBalance, tt.want)
		}
	}
}

// TestNohzEveryIdle: before 00357f5ec5d6 (4.13) every idle entry takes
// the CPU out of its LLC's nr_busy_cpus and every busy tick puts it back,
// the tick stopped or not; from it (6.1) only the tick stops and the
// first busy tick after one do.
func TestNohzEveryIdle(t *testing.T) {
	for _, tt := range []struct {
		k                 Kernel
		afterEntry, after int // nr_busy_cpus after cpu 1's idle entry, then its busy tick
	}{
		{Linux413, 1, 2},
		{Linux61, 2, 2},
	} {
		n := NewNohz(2, []int{0, 0}).ForKernel(tt.k)
		n.IdleEntry(1) // the governor keeps the tick: no EnterIdle
		if busy, _ := n.NrBusy(0); busy != tt.afterEntry {
			t.Errorf("%s: nr_busy_cpus after an idle entry keeping the tick %d, want %d", tt.k.Name, busy, tt.afterEntry)
		}
		n.BalancerKick(1, 0, KickRQ{})
		if busy, _ := n.NrBusy(0); busy != tt.after {
			t.Errorf("%s: nr_busy_cpus after the busy tick %d, want %d", tt.k.Name, busy, tt.after)
		}
	}
}

// TickKicks: the mask is what inMask says, not every idle CPU: an idle CPU
// whose tick is kept (not in the mask) is no balancer and no tickless CPU;
// an idle CPU never kicks (rq->idle_balance), so it stays in the mask; and
// nothing kicks before nohz.next_balance, the mask's earliest.
func TestTickKicks(t *testing.T) {
	const now = 100
	for _, tc := range []struct {
		name         string
		idle, inMask []bool
		next         int64 // every CPU's rq->next_balance
		want         int   // the balancer kicked, -1: none
		wantNext     int64 // nohz.next_balance after
	}{
		{"idle cpu 3 in the mask", []bool{false, false, false, true}, []bool{false, false, false, true}, now, 3, now + 1},
		{"idle cpu 3 keeps its tick", []bool{false, false, false, true}, []bool{false, false, false, false}, now, -1, now + 60*250},
		{"idle cpus 0 and 1 kick nothing", []bool{true, true, false, false}, []bool{true, true, false, false}, now, 0, now + 1},
		{"kept cpu 0 is no balancer", []bool{true, true, false, false}, []bool{false, true, false, false}, now, 1, now + 1},
		{"not yet due", []bool{false, false, false, true}, []bool{false, false, false, true}, now + 5, -1, now + 5},
	} {
		n := NewNohz(4, []int{0, 0, 0, 0})
		got := n.TickKicks(now, HZ(250), func(c int) bool { return tc.idle[c] }, func(c int) bool { return tc.inMask[c] },
			func(int) int64 { return tc.next }, nil)
		if got != tc.want || n.NextBalance != tc.wantNext {
			t.Errorf("%s: balancer %d, next_balance %d; want %d, %d", tc.name, got, n.NextBalance, tc.want, tc.wantNext)
		}
		for c := range 4 {
			if n.Stopped(c) != tc.inMask[c] {
				t.Errorf("%s: cpu %d in the mask %v, want %v", tc.name, c, n.Stopped(c), tc.inMask[c])
			}
		}
	}
}

// A busy CPU with a second task queued kicks where nothing else would: its
// LLC has no other busy CPU (one CPU per LLC), so only rq->nr_running >= 2
// is a reason.
func TestTickKicksNrRunning(t *testing.T) {
	const now = 100
	idle := func(c int) bool { return c == 3 }
	for _, tc := range []struct {
		stacked int // the busy CPU with two tasks, -1: none
		want    int
	}{{-1, -1}, {1, 3}} {
		n := NewNohz(4, []int{0, 1, 2, 3})
		rq := func(c int) KickRQ {
			if c == tc.stacked {
				return KickRQ{NrRunning: 2}
			}
			return KickRQ{NrRunning: 1}
		}
		if got := n.TickKicks(now, HZ(250), idle, idle, func(int) int64 { return now }, rq); got != tc.want {
			t.Errorf("stacked cpu %d: balancer %d, want %d", tc.stacked, got, tc.want)
		}
	}
}

// kick_ilb() sends the balancer an IPI for a stats or next kick too, with
// no reason to balance: a CPU entering the mask sets needs_update (one
// NOHZ_NEXT_KICK, cleared by its walk), and blocked load a NOHZ_STATS_KICK
// once next_blocked has passed, LOAD_AVG_PERIOD after the last; one IPI a
// tick at most, none with no idle CPU to kick.
func TestTickKicksIPIs(t *testing.T) {
	hz := HZ(250) // LOAD_AVG_PERIOD: 8 jiffies
	n := NewNohz(4, []int{0, 1, 2, 3})
	idle := func(c int) bool { return c == 3 }
	late := func(int) int64 { return 1 << 40 } // no balance due
	tick := func(now int64, inMask func(int) bool) int64 {
		before := n.KickIPIs
		if got := n.TickKicks(now, hz, idle, inMask, late, nil); got != -1 {
			t.Fatalf("tick %d: balancer %d kicked to balance, want none", now, got)
		}
		return n.KickIPIs - before
	}
	for _, tc := range []struct {
		now  int64
		want int64
		why  string
	}{
		{1, 1, "cpu 3 entered the mask: NEXT, and STATS (next_blocked 0)"},
		{2, 0, "needs_update cleared, next_blocked 9"},
		{9, 0, "next_blocked not yet passed"},
		{10, 1, "STATS, LOAD_AVG_PERIOD on"},
		{11, 0, "next_blocked 18"},
	} {
		if got := tick(tc.now, idle); got != tc.want {
			t.Errorf("tick %d: %d IPIs, want %d (%s)", tc.now, got, tc.want, tc.why)
		}
	}
	// A cpu leaving and entering again asks for a NEXT kick; with no idle
	// cpu left to kick, none is sent.
	none := func(int) bool { return false }
	if got := tick(12, none); got != 0 {
		t.Errorf("tick 12, nobody idle: %d IPIs, want none", got)
	}
	if got := tick(13, idle); got != 1 {
		t.Errorf("tick 13, cpu 3 back in the mask: %d IPIs, want the NEXT kick's", got)
	}
}
