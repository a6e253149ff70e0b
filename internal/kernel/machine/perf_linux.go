package machine

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Hardware breakpoint types and lengths (include/uapi/linux/hw_breakpoint.h).
const (
	bpWrite = 2 // HW_BREAKPOINT_W
	bpExec  = 4 // HW_BREAKPOINT_X
)

// MaxBreakpoints: x86 has four debug address registers per cpu: at most four breakpoints
// at once, fewer if something else (a debugger, another perf user) holds
// one.
const MaxBreakpoints = 4

// A Breakpoint is a hardware breakpoint on every cpu: an execute
// breakpoint on an instruction (a site) or a write watchpoint on a word.
// It counts, it never samples: each hit costs a debug exception and
// perf's counting, not a record.
type Breakpoint struct {
	Name  string
	Addr  uint64
	Write bool // a watchpoint of Len bytes, else an execute breakpoint
	Len   int
	fds   []int
}

// Open opens the breakpoint on each cpu, disabled, and records closing it.
// With a leader (opened before on the same cpus) each cpu's breakpoint
// joins the leader's group there, so ReadGroup reads them all at one
// instant per cpu; a nil leader makes b a group's leader.
func (b *Breakpoint) Open(u *Undo, cpus []int, leader *Breakpoint) error {
	attr := unix.PerfEventAttr{
		Type: unix.PERF_TYPE_BREAKPOINT,
		Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Bits: unix.PerfBitDisabled,
		Ext1: b.Addr,
	}
	if leader == nil {
		attr.Read_format = unix.PERF_FORMAT_GROUP
	}
	attr.Bp_type, attr.Ext2 = bpExec, 8 // an execute breakpoint's length is sizeof(long)
	if b.Write {
		attr.Bp_type, attr.Ext2 = bpWrite, uint64(b.Len)
	}
	for i, c := range cpus {
		group := -1
		if leader != nil {
			group = leader.fds[i]
		}
		fd, err := unix.PerfEventOpen(&attr, -1, c, group, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			b.Close()
			return fmt.Errorf("perf_event_open breakpoint %s at %#x on cpu %d: %w (needs root or CAP_PERFMON; kernel.perf_event_paranoid; a free debug register)", b.Name, b.Addr, c, err)
		}
		b.fds = append(b.fds, fd)
	}
	u.Push("breakpoint "+b.Name, func() error { b.Close(); return nil })
	return nil
}

// Enable starts (on) or stops counting on every cpu.
func (b *Breakpoint) Enable(on bool) error {
	req := uint(unix.PERF_EVENT_IOC_DISABLE)
	if on {
		req = unix.PERF_EVENT_IOC_ENABLE
	}
	for _, fd := range b.fds {
		if err := unix.IoctlSetInt(fd, req, 0); err != nil {
			return fmt.Errorf("breakpoint %s: %w", b.Name, err)
		}
	}
	return nil
}

// Count sums the hits over every cpu.
func (b *Breakpoint) Count() (uint64, error) {
	var sum uint64
	buf := make([]byte, 8)
	for _, fd := range b.fds {
		if _, err := unix.Read(fd, buf); err != nil {
			return 0, fmt.Errorf("reading breakpoint %s: %w", b.Name, err)
		}
		sum += binary.NativeEndian.Uint64(buf)
	}
	return sum, nil
}

// ReadGroup reads a group of breakpoints, leader first (each opened with
// the leader before it): one read of the leader per cpu, which the kernel
// answers with every member's count taken on that cpu at once, so two
// breakpoints on one write (a site's and its word's watchpoint) are read
// at the same instant. It returns each breakpoint's sum over the cpus.
func ReadGroup(bps []*Breakpoint) ([]uint64, error) {
	n := make([]uint64, len(bps))
	if len(bps) == 0 {
		return n, nil
	}
	buf := make([]byte, 8*(1+len(bps)))
	for _, fd := range bps[0].fds {
		m, err := unix.Read(fd, buf)
		if err != nil {
			return nil, fmt.Errorf("reading breakpoint group %s: %w", bps[0].Name, err)
		}
		if m != len(buf) || binary.NativeEndian.Uint64(buf) != uint64(len(bps)) {
			return nil, fmt.Errorf("reading breakpoint group %s: %d bytes for %d members, want %d", bps[0].Name, m, binary.NativeEndian.Uint64(buf), len(bps))
		}
		for i := range bps {
			n[i] += binary.NativeEndian.Uint64(buf[8*(1+i):])
		}
	}
	return n, nil
}

// Close releases every cpu's breakpoint.
func (b *Breakpoint) Close() {
	for _, fd := range b.fds {
		unix.Close(fd)
	}
	b.fds = nil
}
