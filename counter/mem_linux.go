package counter

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
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

// Memory policy modes for mbind(2). MPOL_PREFERRED falls back to another
// node when the preferred one is full, and the verification afterwards
// reports it; MPOL_BIND would rather fail the page fault (SIGBUS), which a
// benchmark should not risk for one page.
const (
	mpolPreferred = unix.MPOL_PREFERRED
	mpolBind      = unix.MPOL_BIND
)

// The NUMA system calls, as variables so that tests can play a container
// that refuses them.
var (
	sysMbind    = mbind
	sysPageNode = pageNode
)

// mbind sets the memory policy of [addr, addr+length) to mode on node, before
// the first touch so that the page is allocated there.
func mbind(addr unsafe.Pointer, length, mode, node int) error {
	// The kernel reads maxnode-1 bits (get_nodes' historical "--maxnode"),
	// so pass one more than the bits in the mask, as numactl does.
	mask := make([]uint64, node/64+1)
	mask[node/64] |= 1 << (uint(node) % 64)
	maxnode := uintptr(len(mask)*64 + 1)
	_, _, errno := unix.Syscall6(unix.SYS_MBIND, uintptr(addr), uintptr(length), uintptr(mode),
		uintptr(unsafe.Pointer(&mask[0])), maxnode, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// pageNode returns the node backing the (already touched) page at addr:
// get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR) first, move_pages(2) with a nil
// node list (query only) if that is not allowed.
func pageNode(addr unsafe.Pointer) (int, error) {
	var mode int32
	_, _, errno := unix.Syscall6(unix.SYS_GET_MEMPOLICY, uintptr(unsafe.Pointer(&mode)), 0, 0,
		uintptr(addr), unix.MPOL_F_NODE|unix.MPOL_F_ADDR, 0)
	if errno == 0 {
		return int(mode), nil
	}
	gmErr := errno
	pages := [1]uintptr{uintptr(addr)}
	status := [1]int32{-1}
	_, _, errno = unix.Syscall6(unix.SYS_MOVE_PAGES, 0, 1, uintptr(unsafe.Pointer(&pages[0])), 0,
		uintptr(unsafe.Pointer(&status[0])), 0)
	if errno != 0 {
		return -1, fmt.Errorf("get_mempolicy: %w; move_pages: %w", gmErr, errno)
	}
	if status[0] < 0 {
		return -1, fmt.Errorf("get_mempolicy: %w; move_pages: status %w", gmErr, unix.Errno(-status[0]))
	}
	return int(status[0]), nil
}
