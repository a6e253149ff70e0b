package bench

import (
	"sync/atomic"
	"unsafe"

	"github.com/contend/contend/affinity"
)

// What hot loops share: words alone on their lines, and local work the
// compiler cannot remove.

// AlignedWords returns n words, each at the start of its own stride-byte
// block (stride a power of two: 64 for a line, 128 against the adjacent-line
// prefetcher). Go's allocator aligns only to the size class, so the buffer is
// over-allocated and the first aligned address taken; the memory holds no
// pointers, so the unsafe arithmetic is invisible to the GC. Call it on the
// worker's pinned thread for memory the worker alone writes, so that the
// first touch puts it on the worker's node.
func AlignedWords(n, stride int) []*atomic.Int64 {
	buf := AlignedBytes(n*stride, stride)
	words := make([]*atomic.Int64, n)
	for i := range words {
		words[i] = (*atomic.Int64)(unsafe.Pointer(&buf[i*stride]))
	}
	return words
}

// AlignedBytes returns size zeroed bytes starting on a multiple of align (a
// power of two), for a scenario that lays out a kernel structure's fields
// at their own offsets (struct rq, a cpumask and its count).
func AlignedBytes(size, align int) []byte {
	buf := make([]byte, size+align)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	off := int((uintptr(align) - base%uintptr(align)) % uintptr(align))
	return buf[off : off+size : off+size]
}

// LocalWork stands for the rest of what a real event does, the "local work
// between operations" that decides whether contention shows at all: steps
// dependent xorshift steps the compiler cannot remove or vectorize, about a
// nanosecond each. Thread x through from one call to the next.
func LocalWork(x uint64, steps int) uint64 {
	for range steps {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// XorShift advances a xorshift64* generator and returns its next value: a
// worker's own random draws in a hot loop, cheap and deterministic per seed
// (a run replays the same events), good for scheduling a model's events and
// nothing else. The state must not be zero.
func XorShift(x *uint64) uint64 {
	*x ^= *x >> 12
	*x ^= *x << 25
	*x ^= *x >> 27
	return *x * 0x2545f4914f6cdd1d
}

// LinePad is the padding that keeps a hot word alone: the larger of
// affinity.PairStride and affinity.MaxLineSize. On x86 that is 128 bytes,
// two cache lines, because Intel's L2 adjacent-line prefetcher pulls lines
// in 128-byte pairs, so two words 64 bytes apart can still bounce together;
// elsewhere 256, the largest line (arm64's A64FX): a pad of 128 there would
// leave two hot words on one line, and counter refuses stride=128 there for
// the same reason. (This machine's line is affinity.LineSize; a constant
// must cover the architecture's largest, and Run refuses a machine whose
// line exceeds it.) Scenarios pad their per-worker state and shared words
// by it, and align words with AlignedWords(n, LinePad).
const LinePad = max(affinity.PairStride, affinity.MaxLineSize)
