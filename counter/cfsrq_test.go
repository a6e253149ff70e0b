package counter

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustWrite(t testing.TB, s string) WritePolicy {
	t.Helper()
	w, err := ParseWrite(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func mustRead(t testing.TB, s string) ReadPolicy {
	t.Helper()
	r, err := ParseRead(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newAtomic(t testing.TB) *Atomic {
	t.Helper()
	a, err := NewAtomic(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func newRq(t testing.TB, s Store, write, read string) *CfsRq {
	t.Helper()
	rq, err := NewCfsRq(s, mustWrite(t, write), mustRead(t, read), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rq
}

// TestWriteThreshold checks update_tg_load_avg's test, |delta| >
// contrib/N, at its edges.
func TestWriteThreshold(t *testing.T) {
	tests := []struct {
		write     string
		from, to  int64
		wantWrite bool
	}{
		{"every", 0, 0, false}, // nothing to push
		{"every", 0, 1, true},  // contrib 0: any change goes
		{"every", 6400, 6500, false},
		{"every", 6400, 6501, true},
		{"every", 6400, 6300, false},
		{"every", 6400, 6299, true},
		{"threshold=64", 6400, 6501, true},
		{"threshold=16", 6400, 6800, false},
		{"threshold=16", 6400, 6801, true},
		{"threshold=16", 6400, 5999, true},
		{"threshold=1", 6400, 12800, false},
		{"threshold=1", 6400, 12801, true},
		{"threshold=3", 6400, 8533, false}, // 6400/3 = 2133, not a shift
		{"threshold=3", 6400, 8534, true},
		{"ratelimit", 6400, 6500, false}, // the rate limit keeps the /64 test
		{"ratelimit", 6400, 6501, true},
		{"delay", 6400, 6501, true},
	}
	for _, tt := range tests {
		a := newAtomic(t)
		rq := newRq(t, a, tt.write, "every")
		rq.SetLoad(tt.from, 0)
		rq.UpdateTGLoadAvg(0, false)
		if rq.Contrib() != tt.from || a.Load() != tt.from {
			t.Fatalf("%s: first update from 0 to %d left contrib %d, store %d", tt.write, tt.from, rq.Contrib(), a.Load())
		}
		rq.SetLoad(tt.to, 0)
		// A second later, so the rate limit never stands in the way here.
		got := rq.UpdateTGLoadAvg(int64(time.Second), false)
		if got != tt.wantWrite {
			t.Errorf("write=%s: load %d -> %d: UpdateTGLoadAvg() = %v, want %v", tt.write, tt.from, tt.to, got, tt.wantWrite)
		}
		want := tt.from
		if tt.wantWrite {
			want = tt.to
		}
		if a.Load() != want || rq.Contrib() != want || rq.Pending() != tt.to-want {
			t.Errorf("write=%s: load %d -> %d: store %d, contrib %d, pending %d, want %d, %d, %d",
				tt.write, tt.from, tt.to, a.Load(), rq.Contrib(), rq.Pending(), want, want, tt.to-want)
		}
	}
}

// TestRateLimit drives a cfs_rq whose load always changes enough to be
// written, with an injected clock, and checks it writes exactly once per
// period.
func TestRateLimit(t *testing.T) {
	const step = 10 * time.Microsecond
	const run = 100 * time.Millisecond
	for _, period := range []time.Duration{500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond} {
		t.Run("period="+formatDuration(period), func(t *testing.T) {
			a := newAtomic(t)
			rq, err := NewCfsRq(a, WritePolicy{Kind: WriteRateLimit, Period: period}, ReadPolicy{}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			windows := map[int64]int{}
			events := 0
			for now := time.Duration(0); now < run; now += step {
				// Always 1000 away from what was last pushed, far over contrib/64.
				if rq.Contrib() < 3000 {
					rq.SetLoad(rq.Contrib()+1000, 0)
				} else {
					rq.SetLoad(rq.Contrib()-1000, 0)
				}
				events++
				if rq.UpdateTGLoadAvg(int64(now), false) {
					windows[int64(now/period)]++
				}
			}
			want := int(run / period)
			st := rq.Stats()
			if int(st.Writes) != want || len(windows) != want {
				t.Errorf("%d writes in %d windows over %v, want %d: one per period", st.Writes, len(windows), run, want)
			}
			for w, n := range windows {
				if n != 1 {
					t.Errorf("window %d had %d writes, want 1", w, n)
				}
			}
			if int(st.Updates) != events || st.Limited != st.Updates-st.Writes {
				t.Errorf("Stats() = %+v after %d events, want Updates = events and Limited = Updates - Writes", st, events)
			}
		})
	}
}

// TestRateLimitNoRestart: an update the threshold turns away does not
// restart the period (last_update_tg_load_avg only moves on a write).
func TestRateLimitNoRestart(t *testing.T) {
	a := newAtomic(t)
	rq := newRq(t, a, "ratelimit=1ms", "every")
	ms := int64(time.Millisecond)
	steps := []struct {
		now       int64
		load      int64
		wantWrite bool
	}{
		{0, 1000, true},                 // first write may happen at once
		{ms / 2, 2000, false},           // within the period
		{ms, 1001, false},               // period over, but |1| <= 1000/64
		{ms + ms/10, 2000, true},        // 1.1ms after the last write: goes
		{ms + ms/10 + 1, 4000, false},   // and the period restarts from there
		{2*ms + ms/10 - 1, 4000, false}, // one nanosecond short
		{2*ms + ms/10, 4000, true},      // now - last == period is enough
	}
	for _, s := range steps {
		rq.SetLoad(s.load, 0)
		if got := rq.UpdateTGLoadAvg(s.now, false); got != s.wantWrite {
			t.Errorf("at %dns load %d: UpdateTGLoadAvg() = %v, want %v", s.now, s.load, got, s.wantWrite)
		}
	}
}

// TestDelay: under write=delay a removal is not pushed at once; the next
// update that is not a removal pushes it along with its own change.
func TestDelay(t *testing.T) {
	for _, write := range []string{"delay", "every"} {
		a := newAtomic(t)
		rq := newRq(t, a, write, "every")
		rq.SetLoad(1000, 0)
		rq.UpdateTGLoadAvg(0, false)
		rq.SetLoad(400, 0) // a task migrated away
		wrote := rq.UpdateTGLoadAvg(1, true)
		if write == "every" {
			if !wrote || a.Load() != 400 {
				t.Errorf("write=every: removal: wrote %v, store %d, want true, 400", wrote, a.Load())
			}
			continue
		}
		if wrote || a.Load() != 1000 || rq.Pending() != -600 || rq.Stats().Delayed != 1 {
			t.Errorf("write=delay: removal: wrote %v, store %d, pending %d, delayed %d, want false, 1000, -600, 1",
				wrote, a.Load(), rq.Pending(), rq.Stats().Delayed)
		}
		rq.SetLoad(500, 0) // a task attached: the next ordinary update
		if !rq.UpdateTGLoadAvg(2, false) || a.Load() != 500 || rq.Pending() != 0 {
			t.Errorf("write=delay: next update: store %d, pending %d, want 500, 0", a.Load(), rq.Pending())
		}
	}
}

// TestSkip: read=skip=K reads on one event in K, starting with the first,
// and a skipped event returns the weight of the last read.
func TestSkip(t *testing.T) {
	const events = 100
	for _, k := range []int{1, 2, 3, 7, 100, 1000} {
		a := newAtomic(t)
		rq := newRq(t, a, "every", fmt.Sprintf("skip=%d", k))
		var last int64
		for i := range events {
			a.Add(int64(i)) // the group load moves, so a real read shows
			shares, read := rq.UpdateCfsGroup()
			if wantRead := i%k == 0; read != wantRead {
				t.Fatalf("skip=%d: event %d: read = %v, want %v", k, i, read, wantRead)
			}
			if !read && shares != last {
				t.Fatalf("skip=%d: event %d skipped but returned %d, want the last read's %d", k, i, shares, last)
			}
			last = shares
		}
		st := rq.Stats()
		if want := int64((events + k - 1) / k); st.Reads != want || st.Reads+st.Skipped != events {
			t.Errorf("skip=%d: %d reads, %d skipped over %d events, want %d reads", k, st.Reads, st.Skipped, events, want)
		}
	}
}

// TestEventShares: with every cfs_rq pushed, each of n equal cfs_rqs gets
// 1/n of the group's weight, whatever the storage.
func TestEventShares(t *testing.T) {
	for _, s := range newStores(t, 0) {
		const n = 4
		var rqs []*CfsRq
		for i := range n {
			rq, err := NewCfsRq(s, mustWrite(t, "every"), mustRead(t, "every"), i, fakeNodes[i])
			if err != nil {
				t.Fatal(err)
			}
			rq.Event(0, 1024, NiceZeroLoad, false)
			rqs = append(rqs, rq)
		}
		for i, rq := range rqs {
			got := rq.Event(1, 1024, NiceZeroLoad, false)
			if got != NiceZeroLoad/n || rq.TGLoadSeen() != 1024*n || rq.Shares() != got {
				t.Errorf("store=%v: cfs_rq %d: Event() = %d, saw tg load %d, want %d, %d", s, i, got, rq.TGLoadSeen(), NiceZeroLoad/n, 1024*n)
			}
		}
	}
}

// TestConservationPolicies hammers one group from many cfs_rqs under every
// storage and write policy: at any quiet moment, the store's sum plus what
// the cfs_rqs hold back equals the true load exactly, and a flush leaves
// nothing held back.
func TestConservationPolicies(t *testing.T) {
	const workers = 8
	events := 4000
	if testing.Short() {
		events = 400
	}
	for _, write := range []string{"every", "threshold=16", "ratelimit=100us", "delay"} {
		for _, read := range []string{"every", "skip=3"} {
			for _, s := range newStores(t, 0) {
				t.Run(fmt.Sprintf("store=%v/write=%s/read=%s", s, write, read), func(t *testing.T) {
					s.AddAt(0, 0, -s.Sum()) // the stores are shared across subtests
					rqs := make([]*CfsRq, workers)
					for w := range workers {
						rq, err := NewCfsRq(s, mustWrite(t, write), mustRead(t, read), w, fakeNodes[w%len(fakeNodes)])
						if err != nil {
							t.Fatal(err)
						}
						rqs[w] = rq
					}
					var wg sync.WaitGroup
					for w, rq := range rqs {
						wg.Go(func() {
							r := rand.New(rand.NewPCG(uint64(w), 2))
							var now, load int64
							for range events {
								now += r.Int64N(int64(200 * time.Microsecond))
								old := load
								load = max(0, load+r.Int64N(2048)-1024)
								rq.Event(now, load, ScaleLoad(load), load < old && r.IntN(2) == 0)
							}
						})
					}
					wg.Wait()
					var truth, pending int64
					for _, rq := range rqs {
						truth += rq.Load()
						pending += rq.Pending()
						st := rq.Stats()
						if st.Updates != int64(events) || st.Reads+st.Skipped != int64(events) || st.Writes > st.Updates {
							t.Errorf("cfs_rq %d: Stats() = %+v after %d events", rq.CPU(), st, events)
						}
					}
					if got := s.Sum(); got+pending != truth {
						t.Errorf("Sum() + pending = %d + %d = %d, want the true load %d", got, pending, got+pending, truth)
					}
					for _, rq := range rqs {
						rq.Flush()
						if rq.Pending() != 0 || rq.Contrib() != rq.Load() {
							t.Errorf("cfs_rq %d: after Flush pending %d, contrib %d, load %d", rq.CPU(), rq.Pending(), rq.Contrib(), rq.Load())
						}
					}
					if got := s.Sum(); got != truth {
						t.Errorf("after Flush: Sum() = %d, want the true load %d", got, truth)
					}
				})
			}
		}
	}
}

// TestPadding: the Go structs every event reads (a CfsRq's private state,
// a store's read-mostly metadata) keep PairStride bytes between their
// fields and any neighbouring heap object.
func TestPadding(t *testing.T) {
	for _, v := range []any{CfsRq{}, Atomic{}, FalseShare{}, PerNode{}, PerCPU{}} {
		typ := reflect.TypeOf(v)
		first, last := uintptr(0), uintptr(0)
		found := false
		for f := range typ.Fields() {
			if f.Name == "_" {
				continue
			}
			if !found {
				first, found = f.Offset, true
			}
			last = f.Offset + f.Type.Size()
		}
		if tail := typ.Size() - last; first < PairStride || tail < PairStride {
			t.Errorf("%v pads its fields by %d bytes before and %d after, want >= %d each", typ, first, tail, PairStride)
		}
	}
	slots := paddedSlots(3)
	if len(slots) != 3 || cap(slots) != 3 {
		t.Errorf("paddedSlots(3) has len %d, cap %d, want 3, 3", len(slots), cap(slots))
	}
}

func TestNewCfsRqErrors(t *testing.T) {
	pn, err := NewPerNode(Options{Nodes: []int{0, 2}, Fake: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pn.Close()
	pc, err := NewPerCPU(Options{CPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	a := newAtomic(t)
	tests := []struct {
		s         Store
		w         WritePolicy
		r         ReadPolicy
		cpu, node int
		want      string
	}{
		{pn, WritePolicy{}, ReadPolicy{}, 0, 1, "node 1 has no slot"},
		{pn, WritePolicy{}, ReadPolicy{}, 0, 3, "node 3 has no slot"},
		{pc, WritePolicy{}, ReadPolicy{}, 2, 0, "cpu 2 has no slot"},
		{nil, WritePolicy{}, ReadPolicy{}, 0, 0, "nil store"},
		{a, WritePolicy{}, ReadPolicy{}, -1, 0, "negative id"},
		{a, WritePolicy{Kind: WriteRateLimit, Period: -time.Millisecond}, ReadPolicy{}, 0, 0, "out of range"},
		{a, WritePolicy{Kind: WriteThreshold, Divisor: -3}, ReadPolicy{}, 0, 0, "out of range"},
		{a, WritePolicy{Kind: 9}, ReadPolicy{}, 0, 0, "unknown"},
		{a, WritePolicy{Kind: WriteEvery, Period: time.Millisecond}, ReadPolicy{}, 0, 0, "takes no period"},
		{a, WritePolicy{}, ReadPolicy{Kind: ReadSkip, K: -1}, 0, 0, "out of range"},
	}
	for _, tt := range tests {
		_, err := NewCfsRq(tt.s, tt.w, tt.r, tt.cpu, tt.node)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewCfsRq(%v, %+v, %+v, %d, %d) = %v, want error containing %q", tt.s, tt.w, tt.r, tt.cpu, tt.node, err, tt.want)
		}
	}
}

// refStore is a Store from outside the package's four: a mutex and an int.
type refStore struct {
	mu sync.Mutex
	v  int64
}

func (r *refStore) AddAt(cpu, node int, d int64) { r.mu.Lock(); r.v += d; r.mu.Unlock() }
func (r *refStore) Sum() int64                   { r.mu.Lock(); defer r.mu.Unlock(); return r.v }
func (r *refStore) ReadMostly() int64            { return NiceZeroLoad }
func (r *refStore) Layout() Layout               { return Layout{} }
func (r *refStore) Close() error                 { return nil }
func (r *refStore) String() string               { return "ref" }

func TestForeignStore(t *testing.T) {
	var s refStore
	rq := newRq(t, &s, "every", "every")
	if got := rq.Event(0, 1024, NiceZeroLoad, false); got != NiceZeroLoad || s.Sum() != 1024 {
		t.Errorf("Event on a foreign store = %d with store %d, want %d, 1024", got, s.Sum(), NiceZeroLoad)
	}
	rq.SetLoad(1000, NiceZeroLoad)
	rq.Flush()
	if s.Sum() != 1000 {
		t.Errorf("after Flush the foreign store holds %d, want 1000", s.Sum())
	}
}
