package balanceflag

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// simFor runs one order of cfg and returns the run.
func simFor(t *testing.T, cfg SimConfig, order string) *sim {
	t.Helper()
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	s := newSim(cfg, ksim.SerializeOrder(indexOf(orderNames, order)))
	s.run()
	return s
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// Two busy CPUs, one per socket, no SMT, no LLC: one NUMA domain of 2 CPUs
// in groups of one, both designated; 200 ticks at HZ=1000, cs=100ns a CPU,
// a handoff of 100ns, a local access of 10ns. Worked by hand:
//
// CPU 0 (last_balance 0, interval 31, then 63 after the first pass's
// doubling): softirqs at 1 (rq->next_balance starts at 0; nothing due),
// 31, 94, 157; passes at 31, 94, 157. CPU 1 starts half an interval early
// (last_balance -15): softirqs at 1, 16, 79, 142; passes at 16, 79, 142.
//
// The old order takes the flag on all eight softirqs. At tick 1 both CPUs
// arrive at the same instant: CPU 0 first (ties by number) takes it in one
// handoff (the line is nobody's yet), CPU 1's cmpxchg queues behind it and
// finds it set (two handoffs), and CPU 0's release, queued behind CPU 1's,
// clears it. Every later attempt finds the line last written by the other
// CPU: one handoff each. So: 8 cmpxchg, 1 failed, 9 handoffs of flag time.
// The new order takes it only for the six passes, never at once: 6
// cmpxchg, 6 handoffs. Every tick is busy: 400 ms of cycles.
func TestSimulateHandCase(t *testing.T) {
	cfg := SimConfig{CPUs: 2, Sockets: 2, SNC: 1, SMT: 1, Busy: 100, HZ: 1000, Duration: 200 * time.Millisecond,
		CAS: 100 * time.Nanosecond, Local: 10 * time.Nanosecond, CS: 100 * time.Nanosecond}
	for _, tt := range []struct {
		order                              string
		cas, fails, softirqs, passes, flag int64 // flag: ns
	}{
		{"cmpxchg-first", 8, 1, 8, 6, 900},
		{"check-first", 6, 0, 8, 6, 600},
		{"check-first+newidle", 6, 0, 8, 6, 600},
	} {
		s := simFor(t, cfg, tt.order)
		var cas, fails, softirqs, passes int64
		for i := range s.cpus {
			c := &s.cpus[i]
			cas, fails, softirqs, passes = cas+c.cas, fails+c.casFails, softirqs+c.softirqs, passes+c.balances
		}
		if cas != tt.cas || fails != tt.fails || softirqs != tt.softirqs || passes != tt.passes || s.flagNs != tt.flag {
			t.Errorf("%s: cmpxchg %d, fails %d, softirqs %d, passes %d, flag %d ns; want %d, %d, %d, %d, %d",
				tt.order, cas, fails, softirqs, passes, s.flagNs, tt.cas, tt.fails, tt.softirqs, tt.passes, tt.flag)
		}
		if s.busyNs != 400*int64(time.Millisecond) {
			t.Errorf("%s: %d ns of cycles, want 400 ms (two cpus busy for 200 ticks)", tt.order, s.busyNs)
		}
		if s.flag {
			t.Errorf("%s: the flag was left set", tt.order)
		}
		r := s.row(tt.order)
		if want := 100 * float64(tt.flag) / 400e6; r.FlagPct != want || r.Levels[0].FlagPct != want {
			t.Errorf("%s: flag %% %g (level %g), want %g", tt.order, r.FlagPct, r.Levels[0].FlagPct, want)
		}
		if want := float64(tt.cas) / 0.2; r.CAS != want {
			t.Errorf("%s: %g cmpxchg/s, want %g", tt.order, r.CAS, want)
		}
	}
}

// The nohz balancer is the first idle CPU of the tick; it balances every
// idle CPU whose rq->next_balance is due, starting after itself and
// wrapping round to end with itself (for_each_cpu_wrap(..., this_cpu+1)),
// and only when some CPU is busy to kick it.
func TestSimulateNohzWalk(t *testing.T) {
	cfg := SimConfig{CPUs: 16, Sockets: 2, SNC: 1, SMT: 2, Busy: 50, HZ: 1000, Duration: 50 * time.Millisecond,
		CAS: 100 * time.Nanosecond}.withDefaults()
	s := newSim(cfg, ksim.SerializeInRQ)
	type visit struct {
		ilb, cpu int
	}
	walks := map[int64][]visit{}
	s.onNohz = func(j int64, ilb, cpu int) { walks[j] = append(walks[j], visit{ilb, cpu}) }
	s.run()
	if len(walks) == 0 {
		t.Fatal("the nohz balancer never ran")
	}
	for j, vs := range walks {
		first := -1
		for c := range cfg.CPUs {
			if idleAt(cfg.Seed, cfg.Busy, c, j) {
				first = c
				break
			}
		}
		prev := -1
		for _, v := range vs {
			if v.ilb != first {
				t.Fatalf("tick %d: balancer %d, want the first idle cpu %d", j, v.ilb, first)
			}
			if !idleAt(cfg.Seed, cfg.Busy, v.cpu, j) {
				t.Fatalf("tick %d: balanced busy cpu %d", j, v.cpu)
			}
			// Order after the balancer: (cpu - ilb - 1) mod n rises.
			pos := (v.cpu - v.ilb - 1 + cfg.CPUs) % cfg.CPUs
			if pos <= prev {
				t.Fatalf("tick %d: cpu %d out of for_each_cpu_wrap order: %v", j, v.cpu, vs)
			}
			prev = pos
		}
	}
	if s.nohzRuns == 0 || s.nohzRuns > s.ticks {
		t.Errorf("%d nohz runs in %d ticks", s.nohzRuns, s.ticks)
	}
	// Every idle cpu it balanced was due, and is due no more.
	for i := range s.cpus {
		if s.cpus[i].rq.NextBalance == 0 {
			t.Errorf("cpu %d never balanced in 50 ticks at busy 50%%", i)
		}
	}
}

// Idle cpus balance with intervals sixteen times shorter (2 to 4 jiffies
// at the SMT level): with half the cpus idle in a tick there are many times
// more walks than with every cpu busy, where the SMT domain's 31 to 63
// jiffies set the pace. (With nearly every cpu idle there would be few: no
// busy cpu's tick to kick the nohz balancer.)
func TestSimulateIdleWalksMore(t *testing.T) {
	cfg := SimConfig{CPUs: 8, Sockets: 2, SNC: 1, SMT: 2, HZ: 1000, Duration: 500 * time.Millisecond, CAS: 100 * time.Nanosecond}
	walks := func(busy int) int64 {
		c := cfg
		c.Busy = busy
		s := simFor(t, c, "check-first")
		var n int64
		for i := range s.cpus {
			n += s.cpus[i].softirqs
		}
		return n
	}
	busy, half := walks(100), walks(50)
	// Busy: 8 cpus × 500 ticks / 31..63 jiffies, and the LLC's and the
	// NUMA domain's walks between: about 120. Half idle: 4 cpus every 2
	// to 4 ticks from the nohz balancer alone, about 700.
	if busy > 150 || half < 4*busy {
		t.Errorf("walks: %d with every cpu busy, %d with half idle; want under 150, and four times as many half idle", busy, half)
	}
	t.Logf("walks in 500 ticks of 8 cpus: %d all busy, %d half idle", busy, half)
}

// One seed, one table; the text names the machine and every assumption.
func TestSimulateTable(t *testing.T) {
	cfg := SimConfig{CPUs: 64, SNC: 2, Duration: 20 * time.Millisecond, CAS: 120 * time.Nanosecond, Newidle: 4}
	a, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Simulate(cfg)
	var ta, tb bytes.Buffer
	if err := a.WriteText(&ta); err != nil {
		t.Fatal(err)
	}
	_ = b.WriteText(&tb)
	if ta.String() != tb.String() {
		t.Errorf("two runs of one config differ:\n%s\n%s", ta.String(), tb.String())
	}
	for _, want := range []string{"64 cpus: 2 sockets × 2 nodes of 16 cpus", "socket 32 (SD_SERIALIZE)", "all 64 (SD_SERIALIZE)",
		"= 120ns", "cmpxchg-first", "check-first+newidle", "flag % of cycles", "every 4 ticks"} {
		if !strings.Contains(ta.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, ta.String())
		}
	}
	if len(a.Rows) != 3 || len(a.Rows[0].Levels) != 2 {
		t.Fatalf("%d rows, %d levels; want 3 orders of 2 levels", len(a.Rows), len(a.Rows[0].Levels))
	}
	before, after := a.Rows[0], a.Rows[1]
	if after.CAS >= before.CAS || after.FlagPct >= before.FlagPct {
		t.Errorf("check-first: %g cmpxchg/s, %g%% of cycles; want fewer than cmpxchg-first's %g, %g%%", after.CAS, after.FlagPct, before.CAS, before.FlagPct)
	}
}

func TestSimulateBadConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg  SimConfig
		want string
	}{
		{SimConfig{CPUs: 1, CAS: 1}, "cpus 1 out of range"},
		{SimConfig{CPUs: 500, SNC: 3, CAS: 1}, "is not 2 sockets × 3 nodes"},
		{SimConfig{HZ: 300, CAS: 1}, "hz 300"},
		{SimConfig{Busy: 101, CAS: 1}, "busy 101"},
		{SimConfig{Newidle: -1, CAS: 1}, "newidle -1"},
		{SimConfig{Duration: time.Hour, CAS: 1}, "duration 1h0m0s out of range"},
		{SimConfig{}, "want a positive cas"},
		{SimConfig{CAS: 1, Orders: []string{"nosuch"}}, `unknown order "nosuch"`},
		{SimConfig{CAS: 1, WalkIdle: 1.5}, "walk idle 1.5"},
	} {
		_, err := Simulate(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "simulate balanceflag: ") {
			t.Errorf("Simulate(%+v) = %v, want an error containing %q", tt.cfg, err, tt.want)
		}
	}
}

// Seed 002's size at reproduce's dearest handoff (400 ns: finding 8's
// grid), where two CPUs' nohz walks overlap in kernel time: each
// walk yields at every flag access, so each CPU keeps its own walk's tick
// and coroutine (one view shared by all let a second walk take the first
// one's, and iter.Pull panicked: "yield called again before next").
func TestSimulateOverlappingNohzWalks(t *testing.T) {
	if testing.Short() {
		t.Skip("512 cpus")
	}
	tab, err := Simulate(SimConfig{CAS: 400 * time.Nanosecond, Newidle: 4, Duration: 20 * time.Millisecond,
		Orders: []string{"cmpxchg-first", "check-first"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tab.Rows {
		if r.NohzPasses == 0 {
			t.Errorf("%s: no passes on idle cpus' behalf: the walks this test needs did not run", r.Order)
		}
	}
}

// idleAt is the tests' name for the idle draw (ksim.TickIdle).
func idleAt(seed uint64, busy int, cpu int, j int64) bool { return ksim.TickIdle(seed, busy, cpu, j) }
