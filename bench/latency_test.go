package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Every value lands in a bucket whose bounds hold it, buckets are
// contiguous, and none is wider than 1/latSub of its values.
func TestLatencyBuckets(t *testing.T) {
	values := []uint64{0, 1, 2*latSub - 1, 2 * latSub, 2*latSub + 1, 100, 1000, 1 << 20, 1<<20 + 12345, math.MaxInt64}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		values = append(values, r.Uint64N(math.MaxInt64)>>r.UintN(63))
	}
	for _, v := range values {
		i := latBucket(v)
		if i < 0 || i >= latBuckets {
			t.Fatalf("latBucket(%d) = %d, outside [0, %d)", v, i, latBuckets)
		}
		low, width := latBounds(i)
		if v < low || v-low >= width {
			t.Errorf("latBucket(%d) = %d, whose bounds are [%d, %d)", v, i, low, low+width)
		}
		if width > 1 && float64(width)/float64(low) > 1.0/latSub {
			t.Errorf("bucket %d: width %d at %d is more than 1/%d", i, width, low, latSub)
		}
	}
	for i := 1; i < latBuckets; i++ {
		pl, pw := latBounds(i - 1)
		if l, _ := latBounds(i); l != pl+pw {
			t.Fatalf("bucket %d starts at %d, bucket %d ends at %d", i, l, i-1, pl+pw)
		}
	}
	if got := latBucket(math.MaxInt64); got != latBuckets-1 {
		t.Errorf("latBucket(MaxInt64) = %d, want the last bucket %d", got, latBuckets-1)
	}
}

// Quantiles against distributions whose quantiles are known: exact where
// buckets are 1 ns wide, within half a bucket (1.6%) above.
func TestLatencyQuantiles(t *testing.T) {
	exact := func(xs []int64, q float64) float64 { // nearest rank
		s := slices.Clone(xs)
		slices.Sort(s)
		return float64(s[int(math.Ceil(q*float64(len(s))))-1])
	}
	r := rand.New(rand.NewPCG(3, 4))
	tests := []struct {
		name string
		xs   []int64
		tol  float64 // relative
	}{
		{"constant 7", repeat(7, 1000), 0},
		{"uniform 1..60", seq(1, 60), 0},
		{"uniform 1..10000", seq(1, 10000), 1.0 / (2 * latSub)},
		{"exponential mean 200", sample(100000, func() int64 { return int64(r.ExpFloat64() * 200) }), 1.0 / (2 * latSub)},
		{"bimodal 30 ns and 150 µs", append(repeat(30, 9990), repeat(150000, 10)...), 1.0 / (2 * latSub)},
	}
	for _, tt := range tests {
		var h Latency
		for _, x := range tt.xs {
			h.Record(x)
		}
		if h.Count() != int64(len(tt.xs)) {
			t.Errorf("%s: Count() = %d, want %d", tt.name, h.Count(), len(tt.xs))
		}
		for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999, 1} {
			want, got := exact(tt.xs, q), h.Quantile(q)
			if math.Abs(got-want) > tt.tol*want {
				t.Errorf("%s: Quantile(%v) = %v, want %v (±%.1f%%)", tt.name, q, got, want, 100*tt.tol)
			}
		}
		if want := slices.Max(tt.xs); h.Max() != time.Duration(want) || h.Quantile(1) > float64(want) {
			t.Errorf("%s: Max() = %v, Quantile(1) = %v; want %d exactly", tt.name, h.Max(), h.Quantile(1), want)
		}
	}
	// The bimodal case is why the tail matters: one in a thousand slow.
	var h Latency
	for _, x := range append(repeat(30, 9980), repeat(150000, 20)...) {
		h.Record(x)
	}
	if p50, p999 := h.Quantile(0.5), h.Quantile(0.999); p50 != 30 || math.Abs(p999-150000) > 150000/(2*latSub) {
		t.Errorf("bimodal: p50 %v, p99.9 %v; want 30 and ~150000", p50, p999)
	}
}

func TestLatencyEdges(t *testing.T) {
	var h Latency
	if !math.IsNaN(h.Quantile(0.5)) || h.Count() != 0 || h.Mean() != 0 {
		t.Errorf("empty histogram: Quantile %v, Count %d, Mean %v; want NaN, 0, 0", h.Quantile(0.5), h.Count(), h.Mean())
	}
	h.Record(-5) // a sample below the clock's cost
	if h.Quantile(0.5) != 0 || h.Max() != 0 {
		t.Errorf("negative sample: Quantile %v, Max %v; want it counted as 0", h.Quantile(0.5), h.Max())
	}
	for _, q := range []float64{0, -1, 1.5, math.NaN()} {
		if !math.IsNaN(h.Quantile(q)) {
			t.Errorf("Quantile(%v) = %v, want NaN", q, h.Quantile(q))
		}
	}
	var a, b Latency
	for i := range int64(100) {
		a.Record(i)
		b.Record(1000 + i)
	}
	a.Merge(&b)
	a.Merge(nil)
	// The median, 99, is in the 2 ns bucket [98, 100): its middle.
	if a.Count() != 200 || a.Max() != 1099 || a.Quantile(0.5) != 98.5 {
		t.Errorf("merged: Count %d, Max %v, p50 %v; want 200, 1099, 98.5", a.Count(), a.Max(), a.Quantile(0.5))
	}
}

// Recording is the per-batch cost of sampling: it must not allocate.
func TestLatencyRecordAllocates(t *testing.T) {
	h := new(Latency)
	if n := testing.AllocsPerRun(100, func() { h.Record(12345) }); n != 0 {
		t.Errorf("Record allocates %v times", n)
	}
}

func BenchmarkLatencyRecord(b *testing.B) {
	h := new(Latency)
	x := int64(1)
	for b.Loop() {
		h.Record(x)
		x = x*7 + 3&0xfffff
	}
}

// BenchmarkClock is what a timed sample costs besides the operation: two
// clock reads and an indirect call (calibrateClock's median, ns/pair; its
// ns/op is one whole calibration, 255 timed pairs and a sort).
func BenchmarkClock(b *testing.B) {
	var c int64
	for b.Loop() {
		c = calibrateClock()
	}
	b.ReportMetric(float64(c), "ns/pair")
}

func repeat(x int64, n int) []int64 {
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = x
	}
	return xs
}

func seq(lo, hi int64) []int64 {
	var xs []int64
	for x := lo; x <= hi; x++ {
		xs = append(xs, x)
	}
	return xs
}

func sample(n int, f func() int64) []int64 {
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = f()
	}
	return xs
}
