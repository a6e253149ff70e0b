package counter

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/contend/contend/bench/ksim"
)

// fakeNodes is the fake topology the tests use on a 1-node machine.
var fakeNodes = []int{0, 1, 2, 3}

// newStores returns one store of every kind, closed when the test ends.
// PerNode gets four fake nodes, PerCPU eight CPUs, whatever the machine.
func newStores(t testing.TB, stride Stride) []Store {
	t.Helper()
	var stores []Store
	for _, k := range []StoreKind{StoreAtomic, StoreFalseShare, StorePerNode, StorePerCPU} {
		s, err := New(k, Options{Stride: stride, Nodes: fakeNodes, Fake: true, CPUs: 8})
		if err != nil {
			t.Fatalf("New(%v, stride %v): %v", k, stride, err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("%v.Close: %v", s, err)
			}
		})
		stores = append(stores, s)
	}
	return stores
}

func strides(t testing.TB) []Stride {
	st := []Stride{0, PairStride}
	if LineSize() > 64 {
		t.Logf("cache line is %d bytes; stride 128 is the line stride", LineSize())
	}
	return st
}

func TestLayout(t *testing.T) {
	for _, stride := range strides(t) {
		for _, s := range newStores(t, stride) {
			t.Run(fmt.Sprintf("store=%v/stride=%v", s, stride), func(t *testing.T) {
				l := s.Layout()
				if err := l.Check(); err != nil {
					t.Fatalf("Layout().Check() = %v", err)
				}
				if len(l.Hot) != l.Lines {
					t.Errorf("%d hot words, but Lines = %d", len(l.Hot), l.Lines)
				}
				if l.Stride < stride.Bytes() {
					t.Errorf("Layout().Stride = %d, want >= %d", l.Stride, stride.Bytes())
				}
				// Check's own verdict is only as good as the addresses: make
				// sure they are the words Add and ReadMostly really touch.
				before := s.ReadMostly()
				*wordAt(l.ReadMostly) = 12345
				if got := s.ReadMostly(); got != 12345 {
					t.Errorf("ReadMostly() = %d after writing the reported word, want 12345", got)
				}
				*wordAt(l.ReadMostly) = before
				for i, a := range l.Hot {
					*wordAt(a) += int64(i + 1)
				}
				want := int64(len(l.Hot) * (len(l.Hot) + 1) / 2)
				if got := s.Sum(); got != want {
					t.Errorf("Sum() = %d after adding 1..%d through the reported hot words, want %d", got, len(l.Hot), want)
				}
			})
		}
	}
}

// wordAt turns an address from Layout back into a pointer. The address is
// in the store's own mapping, outside the Go heap, so no object can move or
// die under it; unsafe.Add keeps vet's uintptr-conversion check quiet.
func wordAt(a uintptr) *int64 { return (*int64)(unsafe.Add(unsafe.Pointer(nil), a)) }

// TestConservation hammers every store from many goroutines and checks
// that nothing is lost: the sum is the sum of all deltas.
func TestConservation(t *testing.T) {
	workers, adds := 8, 20000
	if testing.Short() {
		adds = 2000
	}
	for _, s := range newStores(t, 0) {
		t.Run("store="+s.String(), func(t *testing.T) {
			var wg sync.WaitGroup
			sums := make([]int64, workers)
			for w := range workers {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(w), 1))
					cpu, node := w%8, fakeNodes[w%len(fakeNodes)]
					for range adds {
						d := r.Int64N(2048) - 1000
						s.AddAt(cpu, node, d)
						sums[w] += d
					}
				})
			}
			// A reader runs throughout, as calc_group_shares does.
			done := make(chan struct{})
			var rg sync.WaitGroup
			rg.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
						_ = s.Sum()
						_ = s.ReadMostly()
					}
				}
			})
			wg.Wait()
			close(done)
			rg.Wait()
			var want int64
			for _, x := range sums {
				want += x
			}
			if got := s.Sum(); got != want {
				t.Errorf("Sum() = %d after %d×%d adds, want %d", got, workers, adds, want)
			}
		})
	}
}

func TestTypedAdd(t *testing.T) {
	a, err := NewAtomic(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Add(5)
	a.Add(-2)
	if got := a.Load(); got != 3 {
		t.Errorf("Atomic: Load() = %d after Add(5), Add(-2), want 3", got)
	}
	f, err := NewFalseShare(Options{Shares: ksim.ScaleLoad(15)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Add(7)
	if got, rm := f.Load(), f.ReadMostly(); got != 7 || rm != ksim.ScaleLoad(15) {
		t.Errorf("FalseShare: Load(), ReadMostly() = %d, %d, want 7, %d", got, rm, ksim.ScaleLoad(15))
	}
	p, err := NewPerNode(Options{Nodes: []int{0, 2}, Fake: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Add(0, 10)
	p.Add(2, 20)
	if got := p.Sum(); got != 30 {
		t.Errorf("PerNode: Sum() = %d after Add(0, 10), Add(2, 20), want 30", got)
	}
	c, err := NewPerCPU(Options{CPUs: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for cpu := range 3 {
		c.Add(cpu, int64(cpu+1))
	}
	if got := c.Sum(); got != 6 || c.CPUs() != 3 {
		t.Errorf("PerCPU: Sum(), CPUs() = %d, %d, want 6, 3", got, c.CPUs())
	}
	if got := c.ReadMostly(); got != ksim.Nice0Load {
		t.Errorf("PerCPU: ReadMostly() = %d, want ksim.Nice0Load %d", got, ksim.Nice0Load)
	}
}

func TestOptionsErrors(t *testing.T) {
	tests := []struct {
		kind StoreKind
		o    Options
		want string
	}{
		{StoreAtomic, Options{Stride: 96}, "not a power of two"},
		{StoreAtomic, Options{Shares: 1}, "shares 1 out of range"},
		{StoreFalseShare, Options{Shares: MaxShares + 1}, "out of range"},
		{StorePerCPU, Options{CPUs: -1}, "out of range"},
		{StorePerCPU, Options{CPUs: maxCPUs + 1}, "out of range"},
		{StorePerNode, Options{Nodes: []int{-1}, Fake: true}, "node -1 (nodes[0]) out of range"},
		{StorePerNode, Options{Nodes: []int{0, 1024}, Fake: true}, "node 1024 (nodes[1]) out of range"},
		{StorePerNode, Options{Nodes: []int{0, 1, 0}, Fake: true}, "node 0 listed twice (nodes[2])"},
		{StorePerNode, Options{Nodes: []int{0, 3}, NrNodeIDs: 3, Fake: true}, "nr_node_ids 3"},
		{StorePerNode, Options{Nodes: []int{0}, NrNodeIDs: 1025, Fake: true}, "nr_node_ids 1025"},
		{StoreKind(9), Options{}, "unknown store kind 9"},
	}
	for _, tt := range tests {
		s, err := New(tt.kind, tt.o)
		if err == nil {
			s.Close()
			t.Errorf("New(%v, %+v) succeeded, want error containing %q", tt.kind, tt.o, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%v, %+v) = %v, want error containing %q", tt.kind, tt.o, err, tt.want)
		}
	}
}
