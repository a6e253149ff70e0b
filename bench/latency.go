package bench

import (
	"math"
	"math/bits"
	"time"
)

// Operation latency, sampled. ns/op is elapsed time over all operations: the
// inverse of throughput, blind to a tail. The seeds' engineers also read
// schbench's p50 … p99.9, so every run times single operations too.
//
// The runner times one operation per batch (see batches): a batch of k
// operations runs as Run(k-1), then a clock read, Run(1), and a second clock
// read, which is also the batch's end time the runner reads anyway. Sampling
// thus adds one clock read, one indirect call and a histogram update per
// batch of about 50 µs, and the scenario's hot loop is untouched. Batches
// grow to about 50 µs, so a worker yields about 20 000 samples a second,
// whatever an operation costs: one operation in N, N the batch size.
//
// A sample is the time between two monotonic clock reads (runtime nanotime
// through the vDSO with the TSC clocksource: a back-to-back pair and the
// call cost 30-40 ns on the 2-vCPU KVM guest, BenchmarkClock) around one
// call of Run(1), less the median of the same measurement around an empty
// Run(1) of a do-nothing worker, taken on the worker's own thread before
// the release: the clock reads and the indirect call cancel, and what
// remains is the operation. Samples that come out negative (an operation
// cheaper than the clock's jitter) count as 0. The clock resolves 1 ns, but
// its own jitter is several, and its tail after a 50 µs batch reaches a few
// hundred ns on that guest, so the median of a 2 ns operation reads 0-20 ns
// and its p99 is the clock's, not the operation's.
//
// What a sample means: the timed operation follows the first clock read, a
// pause of some 20 ns, so on a contended line it usually finds the line in
// another CPU's cache and pays the transfer. p50 is then the cost of an
// operation that must fetch the line (on the guest, two workers adding to
// one line: ns/op 5 ns, p50 240 ns), which is what the kernel pays when it
// touches a shared line after other work; ns/op is lower wherever a worker
// keeps the line for a run of operations.

// Log-linear buckets: values below 2·latSub ns exactly, above that latSub
// buckets per power of two, so a bucket is at most 1/latSub (3.1%) of its
// value wide and a quantile reported at the bucket's middle is within 1.6%.
const (
	latSubBits = 5
	latSub     = 1 << latSubBits
	// latBuckets covers every non-negative int64.
	latBuckets = (64 - latSubBits) << latSubBits
)

// A Latency is a fixed histogram of sampled operation latencies in
// nanoseconds, log-linear, allocated once per worker (15 KiB) so that
// recording a sample never allocates. The zero Latency is empty and ready to
// use. A Latency belongs to one worker; Merge combines them.
type Latency struct {
	counts [latBuckets]uint64
	n      uint64
	sum    int64
	max    int64
}

// latBucket returns the bucket of v: v itself below 2·latSub; above, the
// power of two (e) and the top latSubBits bits below the leading one.
func latBucket(v uint64) int {
	if v < 2*latSub {
		return int(v)
	}
	e := bits.Len64(v) - (latSubBits + 1)
	return e<<latSubBits + int(v>>e)
}

// latBounds returns the smallest value of bucket i and its width.
func latBounds(i int) (low, width uint64) {
	if i < 2*latSub {
		return uint64(i), 1
	}
	e := i>>latSubBits - 1
	m := uint64(i - e<<latSubBits)
	return m << e, 1 << e
}

// Record adds one sample of ns nanoseconds; negative samples count as 0.
func (h *Latency) Record(ns int64) {
	ns = max(ns, 0)
	h.counts[latBucket(uint64(ns))]++
	h.n++
	h.sum += ns
	h.max = max(h.max, ns)
}

// Merge adds o's samples to h.
func (h *Latency) Merge(o *Latency) {
	if o == nil {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Count returns the number of samples.
func (h *Latency) Count() int64 { return int64(h.n) }

// Max returns the largest sample, exactly.
func (h *Latency) Max() time.Duration { return time.Duration(h.max) }

// Mean returns the mean sample; 0 without samples.
func (h *Latency) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / int64(h.n))
}

// Quantile returns the q-quantile (0 < q ≤ 1) of the samples by the
// nearest-rank rule: the smallest sample that at least q of the samples do
// not exceed. It is exact below 64 ns and otherwise the middle of the
// sample's bucket (within 1.6%), never above the largest sample. NaN without
// samples.
func (h *Latency) Quantile(q float64) float64 {
	if h.n == 0 || !(q > 0 && q <= 1) {
		return math.NaN()
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			low, width := latBounds(i)
			mid := float64(low) + float64(width-1)/2
			return min(mid, float64(h.max))
		}
	}
	return float64(h.max) // not reached: the counts sum to n
}
