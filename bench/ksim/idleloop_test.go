package ksim

import "testing"

// TestIdleLoop holds each rule's decisions: the driver-less forms against
// idle.c's two cpuidle_not_available() branches, the governor's against
// Governor.Select itself.
func TestIdleLoop(t *testing.T) {
	const tick = 4_000_000
	far, near := int64(2_000_000_000), int64(1_000_000)
	for _, tc := range []struct {
		rule             IdleTickRule
		sleep            int64
		enter, afterTick bool
	}{
		{IdleTickStop, far, true, true},
		{IdleTickStop, -1, true, true},
		{IdleTickStop, near, false, false},
		{IdleTickAfterTick, far, false, true},
		{IdleTickAfterTick, near, false, false},
	} {
		l := IdleLoop{Rule: tc.rule}
		if got := l.Enter(tick, tc.sleep); got != tc.enter {
			t.Errorf("%v, timer in %d ns: Enter = %v, want %v", tc.rule, tc.sleep, got, tc.enter)
		}
		if got := l.Ticked(tick, tick, tc.sleep); got != tc.afterTick {
			t.Errorf("%v, timer in %d ns: Ticked = %v, want %v", tc.rule, tc.sleep, got, tc.afterTick)
		}
	}
	// Under the governor, IdleLoop is Governor's calls and nothing else.
	var l IdleLoop
	var g Governor
	for i := range 20 {
		idle := int64(50_000 + 400_000*(i%3))
		if got, want := l.Enter(tick, far), g.Select(tick, far, false); got != want {
			t.Fatalf("entry %d: IdleLoop %v, Governor %v", i, got, want)
		}
		l.Woke(idle)
		g.Woke(idle, false)
	}
	if got, want := l.Ticked(tick, tick, far), func() bool { g.Woke(tick, true); return g.Select(tick, far, false) }(); got != want {
		t.Errorf("after a tick: IdleLoop %v, Governor %v", got, want)
	}
}

// The flag's names parse to their rules and nothing else does; only the
// after-tick form keeps an idle's first tick in a model of whole ticks.
func TestParseIdleTickRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		want    IdleTickRule
		atEntry bool
	}{
		{"governor", IdleTickGovernor, true},
		{"stop", IdleTickStop, true},
		{"after-tick", IdleTickAfterTick, false},
	} {
		r, err := ParseIdleTickRule(tc.name)
		if err != nil || r != tc.want || r.StopsAtEntry() != tc.atEntry || r.Name() != tc.name {
			t.Errorf("%s: rule %v (err %v, name %q), stops at entry %v; want %v, %v", tc.name, r, err, r.Name(), r.StopsAtEntry(), tc.want, tc.atEntry)
		}
	}
	if n := IdleTickRule(9).Name(); n != "rule 9" {
		t.Errorf("IdleTickRule(9).Name() = %q", n)
	}
	for _, bad := range []string{"", "menu", "Stop", "after_tick"} {
		if _, err := ParseIdleTickRule(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestIdleCPUs: a measured share decides each entry by the scenario's
// draw, a kept tick's iteration counted as an entry; without one the
// CPU's loop decides (after-tick: the entry keeps the tick, the
// iteration after a tick stops it) and no draw is taken; an exit clears
// the stop and the idle.
func TestIdleCPUs(t *testing.T) {
	const tick = 4_000_000
	draws := 0
	draw := func(v float64) func() float64 { return func() float64 { draws++; return v } }
	m := NewIdleCPUs(2, IdleTickAfterTick, 0.5)
	if !m.Enter(1000, 0, false, tick, draw(0.2)) || m.Enter(1000, 1, false, tick, draw(0.7)) || m.Enter(5000, 1, true, tick, draw(0.9)) {
		t.Error("a share of 0.5: draws 0.2, 0.7, 0.9 want stop, keep, keep")
	}
	if m.Stops != 1 || m.Entries != 3 || draws != 3 || !m.Stopped[0] || m.Stopped[1] || !m.Idle(1) {
		t.Errorf("share: %d stops, %d entries, %d draws, stopped %v", m.Stops, m.Entries, draws, m.Stopped)
	}
	m.Exit(9000, 0)
	if m.Stopped[0] || m.Idle(0) {
		t.Error("an exit leaves the tick stopped or the cpu idle")
	}
	draws = 0
	r := NewIdleCPUs(1, IdleTickAfterTick, -1)
	if r.Enter(1000, 0, false, tick, draw(0)) || !r.Enter(1000+tick, 0, true, tick, draw(0)) {
		t.Error("after-tick: the entry keeps the tick, the iteration after it stops it")
	}
	if draws != 0 || r.Entries != 1 || r.Stops != 1 {
		t.Errorf("the loop's rule: %d draws, %d entries, %d stops; want 0, 1, 1", draws, r.Entries, r.Stops)
	}
	r.Exit(2000+tick, 0)
	if r.Idle(0) || r.Stopped[0] {
		t.Error("exit: still idle or stopped")
	}
}
