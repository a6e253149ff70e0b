package nodemask

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SyntaxError reports malformed list or mask text: what is wrong and the
// byte offset in the original input where it is.
type SyntaxError struct {
	Input  string // the text as given, before trimming
	Offset int    // byte offset into Input
	Msg    string // what is wrong, lowercase, one line
}

// maxQuoted bounds how much of a hostile input an error message repeats.
const maxQuoted = 64

// Error returns one line, e.g.
// nodemask: parsing "3-1" at offset 0: descending range 3-1.
func (e *SyntaxError) Error() string {
	in := strconv.Quote(e.Input)
	if len(e.Input) > maxQuoted {
		in = strconv.Quote(e.Input[:maxQuoted]) + "..."
	}
	return fmt.Sprintf("nodemask: parsing %s at offset %d: %s", in, e.Offset, e.Msg)
}

// scanner walks the trimmed part [pos, end) of in, keeping offsets relative to
// in so errors point at the byte the user wrote.
type scanner struct {
	in       string
	pos, end int
}

// newScanner trims surrounding white space (sysfs files end in "\n").
func newScanner(in string) scanner {
	left := strings.TrimLeftFunc(in, unicode.IsSpace)
	t := strings.TrimRightFunc(left, unicode.IsSpace)
	pos := len(in) - len(left)
	return scanner{in: in, pos: pos, end: pos + len(t)}
}

func (s *scanner) errorf(off int, format string, args ...any) error {
	return &SyntaxError{Input: s.in, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) done() bool { return s.pos >= s.end }

// at reports whether the unread text starts with prefix.
func (s *scanner) at(prefix string) bool { return strings.HasPrefix(s.in[s.pos:s.end], prefix) }

// describe names the character at offset i for an error message.
func (s *scanner) describe(i int) string {
	if i >= s.end {
		return "end of input"
	}
	r, size := utf8.DecodeRuneInString(s.in[i:s.end])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x", s.in[i])
	}
	return strconv.QuoteRune(r)
}

// clip shortens a piece of input (digits, a range) for an error message,
// so that leading zeros cannot make the line arbitrarily long.
func clip(num string) string {
	if len(num) > 24 {
		return num[:24] + "..."
	}
	return num
}

// number reads a decimal number that must be below limit. Digits past the
// limit are consumed but not accumulated, so no input overflows an int.
func (s *scanner) number(what string, limit int, tooBig func(num string) string) (int, error) {
	start := s.pos
	v := 0
	for s.pos < s.end && '0' <= s.in[s.pos] && s.in[s.pos] <= '9' {
		if v < limit {
			v = v*10 + int(s.in[s.pos]-'0')
		}
		s.pos++
	}
	if s.pos == start {
		return 0, s.errorf(start, "expected %s, found %s", what, s.describe(start))
	}
	if v >= limit {
		return 0, s.errorf(start, "%s", tooBig(clip(s.in[start:s.pos])))
	}
	return v, nil
}

// parseList parses the list form and calls set(lo, hi) for each run of bits
// [lo, hi) it names. Every bit must be below limit; tooBig words the error
// for one that is not.
//
// Grammar, after trimming surrounding white space:
//
//	list  = "" | group { "," group }
//	group = n | n "-" n [ ":" used "/" size ] | n ".." n [ ":" used "/" size ]
//
// "lo-hi:used/size" is the kernel's stride form (bitmap_parselist): in each
// size-bit group from lo, set the first used bits, up to hi. "lo..hi" is a
// synonym for "lo-hi" so that names written by Bitmap.DotString parse back.
func parseList(in string, limit int, tooBig func(num string) string, set func(lo, hi int)) error {
	s := newScanner(in)
	if s.done() {
		return nil
	}
	sizeTooBig := func(num string) string { return fmt.Sprintf("%s too large (limit %d)", num, limit) }
	for {
		start := s.pos
		if s.at(",") {
			return s.errorf(start, "empty group")
		}
		lo, err := s.number("a number", limit, tooBig)
		if err != nil {
			return err
		}
		hi := lo
		ranged := true
		switch {
		case s.at("-"):
			s.pos++
		case s.at(".."):
			s.pos += 2
		default:
			ranged = false
		}
		if ranged {
			if hi, err = s.number("a number after "+strconv.Quote(clip(s.in[start:s.pos])), limit, tooBig); err != nil {
				return err
			}
			if hi < lo {
				return s.errorf(start, "descending range %s", clip(s.in[start:s.pos]))
			}
		}
		used, size := hi-lo+1, hi-lo+1
		if ranged && s.at(":") {
			s.pos++
			if used, err = s.number("a used-bits count after ':'", limit+1, sizeTooBig); err != nil {
				return err
			}
			if !s.at("/") {
				return s.errorf(s.pos, "expected '/' in stride, found %s", s.describe(s.pos))
			}
			s.pos++
			if size, err = s.number("a group size after '/'", limit+1, sizeTooBig); err != nil {
				return err
			}
			if size == 0 {
				return s.errorf(start, "zero group size in %s", clip(s.in[start:s.pos]))
			}
			if used > size {
				return s.errorf(start, "used bits %d exceed group size %d in %s", used, size, clip(s.in[start:s.pos]))
			}
		}
		// At most limit iterations, even for "0-1048575:1/1".
		for g := lo; g <= hi; g += size {
			set(g, min(g+used, hi+1))
		}
		if s.done() {
			return nil
		}
		if !s.at(",") {
			return s.errorf(s.pos, "unexpected %s", s.describe(s.pos))
		}
		s.pos++
		if s.done() {
			return s.errorf(s.pos-1, "trailing comma")
		}
	}
}

// ParseList parses the list form, "0-2,33-34,45,72-73", as sysfs cpulist and
// node list files hold it. Surrounding white space is trimmed; "" gives an
// empty bitmap and no error. Bits may come in any order and overlap. Besides
// "lo-hi", it accepts "lo..hi" (Bitmap.DotString's form) and the kernel's
// stride form "lo-hi:used/size" ("0-7:1/2" is 0,2,4,6). The result's Len is
// the highest bit + 1; no bit may reach MaxBitmapBits. Errors are
// *SyntaxError.
func ParseList(s string) (Bitmap, error) {
	var b Bitmap
	tooBig := func(num string) string {
		return fmt.Sprintf("bit %s too large: too many bits (limit %d)", num, MaxBitmapBits)
	}
	if err := parseList(s, MaxBitmapBits, tooBig, b.SetRange); err != nil {
		return Bitmap{}, err
	}
	return b, nil
}

// ParseMask parses a node list in the list form, as ParseList does; a node
// id at or above MaxNumNodes is an error naming it.
func ParseMask(s string) (Mask, error) {
	var m Mask
	set := func(lo, hi int) { setRange(m.bits[:], lo, hi) }
	if err := parseList(s, MaxNumNodes, nodeTooBig, set); err != nil {
		return Mask{}, err
	}
	return m, nil
}

func nodeTooBig(num string) string {
	return fmt.Sprintf("node %s >= MAX_NUMNODES (%d)", num, MaxNumNodes)
}

// hexGroupDigits is how many hex digits a 32-bit group may have.
const hexGroupDigits = hexChunk / 4

// parseHex parses the mask form into a Bitmap whose Len is the width the
// text spells: 4 bits per digit of the most significant group plus 32 per
// further group, so HexString gives back what the kernel printed. A set bit
// at or above setLimit is an error at the digit holding it, worded by tooBig.
func parseHex(in string, setLimit int, tooBig func(num string) string) (Bitmap, error) {
	s := newScanner(in)
	if s.at("0x") || s.at("0X") {
		s.pos += 2
		if s.done() {
			return Bitmap{}, s.errorf(s.pos-2, "no hex digits after %s", s.in[s.pos-2:s.pos])
		}
	}
	if s.done() {
		return Bitmap{}, nil
	}
	// First pass: check the syntax and count the width without allocating,
	// so a long hostile input is rejected before anything is sized by it.
	digits := s.pos
	groups, firstLen := 0, 0
	for {
		start := s.pos
		for s.pos < s.end && s.in[s.pos] != ',' {
			if _, ok := hexVal(s.in[s.pos]); !ok {
				return Bitmap{}, s.errorf(s.pos, "invalid hex digit %s", s.describe(s.pos))
			}
			s.pos++
		}
		n := s.pos - start
		switch {
		case n == 0 && s.pos < s.end:
			return Bitmap{}, s.errorf(start, "empty group")
		case n == 0:
			return Bitmap{}, s.errorf(start-1, "trailing comma")
		case n > hexGroupDigits:
			return Bitmap{}, s.errorf(start, "group of %d hex digits, want at most %d", n, hexGroupDigits)
		}
		if groups == 0 {
			firstLen = n
		}
		groups++
		if groups > MaxBitmapBits/hexChunk+1 {
			break // certainly too wide; stop counting
		}
		if s.done() {
			break
		}
		s.pos++ // the comma
	}
	nbits := 4*firstLen + hexChunk*(groups-1)
	if nbits > MaxBitmapBits {
		return Bitmap{}, s.errorf(digits, "too many bits: %d groups exceed the limit of %d bits", groups, MaxBitmapBits)
	}
	// Second pass: fill. Digit j of group g (both from the left) holds bits
	// from 32*(groups-1-g) + 4*(len-1-j); a digit never straddles a word.
	b := NewBitmap(nbits)
	s.pos = digits
	for g := 0; g < groups; g++ {
		start := s.pos
		for s.pos < s.end && s.in[s.pos] != ',' {
			s.pos++
		}
		n := s.pos - start
		for j := range n {
			d, _ := hexVal(s.in[start+j])
			if d == 0 {
				continue
			}
			bit := hexChunk*(groups-1-g) + 4*(n-1-j)
			if top := bit + bits.Len8(d) - 1; top >= setLimit {
				return Bitmap{}, s.errorf(start+j, "%s", tooBig(strconv.Itoa(top)))
			}
			b.words[bit/WordBits] |= uint64(d) << (uint(bit) % WordBits)
		}
		s.pos++ // the comma
	}
	return b, nil
}

func hexVal(c byte) (uint8, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ParseHex parses the mask form, "00000000,0000000f", as sysfs cpumap files
// hold it: comma-separated groups of at most 8 hex digits (either case), most
// significant first, with an optional "0x" before the whole string ("0x" alone
// is an error). Surrounding white space is trimmed; "" gives an empty bitmap
// and no error. The result's Len is the width the text spells (4 bits per
// digit of the first group, 32 per further group), so HexString returns
// kernel-printed text unchanged; at most MaxBitmapBits. Errors are
// *SyntaxError.
func ParseHex(s string) (Bitmap, error) {
	return parseHex(s, MaxBitmapBits, func(string) string { return "too many bits" })
}

// ParseMaskHex parses a node mask in the mask form, as ParseHex does; a set
// bit at or above MaxNumNodes is an error naming the node and the digit. The
// text may be wider than MaxNumNodes if the extra bits are zero.
func ParseMaskHex(s string) (Mask, error) {
	b, err := parseHex(s, MaxNumNodes, nodeTooBig)
	if err != nil {
		return Mask{}, err
	}
	var m Mask
	copy(m.bits[:], b.words)
	return m, nil
}
