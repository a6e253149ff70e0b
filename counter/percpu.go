package counter

import (
	"fmt"
	"runtime"
	"unsafe"
)

// maxCPUs bounds Options.CPUs: the kernel's NR_CPUS on distribution
// configs is 8192, and a bigger number is a mistake, not a machine.
const maxCPUs = 8192

// PerCPU is tg->load_avg as a percpu_counter would keep it: one slot per
// CPU, each in a stride of its own, and a reader that adds every slot up
// (percpu_counter_sum). It is not in the thread; it is the far end of the
// trade the thread walks along: a write never leaves its CPU's line, a read
// touches as many lines as there are CPUs.
//
// The kernel's this_cpu_add is a plain add with preemption off; Go cannot
// stop a goroutine from migrating between the load and the store, so Add is
// an atomic add on the slot (uncontended, so its line stays in the writer's
// cache). Unlike percpu_counter there is no batch folding into a central
// count: Sum always reads every slot, so it is exact once writers stop.
//
// A PerCPU must not be copied; Close it when done.
type PerCPU struct {
	_      pad
	noCopy noCopy
	slots  []*word // slot i at (i+1)*stride into the mapping
	shares *word   // the read-mostly word, at the mapping's start
	stride int
	mem    region
	_      pad
}

// NewPerCPU maps o.CPUs slots (runtime.NumCPU() if zero), one stride apart.
func NewPerCPU(o Options) (*PerCPU, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("percpu: %w", err)
	}
	n := o.CPUs
	if n == 0 {
		n = runtime.NumCPU()
	}
	if n < 0 || n > maxCPUs {
		return nil, fmt.Errorf("percpu: %d CPUs out of range [1, %d]", n, maxCPUs)
	}
	stride := o.Stride.Bytes()
	bytes := (n + 1) * stride
	mem, err := mapRegion((bytes + pageSize() - 1) / pageSize())
	if err != nil {
		return nil, fmt.Errorf("percpu: %w", err)
	}
	c := &PerCPU{stride: stride, mem: mem, slots: paddedSlots(n)}
	c.shares = (*word)(mem.at(0))
	c.shares.Store(o.shares())
	for i := range c.slots {
		c.slots[i] = (*word)(mem.at((i + 1) * stride))
	}
	return c, nil
}

// Add adds delta to cpu's slot. cpu must be in [0, CPUs); anything else
// panics with an index error, as a bad index into a slice does.
func (c *PerCPU) Add(cpu int, delta int64) { c.slots[cpu].Add(delta) }

// AddAt adds delta to cpu's slot.
func (c *PerCPU) AddAt(cpu, node int, delta int64) { c.slots[cpu].Add(delta) }

// Sum is percpu_counter_sum: every slot, read one after another.
func (c *PerCPU) Sum() int64 {
	var s int64
	for _, w := range c.slots {
		s += w.Load()
	}
	return s
}

// ReadMostly reads tg->shares from a line of its own.
func (c *PerCPU) ReadMostly() int64 { return c.shares.Load() }

// CPUs returns the number of slots.
func (c *PerCPU) CPUs() int { return len(c.slots) }

// Layout reports one hot word per CPU, a stride apart.
func (c *PerCPU) Layout() Layout {
	l := Layout{Stride: c.stride, ReadMostly: uintptr(unsafe.Pointer(c.shares)), Lines: len(c.slots)}
	for _, w := range c.slots {
		l.Hot = append(l.Hot, uintptr(unsafe.Pointer(w)))
	}
	return l
}

// Close unmaps the slots.
func (c *PerCPU) Close() error { return c.mem.unmap() }

func (c *PerCPU) String() string { return StorePerCPU.String() }
