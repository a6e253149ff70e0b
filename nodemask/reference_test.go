package nodemask

import (
	"fmt"
	"strings"
	"testing"
)

// ref is the trivially correct reference bitmap the tests compare against:
// one bool per bit, every operation a plain loop over bits. Its length is the
// Bitmap's Len.
type ref []bool

func (r ref) test(i int) bool { return i >= 0 && i < len(r) && r[i] }

func (r *ref) set(i int) {
	if i < 0 {
		return
	}
	for len(*r) <= i {
		*r = append(*r, false)
	}
	(*r)[i] = true
}

func (r ref) clear(i int) {
	if i >= 0 && i < len(r) {
		r[i] = false
	}
}

func (r *ref) resize(n int) {
	n = max(n, 0)
	for len(*r) < n {
		*r = append(*r, false)
	}
	*r = (*r)[:n]
}

func (r ref) weight() int {
	n := 0
	for _, v := range r {
		if v {
			n++
		}
	}
	return n
}

// next is the lowest set bit > n and < bound (and < len), or -1.
func (r ref) next(n, bound int) int {
	for i := max(n+1, 0); i < bound && i < len(r); i++ {
		if r[i] {
			return i
		}
	}
	return -1
}

// nexts returns, for each i, the lowest set bit >= i (or -1): every answer
// of next at once, so checks stay linear in the length.
func (r ref) nexts() []int {
	out := make([]int, len(r))
	following := -1
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] {
			following = i
		}
		out[i] = following
	}
	return out
}

func (r ref) bits() []int {
	out := []int{}
	for i, v := range r {
		if v {
			out = append(out, i)
		}
	}
	return out
}

// list writes the list form by walking bits one at a time.
func (r ref) list(sep string) string {
	var parts []string
	for i := 0; i < len(r); i++ {
		if !r[i] {
			continue
		}
		j := i
		for j+1 < len(r) && r[j+1] {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d%s%d", i, sep, j))
		} else {
			parts = append(parts, fmt.Sprint(i))
		}
		i = j
	}
	return strings.Join(parts, ",")
}

// hex writes the mask form nibble by nibble from single bits: 32-bit groups,
// most significant first, the first group only as wide as its bits need.
func (r ref) hex() string {
	n := len(r)
	if n == 0 {
		return ""
	}
	groups := (n + 31) / 32
	var sb strings.Builder
	for g := groups - 1; g >= 0; g-- {
		digits := 8
		if g == groups-1 {
			digits = (n - 32*g + 3) / 4
		}
		if g != groups-1 {
			sb.WriteByte(',')
		}
		for d := digits - 1; d >= 0; d-- {
			v := 0
			for k := 0; k < 4; k++ {
				if r.test(32*g + 4*d + k) {
					v |= 1 << k
				}
			}
			sb.WriteByte("0123456789abcdef"[v])
		}
	}
	return sb.String()
}

// checkBitmap compares every read-side operation of b against r and checks
// the internal invariant (no bits at or above Len).
func checkBitmap(t *testing.T, what string, b Bitmap, r ref) {
	t.Helper()
	if b.Len() != len(r) {
		t.Fatalf("%s: Len() = %d, want %d", what, b.Len(), len(r))
	}
	if len(b.words) != wordsFor(b.nbits) {
		t.Fatalf("%s: %d words for %d bits", what, len(b.words), b.nbits)
	}
	if rem := b.nbits % WordBits; rem != 0 && b.words[len(b.words)-1]>>uint(rem) != 0 {
		t.Fatalf("%s: bits set above Len %d: last word %#x", what, b.nbits, b.words[len(b.words)-1])
	}
	nexts := r.nexts()
	for i := -2; i < len(r)+WordBits+2; i++ {
		if got, want := b.Test(i), r.test(i); got != want {
			t.Fatalf("%s: Test(%d) = %v, want %v", what, i, got, want)
		}
		want := -1
		if k := max(i+1, 0); k < len(nexts) {
			want = nexts[k]
		}
		if got := b.Next(i); got != want {
			t.Fatalf("%s: Next(%d) = %d, want %d", what, i, got, want)
		}
	}
	if got, want := b.First(), r.next(-1, len(r)); got != want {
		t.Fatalf("%s: First() = %d, want %d", what, got, want)
	}
	if got, want := b.Weight(), r.weight(); got != want {
		t.Fatalf("%s: Weight() = %d, want %d", what, got, want)
	}
	if got, want := b.Empty(), r.weight() == 0; got != want {
		t.Fatalf("%s: Empty() = %v, want %v", what, got, want)
	}
	if got, want := fmt.Sprint(b.Bits()), fmt.Sprint(r.bits()); got != want {
		t.Fatalf("%s: Bits() = %s, want %s", what, got, want)
	}
	if got, want := b.String(), r.list("-"); got != want {
		t.Fatalf("%s: String() = %q, want %q", what, got, want)
	}
	if got, want := b.DotString(), r.list(".."); got != want {
		t.Fatalf("%s: DotString() = %q, want %q", what, got, want)
	}
	if got, want := b.HexString(), r.hex(); got != want {
		t.Fatalf("%s: HexString() = %q, want %q", what, got, want)
	}
}
