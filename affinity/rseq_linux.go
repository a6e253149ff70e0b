package affinity

import (
	"os"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rseqArea is the kernel's struct rseq (include/uapi/linux/rseq.h) in its
// original 32-byte form, the size every kernel since 4.18 accepts. The
// kernel writes cpu_id on the thread's every return to user space after it
// was preempted, migrated or signalled (rseq_handle_notify_resume,
// rseq_update_cpu_node_id), so a plain load of it says where the thread runs
// exactly as a getcpu call made at that instant would. node_id (6.3 and
// later) is not relied on.
type rseqArea struct {
	cpuIDStart uint32
	cpuID      uint32
	rseqCS     uint64 // no critical sections: always 0
	flags      uint32
	nodeID     uint32
	mmCID      uint32
	_          uint32
}

const (
	rseqLen            = 32
	rseqFlagUnregister = 1
	// rseqSig is the signature the kernel would check before a critical
	// section's abort handler; with none it is only part of the
	// registration's identity, and glibc's x86 value does.
	rseqSig = 0x53053053
)

// A ThreadProbe answers "which CPU am I on?" for one pinned thread, as
// cheaply as the machine allows: RDTSCP's TSC_AUX where the process probe
// trusts it (x86), else an rseq area registered on the thread, whose cpu_id
// the kernel keeps current (a load: arm64, and x86 guests without a usable
// TSC_AUX), else getcpu. Whichever it uses, it agreed with getcpu on this
// thread before it was trusted.
type ThreadProbe struct {
	p    *CPUProbe
	area *rseqArea // registered on the thread; nil when p answers
	page []byte    // the mapping that holds area
}

// Thread returns a probe for the calling thread, which must stay locked to
// its goroutine (Pin) until release, which must run on the same thread
// before it is unlocked: it unregisters the rseq area, and a thread handed
// back to the scheduler with an area registered would have the kernel write
// into it forever. The area lives in a mapping of its own, never in the Go
// heap, and one that cannot be unregistered is never unmapped, and its
// thread is left locked so that it exits with its goroutine.
//
// rseq is not used where TSC_AUX is, where CONTEND_NO_RSEQ is set, or where
// the thread already has an area (glibc registers one for every thread of a
// cgo binary since 2.35; this one is static) or the kernel lacks rseq
// (before 4.18, and QEMU's user mode): then the probe falls back to p.
func (p *CPUProbe) Thread() (t *ThreadProbe, release func()) {
	t = &ThreadProbe{p: p}
	if p.tscAux || os.Getenv("CONTEND_NO_RSEQ") != "" {
		return t, func() {}
	}
	page, area, err := registerRseq()
	if err != nil {
		return t, func() {}
	}
	t.area, t.page = area, page
	if cpu, _, err := GetCPU(); err != nil || cpu != t.CPU() {
		t.release()
		t.area = nil
		return t, func() {}
	}
	return t, t.release
}

// registerRseq maps a page and registers an area at its start for the
// calling thread.
func registerRseq() ([]byte, *rseqArea, error) {
	page, err := unix.Mmap(-1, 0, os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, err
	}
	area := (*rseqArea)(unsafe.Pointer(&page[0]))
	area.cpuID = ^uint32(0) // RSEQ_CPU_ID_UNINITIALIZED, until the kernel writes it
	if _, _, e := unix.RawSyscall6(unix.SYS_RSEQ, uintptr(unsafe.Pointer(area)), rseqLen, 0, rseqSig, 0, 0); e != 0 {
		unix.Munmap(page)
		return nil, nil, e
	}
	return page, area, nil
}

func (t *ThreadProbe) release() {
	if t.area == nil {
		return
	}
	_, _, e := unix.RawSyscall6(unix.SYS_RSEQ, uintptr(unsafe.Pointer(t.area)), rseqLen, rseqFlagUnregister, rseqSig, 0, 0)
	if e == 0 {
		unix.Munmap(t.page)
	} else {
		// The thread keeps its area: lock it once more, so that the
		// caller's unlock (Pin's undo) leaves it locked and the runtime
		// destroys it when the goroutine exits, rather than hand the
		// scheduler a thread the kernel still writes cpu_id for.
		runtime.LockOSThread()
	}
	t.area, t.page = nil, nil
}

// CPU returns the CPU the calling thread runs on; it must be the thread
// Thread was called on.
func (t *ThreadProbe) CPU() int {
	if t.area != nil {
		return int(int32(atomic.LoadUint32(&t.area.cpuID)))
	}
	return t.p.CPU()
}

// Method names how CPU answers, for people: "RDTSCP TSC_AUX", "rseq cpu_id"
// or "getcpu".
func (t *ThreadProbe) Method() string {
	switch {
	case t.area != nil:
		return "rseq cpu_id"
	case t.p.tscAux:
		return "RDTSCP TSC_AUX"
	}
	return "getcpu"
}

// FastPath reports whether CPU reads a register or memory rather than
// calling getcpu.
func (t *ThreadProbe) FastPath() bool { return t.area != nil || t.p.tscAux }
