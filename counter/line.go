package counter

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/contend/contend/affinity"
)

// PairStride is affinity.PairStride, the 128-byte stride that keeps two hot
// words apart even from Intel's adjacent-line prefetcher (affinity says
// why); counter's stores pad by it.
const PairStride = affinity.PairStride

// LineSize returns the cache line size in bytes, affinity.LineSize: the same
// number the results file records as its cacheline, so a store's layout and
// its results never disagree about the line.
func LineSize() int { return affinity.LineSize() }

// Stride is the distance in bytes between two hot words, and their
// alignment. The zero Stride means one cache line (LineSize).
type Stride int

// Bytes returns the stride in bytes, resolving the zero Stride to LineSize.
func (s Stride) Bytes() int {
	if s == 0 {
		return LineSize()
	}
	return int(s)
}

// String returns "line" for the zero Stride and the byte count otherwise.
func (s Stride) String() string {
	if s == 0 {
		return "line"
	}
	return strconv.Itoa(int(s))
}

// Validate reports whether the stride keeps hot words apart on this machine:
// a power of two, no smaller than a cache line (else two hot words would
// share one) and no larger than a page (the unit memory is mapped in).
func (s Stride) Validate() error {
	n := s.Bytes()
	if n <= 0 || bits.OnesCount(uint(n)) != 1 {
		return fmt.Errorf("stride %d is not a power of two", n)
	}
	if n < LineSize() {
		return fmt.Errorf("stride %d is below the cache line size %d: hot words would share a line", n, LineSize())
	}
	if n > pageSize() {
		return fmt.Errorf("stride %d is above the page size %d", n, pageSize())
	}
	return nil
}

// ParseStride parses "line", "64" or "128" (any power of two from the line
// size up to a page is accepted).
func ParseStride(s string) (Stride, error) {
	if s == "line" || s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("stride %q: want line, 64 or 128: %w", s, err)
	}
	st := Stride(n)
	if err := st.Validate(); err != nil {
		return 0, fmt.Errorf("stride %q: %w", s, err)
	}
	return st, nil
}

// Layout describes where a store keeps its words, so that tests and the
// scenario can check at run time that the layout is what it claims to be.
type Layout struct {
	Stride int       // alignment of, and minimum distance between, hot words
	Hot    []uintptr // every word that writers modify
	// ReadMostly is the word every event reads (ReadMostly); it must sit
	// apart from the hot words unless SharesLine says it shares one on
	// purpose (FalseShare).
	ReadMostly uintptr
	SharesLine bool
	// Lines is the number of hot lines one Sum reads: 1 for Atomic and
	// FalseShare, the node count for PerNode, the CPU count for PerCPU.
	Lines int
}

// Check returns an error naming the first word that breaks the layout: a
// hot word not aligned to the stride, two hot words in one stride-sized
// block, or a read-mostly word on (or, for FalseShare, off) a hot block.
func (l Layout) Check() error {
	if err := CheckLayout(l.Stride, l.Hot); err != nil {
		return err
	}
	if l.Stride <= 0 {
		return nil
	}
	rm := l.ReadMostly / uintptr(l.Stride)
	shared := false
	for _, a := range l.Hot {
		if a/uintptr(l.Stride) == rm {
			shared = true
		}
	}
	switch {
	case shared && !l.SharesLine:
		return fmt.Errorf("read-mostly word %#x shares a %d-byte block with a hot word", l.ReadMostly, l.Stride)
	case !shared && l.SharesLine:
		return fmt.Errorf("read-mostly word %#x should share a %d-byte block with the hot word but does not", l.ReadMostly, l.Stride)
	}
	return nil
}

// CheckLayout returns an error unless every address is aligned to stride
// and no two addresses fall in the same stride-sized block, that is unless
// no two hot words can share a cache line (or line pair, for stride 128).
func CheckLayout(stride int, hot []uintptr) error {
	if stride <= 0 || bits.OnesCount(uint(stride)) != 1 {
		return fmt.Errorf("stride %d is not a positive power of two", stride)
	}
	seen := make(map[uintptr]int, len(hot))
	var errs []string
	for i, a := range hot {
		if a%uintptr(stride) != 0 {
			errs = append(errs, fmt.Sprintf("hot word %d at %#x is not %d-byte aligned", i, a, stride))
		}
		b := a / uintptr(stride)
		if j, ok := seen[b]; ok {
			errs = append(errs, fmt.Sprintf("hot words %d and %d (%#x, %#x) share a %d-byte block", j, i, hot[j], a, stride))
		}
		seen[b] = i
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}
