package ksim

import "testing"

// The intervals worked from the kernel source by hand: sd->balance_interval
// ms, times busy_factor when busy, to jiffies, minus one when busy from
// v5.10, clamped to [1, HZ*cpus/10].
func TestBalanceInterval(t *testing.T) {
	for _, tc := range []struct {
		k    Kernel
		ms   int64
		busy bool
		hz   HZ
		cpus int
		want int64
	}{
		{Mainline, 2, false, 1000, 512, 2},     // an idle SMT domain
		{Mainline, 2, true, 1000, 512, 31},     // 2·16 ms, less one
		{Linux413, 2, true, 1000, 512, 64},     // 2·32 ms
		{Linux413, 2, false, 1000, 512, 2},     // idle: no factor in either
		{Mainline, 128, true, 250, 512, 511},   // 2048 ms is 512 jiffies, less one
		{Linux413, 128, true, 250, 512, 1024},  // 4096 ms
		{Mainline, 512, true, 1000, 512, 8191}, // within HZ·512/10
		{Mainline, 1024, true, 1000, 8, 800},   // clamped to HZ·8/10
		{Linux413, 8, true, 1000, 8, 256},      // wakeup's LLC of 8: 32·8 ms
		{Mainline, 1, true, 1000, 1, 15},       // 16-1, within 100
		{Mainline, 0, false, 1000, 4, 1},       // clamped up to 1
		{Mainline, 1, true, 250, 2, 3},         // 16 ms is 4 jiffies, less one
		{Mainline, 1, false, 300, 64, 1},       // 1 ms at HZ=300 rounds up to 1
	} {
		got := tc.k.BalanceInterval(tc.ms, tc.busy, tc.hz, MaxLoadBalanceInterval(tc.hz, tc.cpus))
		if got != tc.want {
			t.Errorf("Kernel %s: BalanceInterval(%d ms, busy %v, HZ %d, %d cpus) = %d, want %d",
				tc.k.Name, tc.ms, tc.busy, tc.hz, tc.cpus, got, tc.want)
		}
	}
}

func TestKernels(t *testing.T) {
	if Mainline != Linux510 {
		t.Errorf("Mainline = %+v, want Linux510's rules %+v", Mainline, Linux510)
	}
	if Linux413.BusyFactor != 32 || Linux413.BusyLess || Linux510.BusyFactor != 16 || !Linux510.BusyLess {
		t.Errorf("Linux413 %+v, Linux510 %+v: want busy_factor 32 without the -1, and 16 with it", Linux413, Linux510)
	}
	if got := MaxLoadBalanceInterval(1000, 224); got != 22400 {
		t.Errorf("MaxLoadBalanceInterval(1000, 224) = %d, want 22400", got)
	}
}

func TestBalance(t *testing.T) {
	b := Balance{Interval: 4, MinInterval: 4, MaxInterval: 8, LastBalance: 10}
	if b.Due(13, 4) || !b.Due(14, 4) || !b.Due(20, 4) {
		t.Errorf("Due at last_balance 10, interval 4: want false at 13, true at 14 and 20")
	}
	for _, want := range []int64{8, 8} {
		b.OutBalanced()
		if b.Interval != want {
			t.Errorf("OutBalanced: balance_interval %d, want %d (doubling up to max_interval 8)", b.Interval, want)
		}
	}
	b = Balance{Interval: 6, MaxInterval: 8}
	b.OutBalanced() // 6 < 8: doubles past the max, as the kernel's test does
	if b.Interval != 12 {
		t.Errorf("OutBalanced from 6 with max 8: %d, want 12", b.Interval)
	}
}
