package counter

import (
	"math"
	"testing"
)

// TestPeltTable checks the copied runnable_avg_yN_inv against the formula
// of Documentation/scheduler/sched-pelt.c, ((1UL<<32)-1)*pow(y, i) with
// y^32 = 1/2, and LOAD_AVG_MAX against its recursion
// max = ((max*y_inv)>>32) + 1024 run to its fixed point.
func TestPeltTable(t *testing.T) {
	y := math.Pow(0.5, 1.0/LoadAvgPeriod)
	for i, got := range runnableAvgYNInv {
		want := uint32(float64(1<<32-1) * math.Pow(y, float64(i)))
		if d := int64(got) - int64(want); d > 1 || d < -1 {
			t.Errorf("runnable_avg_yN_inv[%d] = %#x, formula gives %#x", i, got, want)
		}
	}
	yInv := int64(float64(1<<32-1) * y)
	max, last := int64(1024), int64(0)
	for max != last {
		last = max
		max = (max*yInv)>>32 + 1024
	}
	if max != LoadAvgMax {
		t.Errorf("LOAD_AVG_MAX recursion converges to %d, LoadAvgMax is %d", max, LoadAvgMax)
	}
}

// TestDecayLoad: y^32 = 1/2, y^64 = 1/4, and nothing survives 63 half-lives.
func TestDecayLoad(t *testing.T) {
	const v = 1 << 30
	tests := []struct {
		n    uint64
		want uint64
		tol  uint64
	}{
		{0, v, 1},
		{32, v / 2, 1},
		{64, v / 4, 1},
		{16, uint64(v * math.Pow(0.5, 0.5)), 2},
		{33, uint64(v / 2 * math.Pow(0.5, 1.0/32)), 2},
		{LoadAvgPeriod * 63, v >> 63, 0},
		{LoadAvgPeriod*63 + 1, 0, 0},
	}
	for _, tt := range tests {
		got := decayLoad(v, tt.n)
		if got+tt.tol < tt.want || got > tt.want+tt.tol {
			t.Errorf("decayLoad(%d, %d) = %d, want %d ± %d", uint64(v), tt.n, got, tt.want, tt.tol)
		}
	}
}

// TestPeltDecayedOnlyAtPeriods: the sums report "decayed" exactly when an
// update crosses a boundary of the 1024 × 1024 ns periods, and the average
// changes only then.
func TestPeltDecayedOnlyAtPeriods(t *testing.T) {
	for _, step := range []uint64{1000, 40_000, 333_333, 2_500_000} {
		sa := SchedAvg{LastUpdateTime: 5 * PeltPeriod}
		sa.LoadSum = 20000 * 512
		sa.updateLoadAvg(1)
		now := sa.LastUpdateTime
		for range 2000 {
			before := sa.LastUpdateTime / PeltPeriod
			avg := sa.LoadAvg
			now += step
			decayed := sa.updateLoadSum(now, 512)
			if decayed {
				sa.updateLoadAvg(1)
			}
			crossed := sa.LastUpdateTime/PeltPeriod != before
			if decayed != crossed {
				t.Fatalf("step %d: update to %d: decayed = %v, period crossed = %v", step, now, decayed, crossed)
			}
			if !decayed && sa.LoadAvg != avg {
				t.Fatalf("step %d: load_avg moved from %d to %d without a period boundary", step, avg, sa.LoadAvg)
			}
		}
	}
}

// TestPeltConverges: a load of w applied for long enough makes load_avg w
// (within the divider's rounding), and after 32 idle periods half of it is
// left, PELT's half-life.
func TestPeltConverges(t *testing.T) {
	const w = 1024
	sa := SchedAvg{LastUpdateTime: PeltPeriod}
	now := sa.LastUpdateTime
	for range 400 {
		now += PeltPeriod
		if sa.updateLoadSum(now, w) {
			sa.updateLoadAvg(1)
		}
	}
	if d := int64(sa.LoadAvg) - w; d < -w/50 || d > 0 {
		t.Errorf("after 400 busy periods load_avg = %d, want just under %d", sa.LoadAvg, w)
	}
	full := sa.LoadAvg
	now += 32 * PeltPeriod
	if sa.updateLoadSum(now, 0) {
		sa.updateLoadAvg(1)
	}
	if d := int64(sa.LoadAvg) - int64(full/2); d < -2 || d > 2 {
		t.Errorf("32 idle periods after %d: load_avg = %d, want half", full, sa.LoadAvg)
	}
}

// TestPeltSplitIntervals: the sum is the same whether the time is added in
// one step or in many (PELT's geometric series), up to rounding.
func TestPeltSplitIntervals(t *testing.T) {
	one := SchedAvg{LastUpdateTime: 3 * PeltPeriod, LoadSum: 1e7}
	many := one
	end := one.LastUpdateTime + 7*PeltPeriod + 12345
	one.updateLoadSum(end, 1024)
	for now := many.LastUpdateTime; now < end; {
		now = min(now+77_777, end)
		many.updateLoadSum(now, 1024)
	}
	if one.PeriodContrib != many.PeriodContrib || one.LastUpdateTime != many.LastUpdateTime {
		t.Fatalf("one step: %+v, many: %+v", one, many)
	}
	if d := float64(one.LoadSum) - float64(many.LoadSum); math.Abs(d) > 1e-3*float64(one.LoadSum) {
		t.Errorf("one step sum %d, many steps %d", one.LoadSum, many.LoadSum)
	}
}

func TestSyncLoadSum(t *testing.T) {
	if got := syncLoadSum(100, 0); got != 100 {
		t.Errorf("syncLoadSum(100, 0) = %d", got)
	}
	if got := syncLoadSum(0, 2); got != 2*PeltMinDivider {
		t.Errorf("syncLoadSum(0, 2) = %d, want %d", got, 2*PeltMinDivider)
	}
	var x uint64 = 5
	subPositive(&x, 7)
	if x != 0 {
		t.Errorf("subPositive(5, 7) = %d, want 0", x)
	}
}
