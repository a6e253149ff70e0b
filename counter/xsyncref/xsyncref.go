// Package xsyncref is xsync.Counter, the Go ecosystem's striped counter, as
// a counter.Store: the reference that benchmarks hold the kernel's storages
// of tg->load_avg against. It is used only by tests and benchmarks, so that
// contend itself does not depend on xsync; a run drives it through the
// counter.Store interface, one indirect call per write and read, where the
// kernel's storages inline their add.
package xsyncref

import (
	"math/bits"
	"runtime"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/counter"
	"github.com/puzpuzpuz/xsync/v4"
)

// Store is an xsync.Counter behind counter.Store.
type Store struct{ c *xsync.Counter }

// New returns a Store at zero.
func New() Store { return Store{xsync.NewCounter()} }

func (x Store) AddAt(cpu, node int, d int64) { x.c.Add(d) }
func (x Store) Sum() int64                   { return x.c.Value() }
func (x Store) ReadMostly() int64            { return ksim.Nice0Load }
func (x Store) Layout() counter.Layout       { return counter.Layout{} }
func (x Store) Close() error                 { return nil }
func (x Store) String() string               { return "xsync" }

// Lines is how many cache lines one Sum reads: xsync stripes its counter
// nextPowOf2(min(GOMAXPROCS, NumCPU)) ways (its util.go, parallelism), and
// Value reads every stripe.
func Lines() int {
	n := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	return 1 << bits.Len(uint(n-1))
}
