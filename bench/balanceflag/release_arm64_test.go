package balanceflag

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contend/contend/bench/benchtest"
)

// Each assembly store writes what it is given, all 32 bits, and nothing
// beside it; storeRelease releases with either.
func TestArm64Stores(t *testing.T) {
	for _, st := range []struct {
		name  string
		store func(*int32, int32)
	}{{"stlr", stlrStore}, {"dmb", dmbStore}} {
		var x [3]int32
		x[0], x[1], x[2] = -1, 1, -1
		st.store(&x[1], 0)
		if x != [3]int32{-1, 0, -1} {
			t.Errorf("%sStore(&x[1], 0): x = %v, want [-1 0 -1]", st.name, x)
		}
		st.store(&x[1], -7)
		if got := atomic.LoadInt32(&x[1]); got != -7 || x[0] != -1 || x[2] != -1 {
			t.Errorf("%sStore(&x[1], -7): x = %v, want [-1 -7 -1]", st.name, x)
		}
	}
	for i, name := range releaseNames {
		var w paddedWord
		atomic.StoreInt32(&w.v, 1)
		storeRelease(&w.v, i)
		if got := atomic.LoadInt32(&w.v); got != 0 {
			t.Errorf("storeRelease(release=%s) left %d", name, got)
		}
	}
}

// On arm64 the release= values are the two arm64 forms; x86's names and
// Go's atomic store (which is stlr here) are refused in one line.
func TestArm64ReleaseVariants(t *testing.T) {
	def := "order=cmpxchg-first/pace=off/phase=spread/hz=1000/span=auto/group=16/smt=2/cs=100ns/interval=auto/newidle=0/work=100/release=stlr"
	benchtest.CheckVariants(t, "balanceflag", [][2]string{
		{"", def},
		{"release=dmb", strings.Replace(def, "release=stlr", "release=dmb", 1)},
		{"release=mov", `!release="mov": unknown value (want stlr|dmb)`},
		{"release=store", `!release="store": unknown value (want stlr|dmb)`},
	})
}
