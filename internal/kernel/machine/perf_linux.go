package machine

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
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
// It counts, and with Chains it samples too: each hit costs a debug
// exception and perf's counting, and a sampled one its call chain's
// unwinding and a record.
type Breakpoint struct {
	Name  string
	Addr  uint64
	Write bool // a watchpoint of Len bytes, else an execute breakpoint
	Len   int
	// Chains, where above 0, makes the breakpoint sample as well as
	// count: every hit records its kernel call chain (at most Chains
	// return addresses) in a ring on its cpu, which Samples reads.
	Chains int
	fds    []int
	rings  [][]byte
}

// ringPages is each cpu's sample ring, in pages (a power of two): 2 MiB
// at 4 KiB pages holds some 32000 chains of 4 frames. Nothing drains it
// during the run, so a full ring drops the later samples without a
// PERF_RECORD_LOST (the kernel writes one only once room returns): the
// caller compares the samples with the breakpoint's count (the 1-pair
// 6.1 lab counts filled 512 KiB rings: 21844 and 11268 samples of 31165
// and 17471 hits).
const ringPages = 512

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
	if b.Chains > 0 {
		// Every hit a sample; the kernel's chain only; no wakeups
		// until the ring is half full, and nobody waits on it.
		attr.Sample = 1
		attr.Sample_type = unix.PERF_SAMPLE_IP | unix.PERF_SAMPLE_CALLCHAIN
		attr.Sample_max_stack = uint16(b.Chains)
		attr.Bits |= unix.PerfBitExcludeCallchainUser | unix.PerfBitWatermark
		attr.Wakeup = uint32(ringPages * unix.Getpagesize() / 2)
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
		if b.Chains > 0 {
			ring, err := unix.Mmap(fd, 0, (1+ringPages)*unix.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
			if err != nil {
				b.Close()
				return fmt.Errorf("mmap of breakpoint %s's sample ring on cpu %d: %w (perf_event_mlock_kb)", b.Name, c, err)
			}
			b.rings = append(b.rings, ring)
		}
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

// Samples reads every cpu's ring of a sampling breakpoint (Chains > 0):
// each hit's call chain, and the samples the kernel dropped for want of
// room. Read it disabled: the rings are read once, not drained as they
// fill.
func (b *Breakpoint) Samples() (chains [][]uint64, lost uint64, err error) {
	for i, ring := range b.rings {
		page := (*unix.PerfEventMmapPage)(unsafe.Pointer(&ring[0]))
		head := atomic.LoadUint64(&page.Data_head)
		off, size := page.Data_offset, page.Data_size
		if off == 0 { // before v4.1 the data follows the first page
			off, size = uint64(unix.Getpagesize()), uint64(len(ring)-unix.Getpagesize())
		}
		c, l, err := ParseSamples(ring[off:off+size], page.Data_tail, head)
		if err != nil {
			return nil, 0, fmt.Errorf("breakpoint %s's samples in ring %d: %w", b.Name, i, err)
		}
		chains, lost = append(chains, c...), lost+l
	}
	return chains, lost, nil
}

// Close releases every cpu's breakpoint.
func (b *Breakpoint) Close() {
	for _, r := range b.rings {
		unix.Munmap(r)
	}
	b.rings = nil
	for _, fd := range b.fds {
		unix.Close(fd)
	}
	b.fds = nil
}
