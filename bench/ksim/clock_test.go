package ksim

import "testing"

func TestHZ(t *testing.T) {
	for _, tc := range []struct {
		hz             HZ
		tick           int64
		ms, jiffies    int64 // MsecsToJiffies(ms) = jiffies
		at, atJiffies  int64 // Jiffies(at) = atJiffies
		ticksIn, ticks int64
	}{
		{1000, 1_000_000, 31, 31, 2_500_000, 2, 1e9, 1000},
		{250, 4_000_000, 31, 8, 3_999_999, 0, 1e9, 250},
		{250, 4_000_000, 32, 8, 4_000_000, 1, 5e8, 125},
		{100, 10_000_000, 1, 1, 25_000_000, 2, 1e9, 100},
		// HZ=300: TICK_NSEC rounds to nearest, msecs_to_jiffies up.
		{300, 3_333_333, 10, 3, 10_000_000, 3, 1e9, 300},
		{300, 3_333_333, 11, 4, 3_333_332, 0, 1e9, 300},
	} {
		if got := tc.hz.TickNs(); got != tc.tick {
			t.Errorf("HZ(%d).TickNs() = %d, want %d", tc.hz, got, tc.tick)
		}
		if got := tc.hz.MsecsToJiffies(tc.ms); got != tc.jiffies {
			t.Errorf("HZ(%d).MsecsToJiffies(%d) = %d, want %d", tc.hz, tc.ms, got, tc.jiffies)
		}
		if got := tc.hz.Jiffies(tc.at); got != tc.atJiffies {
			t.Errorf("HZ(%d).Jiffies(%d) = %d, want %d", tc.hz, tc.at, got, tc.atJiffies)
		}
		if got := tc.hz.Ticks(tc.ticksIn); got != tc.ticks {
			t.Errorf("HZ(%d).Ticks(%d) = %d, want %d", tc.hz, tc.ticksIn, got, tc.ticks)
		}
		if got := tc.hz.TickTime(3); got != 3*tc.tick {
			t.Errorf("HZ(%d).TickTime(3) = %d, want %d", tc.hz, got, 3*tc.tick)
		}
		if err := tc.hz.Check(); err != nil {
			t.Errorf("HZ(%d).Check() = %v", tc.hz, err)
		}
	}
	for _, hz := range []HZ{0, -1, 200, 1024} {
		if err := hz.Check(); err == nil {
			t.Errorf("HZ(%d).Check() = nil, want an error", hz)
		}
	}
}

func TestClock(t *testing.T) {
	var c Clock
	if c.Now() != 0 {
		t.Fatalf("zero Clock at %d", c.Now())
	}
	if got := c.Advance(40); got != 40 || c.Now() != 40 {
		t.Errorf("Advance(40) = %d, Now %d, want 40", got, c.Now())
	}
	c.Set(7)
	if c.Now() != 7 {
		t.Errorf("after Set(7), Now = %d", c.Now())
	}
	for _, tc := range []struct {
		count, span int64
		want        float64
	}{{5, 1e9, 5}, {5, 5e8, 10}, {5, 0, 0}, {5, -1, 0}} {
		if got := PerSecond(tc.count, tc.span); got != tc.want {
			t.Errorf("PerSecond(%d, %d) = %v, want %v", tc.count, tc.span, got, tc.want)
		}
	}
}
