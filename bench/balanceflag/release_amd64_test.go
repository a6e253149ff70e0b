package balanceflag

import (
	"sync/atomic"
	"testing"
)

// The assembly store writes what it is given, all 32 bits, and nothing
// beside it.
func TestMovStore(t *testing.T) {
	var x [3]int32
	x[0], x[1], x[2] = -1, 1, -1
	movStore(&x[1], 0)
	if x != [3]int32{-1, 0, -1} {
		t.Errorf("movStore(&x[1], 0): x = %v, want [-1 0 -1]", x)
	}
	movStore(&x[1], -7)
	if got := atomic.LoadInt32(&x[1]); got != -7 || x[0] != -1 || x[2] != -1 {
		t.Errorf("movStore(&x[1], -7): x = %v, want [-1 -7 -1]", x)
	}
	var w paddedWord
	atomic.StoreInt32(&w.v, 1)
	storeRelease(&w.v, 0) // release=mov
	if got := atomic.LoadInt32(&w.v); got != 0 {
		t.Errorf("storeRelease(release=mov) left %d", got)
	}
	atomic.StoreInt32(&w.v, 1)
	storeRelease(&w.v, 1) // release=xchg
	if got := atomic.LoadInt32(&w.v); got != 0 {
		t.Errorf("storeRelease(release=xchg) left %d", got)
	}
}
