package counter

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/contend/contend/affinity"
)

// Why hot words live in memory mapped here rather than on the Go heap:
//
// The Go allocator promises 8-byte alignment for an int64 and nothing more;
// where an object lands within a line depends on its size class, so a
// "padded" struct can still straddle two lines or share one with a
// neighbour. Over-allocating a []byte and rounding the offset up works for
// alignment but not for PerNode, which must bind whole pages to a node with
// mbind: a heap page is shared with unrelated objects and the policy would
// apply to them too. Anonymous mmap gives page-aligned memory (so any
// power-of-two stride up to a page is honoured), whole pages (so mbind and
// first touch place exactly our slots) and memory the garbage collector
// never scans or moves. The price: only pointer-free data may live there,
// and it must be unmapped explicitly, hence every Store's Close.

var pageSize = sync.OnceValue(os.Getpagesize)

// region is one anonymous private mapping of whole pages.
type region struct {
	b []byte
}

func mapRegion(pages int) (region, error) {
	if pages <= 0 {
		return region{}, fmt.Errorf("mapping %d pages", pages)
	}
	b, err := unix.Mmap(-1, 0, pages*pageSize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return region{}, fmt.Errorf("mmap %d pages: %w", pages, err)
	}
	return region{b: b}, nil
}

// at returns a pointer to byte off of the region. The region is not on the
// Go heap, so the pointer is invisible to the garbage collector and stays
// valid until unmap.
func (r region) at(off int) unsafe.Pointer {
	return unsafe.Pointer(&r.b[off])
}

func (r *region) unmap() error {
	if r.b == nil {
		return nil
	}
	err := unix.Munmap(r.b)
	r.b = nil
	if err != nil {
		return fmt.Errorf("munmap: %w", err)
	}
	return nil
}

// The NUMA system calls, as variables so that tests can play a container
// that refuses them.
var (
	sysMbind    = affinity.BindMemory
	sysPageNode = affinity.NodeOfPage
)

// page returns the i-th page of the region.
func (r region) page(i int) []byte {
	return r.b[i*pageSize() : (i+1)*pageSize()]
}
