package ksim

import "testing"

// TestSoftirqs: the balance softirq on a 2-cpu lowest domain at HZ 250
// runs at every tick of an idle cpu (its interval, 2 ms, under a tick)
// and every 7th of a busy one (2 ms × busy_factor 16, less one: 31 ms,
// 7.75 ticks, the jiffy a walk lands on); a newidle walk before each
// tick pulls a busy cpu's next_balance in to every tick. Each softirq
// runs the scenario's blocked update first, once.
func TestSoftirqs(t *testing.T) {
	for _, tc := range []struct {
		name          string
		busy, newidle bool
		want          int64
	}{{"busy", true, false, 100 / 7}, {"busy, newly idle each tick", true, true, 100}, {"idle", false, false, 100}} {
		b := NewSoftirqs(Linux61, 4, 2, 250)
		var blocked int64
		for j := range int64(100) {
			now := (j + 1) * b.TickNs
			if tc.newidle {
				b.Newidle(now, 0)
			}
			before := blocked
			if ran := b.Tick(now, 0, tc.busy, func() { blocked++ }); ran != (blocked == before+1) {
				t.Fatalf("%s: tick %d said %v, %d blocked updates before, %d after", tc.name, j, ran, before, blocked)
			}
		}
		if got := b.Runs[0]; got < tc.want || got > tc.want+1 || got != blocked {
			t.Errorf("%s: %d softirqs (%d blocked updates) in 100 ticks, want %d", tc.name, got, blocked, tc.want)
		}
		if b.Runs[1] != 0 {
			t.Errorf("%s: cpu 1 ran %d softirqs without a tick", tc.name, b.Runs[1])
		}
	}
}
