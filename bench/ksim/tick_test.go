package ksim

import "testing"

func TestTickStart(t *testing.T) {
	hz := HZ(1000)
	for _, tc := range []struct {
		j         int64
		cpu, cpus int
		skew      bool
		want      int64
	}{
		{3, 5, 8, false, 3_000_000},
		{3, 0, 8, true, 3_000_000},
		// skew_tick=1: (TICK_NSEC >> 1) / cpus × cpu.
		{3, 5, 8, true, 3_000_000 + 500_000/8*5},
	} {
		if got := hz.TickStart(tc.j, tc.cpu, tc.cpus, tc.skew); got != tc.want {
			t.Errorf("TickStart(%d, %d, %d, %v) = %d, want %d", tc.j, tc.cpu, tc.cpus, tc.skew, got, tc.want)
		}
	}
}

// TestGovernor: menu keeps the tick while it expects an idle shorter than
// a tick, stops it once the intervals say a tick or more, keeps a stopped
// tick stopped, and tick_nohz_next_event() keeps it for a timer within a
// tick; a kept tick that wakes the cpu makes the next selection stop it,
// once.
func TestGovernor(t *testing.T) {
	const tick = 4_000_000 // HZ 250
	var g Governor
	if g.StopTick(tick, false, -1) {
		t.Fatalf("a governor that has seen nothing stops the tick; want it kept")
	}
	if !g.StopTick(tick, true, 1000) {
		t.Errorf("a stopped tick with a timer due: want it left stopped")
	}
	for range 40 {
		g.Idled(300_000)
	}
	if g.StopTick(tick, false, -1) {
		t.Errorf("after short idles (predicted %d): want the tick kept", g.Predicted)
	}
	g.TickWakeup()
	if g.StopTick(tick, false, tick/2) {
		t.Errorf("after a tick wakeup, a timer due within a tick: want the tick kept")
	}
	g.TickWakeup()
	if !g.StopTick(tick, false, 2*tick) {
		t.Errorf("after a tick wakeup, the next timer two ticks away: want the tick stopped")
	}
	if g.StopTick(tick, false, -1) {
		t.Errorf("the selection after that (predicted %d): want the tick kept, the wakeup counted once", g.Predicted)
	}
	g.TickWakeup()
	g.Idled(300_000)
	if g.StopTick(tick, false, -1) {
		t.Errorf("a tick wakeup, then a short idle learnt: want the tick kept")
	}
	for range 40 {
		g.Idled(2 * tick)
	}
	if !g.StopTick(tick, false, -1) {
		t.Errorf("after idles of two ticks (predicted %d): want the tick stopped", g.Predicted)
	}
}
