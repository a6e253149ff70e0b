package nodemask

import "strconv"

// appendList appends the list form of bits [0, size) of words: maximal runs
// of set bits as "lo-hi", single bits as "n", joined by commas, as the
// kernel's bitmap_print_list_to_buf ("%*pbl") writes them. rangeSep is "-"
// for the kernel form and ".." for benchmark names (see Bitmap.DotString).
// Runs are found a word at a time with findNextBit/findNextZero.
func appendList(dst []byte, words []uint64, size int, rangeSep string) []byte {
	first := true
	for lo := findNextBit(words, size, -1); lo < size; {
		end := findNextZero(words, size, lo) // first clear bit after the run
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = strconv.AppendInt(dst, int64(lo), 10)
		if end-1 > lo {
			dst = append(dst, rangeSep...)
			dst = strconv.AppendInt(dst, int64(end-1), 10)
		}
		lo = findNextBit(words, size, end)
	}
	return dst
}

// hexChunk is the kernel's CHUNKSZ for "%*pb": masks are printed as 32-bit
// groups whatever the word size, so output is the same on 32- and 64-bit
// kernels.
const hexChunk = 32

// appendHex appends the mask form of bits [0, nbits) of words exactly as the
// kernel's bitmap_string ("%*pb", used for /sys cpumap files) does: 32-bit
// groups, most significant first, separated by commas, each zero-padded to 8
// hex digits except the most significant, which gets only as many digits as
// its bits need (nbits=4 prints "f", nbits=64 prints "00000000,0000000f").
// Zero bits print nothing.
func appendHex(dst []byte, words []uint64, nbits int) []byte {
	if nbits <= 0 {
		return dst
	}
	chunk := nbits % hexChunk
	if chunk == 0 {
		chunk = hexChunk
	}
	top := (nbits+hexChunk-1)/hexChunk*hexChunk - hexChunk
	for i := top; i >= 0; i -= hexChunk {
		val := uint32(words[i/WordBits]>>(uint(i)%WordBits)) & uint32(uint64(1)<<chunk-1)
		if i != top {
			dst = append(dst, ',')
		}
		width := (chunk + 3) / 4
		for d := width - 1; d >= 0; d-- {
			dst = append(dst, "0123456789abcdef"[val>>(4*uint(d))&0xf])
		}
		chunk = hexChunk
	}
	return dst
}
