package nodemask

import "iter"

// Bitmap is a dynamically sized bitmap: a CPU mask of nr_cpu_ids bits, a set
// of CPUs read from sysfs, an affinity mask. The zero value is an empty
// bitmap of length 0, ready to use.
//
// Len is the bitmap's width, not its highest set bit: it decides how wide
// HexString prints, and Set grows it when a bit lands beyond it. Sets compare
// with Equal, which ignores Len. Methods that only read have value receivers
// so they work on results (m.Bitmap(n).Bits()); methods that write take a
// pointer. Like a slice, a Bitmap refers to its words: an assignment shares
// them, and Clone makes an independent copy.
type Bitmap struct {
	// words holds wordsFor(nbits) words; bits at and above nbits in the last
	// word are always zero, so Weight, Equal and the scans need no masking.
	words []uint64
	nbits int
}

// MaxBitmapBits bounds the bitmaps the parsers build, 1<<20 bits (128 KiB),
// far above any nr_cpu_ids (CONFIG_NR_CPUS is 8192 with x86_64 MAXSMP), so
// hostile input such as "0-99999999999" is an error instead of gigabytes of
// allocation. Set and NewBitmap, which take numbers from the program rather
// than from input, are not limited.
const MaxBitmapBits = 1 << 20

// NewBitmap returns an empty bitmap of length nbits (0 if nbits < 0).
func NewBitmap(nbits int) Bitmap {
	nbits = max(nbits, 0)
	return Bitmap{words: make([]uint64, wordsFor(nbits)), nbits: nbits}
}

// BitmapOf returns a bitmap holding the given bits, of length max+1 (negative
// bits are ignored). Handy in tests and for small CPU lists.
func BitmapOf(bits ...int) Bitmap {
	var b Bitmap
	for _, i := range bits {
		b.Set(i)
	}
	return b
}

// Len returns the bitmap's length in bits (nr_cpu_ids for a CPU mask).
func (b Bitmap) Len() int { return b.nbits }

// grow extends the bitmap to at least nbits bits, doubling the word slice so
// that setting CPUs one by one in ascending order stays linear.
func (b *Bitmap) grow(nbits int) {
	if nbits <= b.nbits {
		return
	}
	need, have := wordsFor(nbits), len(b.words)
	if need > cap(b.words) {
		w := make([]uint64, need, max(need, 2*cap(b.words)))
		copy(w, b.words)
		b.words = w
	} else {
		// Reuse spare capacity, which Resize may have left dirty.
		b.words = b.words[:need]
		clear(b.words[have:])
	}
	b.nbits = nbits
}

// trim clears the bits at and above nbits in the last word, restoring the
// invariant after an operation that wrote whole words.
func (b *Bitmap) trim() {
	if r := b.nbits % WordBits; r != 0 {
		b.words[len(b.words)-1] &= uint64(1)<<uint(r) - 1
	}
}

// Resize sets the bitmap's length to nbits (0 if negative), dropping bits at
// and above it when shrinking and adding clear bits when growing; e.g.
// Resize(nrCPUIDs) before HexString prints the width sysfs prints.
func (b *Bitmap) Resize(nbits int) {
	nbits = max(nbits, 0)
	if nbits >= b.nbits {
		b.grow(nbits)
		return
	}
	b.words = b.words[:wordsFor(nbits)]
	b.nbits = nbits
	b.trim()
}

// Set adds bit i, growing the bitmap to i+1 bits when i >= Len (CPU lists
// arrive in any order). It does nothing if i < 0.
func (b *Bitmap) Set(i int) {
	if i < 0 {
		return
	}
	if i >= b.nbits {
		b.grow(i + 1)
	}
	b.words[i/WordBits] |= 1 << (uint(i) % WordBits)
}

// SetRange adds bits [lo, hi), a word at a time, growing the bitmap to hi
// bits if needed. It does nothing if lo >= hi; lo < 0 acts as 0.
func (b *Bitmap) SetRange(lo, hi int) {
	lo = max(lo, 0)
	if lo >= hi {
		return
	}
	b.grow(hi)
	setRange(b.words, lo, hi)
}

// Clear removes bit i; the length does not change. It does nothing if i is
// out of range.
func (b *Bitmap) Clear(i int) {
	if uint(i) < uint(b.nbits) {
		b.words[i/WordBits] &^= 1 << (uint(i) % WordBits)
	}
}

// Test reports whether bit i is set; false when i is out of range.
func (b Bitmap) Test(i int) bool {
	return uint(i) < uint(b.nbits) && b.words[i/WordBits]&(1<<(uint(i)%WordBits)) != 0
}

// Weight returns the number of set bits.
func (b Bitmap) Weight() int { return weight(b.words) }

// Empty reports whether no bit is set.
func (b Bitmap) Empty() bool {
	for _, w := range b.words {
		if w != 0 {
			return false
		}
	}
	return true
}

// First returns the lowest set bit, or -1 if none.
func (b Bitmap) First() int {
	if r := findNextBit(b.words, b.nbits, -1); r < b.nbits {
		return r
	}
	return -1
}

// Next returns the lowest set bit greater than i, or -1 if none. It is the
// same word loop as Mask.Next (findNextBit), bounded by Len:
//
//	for c := b.First(); c >= 0; c = b.Next(c) { … }
func (b Bitmap) Next(i int) int {
	if r := findNextBit(b.words, b.nbits, i); r < b.nbits {
		return r
	}
	return -1
}

// Bits returns the set bits in ascending order.
func (b Bitmap) Bits() []int {
	out := make([]int, 0, b.Weight())
	for i := b.First(); i >= 0; i = b.Next(i) {
		out = append(out, i)
	}
	return out
}

// All returns an iterator over the set bits in ascending order.
func (b Bitmap) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := b.First(); i >= 0; i = b.Next(i) {
			if !yield(i) {
				return
			}
		}
	}
}

// Clone returns an independent copy with the same length and bits.
func (b Bitmap) Clone() Bitmap {
	c := NewBitmap(b.nbits)
	copy(c.words, b.words)
	return c
}

// combine builds a bitmap of length max(b.Len(), o.Len()) whose word i is
// op(b's word i, o's word i), missing words reading as zero.
func (b Bitmap) combine(o Bitmap, op func(x, y uint64) uint64) Bitmap {
	r := NewBitmap(max(b.nbits, o.nbits))
	for i := range r.words {
		var x, y uint64
		if i < len(b.words) {
			x = b.words[i]
		}
		if i < len(o.words) {
			y = o.words[i]
		}
		r.words[i] = op(x, y)
	}
	return r
}

// And returns the bits set in both b and o, of length max(b.Len(), o.Len()).
func (b Bitmap) And(o Bitmap) Bitmap {
	return b.combine(o, func(x, y uint64) uint64 { return x & y })
}

// Or returns the bits set in b or o, of length max(b.Len(), o.Len()).
func (b Bitmap) Or(o Bitmap) Bitmap {
	return b.combine(o, func(x, y uint64) uint64 { return x | y })
}

// AndNot returns the bits set in b but not in o, of length
// max(b.Len(), o.Len()).
func (b Bitmap) AndNot(o Bitmap) Bitmap {
	return b.combine(o, func(x, y uint64) uint64 { return x &^ y })
}

// Intersects reports whether b and o share a set bit.
func (b Bitmap) Intersects(o Bitmap) bool {
	for i := range min(len(b.words), len(o.words)) {
		if b.words[i]&o.words[i] != 0 {
			return true
		}
	}
	return false
}

// Subset reports whether every bit set in b is also set in o.
func (b Bitmap) Subset(o Bitmap) bool {
	for i, w := range b.words {
		var y uint64
		if i < len(o.words) {
			y = o.words[i]
		}
		if w&^y != 0 {
			return false
		}
	}
	return true
}

// Equal reports whether b and o hold the same set of bits, whatever their
// lengths: BitmapOf(3) equals NewBitmap(64) with bit 3 set.
func (b Bitmap) Equal(o Bitmap) bool {
	for i := range max(len(b.words), len(o.words)) {
		var x, y uint64
		if i < len(b.words) {
			x = b.words[i]
		}
		if i < len(o.words) {
			y = o.words[i]
		}
		if x != y {
			return false
		}
	}
	return true
}

// String returns the list form, "0-2,33-34,45,72-73", as sysfs cpulist files
// print it; "" for an empty bitmap.
func (b Bitmap) String() string { return string(appendList(nil, b.words, b.nbits, "-")) }

// DotString returns the list form with ranges written "lo..hi"
// ("0..2,33..34"), for sub-benchmark names: there a value ending in
// "-<digits>" would be read as a GOMAXPROCS suffix. ParseList reads it back.
func (b Bitmap) DotString() string { return string(appendList(nil, b.words, b.nbits, "..")) }

// HexString returns the mask form over Len bits, "00000000,0000000f" for a
// 64-bit bitmap holding 0-3, exactly as sysfs cpumap files print a mask of
// nr_cpu_ids bits (the most significant group is only as wide as its bits:
// 4 bits print "f"). "" for a 0-bit bitmap.
func (b Bitmap) HexString() string { return string(appendHex(nil, b.words, b.nbits)) }
