package nodemask

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBitmapZeroValue(t *testing.T) {
	var b Bitmap
	checkBitmap(t, "zero Bitmap", b, nil)
	b.Clear(3)
	checkBitmap(t, "zero Bitmap after Clear(3)", b, nil)
	b.Set(-1)
	checkBitmap(t, "zero Bitmap after Set(-1)", b, nil)
	if !b.Equal(NewBitmap(200)) {
		t.Errorf("zero Bitmap not Equal to NewBitmap(200)")
	}
}

// TestBitmapBoundaries sets single bits and pairs at word boundaries, in
// bitmaps of boundary lengths, checking every operation against the reference.
func TestBitmapBoundaries(t *testing.T) {
	for _, nbits := range []int{0, 1, 63, 64, 65, 128, 1023, 1024, 1025} {
		for _, i := range []int{0, 31, 32, 62, 63, 64, 65, 127, 128, 1022, 1023, 1024} {
			b := NewBitmap(nbits)
			r := make(ref, nbits)
			b.Set(i)
			r.set(i)
			checkBitmap(t, fmt.Sprintf("NewBitmap(%d)+Set(%d)", nbits, i), b, r)
			b.Set(i + 1)
			r.set(i + 1)
			checkBitmap(t, fmt.Sprintf("NewBitmap(%d)+Set(%d,%d)", nbits, i, i+1), b, r)
			b.Clear(i)
			r.clear(i)
			checkBitmap(t, fmt.Sprintf("NewBitmap(%d)+Set(%d,%d)-Clear(%d)", nbits, i, i+1, i), b, r)
		}
	}
}

func TestBitmapOf(t *testing.T) {
	tests := []struct {
		bits     []int
		list     string
		hex      string
		len      int
		weight   int
		first    int
		wantBits []int
	}{
		{nil, "", "", 0, 0, -1, []int{}},
		{[]int{0}, "0", "1", 1, 1, 0, []int{0}},
		{[]int{3, 1, 2, 0}, "0-3", "f", 4, 4, 0, []int{0, 1, 2, 3}},
		{[]int{63}, "63", "80000000,00000000", 64, 1, 63, []int{63}},
		{[]int{64, 64, -7}, "64", "1,00000000,00000000", 65, 1, 64, []int{64}},
		{[]int{73, 0, 1, 2, 33, 34, 45, 72}, "0-2,33-34,45,72-73", "300,00002006,00000007", 74, 8, 0, []int{0, 1, 2, 33, 34, 45, 72, 73}},
	}
	for _, tt := range tests {
		b := BitmapOf(tt.bits...)
		if got := b.String(); got != tt.list {
			t.Errorf("BitmapOf(%v).String() = %q, want %q", tt.bits, got, tt.list)
		}
		if got := b.HexString(); got != tt.hex {
			t.Errorf("BitmapOf(%v).HexString() = %q, want %q", tt.bits, got, tt.hex)
		}
		if b.Len() != tt.len || b.Weight() != tt.weight || b.First() != tt.first {
			t.Errorf("BitmapOf(%v): Len, Weight, First = %d, %d, %d, want %d, %d, %d",
				tt.bits, b.Len(), b.Weight(), b.First(), tt.len, tt.weight, tt.first)
		}
		if got := b.Bits(); !slices.Equal(got, tt.wantBits) {
			t.Errorf("BitmapOf(%v).Bits() = %v, want %v", tt.bits, got, tt.wantBits)
		}
	}
}

func TestBitmapResize(t *testing.T) {
	b := BitmapOf(1, 63, 64, 130)
	b.Resize(64)
	if got := b.String(); got != "1,63" || b.Len() != 64 {
		t.Errorf("Resize(64) = %q (Len %d), want %q (Len 64)", got, b.Len(), "1,63")
	}
	b.Resize(2)
	if got := b.String(); got != "1" || b.Len() != 2 {
		t.Errorf("Resize(2) = %q (Len %d), want %q (Len 2)", got, b.Len(), "1")
	}
	// Growing back within the old capacity must not resurrect dropped bits.
	b.Resize(200)
	if got := b.String(); got != "1" || b.Len() != 200 {
		t.Errorf("Resize(200) = %q (Len %d), want %q (Len 200)", got, b.Len(), "1")
	}
	b.Resize(-4)
	if b.Len() != 0 || !b.Empty() {
		t.Errorf("Resize(-4) = %q (Len %d), want empty", b.String(), b.Len())
	}
	b.Set(130)
	if got := b.String(); got != "130" {
		t.Errorf("Set(130) after shrinking = %q, want %q", got, "130")
	}
}

func TestBitmapClone(t *testing.T) {
	a := BitmapOf(1, 2, 3)
	c := a.Clone()
	c.Set(2000)
	c.Clear(1)
	if got := a.String(); got != "1-3" || a.Len() != 4 {
		t.Errorf("Clone shares bits: original now %q (Len %d)", got, a.Len())
	}
}

func TestBitmapSetOps(t *testing.T) {
	a := BitmapOf(0, 1, 63, 64, 200)
	b := BitmapOf(1, 64, 65)
	tests := []struct {
		name string
		got  Bitmap
		want string
		len  int
	}{
		{"And", a.And(b), "1,64", 201},
		{"Or", a.Or(b), "0-1,63-65,200", 201},
		{"AndNot", a.AndNot(b), "0,63,200", 201},
		{"b.AndNot(a)", b.AndNot(a), "65", 201},
		{"And(empty)", a.And(Bitmap{}), "", 201},
		{"empty.Or", (Bitmap{}).Or(b), "1,64-65", 66},
	}
	for _, tt := range tests {
		if got := tt.got.String(); got != tt.want || tt.got.Len() != tt.len {
			t.Errorf("%s(%v, %v) = %q (Len %d), want %q (Len %d)", tt.name, a, b, got, tt.got.Len(), tt.want, tt.len)
		}
	}
	if !a.Intersects(b) || a.Intersects(BitmapOf(2, 3, 500)) || (Bitmap{}).Intersects(a) {
		t.Errorf("Intersects wrong for %v", a)
	}
	if !a.And(b).Subset(a) || a.Subset(b) || !(Bitmap{}).Subset(b) || BitmapOf(700).Subset(b) {
		t.Errorf("Subset wrong for %v, %v", a, b)
	}
	long := NewBitmap(4096)
	long.Set(1)
	if !long.Equal(BitmapOf(1)) || !BitmapOf(1).Equal(long) || long.Equal(BitmapOf(1, 4000)) {
		t.Errorf("Equal must compare sets regardless of Len")
	}
}

func TestBitmapDotString(t *testing.T) {
	b := BitmapOf(0, 1, 2, 3, 8)
	if got := b.DotString(); got != "0..3,8" {
		t.Errorf("DotString() = %q, want %q", got, "0..3,8")
	}
	p, err := ParseList(b.DotString())
	if err != nil || !p.Equal(b) {
		t.Errorf("ParseList(%q) = %v, %v, want %v", b.DotString(), p, err, b)
	}
}

// TestBitmapProperty applies random operation sequences to a Bitmap and to
// the []bool reference and compares every read-side result after each step,
// including both text forms and their parsers.
func TestBitmapProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	iters := 200
	if testing.Short() {
		iters = 40
	}
	for it := range iters {
		nbits := []int{0, 1, 63, 64, 65, 128, 1023, 1024, 1025, rng.IntN(3000)}[it%10]
		b, r := NewBitmap(nbits), make(ref, nbits)
		var log []string
		for range 1 + rng.IntN(30) {
			i := rng.IntN(len(r)+130) - 2
			switch rng.IntN(10) {
			case 0, 1, 2, 3:
				b.Set(i)
				r.set(i)
				log = append(log, fmt.Sprintf("Set(%d)", i))
			case 4, 5:
				b.Clear(i)
				r.clear(i)
				log = append(log, fmt.Sprintf("Clear(%d)", i))
			case 6, 7:
				hi := i + rng.IntN(200)
				b.SetRange(i, hi)
				for k := max(i, 0); k < hi; k++ {
					r.set(k)
				}
				log = append(log, fmt.Sprintf("SetRange(%d, %d)", i, hi))
			case 8:
				b.Resize(i)
				r.resize(i)
				log = append(log, fmt.Sprintf("Resize(%d)", i))
			case 9:
				o := BitmapOf(rng.IntN(300), rng.IntN(300), rng.IntN(70))
				var want ref
				switch rng.IntN(3) {
				case 0:
					b = b.And(o)
					want = combineRef(r, o, func(x, y bool) bool { return x && y })
					log = append(log, fmt.Sprintf("And(%v)", o))
				case 1:
					b = b.Or(o)
					want = combineRef(r, o, func(x, y bool) bool { return x || y })
					log = append(log, fmt.Sprintf("Or(%v)", o))
				case 2:
					b = b.AndNot(o)
					want = combineRef(r, o, func(x, y bool) bool { return x && !y })
					log = append(log, fmt.Sprintf("AndNot(%v)", o))
				}
				r = want
			}
			what := fmt.Sprintf("NewBitmap(%d) %v", nbits, log)
			checkBitmap(t, what, b, r)
			fromBits := BitmapOf(r.bits()...)
			if !b.Equal(fromBits) || !fromBits.Equal(b) {
				t.Fatalf("%s: not Equal to BitmapOf(%v)", what, r.bits())
			}
			p, err := ParseList(b.String())
			if err != nil || !p.Equal(b) {
				t.Fatalf("%s: ParseList(%q) = %v, %v", what, b.String(), p, err)
			}
			h, err := ParseHex(b.HexString())
			if err != nil || !h.Equal(b) || h.HexString() != b.HexString() {
				t.Fatalf("%s: ParseHex(%q) = %v, %v", what, b.HexString(), h, err)
			}
		}
	}
}

// combineRef applies op bit by bit over the longer of the two lengths.
func combineRef(r ref, o Bitmap, op func(x, y bool) bool) ref {
	out := make(ref, max(len(r), o.Len()))
	for i := range out {
		out[i] = op(r.test(i), o.Test(i))
	}
	return out
}
