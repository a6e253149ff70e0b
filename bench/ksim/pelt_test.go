package ksim

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
		got := DecayLoad(v, tt.n)
		if got+tt.tol < tt.want || got > tt.want+tt.tol {
			t.Errorf("DecayLoad(%d, %d) = %d, want %d ± %d", uint64(v), tt.n, got, tt.want, tt.tol)
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
		sa.UpdateLoadAvg(1)
		now := sa.LastUpdateTime
		for range 2000 {
			before := sa.LastUpdateTime / PeltPeriod
			avg := sa.LoadAvg
			now += step
			decayed := sa.UpdateLoadSum(now, 512)
			if decayed {
				sa.UpdateLoadAvg(1)
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
		if sa.UpdateLoadSum(now, w) {
			sa.UpdateLoadAvg(1)
		}
	}
	if d := int64(sa.LoadAvg) - w; d < -w/50 || d > 0 {
		t.Errorf("after 400 busy periods load_avg = %d, want just under %d", sa.LoadAvg, w)
	}
	full := sa.LoadAvg
	now += 32 * PeltPeriod
	if sa.UpdateLoadSum(now, 0) {
		sa.UpdateLoadAvg(1)
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
	one.UpdateLoadSum(end, 1024)
	for now := many.LastUpdateTime; now < end; {
		now = min(now+77_777, end)
		many.UpdateLoadSum(now, 1024)
	}
	if one.PeriodContrib != many.PeriodContrib || one.LastUpdateTime != many.LastUpdateTime {
		t.Fatalf("one step: %+v, many: %+v", one, many)
	}
	if d := float64(one.LoadSum) - float64(many.LoadSum); math.Abs(d) > 1e-3*float64(one.LoadSum) {
		t.Errorf("one step sum %d, many steps %d", one.LoadSum, many.LoadSum)
	}
}

// TestDecayMatchesDecayLoad: Decay, the float models' continuous form, is
// decay_load()'s factor at whole periods, to the tables' rounding.
func TestDecayMatchesDecayLoad(t *testing.T) {
	const v = 1 << 40
	for _, n := range []uint64{0, 1, 7, 16, 31, 32, 33, 100, 500, 2015} {
		want := float64(DecayLoad(v, n)) / v
		if got := Decay(int64(n) * PeltPeriod); math.Abs(got-want) > 1e-3*want+1e-12 {
			t.Errorf("Decay(%d periods) = %g, decay_load gives %g", n, got, want)
		}
	}
	if Decay(-5) != 1 || Decay(0) != 1 || Decay(64*LoadAvgPeriod*PeltPeriod) != 0 {
		t.Error("Decay: no decay at or before 0, none left after 64 half-lives")
	}
}

// TestPeltSet: a runnable set rises toward N × 1024 and a blocked one
// halves every LOAD_AVG_PERIOD periods; emptying a set leaves no residue.
func TestPeltSet(t *testing.T) {
	const half = LoadAvgPeriod * PeltPeriod
	run := PeltSet{Runnable: true}
	run.Add(0, 0)
	run.Add(0, 0)
	if got := run.Value(half); math.Abs(got-1024) > 2 {
		t.Errorf("two tasks runnable one half-life from 0: %g, want 1024", got)
	}
	blocked := PeltSet{}
	blocked.Add(0, 800)
	if got := blocked.Value(half); math.Abs(got-400) > 1 {
		t.Errorf("800 blocked one half-life: %g, want 400", got)
	}
	blocked.Remove(half, 399.9)
	if blocked.N != 0 || blocked.Sum != 0 {
		t.Errorf("after the last Remove: N %d, Sum %g, want 0, 0", blocked.N, blocked.Sum)
	}
}

// TestScaleLoadDown: the 64-bit scale_load_down() keeps a non-zero weight
// at 2 or more.
func TestScaleLoadDown(t *testing.T) {
	tests := []struct{ in, want int64 }{
		{0, 0},
		{1, 2}, // non-zero never rounds to zero: max(2, 1>>10)
		{2047, 2},
		{3072, 3},
		{Nice0Load, Nice0LoadDown},
		{ScaleLoad(88761), 88761}, // nice -20
	}
	for _, tt := range tests {
		if got := ScaleLoadDown(tt.in); got != tt.want {
			t.Errorf("ScaleLoadDown(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestDecayTables: Decay's tables against the closed form,
// 2^(-dt/half-life).
func TestDecayTables(t *testing.T) {
	for _, dt := range []int64{0, 1, 31_999, 32_000, 1_024_000, peltHalfLife, 3 * peltHalfLife / 2, 10 * peltHalfLife, 70 * peltHalfLife} {
		want := math.Exp2(-float64(dt) / peltHalfLife)
		if got := Decay(dt); math.Abs(got-want) > 1e-3*want+1e-18 {
			t.Errorf("Decay(%d) = %g, want %g", dt, got, want)
		}
	}
}

// TestDecayContinuous: decaying in many small steps equals one step over
// the same span, for steps below, at and above Decay's 1/1024 half-life
// table step (~33 µs): PELT decay composes, so a float average updated on
// every wakeup decays as one updated once.
func TestDecayContinuous(t *testing.T) {
	for _, step := range []int64{1, 999, 10_000, 32_767, 32_768, 50_001, 1_000_003} {
		const span = 200_000_000 // 200 ms, six half-lives
		many := 1.0
		var at int64
		for at+step <= span {
			many *= Decay(step)
			at += step
		}
		many *= Decay(span - at)
		want := math.Exp2(-float64(span) / peltHalfLife)
		if one := Decay(span); math.Abs(many-one) > 1e-6*one || math.Abs(one-want) > 1e-9 {
			t.Errorf("step %d ns: %d steps give %.9g, one step %.9g, 2^(-t/half-life) %.9g", step, span/step, many, one, want)
		}
	}
}

// BenchmarkDecay is one Decay call over spans of a wakeup model's sizes.
func BenchmarkDecay(b *testing.B) {
	var sum float64
	dt := int64(1)
	for b.Loop() {
		sum += Decay(dt)
		dt = dt*7 + 13_001
		if dt > 100*peltHalfLife {
			dt = 1
		}
	}
	if sum < 0 {
		b.Fatal(sum)
	}
}

// TestCrossed: an update crosses a period boundary where the 1024 ns
// units since the last one and the period's summed part reach 1024.
func TestCrossed(t *testing.T) {
	for _, tc := range []struct {
		since   uint64
		contrib uint32
		want    bool
	}{{0, 0, false}, {1023, 1023, false}, {1024 * 1023, 0, false}, {1024 * 1024, 0, true}, {1024 * 24, 1000, true}, {1024 * 23, 1000, false}} {
		sa := SchedAvg{LastUpdateTime: 1 << 30, PeriodContrib: tc.contrib}
		if got := sa.Crossed(1<<30 + tc.since); got != tc.want {
			t.Errorf("%d ns since, contrib %d: Crossed %v, want %v", tc.since, tc.contrib, got, tc.want)
		}
	}
	if (&SchedAvg{LastUpdateTime: 5000}).Crossed(10) {
		t.Error("a clock behind the last update crossed")
	}
}
