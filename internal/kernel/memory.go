package kernel

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Memory reads the kernel's memory at virtual addresses.
type Memory interface {
	ReadAt(p []byte, vaddr uint64) error
}

// ReadWord reads the little-endian 64-bit word of m at vaddr.
func ReadWord(m Memory, vaddr uint64) (uint64, error) {
	var b [8]byte
	if err := m.ReadAt(b[:], vaddr); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// words reads words of m, a run of them checked once: the first error
// stays in err, and every read after it gives 0.
type words struct {
	m   Memory
	err error
}

func (w *words) at(vaddr uint64) uint64 {
	if w.err != nil {
		return 0
	}
	v, err := ReadWord(w.m, vaddr)
	w.err = err
	return v
}

// Core is kernel memory read through an ELF core: /proc/kcore, whose
// PT_LOAD segments map kernel virtual addresses to file offsets (a
// fixture's core is the same format holding only a few functions).
type Core struct {
	Machine elf.Machine
	r       io.ReaderAt
	segs    []*elf.Prog
}

// OpenCore reads an ELF core's program headers.
func OpenCore(r io.ReaderAt) (*Core, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("reading kernel core: %w", err)
	}
	if f.Type != elf.ET_CORE {
		return nil, fmt.Errorf("reading kernel core: ELF type %v, want ET_CORE", f.Type)
	}
	c := &Core{Machine: f.Machine, r: r}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Filesz > 0 {
			c.segs = append(c.segs, p)
		}
	}
	if len(c.segs) == 0 {
		return nil, errors.New("reading kernel core: no PT_LOAD segment")
	}
	return c, nil
}

// ReadAt fills p from vaddr; the whole range must lie in one segment.
func (c *Core) ReadAt(p []byte, vaddr uint64) error {
	for _, s := range c.segs {
		if vaddr >= s.Vaddr && vaddr+uint64(len(p)) <= s.Vaddr+s.Filesz {
			_, err := c.r.ReadAt(p, int64(s.Off+(vaddr-s.Vaddr)))
			if err != nil {
				return fmt.Errorf("reading kernel core at %#x: %w", vaddr, err)
			}
			return nil
		}
	}
	return fmt.Errorf("kernel core maps nothing at %#x (+%d bytes)", vaddr, len(p))
}
