package rankstat

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The interval's order statistic, against the Mann-Whitney critical values
// of the published tables: for 6+6 runs the two-sided 5% critical U is 5 and
// the 10% one is 7, so the intervals run from the 6th and the 8th smallest
// pairwise difference.
func TestCIOrder(t *testing.T) {
	for _, tt := range []struct {
		n1, n2 int
		conf   float64
		want   int
	}{
		{6, 6, 0.95, 6},
		{6, 6, 0.90, 8},
		{10, 10, 0.95, 24},
		{10, 10, 0.90, 28},
		{4, 4, 0.95, 1},
		{3, 3, 0.95, 0}, // no finite interval
		{3, 3, 0.90, 1},
		{2, 2, 0.90, 0},
	} {
		if got := CIOrder(tt.n1, tt.n2, tt.conf); got != tt.want {
			t.Errorf("CIOrder(%d, %d, %v) = %d, want %d", tt.n1, tt.n2, tt.conf, got, tt.want)
		}
	}
}

func TestCanReject(t *testing.T) {
	for _, tt := range []struct {
		n1, n2 int
		want   bool
	}{
		{4, 4, true}, {3, 3, false}, {3, 5, true}, {3, 4, false}, {2, 10, true}, {2, 2, false}, {0, 6, false},
	} {
		if got := CanReject(tt.n1, tt.n2); got != tt.want {
			t.Errorf("CanReject(%d, %d) = %v, want %v", tt.n1, tt.n2, got, tt.want)
		}
		// It is a promise about the U test: fully separated samples.
		if tt.n1 > 0 && tt.n2 > 0 {
			a, b := make([]float64, tt.n1), make([]float64, tt.n2)
			for i := range a {
				a[i] = float64(i)
			}
			for i := range b {
				b[i] = float64(100 + i)
			}
			if p := UTest(a, b); (p < Alpha) != tt.want {
				t.Errorf("%d+%d separated runs: U test p = %.4f, but canReject = %v", tt.n1, tt.n2, p, tt.want)
			}
		}
	}
}

// The 95% interval is the U test inverted: it leaves out a zero shift
// exactly when the U test rejects at 0.05, on untied samples of any size the
// reproduce presets use.
func TestShiftCIIsTheUTestInverted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{4, 6, 10} {
		for trial := 0; trial < 300; trial++ {
			shift := r.NormFloat64()
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i] = r.NormFloat64()
				b[i] = r.NormFloat64() + shift
			}
			_, lo, hi, ok := ShiftCI(a, b, 0.95)
			if !ok {
				t.Fatalf("n=%d: no finite 95%% interval", n)
			}
			excludes := lo > 0 || hi < 0
			if p := UTest(a, b); excludes != (p < Alpha) {
				t.Fatalf("n=%d: interval [%.3f, %.3f] excludes 0 = %v, U test p = %.4f", n, lo, hi, excludes, p)
			}
		}
	}
}

// The interval covers the true shift at least as often as it promises.
func TestShiftCICoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const trials = 2000
	miss := 0
	for trial := 0; trial < trials; trial++ {
		a, b := make([]float64, 6), make([]float64, 6)
		for i := range a {
			a[i] = r.ExpFloat64() // skewed, as timings are
			b[i] = r.ExpFloat64() + 0.5
		}
		if _, lo, hi, _ := ShiftCI(a, b, EquivLevel); lo > 0.5 || hi < 0.5 {
			miss++
		}
	}
	// Exact coverage for 6+6 at the 8th order statistic is 1 − 2·P(U ≤ 7)
	// = 0.935; allow sampling error (sd ≈ 0.0055 over 2000 trials).
	if rate := float64(miss) / trials; rate > 1-EquivLevel {
		t.Errorf("90%% interval missed the shift in %.1f%% of %d trials", 100*rate, trials)
	}
}

func TestShiftCI(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{11, 12, 13, 14, 15, 16}
	est, lo, hi, ok := ShiftCI(a, b, 0.90)
	// Differences b−a run 5..15; the 8th smallest is 8, the 8th largest 12.
	if !ok || est != 10 || lo != 8 || hi != 12 {
		t.Errorf("shiftCI = %v [%v, %v] ok=%v, want 10 [8, 12] true", est, lo, hi, ok)
	}
	if _, lo, hi, ok := ShiftCI(a[:2], b[:2], 0.90); ok || !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		t.Errorf("2+2 runs: interval [%v, %v] ok=%v, want unbounded", lo, hi, ok)
	}
	// Copies: the interval straddles zero symmetrically.
	if _, lo, hi, _ := ShiftCI(a, slices.Clone(a), 0.90); lo != -hi || lo >= 0 {
		t.Errorf("copies: interval [%v, %v], want symmetric about 0", lo, hi)
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1}, 1}, {[]float64{1, 3}, 2}, {[]float64{1, 2, 10}, 2}, {[]float64{1, 2, 4, 10}, 3},
	} {
		if got := Median(tt.xs); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}
