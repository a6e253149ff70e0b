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

// Mainline's intervals over the sizes balanceflag's seed runs (moved here
// from its bfBalanceInterval test when it came to use this package).
func TestBalanceIntervalMainline(t *testing.T) {
	tests := []struct {
		balanceMs int64
		busy      bool
		cpus      int
		hz        HZ
		want      int64
	}{
		{2, true, 2, 1000, 31},            // sd_init for 2 CPUs: 2 ms * busy_factor 16 - 1
		{4, true, 2, 1000, 63},            // after the first balanced pass: max_interval = 2*sd_weight
		{2, false, 2, 1000, 2},            // an idle CPU: no busy factor, no -1
		{224, true, 224, 1000, 3583},      // the seed's 224-CPU box, one NUMA domain over everything
		{448, true, 224, 1000, 7167},      // ... settled at max_interval
		{1024, true, 512, 1000, 16383},    // a 512-CPU Granite Rapids, settled
		{1, true, 1, 1000, 15},            // one CPU
		{1000, true, 2, 1000, 200},        // clamped to HZ*num_online_cpus()/10 = 200
		{1000, false, 2, 1000, 200},       // idle, clamped as well
		{0, false, 2, 1000, 1},            // clamped up to one tick
		{1 << 20, true, 8, 1000, 8 * 100}, // the cap scales with the CPU count
		{2, true, 2, 250, 7},              // HZ=250: 32 ms is 8 jiffies, less one
		{4, true, 2, 250, 15},             // 64 ms: 16 jiffies, less one
		{3, false, 64, 250, 1},            // 3 ms rounds up to one 4 ms jiffy
		{5, false, 64, 250, 2},            // 5 ms: two
		{1024, true, 512, 250, 4095},      // 16384 ms: 4096 jiffies, less one
		{1 << 20, true, 8, 250, 8 * 25},   // the cap: HZ*8/10
		{448, true, 224, 250, 1791},       // 7168 ms = 1792 jiffies - 1 < 5600: not capped
	}
	for _, tt := range tests {
		if got := Mainline.BalanceInterval(tt.balanceMs, tt.busy, tt.hz, MaxLoadBalanceInterval(tt.hz, tt.cpus)); got != tt.want {
			t.Errorf("Mainline.BalanceInterval(%d ms, busy %v, HZ=%d, %d cpus) = %d, want %d", tt.balanceMs, tt.busy, tt.hz, tt.cpus, got, tt.want)
		}
	}
}

func TestKernels(t *testing.T) {
	if Mainline.BusyFactor != Linux510.BusyFactor || Mainline.BusyLess != Linux510.BusyLess || !Mainline.IdleCore || Linux510.IdleCore || Linux413.IdleCore {
		t.Errorf("Mainline = %+v: want Linux510's intervals %+v, and the idle-core preference only in mainline", Mainline, Linux510)
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
