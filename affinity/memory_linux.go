package affinity

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Node-local memory. A per-node counter slot or a core-to-core line is only
// node-local if its page is: the Go heap reuses pages already touched on
// whatever node, so callers map their own pages (unix.Mmap), set a memory
// policy before the first touch, and ask the kernel afterwards where each
// page landed. These are the two system calls that takes, shared by package
// counter's per-node slots and c2c's ping-pong line.

// A MemPolicy is an mbind(2) mode.
type MemPolicy int

const (
	// Preferred (MPOL_PREFERRED) falls back to another node when the
	// preferred one is full; NodeOfPage then reports where the page went.
	// The safe choice for a benchmark: one page never fails to appear.
	Preferred MemPolicy = unix.MPOL_PREFERRED
	// Bind (MPOL_BIND) refuses other nodes: a page fault that cannot be
	// served on the node is SIGBUS rather than a quiet remote page.
	Bind MemPolicy = unix.MPOL_BIND
)

func (p MemPolicy) String() string {
	switch p {
	case Preferred:
		return "MPOL_PREFERRED"
	case Bind:
		return "MPOL_BIND"
	}
	return fmt.Sprintf("mpol(%d)", int(p))
}

// BindMemory sets the memory policy of mem's pages (mem must start on a page
// boundary, as mmap returns it) to policy on node. Call it before the pages
// are first touched: a policy decides where a page is allocated, it does
// not move one that exists. Containers often refuse mbind (EPERM); the
// caller may then place pages by first touch from a thread pinned to the
// node (RunOn).
func BindMemory(mem []byte, node int, policy MemPolicy) error {
	if len(mem) == 0 {
		return fmt.Errorf("mbind: empty range")
	}
	if node < 0 {
		return fmt.Errorf("mbind: node %d: %w", node, unix.EINVAL)
	}
	// The kernel reads maxnode-1 bits of the mask (get_nodes' historical
	// "--maxnode"), so pass one more than the bits it holds, as numactl
	// does; a mask one bit short would silently drop the highest node.
	mask := make([]uint64, node/64+1)
	mask[node/64] |= 1 << (uint(node) % 64)
	maxnode := uintptr(64*len(mask) + 1)
	_, _, errno := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)),
		uintptr(policy), uintptr(unsafe.Pointer(&mask[0])), maxnode, 0)
	runtime.KeepAlive(mask)
	if errno != 0 {
		return fmt.Errorf("mbind %s node %d: %w", policy, node, errno)
	}
	return nil
}

// NodeOfPage returns the node holding the (already touched) page at addr:
// get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR) first and, where a seccomp profile
// refuses that, move_pages(2) with no target nodes, which only queries.
func NodeOfPage(addr unsafe.Pointer) (int, error) {
	var node int32
	_, _, errno := unix.Syscall6(unix.SYS_GET_MEMPOLICY, uintptr(unsafe.Pointer(&node)), 0, 0,
		uintptr(addr), unix.MPOL_F_NODE|unix.MPOL_F_ADDR, 0)
	if errno == 0 {
		return int(node), nil
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

// RunOn runs f on a thread pinned to cpu and unpins it again: the way to
// first-touch memory on a node, or to do anything else that must happen on
// one CPU, from code that is not itself pinned. It waits for f and returns
// the pinning error, if any (f did not run then), or the unpinning error.
func RunOn(cpu int, f func()) error {
	errc := make(chan error, 1)
	go func() {
		undo, err := Pin(cpu)
		if err != nil {
			errc <- err
			return
		}
		f()
		errc <- undo()
	}()
	return <-errc
}
