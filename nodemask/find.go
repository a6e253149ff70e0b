package nodemask

import "math/bits"

// WordBits is the width of one bitmap word: the kernel's BITS_PER_LONG on
// 64-bit machines, and the unit every scan in this package reads.
const WordBits = 64

// wordsFor returns how many words hold nbits bits (BITS_TO_LONGS).
func wordsFor(nbits int) int { return (nbits + WordBits - 1) / WordBits }

// findNextBit returns the lowest set bit of words that is greater than n and
// less than size, or size if there is none. It is the kernel's
// _find_next_bit: mask off the bits below the start in the first word, then
// read whole words until one is non-zero or the bound is passed, and take its
// trailing-zero count. Bits at or above size in the last word read may be set
// (a Mask holds bits above nr_node_ids); the min discards them.
//
// Any size is accepted: words past the end of the slice read as zero (a bound
// above MaxNumNodes scans the whole Mask and still returns the bound, so a
// loop "n < bound" ends), and a size <= 0 returns size at once. Mask.Next and
// Mask.NextBelow both call this and differ only in the size they pass, which
// is what makes their benchmark a comparison of bounds alone. Kept out of
// line so perf annotate shows the scan loop under its own name.
//
//go:noinline
func findNextBit(words []uint64, size, n int) int {
	if n < 0 {
		n = -1
	}
	if size <= 0 || n >= size-1 { // written so n+1 cannot overflow
		return size
	}
	start := n + 1
	i := start / WordBits
	if i >= len(words) {
		return size
	}
	w := words[i] & (^uint64(0) << (uint(start) % WordBits))
	for w == 0 {
		i++
		if i*WordBits >= size || i >= len(words) {
			return size
		}
		w = words[i]
	}
	return min(i*WordBits+bits.TrailingZeros64(w), size)
}

// findNextBitCounted is findNextBit that also reports how many words it read.
// It is a separate copy so the measured loop carries no counter; a test checks
// that both return the same bit for the same input.
func findNextBitCounted(words []uint64, size, n int) (next, read int) {
	if n < 0 {
		n = -1
	}
	if size <= 0 || n >= size-1 {
		return size, 0
	}
	start := n + 1
	i := start / WordBits
	if i >= len(words) {
		return size, 0
	}
	w := words[i] & (^uint64(0) << (uint(start) % WordBits))
	read = 1
	for w == 0 {
		i++
		if i*WordBits >= size || i >= len(words) {
			return size, read
		}
		w = words[i]
		read++
	}
	return min(i*WordBits+bits.TrailingZeros64(w), size), read
}

// findNextZero returns the lowest clear bit greater than n and less than
// size, or size if there is none. Formatting uses it to find where a run of
// set bits ends; it is findNextBit over inverted words.
func findNextZero(words []uint64, size, n int) int {
	if n < 0 {
		n = -1
	}
	if size <= 0 || n >= size-1 {
		return size
	}
	start := n + 1
	i := start / WordBits
	if i >= len(words) {
		return size
	}
	w := ^words[i] & (^uint64(0) << (uint(start) % WordBits))
	for w == 0 {
		i++
		if i*WordBits >= size || i >= len(words) {
			return size
		}
		w = ^words[i]
	}
	return min(i*WordBits+bits.TrailingZeros64(w), size)
}

// weight counts the set bits of words (bitmap_weight).
func weight(words []uint64) int {
	n := 0
	for _, w := range words {
		n += bits.OnesCount64(w)
	}
	return n
}

// setRange sets bits [lo, hi) of words a word at a time (bitmap_set), so that
// parsing "0-8191" costs 128 stores rather than 8192.
func setRange(words []uint64, lo, hi int) {
	if lo >= hi {
		return
	}
	first, last := lo/WordBits, (hi-1)/WordBits
	firstMask := ^uint64(0) << (uint(lo) % WordBits)
	lastMask := ^uint64(0) >> (WordBits - 1 - uint(hi-1)%WordBits)
	if first == last {
		words[first] |= firstMask & lastMask
		return
	}
	words[first] |= firstMask
	for i := first + 1; i < last; i++ {
		words[i] = ^uint64(0)
	}
	words[last] |= lastMask
}
