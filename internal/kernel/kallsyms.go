package kernel

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// A Symbol is one line of /proc/kallsyms.
type Symbol struct {
	Addr uint64
	Type byte // t/T text, d/D b/B data, ...
	Name string
}

// Text reports whether the symbol is code.
func (s Symbol) Text() bool { return s.Type == 't' || s.Type == 'T' }

// Symbols is a kernel's symbol table, sorted by address. Only the core
// kernel's symbols are kept: a module's (the "[name]" column) cannot host
// the scheduler's sites.
type Symbols struct {
	sorted []Symbol
	byName map[string]int // index into sorted of each name's first symbol
}

// ErrHiddenAddrs says kallsyms printed every address as zero: the reader
// is not root, or kernel.kptr_restrict hides them even from root.
var ErrHiddenAddrs = errors.New("kallsyms addresses are all zero (not root, or kernel.kptr_restrict=2)")

// maxFunc caps the size taken for a function whose end kallsyms cannot
// tell (the last text symbol): larger than any scheduler function.
const maxFunc = 64 << 10

// ReadKallsyms parses /proc/kallsyms ("ADDR TYPE NAME [MODULE]" per line).
// A malformed line is an error naming its line number.
func ReadKallsyms(r io.Reader) (*Symbols, error) {
	s := &Symbols{byName: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line, nonzero := 0, false
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 || len(f[1]) != 1 {
			return nil, fmt.Errorf("kallsyms line %d: want \"ADDR TYPE NAME\", got %q", line, sc.Text())
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("kallsyms line %d: address %q: not hex", line, f[0])
		}
		if len(f) > 3 {
			continue // a module's symbol
		}
		nonzero = nonzero || addr != 0
		s.sorted = append(s.sorted, Symbol{Addr: addr, Type: f[1][0], Name: f[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading kallsyms: %w", err)
	}
	if len(s.sorted) == 0 {
		return nil, errors.New("kallsyms lists no symbols")
	}
	if !nonzero {
		return nil, ErrHiddenAddrs
	}
	sort.SliceStable(s.sorted, func(i, j int) bool { return s.sorted[i].Addr < s.sorted[j].Addr })
	for i, sym := range s.sorted {
		if _, ok := s.byName[sym.Name]; !ok {
			s.byName[sym.Name] = i
		}
	}
	return s, nil
}

// Lookup returns the symbol of that name.
func (s *Symbols) Lookup(name string) (Symbol, bool) {
	i, ok := s.byName[name]
	if !ok {
		return Symbol{}, false
	}
	return s.sorted[i], true
}

// Func returns the code symbol of that name, or of a compiler clone of it
// (name.isra.0, name.constprop.0, name.part.0: GCC's suffixes), and its
// size: up to the next symbol at a higher address.
func (s *Symbols) Func(name string) (Symbol, uint64, bool) {
	i, ok := s.byName[name]
	if !ok || !s.sorted[i].Text() {
		i, ok = -1, false
		for j, sym := range s.sorted {
			if sym.Text() && strings.HasPrefix(sym.Name, name+".") {
				i, ok = j, true
				break
			}
		}
		if !ok {
			return Symbol{}, 0, false
		}
	}
	sym := s.sorted[i]
	for _, next := range s.sorted[i+1:] {
		if next.Addr > sym.Addr {
			return sym, min(next.Addr-sym.Addr, maxFunc), true
		}
	}
	return sym, maxFunc, true
}

// At returns the symbol an address falls in: the last one at or below it.
func (s *Symbols) At(addr uint64) (Symbol, bool) {
	i := sort.Search(len(s.sorted), func(i int) bool { return s.sorted[i].Addr > addr })
	if i == 0 {
		return Symbol{}, false
	}
	return s.sorted[i-1], true
}
