package nodemask

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randWords returns n words whose bits are sparse, dense or mixed, so scans
// meet long zero runs as well as full words.
func randWords(rng *rand.Rand, n int) []uint64 {
	w := make([]uint64, n)
	for i := range w {
		switch rng.IntN(4) {
		case 0: // zero word
		case 1:
			w[i] = ^uint64(0)
		case 2:
			w[i] = 1 << rng.IntN(64)
		default:
			w[i] = rng.Uint64()
		}
	}
	return w
}

func wordsRef(words []uint64) ref {
	r := make(ref, len(words)*WordBits)
	for i := range r {
		r[i] = words[i/WordBits]>>(uint(i)%WordBits)&1 != 0
	}
	return r
}

// TestFindNext checks the word loops against a bit-by-bit scan for every
// start and bound, including bounds inside a word and starts past the bound,
// and that the counting copy agrees with the measured one.
func TestFindNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	iters := 200
	if testing.Short() {
		iters = 30
	}
	for range iters {
		words := randWords(rng, 1+rng.IntN(4))
		r := wordsRef(words)
		inv := make(ref, len(r))
		for i := range r {
			inv[i] = !r[i]
		}
		for _, size := range []int{0, 1, 63, 64, 65, rng.IntN(len(r) + 1), len(r)} {
			if size > len(r) {
				continue
			}
			for n := -3; n <= size+2; n++ {
				want := r.next(n, size)
				if want < 0 {
					want = size
				}
				if got := findNextBit(words, size, n); got != want {
					t.Fatalf("findNextBit(%#x, %d, %d) = %d, want %d", words, size, n, got, want)
				}
				got, read := findNextBitCounted(words, size, n)
				if got != want {
					t.Fatalf("findNextBitCounted(%#x, %d, %d) = %d, want %d", words, size, n, got, want)
				}
				if maxRead := wordsFor(size); read > maxRead || (read == 0 && max(n, -1)+1 < size) {
					t.Fatalf("findNextBitCounted(%#x, %d, %d) read %d words, want 1..%d", words, size, n, read, maxRead)
				}
				wantZero := inv.next(n, size)
				if wantZero < 0 {
					wantZero = size
				}
				if got := findNextZero(words, size, n); got != wantZero {
					t.Fatalf("findNextZero(%#x, %d, %d) = %d, want %d", words, size, n, got, wantZero)
				}
			}
		}
	}
	if got := findNextBit(nil, 0, -100); got != 0 {
		t.Errorf("findNextBit(nil, 0, -100) = %d, want 0", got)
	}
	// Sizes beyond the words: words past the end read as zero, and the size
	// comes back when nothing is found.
	tests := []struct {
		words      []uint64
		size, n    int
		want, read int
	}{
		{[]uint64{1}, 64, math.MaxInt, 64, 0},
		{[]uint64{0}, 1000, 5, 1000, 1},
		{[]uint64{1 << 10}, 1000, 5, 10, 1},
		{[]uint64{0, 1 << 3}, 1000, 5, 67, 2},
		{[]uint64{0, 0}, 1000, 200, 1000, 0},
		{[]uint64{1}, -3, -1, -3, 0},
		{[]uint64{1}, math.MinInt, -1, math.MinInt, 0},
	}
	for _, tt := range tests {
		if got := findNextBit(tt.words, tt.size, tt.n); got != tt.want {
			t.Errorf("findNextBit(%#x, %d, %d) = %d, want %d", tt.words, tt.size, tt.n, got, tt.want)
		}
		if got, read := findNextBitCounted(tt.words, tt.size, tt.n); got != tt.want || read != tt.read {
			t.Errorf("findNextBitCounted(%#x, %d, %d) = %d, %d, want %d, %d", tt.words, tt.size, tt.n, got, read, tt.want, tt.read)
		}
	}
}

// TestSetRange checks the word-at-a-time fill against setting bits one by
// one, across word boundaries.
func TestSetRange(t *testing.T) {
	const nwords = 4
	for lo := 0; lo <= nwords*WordBits; lo++ {
		for _, hi := range []int{lo, lo + 1, lo + 63, lo + 64, lo + 65, nwords * WordBits} {
			if hi > nwords*WordBits || hi < lo {
				continue
			}
			got := make([]uint64, nwords)
			setRange(got, lo, hi)
			want := make([]uint64, nwords)
			for i := lo; i < hi; i++ {
				want[i/WordBits] |= 1 << (uint(i) % WordBits)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("setRange(%d, %d) = %#x, want %#x", lo, hi, got, want)
				}
			}
		}
	}
}
