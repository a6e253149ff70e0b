package affinity

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// page maps one anonymous page of our own, untouched, as counter and c2c
// map theirs.
func page(t *testing.T) []byte {
	t.Helper()
	p, err := unix.Mmap(-1, 0, unix.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(p) })
	return p
}

// A page bound to node 0 before its first touch is on node 0 after it;
// the calls' own refusals name what was wrong.
func TestBindMemory(t *testing.T) {
	p := page(t)
	if err := BindMemory(p[:0], 0, Preferred); err == nil || err.Error() != "mbind: empty range" {
		t.Errorf("BindMemory of no bytes = %v, want mbind: empty range", err)
	}
	if err := BindMemory(p, -1, Bind); !errors.Is(err, unix.EINVAL) || err.Error() != "mbind: node -1: invalid argument" {
		t.Errorf("BindMemory to node -1 = %v, want EINVAL naming the node", err)
	}
	if err := BindMemory(p, 0, Bind); errors.Is(err, unix.EPERM) {
		t.Skipf("mbind refused (a container's seccomp profile?): %v", err)
	} else if err != nil {
		t.Fatalf("BindMemory to node 0: %v", err)
	}
	p[0] = 1
	if node, err := NodeOfPage(unsafe.Pointer(&p[0])); err != nil || node != 0 {
		t.Errorf("NodeOfPage of a page bound to node 0 = %d, %v", node, err)
	}
	// Node 1023 is within MAX_NUMNODES but on no machine we run on:
	// the kernel refuses, and the error says which policy and node.
	err := BindMemory(page(t), 1023, Bind)
	if err == nil || !strings.HasPrefix(err.Error(), "mbind MPOL_BIND node 1023: ") {
		t.Errorf("BindMemory to node 1023 = %v, want the kernel's refusal naming MPOL_BIND and the node", err)
	}
}

// An address nothing is mapped at (page 0, below mmap_min_addr) has no
// node: both system calls fail, and the error carries both reasons.
func TestNodeOfPageUnmapped(t *testing.T) {
	node, err := NodeOfPage(nil)
	if err == nil || node != -1 || !strings.HasPrefix(err.Error(), "get_mempolicy: ") || !strings.Contains(err.Error(), "; move_pages: ") {
		t.Errorf("NodeOfPage of an unmapped address = %d, %v; want -1 and both calls' errors", node, err)
	}
}

func TestMemPolicyString(t *testing.T) {
	for p, want := range map[MemPolicy]string{Preferred: "MPOL_PREFERRED", Bind: "MPOL_BIND", MemPolicy(99): "mpol(99)"} {
		if got := p.String(); got != want {
			t.Errorf("MemPolicy(%d).String() = %q, want %q", int(p), got, want)
		}
	}
}

// RunOn runs f on the cpu asked for and leaves the caller's thread alone; a
// cpu it cannot pin to is an error, and f does not run.
func TestRunOn(t *testing.T) {
	cpus := startCPUs()
	if len(cpus) == 0 {
		t.Fatal("no allowed cpus")
	}
	before, err := ThreadCPUs()
	if err != nil {
		t.Fatal(err)
	}
	for _, cpu := range cpus {
		ran, on := false, -1
		if err := RunOn(cpu, func() { ran = true; on, _, _ = GetCPU() }); err != nil || !ran || on != cpu {
			t.Errorf("RunOn(%d): ran %v on cpu %d, error %v", cpu, ran, on, err)
		}
	}
	if after, err := ThreadCPUs(); err != nil || !slices.Equal(after, before) {
		t.Errorf("the caller's thread mask went from %v to %v (%v)", before, after, err)
	}
	ran := false
	if err := RunOn(-1, func() { ran = true }); err == nil || ran {
		t.Errorf("RunOn(-1): error %v, ran %v; want an error and f not run", err, ran)
	}
}

// EnsureProcs raises GOMAXPROCS, never lowers it, and restores it.
func TestEnsureProcs(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	restore := EnsureProcs(prev + 3)
	if got := runtime.GOMAXPROCS(0); got != prev+3 {
		t.Errorf("EnsureProcs(%d): GOMAXPROCS %d", prev+3, got)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != prev {
		t.Errorf("after restore: GOMAXPROCS %d, want %d", got, prev)
	}
	restore = EnsureProcs(1)
	if got := runtime.GOMAXPROCS(0); got != prev {
		t.Errorf("EnsureProcs(1) changed GOMAXPROCS %d to %d", prev, got)
	}
	restore()
}
