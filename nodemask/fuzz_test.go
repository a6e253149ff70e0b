package nodemask

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets check the parsers against independent reference parsers
// built from strings.Split, a regexp and strconv, and check that every
// accepted input survives parse → format → parse. Seed corpora, including
// sysfs shapes and every class of bad input, are in testdata/fuzz/<Name>/.

// checkFuzzError checks the properties every parse error must have.
func checkFuzzError(t *testing.T, call, in string, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("%s(%q) error %v (%T), want *SyntaxError", call, in, err, err)
	}
	if se.Input != in || se.Offset < 0 || se.Offset > len(in) {
		t.Fatalf("%s(%q) error %v: input %q offset %d out of place", call, in, err, se.Input, se.Offset)
	}
	// 64 quoted input bytes (up to 4 characters each), the offset and a
	// message whose pieces of input are clipped to 24 bytes.
	if s := err.Error(); strings.ContainsAny(s, "\n\r") || len(s) > 400 {
		t.Fatalf("%s(%q) error is not one short line: %q", call, in, s)
	}
}

var refGroup = regexp.MustCompile(`^([0-9]+)(?:(?:-|\.\.)([0-9]+)(?::([0-9]+)/([0-9]+))?)?$`)

// refParseList is the reference list parser. It returns the set bits when
// the input is valid and the highest bit is small enough to expand cheaply
// (big == true otherwise), and ok == false when the input is invalid.
func refParseList(s string, limit int) (bits []int, big, ok bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, false, true
	}
	set := map[int]bool{}
	for _, g := range strings.Split(t, ",") {
		m := refGroup.FindStringSubmatch(g)
		if m == nil {
			return nil, false, false
		}
		num := func(s string, lim int) (int, bool) {
			v, err := strconv.Atoi(s)
			return v, err == nil && v < lim
		}
		lo, ok1 := num(m[1], limit)
		hi, ok2 := lo, true
		if m[2] != "" {
			hi, ok2 = num(m[2], limit)
		}
		used, size := hi-lo+1, hi-lo+1
		ok3, ok4 := true, true
		if m[3] != "" {
			used, ok3 = num(m[3], limit+1)
			size, ok4 = num(m[4], limit+1)
		}
		if !ok1 || !ok2 || !ok3 || !ok4 || hi < lo || size == 0 || used > size {
			return nil, false, false
		}
		if hi >= 1<<16 {
			big = true
			continue
		}
		for k := lo; k <= hi; k++ {
			if (k-lo)%size < used {
				set[k] = true
			}
		}
	}
	for k := range set {
		bits = append(bits, k)
	}
	slices.Sort(bits)
	return bits, big, true
}

func FuzzParseList(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseList(s)
		want, big, ok := refParseList(s, MaxBitmapBits)
		if (err == nil) != ok {
			t.Fatalf("ParseList(%q) error = %v, reference accepts: %v", s, err, ok)
		}
		if err != nil {
			checkFuzzError(t, "ParseList", s, err)
			m, merr := ParseMask(s)
			if merr == nil {
				t.Fatalf("ParseMask(%q) = %v, but ParseList fails: %v", s, m, err)
			}
			return
		}
		if !big && !slices.Equal(b.Bits(), want) && !(len(want) == 0 && b.Empty()) {
			t.Fatalf("ParseList(%q) = %v, reference %v", s, b.Bits(), want)
		}
		if last := b.Len() - 1; last >= 0 && !b.Test(last) {
			t.Fatalf("ParseList(%q).Len() = %d, but bit %d is clear", s, b.Len(), last)
		}
		for _, form := range []string{b.String(), b.DotString()} {
			p, err := ParseList(form)
			if err != nil || !p.Equal(b) || p.Len() != b.Len() || p.String() != b.String() {
				t.Fatalf("ParseList(%q) = %v; ParseList(%q) = %v, %v", s, b, form, p, err)
			}
		}
		h, err := ParseHex(b.HexString())
		if err != nil || !h.Equal(b) {
			t.Fatalf("ParseList(%q) = %v; ParseHex(%q) = %v, %v", s, b, b.HexString(), h, err)
		}
		// A node id >= MaxNumNodes is an error even where it sets no bit
		// ("0-1100:0/1"), so ask the reference with the Mask's limit.
		m, err := ParseMask(s)
		if _, _, fits := refParseList(s, MaxNumNodes); (err == nil) != fits {
			t.Fatalf("ParseMask(%q) error = %v, reference accepts: %v", s, err, fits)
		}
		if err == nil && !m.Bitmap(MaxNumNodes).Equal(b) {
			t.Fatalf("ParseMask(%q) = %v, ParseList = %v", s, m, b)
		}
	})
}

// refParseHex is the reference mask-form parser: split on commas and let
// strconv.ParseUint read each 32-bit group.
func refParseHex(s string) (groups []uint32, nbits int, ok bool) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		t = t[2:]
		if t == "" {
			return nil, 0, false
		}
	}
	if t == "" {
		return nil, 0, true
	}
	parts := strings.Split(t, ",")
	if 4*len(parts[0])+32*(len(parts)-1) > MaxBitmapBits {
		return nil, 0, false
	}
	for _, p := range parts {
		if p == "" || len(p) > 8 || strings.ContainsAny(p, "+-_xX") {
			return nil, 0, false
		}
		v, err := strconv.ParseUint(p, 16, 32)
		if err != nil {
			return nil, 0, false
		}
		groups = append(groups, uint32(v))
	}
	return groups, 4*len(parts[0]) + 32*(len(parts)-1), true
}

func FuzzParseHex(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseHex(s)
		groups, nbits, ok := refParseHex(s)
		if (err == nil) != ok {
			t.Fatalf("ParseHex(%q) error = %v, reference accepts: %v", s, err, ok)
		}
		if err != nil {
			checkFuzzError(t, "ParseHex", s, err)
			if m, merr := ParseMaskHex(s); merr == nil {
				t.Fatalf("ParseMaskHex(%q) = %v, but ParseHex fails: %v", s, m, err)
			}
			return
		}
		if b.Len() != nbits {
			t.Fatalf("ParseHex(%q).Len() = %d, want %d", s, b.Len(), nbits)
		}
		for g, v := range groups {
			base := 32 * (len(groups) - 1 - g)
			for k := range 32 {
				if got, want := b.Test(base+k), v>>k&1 != 0; got != want {
					t.Fatalf("ParseHex(%q).Test(%d) = %v, want %v", s, base+k, got, want)
				}
			}
		}
		hex := b.HexString()
		h, err := ParseHex(hex)
		if err != nil || !h.Equal(b) || h.Len() != b.Len() || h.HexString() != hex {
			t.Fatalf("ParseHex(%q) = %v; ParseHex(%q) = %v, %v", s, b, hex, h, err)
		}
		// Text the kernel could have printed comes back unchanged.
		t0 := strings.TrimSpace(s)
		if t0 == strings.ToLower(t0) && !strings.HasPrefix(t0, "0x") && !strings.Contains(t0[min(len(t0), 1):], ",") {
			if hex != t0 {
				t.Fatalf("ParseHex(%q).HexString() = %q, want the input back", s, hex)
			}
		}
		l, err := ParseList(b.String())
		if err != nil || !l.Equal(b) {
			t.Fatalf("ParseHex(%q) = %v; ParseList(%q) = %v, %v", s, b, b.String(), l, err)
		}
		m, err := ParseMaskHex(s)
		if fits := b.Next(MaxNumNodes-1) < 0; (err == nil) != fits {
			t.Fatalf("ParseMaskHex(%q) error = %v, want error only for bits >= %d (%v)", s, err, MaxNumNodes, b)
		}
		if err == nil && !m.Bitmap(MaxNumNodes).Equal(b) {
			t.Fatalf("ParseMaskHex(%q) = %v, ParseHex = %v", s, m, b)
		}
		if err != nil {
			checkFuzzError(t, "ParseMaskHex", s, err)
		}
	})
}

func FuzzParseMask(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMask(s)
		b, berr := ParseList(s)
		if _, _, ok := refParseList(s, MaxNumNodes); (err == nil) != ok {
			t.Fatalf("ParseMask(%q) error = %v, reference accepts: %v", s, err, ok)
		}
		if berr != nil && err == nil {
			t.Fatalf("ParseMask(%q) = %v, but ParseList fails: %v", s, m, berr)
		}
		if err != nil {
			checkFuzzError(t, "ParseMask", s, err)
			return
		}
		if !m.Bitmap(MaxNumNodes).Equal(b) {
			t.Fatalf("ParseMask(%q) = %v, ParseList = %v", s, m, b)
		}
		if p, err := ParseMask(m.String()); err != nil || p != m {
			t.Fatalf("ParseMask(%q) = %v; ParseMask(%q) = %v, %v", s, m, m.String(), p, err)
		}
		if p, err := ParseMaskHex(m.HexString()); err != nil || p != m {
			t.Fatalf("ParseMask(%q) = %v; ParseMaskHex(%q) = %v, %v", s, m, m.HexString(), p, err)
		}
		want := b.Bits()
		nr := max(b.Len(), 1) // nr_node_ids
		if got := walkNext(&m); !slices.Equal(got, want) {
			t.Fatalf("ParseMask(%q): Next walk = %v, want %v", s, got, want)
		}
		if got := walkBelow(&m, nr); !slices.Equal(got, want) {
			t.Fatalf("ParseMask(%q): NextBelow walk (nr=%d) = %v, want %v", s, nr, got, want)
		}
		if nr <= WordBits {
			if got := walkSmall(&m); !slices.Equal(got, want) {
				t.Fatalf("ParseMask(%q): NextSmall walk = %v, want %v", s, got, want)
			}
		}
		if nodes, _ := m.ScanWords(nr); nodes != len(want) {
			t.Fatalf("ParseMask(%q).ScanWords(%d) visits %d nodes, want %d", s, nr, nodes, len(want))
		}
	})
}

// FuzzBitmapOps reads data as a program of 3-byte operations (opcode, 16-bit
// argument) run on a Bitmap, a Mask and the []bool reference, then compares
// everything.
func FuzzBitmapOps(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var b Bitmap
		var r ref
		var m Mask
		mr := make(ref, MaxNumNodes)
		for len(data) >= 3 {
			op, arg := data[0], int(data[1])|int(data[2])<<8
			data = data[3:]
			i := arg%1200 - 2 // a little below 0 to a little above MaxNumNodes
			switch op % 6 {
			case 0:
				b.Set(i)
				r.set(i)
				m.Set(i)
				if i >= 0 && i < MaxNumNodes {
					mr[i] = true
				}
			case 1:
				b.Clear(i)
				r.clear(i)
				m.Clear(i)
				mr.clear(i)
			case 2:
				hi := i + int(op>>3)
				b.SetRange(i, hi)
				for k := max(i, 0); k < hi; k++ {
					r.set(k)
				}
			case 3:
				b.Resize(i)
				r.resize(i)
			case 4:
				o := BitmapOf(i, i+1, i+64)
				b = b.Or(o)
				r = combineRef(r, o, func(x, y bool) bool { return x || y })
			case 5:
				o := BitmapOf(i, i+1, i+64)
				b = b.AndNot(o)
				r = combineRef(r, o, func(x, y bool) bool { return x && !y })
			}
		}
		checkBitmap(t, "FuzzBitmapOps", b, r)
		if got, want := m.String(), mr.list("-"); got != want {
			t.Fatalf("Mask = %q, want %q", got, want)
		}
		nexts := mr.nexts()
		for n := -1; n < MaxNumNodes; n++ {
			want := MaxNumNodes
			if n+1 < MaxNumNodes && nexts[n+1] >= 0 {
				want = nexts[n+1]
			}
			if got := m.Next(n); got != want {
				t.Fatalf("%v: Next(%d) = %d, want %d", m, n, got, want)
			}
		}
	})
}
