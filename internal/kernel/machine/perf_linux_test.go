package machine

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pinToOne locks the goroutine to its thread and that thread to the
// first cpu it may run on, which it returns.
func pinToOne(t *testing.T) int {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	c := 0
	for !set.IsSet(c) {
		c++
	}
	set.Zero()
	set.Set(c)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSamplingBreakpoint: a write watchpoint with Chains on a buffer the
// kernel writes (read(2) from /dev/zero copies into it) counts every
// write and records, for each, a chain of kernel addresses: the copy
// and its callers. (Execute breakpoints on kernel text would do as
// well, but some hosts refuse them: this session's 6.18 host answers
// EINVAL; the lab's guests take them.)
func TestSamplingBreakpoint(t *testing.T) {
	c := pinToOne(t)
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer zero.Close()
	word := new(uint64) // aligned, as a watchpoint of 8 bytes must be
	buf := unsafe.Slice((*byte)(unsafe.Pointer(word)), 8)
	var u Undo
	defer u.Run()
	b := &Breakpoint{Name: "buf", Addr: uint64(uintptr(unsafe.Pointer(&buf[0]))), Write: true, Len: 8, Chains: 6}
	if err := b.Open(&u, []int{c}, nil); err != nil {
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSPC) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if err := b.Enable(true); err != nil {
		t.Fatal(err)
	}
	const reads = 300
	for range reads {
		if _, err := unix.Read(int(zero.Fd()), buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Enable(false); err != nil {
		t.Fatal(err)
	}
	ns, err := ReadGroup([]*Breakpoint{b}) // a group of one: nil leader
	if err != nil {
		t.Fatal(err)
	}
	n := ns[0]
	chains, lost, err := b.Samples()
	if err != nil {
		t.Fatal(err)
	}
	if n < reads || uint64(len(chains))+lost != n {
		t.Fatalf("counted %d, sampled %d and lost %d, for %d reads", n, len(chains), lost, reads)
	}
	if len(chains) > 0 {
		t.Logf("first chain %#x", chains[0])
	}
	for _, ch := range chains {
		if len(ch) < 2 || len(ch) > 6 {
			t.Fatalf("chain %#x: want the copy and its callers, at most 6", ch)
		}
		for _, a := range ch {
			if a < 0xffff800000000000 {
				t.Fatalf("chain %#x holds a user address (the user chain is excluded)", ch)
			}
		}
	}
	b.Close()
	if _, _, err := b.Samples(); err != nil {
		t.Fatalf("a closed breakpoint's samples: %v", err)
	}
}
