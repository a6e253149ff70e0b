package nodemask

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	tests := []struct {
		in   string
		want string // String() of the result
		len  int
	}{
		{"", "", 0},
		{"\n", "", 0},
		{"0", "0", 1},
		{"0-2,33-34,45,72-73\n", "0-2,33-34,45,72-73", 74},
		{"  0-63\t\n", "0-63", 64},
		{"0-63", "0-63", 64},
		{"64", "64", 65},
		{"1023", "1023", 1024},
		{"3,1,2,0", "0-3", 4},     // any order
		{"0-5,3-8,8", "0-8", 9},   // overlaps
		{"007,0010", "7,10", 11},  // leading zeros
		{"4-4", "4", 5},           // one-bit range
		{"0..3,8", "0-3,8", 9},    // DotString form
		{"0-7:1/2", "0,2,4,6", 7}, // kernel stride form
		{"0-7:2/4", "0-1,4-5", 6}, // two of every four
		{"0-9:3/4", "0-2,4-6,8-9", 10},
		{"0-7:0/4", "", 0}, // uses no bits
		{"0-7:8/8", "0-7", 8},
		{"8..15:1/4", "8,12", 13},
		{"1048575", "1048575", 1 << 20}, // the largest bit allowed
		{"0-1048575:1/262144", "0,262144,524288,786432", 786433},
	}
	for _, tt := range tests {
		b, err := ParseList(tt.in)
		if err != nil {
			t.Errorf("ParseList(%q) error: %v", tt.in, err)
			continue
		}
		if got := b.String(); got != tt.want || b.Len() != tt.len {
			t.Errorf("ParseList(%q) = %q (Len %d), want %q (Len %d)", tt.in, got, b.Len(), tt.want, tt.len)
		}
	}
}

// syntaxCase is one malformed input: the offset and message its error must
// carry.
type syntaxCase struct {
	in     string
	offset int
	msg    string
}

func checkSyntaxError(t *testing.T, call string, err error, tt syntaxCase) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("%s(%q) error = %v, want *SyntaxError", call, tt.in, err)
		return
	}
	if se.Input != tt.in || se.Offset != tt.offset || se.Msg != tt.msg {
		t.Errorf("%s(%q) error at offset %d: %q, want offset %d: %q", call, tt.in, se.Offset, se.Msg, tt.offset, tt.msg)
	}
	if s := err.Error(); strings.ContainsAny(s, "\n\r") || !strings.HasPrefix(s, "nodemask: parsing ") {
		t.Errorf("%s(%q) error %q is not one nodemask: line", call, tt.in, s)
	}
}

func TestParseListErrors(t *testing.T) {
	tests := []syntaxCase{
		{"3-1", 0, "descending range 3-1"},
		{"0,5..2", 2, "descending range 5..2"},
		{"0000000000000000000000000005-1", 0, "descending range 000000000000000000000000..."},
		{"a", 0, "expected a number, found 'a'"},
		{"1,,2", 2, "empty group"},
		{"-1", 0, "expected a number, found '-'"},
		{"1-", 2, `expected a number after "1-", found end of input`},
		{"1-a", 2, `expected a number after "1-", found 'a'`},
		{"1..", 3, `expected a number after "1..", found end of input`},
		{",", 0, "empty group"},
		{"1,", 1, "trailing comma"},
		{"0-3,\n", 3, "trailing comma"},
		{" \t1 2", 3, "unexpected ' '"},
		{"1;2", 1, "unexpected ';'"},
		{"1\x002", 1, "unexpected '\\x00'"},
		{"1\xff", 1, "unexpected byte 0xff"},
		{"1é", 1, "unexpected 'é'"},
		{"0x1", 1, "unexpected 'x'"},
		{"1.5", 1, "unexpected '.'"},
		{"1048576", 0, "bit 1048576 too large: too many bits (limit 1048576)"},
		{"0-99999999999999999999999999999", 2, "bit 999999999999999999999999... too large: too many bits (limit 1048576)"},
		{"5:1/2", 1, "unexpected ':'"},
		{"0-7:1", 5, "expected '/' in stride, found end of input"},
		{"0-7:/2", 4, "expected a used-bits count after ':', found '/'"},
		{"0-7:1/", 6, "expected a group size after '/', found end of input"},
		{"0-7:1/0", 0, "zero group size in 0-7:1/0"},
		{"0-7:3/2", 0, "used bits 3 exceed group size 2 in 0-7:3/2"},
		{"0-7:1/9999999", 6, "9999999 too large (limit 1048576)"},
	}
	for _, tt := range tests {
		b, err := ParseList(tt.in)
		if err == nil {
			t.Errorf("ParseList(%q) = %v, want error", tt.in, b)
			continue
		}
		checkSyntaxError(t, "ParseList", err, tt)
	}
}

func TestSyntaxErrorText(t *testing.T) {
	_, err := ParseList("3-1")
	if want := `nodemask: parsing "3-1" at offset 0: descending range 3-1`; err == nil || err.Error() != want {
		t.Errorf("ParseList(%q) error = %v, want %q", "3-1", err, want)
	}
	long := strings.Repeat("1,", 1000) + "x"
	_, err = ParseList(long)
	want := fmt.Sprintf(`nodemask: parsing %q... at offset 2000: expected a number, found 'x'`, long[:64])
	if err == nil || err.Error() != want {
		t.Errorf("ParseList(long) error = %v, want %q", err, want)
	}
}

func TestParseMask(t *testing.T) {
	m, err := ParseMask("0-2,33-34,45,72-73\n")
	if err != nil || m != MaskOf(0, 1, 2, 33, 34, 45, 72, 73) {
		t.Errorf("ParseMask(sparse) = %v, %v", m, err)
	}
	m, err = ParseMask("1023")
	if err != nil || m != MaskOf(1023) {
		t.Errorf("ParseMask(%q) = %v, %v, want 1023", "1023", m, err)
	}
	tests := []syntaxCase{
		{"1024", 0, "node 1024 >= MAX_NUMNODES (1024)"},
		{"0-1024", 2, "node 1024 >= MAX_NUMNODES (1024)"},
		{"5,99999999999999999999", 2, "node 99999999999999999999 >= MAX_NUMNODES (1024)"},
		{"3-1", 0, "descending range 3-1"},
		{"1,,2", 2, "empty group"},
		{"0-7:1/2000", 6, "2000 too large (limit 1024)"},
	}
	for _, tt := range tests {
		m, err := ParseMask(tt.in)
		if err == nil {
			t.Errorf("ParseMask(%q) = %v, want error", tt.in, m)
			continue
		}
		checkSyntaxError(t, "ParseMask", err, tt)
	}
}

func TestParseHex(t *testing.T) {
	tests := []struct {
		in   string
		list string
		hex  string // HexString() of the result: the kernel's text back
	}{
		{"", "", ""},
		{"\n", "", ""},
		{"0", "", "0"},
		{"f", "0-3", "f"},
		{"ff\n", "0-7", "ff"},
		{"00000000,0000000f", "0-3", "00000000,0000000f"},
		{"0x00000000,0000000f", "0-3", "00000000,0000000f"},
		{"0X1", "0", "1"},
		{"F0", "4-7", "f0"},
		{"80000000,00000000", "63", "80000000,00000000"},
		{"1,00000000,00000000", "64", "1,00000000,00000000"},
		{"300,00002006,00000007", "0-2,33-34,45,72-73", "300,00002006,00000007"},
		{"1,2", "1,32", "1,00000002"}, // short inner groups are accepted, printed padded
		{"ffffffff,ffffffff", "0-63", "ffffffff,ffffffff"},
	}
	for _, tt := range tests {
		b, err := ParseHex(tt.in)
		if err != nil {
			t.Errorf("ParseHex(%q) error: %v", tt.in, err)
			continue
		}
		if got := b.String(); got != tt.list {
			t.Errorf("ParseHex(%q) = %q, want %q", tt.in, got, tt.list)
		}
		if got := b.HexString(); got != tt.hex {
			t.Errorf("ParseHex(%q).HexString() = %q, want %q", tt.in, got, tt.hex)
		}
	}
	wide := strings.Repeat("ffffffff,", MaxBitmapBits/32-1) + "ffffffff"
	b, err := ParseHex(wide)
	if err != nil || b.Len() != MaxBitmapBits || b.Weight() != MaxBitmapBits {
		t.Errorf("ParseHex(%d-bit mask) = Len %d, Weight %d, %v", MaxBitmapBits, b.Len(), b.Weight(), err)
	}
}

func TestParseHexErrors(t *testing.T) {
	tests := []syntaxCase{
		{"0x", 0, "no hex digits after 0x"},
		{" 0X\n", 1, "no hex digits after 0X"},
		{"0x0x1", 3, "invalid hex digit 'x'"},
		{"fg", 1, "invalid hex digit 'g'"},
		{"-1", 0, "invalid hex digit '-'"},
		{"1 2", 1, "invalid hex digit ' '"},
		{"ff\xfe", 2, "invalid hex digit byte 0xfe"},
		{"123456789", 0, "group of 9 hex digits, want at most 8"},
		{"1,123456789", 2, "group of 9 hex digits, want at most 8"},
		{"1,,2", 2, "empty group"},
		{",1", 0, "empty group"},
		{"0x,1", 2, "empty group"},
		{"1,", 1, "trailing comma"},
		{"ff,ffffffff,\n", 11, "trailing comma"},
		{"1" + strings.Repeat(",00000000", MaxBitmapBits/32), 0, "too many bits: 32769 groups exceed the limit of 1048576 bits"},
		{"0x" + strings.Repeat("0,", MaxBitmapBits) + "0", 2, "too many bits: 32770 groups exceed the limit of 1048576 bits"},
	}
	for _, tt := range tests {
		b, err := ParseHex(tt.in)
		if err == nil {
			t.Errorf("ParseHex(%q) = %v, want error", tt.in, b)
			continue
		}
		checkSyntaxError(t, "ParseHex", err, tt)
	}
}

func TestParseMaskHex(t *testing.T) {
	m, err := ParseMaskHex("300,00002006,00000007\n")
	if err != nil || m != MaskOf(0, 1, 2, 33, 34, 45, 72, 73) {
		t.Errorf("ParseMaskHex(sparse) = %v, %v", m, err)
	}
	// Wider than MAX_NUMNODES is fine while the extra bits are zero.
	zeros := strings.Repeat("00000000,", 40) + "00000003"
	if m, err := ParseMaskHex(zeros); err != nil || m != MaskOf(0, 1) {
		t.Errorf("ParseMaskHex(1312 bits, 0-1) = %v, %v", m, err)
	}
	tests := []syntaxCase{
		{"1" + strings.Repeat(",00000000", 32), 0, "node 1024 >= MAX_NUMNODES (1024)"},
		{"0x3" + strings.Repeat(",00000000", 32), 2, "node 1025 >= MAX_NUMNODES (1024)"},
		{"0x", 0, "no hex digits after 0x"},
	}
	for _, tt := range tests {
		m, err := ParseMaskHex(tt.in)
		if err == nil {
			t.Errorf("ParseMaskHex(%q) = %v, want error", tt.in, m)
			continue
		}
		checkSyntaxError(t, "ParseMaskHex", err, tt)
	}
}

// TestListHexAgree checks that the two text forms describe the same sets for
// the sysfs shapes affinity reads.
func TestListHexAgree(t *testing.T) {
	tests := []struct{ list, hex string }{
		{"0-3", "0000000f"},
		{"0-3", "00000000,0000000f"},
		{"0-63", "ffffffff,ffffffff"},
		{"0,2,4,6", "55"},
		{"32-63", "ffffffff,00000000"},
		{"0-2,33-34,45,72-73", "300,00002006,00000007"},
		{"1023", "80000000" + strings.Repeat(",00000000", 31)},
	}
	for _, tt := range tests {
		l, err := ParseList(tt.list)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ParseHex(tt.hex)
		if err != nil {
			t.Fatal(err)
		}
		if !l.Equal(h) {
			t.Errorf("ParseList(%q) = %v, ParseHex(%q) = %v, want equal", tt.list, l, tt.hex, h)
		}
		l.Resize(h.Len())
		if got := l.HexString(); got != tt.hex {
			t.Errorf("ParseList(%q) resized to %d: HexString() = %q, want %q", tt.list, h.Len(), got, tt.hex)
		}
	}
}
