package counter

import (
	"fmt"
	"unsafe"
)

// Atomic is tg->load_avg as the kernel has it since Deng Pan's re-layout:
// one atomic long alone on its cache line,
//
//	struct {
//		atomic_long_t load_avg;
//	} ____cacheline_aligned_in_smp;
//
// so that writers contend only with each other and with readers of the
// counter, not with readers of the group's other fields. The read-mostly
// word (tg->shares) sits one stride further on.
//
// An Atomic must not be copied; Close it when done.
type Atomic struct {
	_      pad
	noCopy noCopy
	load   *word // tg->load_avg, alone in its stride
	shares *word // the read-mostly line
	stride int
	mem    region
	_      pad
}

// NewAtomic maps a page and places the counter at its start.
func NewAtomic(o Options) (*Atomic, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("atomic: %w", err)
	}
	mem, err := mapRegion(1)
	if err != nil {
		return nil, fmt.Errorf("atomic: %w", err)
	}
	a := &Atomic{mem: mem, stride: o.Stride.Bytes()}
	a.load = (*word)(mem.at(0))
	a.shares = (*word)(mem.at(a.stride))
	a.shares.Store(o.shares())
	return a, nil
}

// Add is atomic_long_add(delta, &tg->load_avg).
func (a *Atomic) Add(delta int64) { a.load.Add(delta) }

// Load is atomic_long_read(&tg->load_avg).
func (a *Atomic) Load() int64 { return a.load.Load() }

// AddAt adds delta; an Atomic has one slot for everyone.
func (a *Atomic) AddAt(cpu, node int, delta int64) { a.load.Add(delta) }

// Sum is Load.
func (a *Atomic) Sum() int64 { return a.load.Load() }

// ReadMostly reads tg->shares from its own line.
func (a *Atomic) ReadMostly() int64 { return a.shares.Load() }

// Layout reports one hot word and the read-mostly word a stride away.
func (a *Atomic) Layout() Layout {
	return Layout{
		Stride:     a.stride,
		Hot:        []uintptr{uintptr(unsafe.Pointer(a.load))},
		ReadMostly: uintptr(unsafe.Pointer(a.shares)),
		Lines:      1,
	}
}

// Close unmaps the counter.
func (a *Atomic) Close() error { return a.mem.unmap() }

func (a *Atomic) String() string { return StoreAtomic.String() }

// FalseShare is tg->load_avg as it was before the re-layout: the same atomic,
// but sharing its line with fields every event reads. Deng Pan found
// load_avg "frequently loaded and stored" in a sleep/wakeup benchmark while
// tg->rt_se and tg->rt_rq in the same line were "frequently loaded"; every
// store invalidated the readers' copy of a line they never meant to share.
// Here the read-mostly word (tg->shares) sits in the counter's line, and
// ReadMostly, which the event path calls once per event, pays for it.
//
// A FalseShare must not be copied; Close it when done.
type FalseShare struct {
	_      pad
	noCopy noCopy
	load   *word // tg->load_avg
	shares *word // 8 bytes further on, same line
	stride int
	mem    region
	_      pad
}

// NewFalseShare maps a page and places the counter and the read-mostly word
// side by side at its start.
func NewFalseShare(o Options) (*FalseShare, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("falseshare: %w", err)
	}
	mem, err := mapRegion(1)
	if err != nil {
		return nil, fmt.Errorf("falseshare: %w", err)
	}
	f := &FalseShare{mem: mem, stride: o.Stride.Bytes()}
	f.load = (*word)(mem.at(0))
	f.shares = (*word)(mem.at(8))
	f.shares.Store(o.shares())
	return f, nil
}

// Add is atomic_long_add(delta, &tg->load_avg).
func (f *FalseShare) Add(delta int64) { f.load.Add(delta) }

// Load is atomic_long_read(&tg->load_avg).
func (f *FalseShare) Load() int64 { return f.load.Load() }

// AddAt adds delta; one slot for everyone.
func (f *FalseShare) AddAt(cpu, node int, delta int64) { f.load.Add(delta) }

// Sum is Load.
func (f *FalseShare) Sum() int64 { return f.load.Load() }

// ReadMostly reads tg->shares from the counter's own line: a miss whenever
// another CPU wrote the counter since.
func (f *FalseShare) ReadMostly() int64 { return f.shares.Load() }

// Layout reports the hot word and the read-mostly word in the same line.
func (f *FalseShare) Layout() Layout {
	return Layout{
		Stride:     f.stride,
		Hot:        []uintptr{uintptr(unsafe.Pointer(f.load))},
		ReadMostly: uintptr(unsafe.Pointer(f.shares)),
		SharesLine: true,
		Lines:      1,
	}
}

// Close unmaps the counter.
func (f *FalseShare) Close() error { return f.mem.unmap() }

func (f *FalseShare) String() string { return StoreFalseShare.String() }
