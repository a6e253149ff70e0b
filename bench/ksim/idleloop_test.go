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
