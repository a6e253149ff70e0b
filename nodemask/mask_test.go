package nodemask

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// boundaryNodes are the ids where word arithmetic goes wrong first.
var boundaryNodes = []int{0, 1, 62, 63, 64, 65, 127, 128, 129, 511, 512, 1022, 1023}

func TestMaskSetClearTest(t *testing.T) {
	for _, n := range boundaryNodes {
		var m Mask
		m.Set(n)
		for _, k := range boundaryNodes {
			if got, want := m.Test(k), k == n; got != want {
				t.Errorf("MaskOf(%d).Test(%d) = %v, want %v", n, k, got, want)
			}
		}
		if got := m.Weight(); got != 1 {
			t.Errorf("MaskOf(%d).Weight() = %d, want 1", n, got)
		}
		if got := m.First(); got != n {
			t.Errorf("MaskOf(%d).First() = %d, want %d", n, got, n)
		}
		if got := m.String(); got != fmt.Sprint(n) {
			t.Errorf("MaskOf(%d).String() = %q, want %q", n, got, fmt.Sprint(n))
		}
		m.Clear(n)
		if !m.Empty() || m.Test(n) {
			t.Errorf("MaskOf(%d) after Clear(%d) = %v, want empty", n, n, m)
		}
	}
}

func TestMaskOutOfRange(t *testing.T) {
	for _, n := range []int{-1, MaxNumNodes, MaxNumNodes + 1, math.MaxInt, math.MinInt} {
		m := MaskOf(5)
		m.Set(n)
		m.Clear(n)
		if m != MaskOf(5) {
			t.Errorf("Set/Clear(%d) changed the mask to %v", n, m)
		}
		if m.Test(n) {
			t.Errorf("Test(%d) = true, want false", n)
		}
	}
}

func TestMaskValueSemantics(t *testing.T) {
	a := MaskOf(1, 2)
	b := a
	b.Set(70)
	if a.Test(70) || a == b || a.Equal(&b) {
		t.Errorf("copy shares bits: a = %v, b = %v", a, b)
	}
	b.Clear(70)
	if a != b || !a.Equal(&b) {
		t.Errorf("a = %v, b = %v, want equal", a, b)
	}
	if got := fmt.Sprint(a); got != "1-2" {
		t.Errorf("fmt.Sprint(Mask) = %q, want %q", got, "1-2")
	}
}

// walk collects a for_each_node_mask loop using one of the three searches.
func walkNext(m *Mask) []int {
	out := []int{}
	for n := m.First(); n < MaxNumNodes; n = m.Next(n) {
		out = append(out, n)
	}
	return out
}

func walkBelow(m *Mask, nr int) []int {
	out := []int{}
	for n := m.NextBelow(-1, nr); n < nr; n = m.NextBelow(n, nr) {
		out = append(out, n)
	}
	return out
}

func walkSmall(m *Mask) []int {
	out := []int{}
	for n := m.NextSmall(-1); n < WordBits; n = m.NextSmall(n) {
		out = append(out, n)
	}
	return out
}

// TestMaskIterationVariants checks that the full scan, the nr_node_ids-bounded
// scan and the one-word fast path visit the same nodes in the same order on
// the layouts the benchmarks use and at word boundaries.
func TestMaskIterationVariants(t *testing.T) {
	tests := []struct {
		list string
		nr   int // nr_node_ids: highest possible node + 1
	}{
		{"", 1},
		{"0", 1},
		{"0-1", 2},
		{"0-3", 4},
		{"0-7", 8},
		{"0-2,33-34,45,72-73", 74},
		{"63", 64},
		{"0,63", 64},
		{"64", 65},
		{"63-65", 66},
		{"1023", 1024},
		{"0,1023", 1024},
		{"0-1023", 1024},
	}
	for _, tt := range tests {
		m, err := ParseMask(tt.list)
		if err != nil {
			t.Fatal(err)
		}
		want := m.Nodes()
		if got := walkNext(&m); !slices.Equal(got, want) {
			t.Errorf("%q: Next walk = %v, want %v", tt.list, got, want)
		}
		for _, nr := range []int{tt.nr, MaxNumNodes, MaxNumNodes + 5} {
			if got := walkBelow(&m, nr); !slices.Equal(got, want) {
				t.Errorf("%q: NextBelow walk (nr=%d) = %v, want %v", tt.list, nr, got, want)
			}
		}
		if tt.nr <= WordBits {
			if got := walkSmall(&m); !slices.Equal(got, want) {
				t.Errorf("%q: NextSmall walk = %v, want %v", tt.list, got, want)
			}
		}
		if got := fmt.Sprint(want); got != fmt.Sprint(m.Bitmap(MaxNumNodes).Bits()) {
			t.Errorf("%q: Nodes() = %s, want %s", tt.list, got, fmt.Sprint(m.Bitmap(MaxNumNodes).Bits()))
		}
	}
}

// TestMaskBounds checks what each search returns at and beyond its bound:
// NextBelow never reports a node at or above nrNodeIDs even when one is set,
// and NextSmall never sees a node above 63.
func TestMaskBounds(t *testing.T) {
	m := MaskOf(1, 5, 63, 64, 100, 1023)
	tests := []struct {
		name      string
		got, want int
	}{
		{"First()", m.First(), 1},
		{"Next(-5)", m.Next(-5), 1},
		{"Next(5)", m.Next(5), 63},
		{"Next(100)", m.Next(100), 1023},
		{"Next(1023)", m.Next(1023), MaxNumNodes},
		{"Next(MaxInt)", m.Next(math.MaxInt), MaxNumNodes},
		{"NextBelow(-1, 6)", m.NextBelow(-1, 6), 1},
		{"NextBelow(1, 6)", m.NextBelow(1, 6), 5},
		{"NextBelow(5, 6)", m.NextBelow(5, 6), 6},
		{"NextBelow(5, 64)", m.NextBelow(5, 64), 63},
		{"NextBelow(63, 64)", m.NextBelow(63, 64), 64},
		{"NextBelow(63, 65)", m.NextBelow(63, 65), 64},
		{"NextBelow(100, 1023)", m.NextBelow(100, 1023), 1023},
		{"NextBelow(100, 2000)", m.NextBelow(100, 2000), 1023},
		{"NextBelow(1023, 2000)", m.NextBelow(1023, 2000), 2000},
		{"NextBelow(-1, 0)", m.NextBelow(-1, 0), 0},
		{"NextBelow(-1, -3)", m.NextBelow(-1, -3), -3},
		{"NextBelow(MaxInt, 8)", m.NextBelow(math.MaxInt, 8), 8},
		{"NextSmall(-1)", m.NextSmall(-1), 1},
		{"NextSmall(-100)", m.NextSmall(-100), 1},
		{"NextSmall(5)", m.NextSmall(5), 63},
		{"NextSmall(62)", m.NextSmall(62), 63},
		{"NextSmall(63)", m.NextSmall(63), 64},
		{"NextSmall(100)", m.NextSmall(100), 64},
		{"NextSmall(MaxInt)", m.NextSmall(math.MaxInt), 64},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%v.%s = %d, want %d", m, tt.name, tt.got, tt.want)
		}
	}
	var empty Mask
	if got := empty.First(); got != MaxNumNodes {
		t.Errorf("empty First() = %d, want %d", got, MaxNumNodes)
	}
	if got := empty.NextSmall(-1); got != WordBits {
		t.Errorf("empty NextSmall(-1) = %d, want %d", got, WordBits)
	}
}

// TestMaskScanWords pins the words each walk reads: the numbers the
// nodemask benchmark reports as words-scanned/op.
func TestMaskScanWords(t *testing.T) {
	tests := []struct {
		list             string
		bound            int
		nodes, wantWords int
	}{
		// Two nodes: First and Next(0) read word 0; the final Next(1) reads
		// word 0 and then all 15 words above it before giving up.
		{"0-1", MaxNumNodes, 2, 18},
		// Bounded by nr_node_ids=2, the final search starts at the bound and
		// reads nothing.
		{"0-1", 2, 2, 2},
		// The one-word fast path reads word 0 on every call.
		{"0-1", 64, 2, 3},
		{"0-3", MaxNumNodes, 4, 20},
		{"0-3", 4, 4, 4},
		{"", MaxNumNodes, 0, 16},
		{"", 1, 0, 1},
		// Sparse: 72-73 live in word 1, so the search from 45 reads two words.
		{"0-2,33-34,45,72-73", 74, 8, 9},
		{"0-2,33-34,45,72-73", MaxNumNodes, 8, 24},
		{"1023", MaxNumNodes, 1, 16},
	}
	for _, tt := range tests {
		m, err := ParseMask(tt.list)
		if err != nil {
			t.Fatal(err)
		}
		nodes, words := m.ScanWords(tt.bound)
		if nodes != tt.nodes || words != tt.wantWords {
			t.Errorf("ParseMask(%q).ScanWords(%d) = %d nodes, %d words, want %d, %d",
				tt.list, tt.bound, nodes, words, tt.nodes, tt.wantWords)
		}
	}
}

func TestMaskSetOps(t *testing.T) {
	a := MaskOf(0, 1, 63, 64, 1023)
	b := MaskOf(1, 64, 65, 512)
	tests := []struct {
		name string
		got  Mask
		want string
	}{
		{"And", And(a, b), "1,64"},
		{"Or", Or(a, b), "0-1,63-65,512,1023"},
		{"AndNot", AndNot(a, b), "0,63,1023"},
		{"AndNot(b, a)", AndNot(b, a), "65,512"},
	}
	for _, tt := range tests {
		if got := tt.got.String(); got != tt.want {
			t.Errorf("%s(%v, %v) = %q, want %q", tt.name, a, b, got, tt.want)
		}
	}
	if a != MaskOf(0, 1, 63, 64, 1023) {
		t.Errorf("And/Or/AndNot modified their argument: %v", a)
	}
	c := MaskOf(2, 3)
	if !a.Intersects(&b) || a.Intersects(&c) {
		t.Errorf("Intersects: %v∩%v, %v∩%v wrong", a, b, a, c)
	}
	sub := And(a, b)
	if !sub.Subset(&a) || !sub.Subset(&b) || a.Subset(&b) {
		t.Errorf("Subset: %v ⊆ %v, %v wrong", sub, a, b)
	}
}

func TestMaskFull(t *testing.T) {
	tests := []struct {
		list string
		nr   int
		want bool
	}{
		{"", 0, true},
		{"", 1, false},
		{"0", 1, true},
		{"0-1", 2, true},
		{"0-1", 3, false},
		{"0-63", 64, true},
		{"0-62", 64, false},
		{"0-64", 65, true},
		{"0-63", 65, false},
		{"0-73", 74, true},
		{"0-72,74", 74, false},
		{"0-1023", 1024, true},
		{"0-1023", 5000, true},
		{"0-1022", 1024, false},
		{"0-3,100", 4, true}, // bits above nr_node_ids are not looked at
	}
	for _, tt := range tests {
		m, err := ParseMask(tt.list)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Full(tt.nr); got != tt.want {
			t.Errorf("ParseMask(%q).Full(%d) = %v, want %v", tt.list, tt.nr, got, tt.want)
		}
		var f Mask
		f.Fill(tt.nr)
		if !f.Full(tt.nr) || f.Weight() != min(max(tt.nr, 0), MaxNumNodes) {
			t.Errorf("Fill(%d) = %v, want nodes [0, %d)", tt.nr, f, tt.nr)
		}
	}
}

func TestMaskForms(t *testing.T) {
	m := MaskOf(0, 1, 2, 33, 34, 45, 72, 73)
	if got, want := m.String(), "0-2,33-34,45,72-73"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	b := m.Bitmap(74)
	if got, want := b.HexString(), "300,00002006,00000007"; got != want {
		t.Errorf("Bitmap(74).HexString() = %q, want %q", got, want)
	}
	hex := m.HexString()
	if len(hex) != MaxNumNodes/32*9-1 {
		t.Errorf("HexString() is %d bytes, want 32 groups of 8", len(hex))
	}
	back, err := ParseMaskHex(hex)
	if err != nil || back != m {
		t.Errorf("ParseMaskHex(%q) = %v, %v, want %v", hex, back, err, m)
	}
	if got := m.Bitmap(34).String(); got != "0-2,33" {
		t.Errorf("Bitmap(34) = %q, want %q", got, "0-2,33")
	}
	if got, err := MaskFromBitmap(b); err != nil || got != m {
		t.Errorf("MaskFromBitmap(%v) = %v, %v, want %v", b, got, err, m)
	}
	_, err = MaskFromBitmap(BitmapOf(3, 1024, 2000))
	if want := "nodemask: node 1024 >= MAX_NUMNODES (1024)"; err == nil || err.Error() != want {
		t.Errorf("MaskFromBitmap(3,1024,2000) error = %v, want %q", err, want)
	}
	var all []int
	for n := range m.All() {
		all = append(all, n)
		if n == 33 {
			break
		}
	}
	if fmt.Sprint(all) != "[0 1 2 33]" {
		t.Errorf("All() with break = %v, want [0 1 2 33]", all)
	}
}

// TestMaskProperty compares Mask against the []bool reference on random masks
// of every density, for every start and several nr_node_ids bounds.
func TestMaskProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	iters := 300
	if testing.Short() {
		iters = 50
	}
	for it := range iters {
		var m Mask
		r := make(ref, MaxNumNodes)
		top := []int{1, 2, 4, 8, 64, 65, 74, 200, MaxNumNodes}[it%9]
		for range rng.IntN(2 * top) {
			n := rng.IntN(top)
			if rng.IntN(4) == 0 {
				m.Clear(n)
				r.clear(n)
			} else {
				m.Set(n)
				r.set(n)
			}
		}
		if got, want := m.Weight(), r.weight(); got != want {
			t.Fatalf("%v: Weight() = %d, want %d", m, got, want)
		}
		if got, want := m.String(), r.list("-"); got != want {
			t.Fatalf("String() = %q, want %q", got, want)
		}
		if got, want := m.HexString(), r.hex(); got != want {
			t.Fatalf("HexString() = %q, want %q", got, want)
		}
		for _, nr := range []int{top, rng.IntN(MaxNumNodes + 1), MaxNumNodes} {
			for n := -2; n <= MaxNumNodes; n++ {
				want := r.next(n, nr)
				if want < 0 {
					want = nr
				}
				if got := m.NextBelow(n, nr); got != want {
					t.Fatalf("%v: NextBelow(%d, %d) = %d, want %d", m, n, nr, got, want)
				}
			}
		}
		for n := -2; n <= MaxNumNodes; n++ {
			want := r.next(n, MaxNumNodes)
			if want < 0 {
				want = MaxNumNodes
			}
			if got := m.Next(n); got != want {
				t.Fatalf("%v: Next(%d) = %d, want %d", m, n, got, want)
			}
			want = r.next(n, WordBits)
			if want < 0 {
				want = WordBits
			}
			if got := m.NextSmall(n); got != want {
				t.Fatalf("%v: NextSmall(%d) = %d, want %d", m, n, got, want)
			}
		}
		p, err := ParseMask(m.String())
		if err != nil || p != m {
			t.Fatalf("ParseMask(%q) = %v, %v, want %v", m.String(), p, err, m)
		}
	}
}
