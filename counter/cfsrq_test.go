package counter

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/benchname"
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

// t0 is where test clocks start: past 0, which PELT reserves.
const t0 = int64(1) << 32

func newRq(t testing.TB, s Store, write, read string) *CfsRq {
	t.Helper()
	rq, err := NewCfsRq(s, mustWrite(t, write), mustRead(t, read), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	rq.Init(t0)
	return rq
}

func newTask(t testing.TB) *Entity {
	t.Helper()
	se := &Entity{}
	if err := se.Init(ksim.Nice0Load >> ksim.SchedFixedpointShift); err != nil {
		t.Fatal(err)
	}
	return se
}

// TestWriteThreshold checks update_tg_load_avg's test, |delta| >
// contrib/N, at its edges.
func TestWriteThreshold(t *testing.T) {
	tests := []struct {
		write     string
		from, to  uint64
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
		{"delay", 6400, 6501, true}, // patch 3 changes the caller, not this
	}
	for _, tt := range tests {
		a := newAtomic(t)
		rq := newRq(t, a, tt.write, "every")
		rq.avg.LoadAvg = tt.from
		rq.updateTGLoadAvg(t0)
		if rq.Contrib() != int64(tt.from) || a.Load() != int64(tt.from) {
			t.Fatalf("%s: first update from 0 to %d left contrib %d, store %d", tt.write, tt.from, rq.Contrib(), a.Load())
		}
		rq.avg.LoadAvg = tt.to
		// A second later, so the rate limit never stands in the way here.
		got := rq.updateTGLoadAvg(t0 + int64(time.Second))
		if got != tt.wantWrite {
			t.Errorf("write=%s: load %d -> %d: updateTGLoadAvg() = %v, want %v", tt.write, tt.from, tt.to, got, tt.wantWrite)
		}
		want := int64(tt.from)
		if tt.wantWrite {
			want = int64(tt.to)
		}
		if a.Load() != want || rq.Contrib() != want || rq.Pending() != int64(tt.to)-want {
			t.Errorf("write=%s: load %d -> %d: store %d, contrib %d, pending %d, want %d, %d, %d",
				tt.write, tt.from, tt.to, a.Load(), rq.Contrib(), rq.Pending(), want, want, int64(tt.to)-want)
		}
	}
}

// TestRateLimit drives update_tg_load_avg with a load that always changes
// enough to be written, on an injected clock, and checks it writes exactly
// once per period.
func TestRateLimit(t *testing.T) {
	const step = 10 * time.Microsecond
	const run = 100 * time.Millisecond
	for _, period := range []time.Duration{500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond} {
		t.Run("period="+benchname.FormatDuration(period), func(t *testing.T) {
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
					rq.avg.LoadAvg = uint64(rq.Contrib() + 1000)
				} else {
					rq.avg.LoadAvg = uint64(rq.Contrib() - 1000)
				}
				events++
				if rq.updateTGLoadAvg(int64(now)) {
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
		load      uint64
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
		rq.avg.LoadAvg = s.load
		if got := rq.updateTGLoadAvg(s.now); got != s.wantWrite {
			t.Errorf("at %dns load %d: updateTGLoadAvg() = %v, want %v", s.now, s.load, got, s.wantWrite)
		}
	}
}

// TestGating: update_load_avg() calls update_tg_load_avg() only when the
// cfs_rq's sums crossed a PELT period boundary, on attach, on detach, and
// (but for patch 3) when it drained removed load. A cfs_rq whose tasks only
// sleep and wake here calls it once per period crossing and never between.
func TestGating(t *testing.T) {
	a := newAtomic(t)
	rq := newRq(t, a, "every", "every")
	x, y := newTask(t), newTask(t)
	rq.Seed(x, 512, true)
	rq.Seed(y, 512, false)
	rq.Flush()
	rq.ResetStats()
	now := t0
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		now += 1000 + r.Int64N(80_000)
		before := rq.Stats()
		se := x
		if !x.onRq {
			se = y
			if y.onRq {
				se = []*Entity{x, y}[i%2]
			}
		}
		if se.onRq {
			rq.Dequeue(now, se, false)
		} else {
			rq.Enqueue(now, se)
		}
		st := rq.Stats()
		decayed := st.Decays - before.Decays
		if calls := st.Updates - before.Updates; calls != decayed {
			t.Fatalf("event %d at %d: %d update_tg_load_avg calls, %d period crossings", i, now, calls, decayed)
		}
		if st.Writes > before.Writes && decayed == 0 {
			t.Fatalf("event %d: tg->load_avg written between period boundaries", i)
		}
	}
	if st := rq.Stats(); st.Updates == 0 || st.Writes == 0 || st.Attaches+st.Detaches+st.Removed != 0 {
		t.Errorf("Stats() = %+v: want calls and writes from decay alone", st)
	}

	// Attach, detach and drained removed load each call it, whatever the
	// period; patch 3 drops the call for drained removed load.
	for _, write := range []string{"every", "delay"} {
		src, dst := newRq(t, a, write, "every"), newRq(t, a, write, "every")
		z, w := newTask(t), newTask(t)
		src.Seed(z, 600, false)
		src.Seed(w, 400, true)
		now := t0 + 100 // same PELT period as Init: no decay on the way
		call := func(what string, rq *CfsRq, f func(), want int64) {
			t.Helper()
			before := rq.Stats().Updates
			f()
			if got := rq.Stats().Updates - before; got != want {
				t.Errorf("write=%s: %s made %d update_tg_load_avg calls, want %d", write, what, got, want)
			}
		}
		RemoveEntityLoadAvg(z)
		call("attach", dst, func() { dst.Enqueue(now, z) }, 1)
		now += 1024
		wantRemoved := int64(1)
		if write == "delay" {
			wantRemoved = 0
		}
		call("draining removed load", src, func() { src.Dequeue(now, w, false) }, wantRemoved)
		now += 1024
		call("detach", dst, func() { dst.Dequeue(now, z, true) }, 1)
		if z.avg.LastUpdateTime != 0 || z.CfsRq() != nil {
			t.Errorf("a migrating dequeue left the entity attached: %+v", z.avg)
		}
		now += 1024
		call("a local wakeup in the same period", src, func() { src.Enqueue(now, w) }, 0)
	}
}

// TestDelay: under write=delay (patch 3) load drained from cfs_rq->removed
// leaves avg.load_avg at once but reaches tg->load_avg only with the next
// attach or period crossing.
func TestDelay(t *testing.T) {
	for _, write := range []string{"every", "delay"} {
		a := newAtomic(t)
		src, dst := newRq(t, a, write, "every"), newRq(t, a, write, "every")
		stay, leave, other := newTask(t), newTask(t), newTask(t)
		src.Seed(stay, 400, true)
		src.Seed(leave, 600, false)
		dst.Seed(other, 500, false)
		src.Flush()
		dst.Flush()
		if a.Load() != 1500 {
			t.Fatalf("seeded store holds %d, want 1500", a.Load())
		}
		now := t0 + 100
		RemoveEntityLoadAvg(leave)
		dst.Enqueue(now, leave) // attach: dst pushes its +600 at once
		now += 2048
		src.Dequeue(now, stay, false) // drains the removal, same period
		want := int64(2100)           // dst's +600 pushed, src's -600 held back
		if write == "every" {
			want = 1500 // +600 - 600
		}
		if got := a.Load(); got != want || src.Load() != 400 {
			t.Fatalf("write=%s: after the drain store %d, src load %d; want %d, 400", write, got, src.Load(), want)
		}
		if write == "delay" && (src.Pending() != -600 || src.Stats().Delayed != 1) {
			t.Fatalf("write=delay: pending %d, delayed %d; want -600, 1", src.Pending(), src.Stats().Delayed)
		}
		if write == "every" && src.Pending() != 0 {
			t.Fatalf("write=every: pending %d after the drain, want 0", src.Pending())
		}
		// The next period crossing pushes it.
		now += ksim.PeltPeriod
		src.Enqueue(now, stay)
		if src.Pending() != 0 || a.Sum() != src.Contrib()+dst.Contrib() {
			t.Errorf("write=%s: after the next period pending %d, store %d, contribs %d+%d", write, src.Pending(), a.Sum(), src.Contrib(), dst.Contrib())
		}
	}
}

// TestSkipPaths: patch 4 drops update_cfs_group() in dequeue_entity() of
// the group entity (the cfs_rq goes empty) and in its enqueue_entity() (the
// cfs_rq was empty, and the root holds nothing else); the second loops of
// enqueue/dequeue_task_fair() and the tick still read. read=onein=K reads
// one event in K by count, which is not the patch.
func TestSkipPaths(t *testing.T) {
	type step struct {
		op   string // "enq x", "deq x", "tick x"
		read bool   // under read=skip
	}
	steps := []step{
		{"enq x", false}, // first task: enqueue_entity of the group entity
		{"enq y", true},  // second: enqueue_task_fair's second loop
		{"tick x", true}, // entity_tick
		{"deq y", true},  // one left: dequeue_task_fair's second loop
		{"deq x", false}, // empty: dequeue_entity of the group entity
		{"enq y", false},
		{"deq y", false},
	}
	for _, read := range []string{"every", "skip"} {
		a := newAtomic(t)
		rq := newRq(t, a, "every", read)
		se := map[string]*Entity{"x": newTask(t), "y": newTask(t)}
		rq.Seed(se["x"], 512, false)
		rq.Seed(se["y"], 512, false)
		now := t0
		for i, s := range steps {
			now += 40_000
			before := rq.Stats().Reads
			op, name, _ := strings.Cut(s.op, " ")
			switch op {
			case "enq":
				rq.Enqueue(now, se[name])
			case "deq":
				rq.Dequeue(now, se[name], false)
			case "tick":
				rq.Tick(now, se[name])
			}
			want := s.read || read == "every"
			if got := rq.Stats().Reads > before; got != want {
				t.Errorf("read=%s: step %d (%s): read = %v, want %v", read, i, s.op, got, want)
			}
		}
	}
	a := newAtomic(t)
	rq := newRq(t, a, "every", "onein=3")
	x := newTask(t)
	rq.Seed(x, 512, false)
	now := t0
	for i := range 30 {
		now += 40_000
		before := rq.Stats().Reads
		if x.onRq {
			rq.Dequeue(now, x, false)
		} else {
			rq.Enqueue(now, x)
		}
		if got, want := rq.Stats().Reads > before, i%3 == 0; got != want {
			t.Fatalf("onein=3: event %d: read = %v, want %v", i, got, want)
		}
	}
}

// TestEventShares: with every cfs_rq pushed, each of n cfs_rqs with one
// nice-0 task always queued gets 1/n of the group's weight, whatever the
// storage.
func TestEventShares(t *testing.T) {
	for _, s := range newStores(t, 0) {
		const n = 4
		s.AddAt(0, 0, -s.Sum())
		var rqs []*CfsRq
		var tasks []*Entity
		for i := range n {
			rq, err := NewCfsRq(s, mustWrite(t, "every"), mustRead(t, "every"), i, fakeNodes[i])
			if err != nil {
				t.Fatal(err)
			}
			rq.Init(t0)
			se := newTask(t)
			rq.Seed(se, 1024, false)
			rq.Flush()
			rqs = append(rqs, rq)
			tasks = append(tasks, se)
		}
		for i, rq := range rqs {
			rq.Enqueue(t0+1, tasks[i])
		}
		for i, rq := range rqs {
			rq.Tick(t0+2, tasks[i])
			// With contrib and load 1024, shares of exactly ksim.Nice0Load/n
			// (2^30/tg_weight, truncated) mean the read saw tg->load_avg
			// 1024*n exactly.
			if got := rq.Shares(); got != ksim.Nice0Load/n || rq.Contrib() != 1024 || s.Sum() != 1024*n {
				t.Errorf("store=%v: cfs_rq %d: shares %d, contrib %d, store %d, want %d, 1024, %d", s, i, got, rq.Contrib(), s.Sum(), ksim.Nice0Load/n, 1024*n)
			}
		}
	}
}

// TestRemovedHandoff hammers the removed-load handoff from many goroutines,
// each owning a cfs_rq and passing tasks to the others over channels as
// wakeups on another CPU do: every unit of load taken from a cfs_rq is
// drained by its owner or still waiting, and was attached whole where the
// task woke; the store holds exactly the cfs_rqs' contributions; and once
// the tasks stop moving, each cfs_rq's load is its tasks' load again (the
// kernel keeps the two apart, so a migrating task leaves a remnant behind
// that decays with PELT). Run it under -race.
func TestRemovedHandoff(t *testing.T) {
	const workers, tasksPer = 4, 3
	events := 4000
	if testing.Short() {
		events = 1000
	}
	for _, write := range []string{"every", "ratelimit=100us", "delay"} {
		t.Run("write="+write, func(t *testing.T) {
			a := newAtomic(t)
			rqs := make([]*CfsRq, workers)
			inbox := make([]chan *Entity, workers)
			mine := make([][]*Entity, workers)
			for w := range workers {
				rq, err := NewCfsRq(a, mustWrite(t, write), mustRead(t, "every"), w, 0)
				if err != nil {
					t.Fatal(err)
				}
				rq.Init(t0 + int64(w)*12345)
				for range tasksPer {
					se := newTask(t)
					rq.Seed(se, 512, false)
					mine[w] = append(mine[w], se)
				}
				rq.Flush()
				rqs[w] = rq
				inbox[w] = make(chan *Entity, workers*tasksPer)
			}
			var handed [workers]uint64
			var wg sync.WaitGroup
			for w, rq := range rqs {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(w), 9))
					now := t0 + int64(w)*12345
					var queued, asleep []*Entity
					asleep = append(asleep, mine[w]...)
					for range events {
						now += 40_000
						select {
						case se := <-inbox[w]: // a wakeup here of a task asleep elsewhere
							handed[w] += RemoveEntityLoadAvg(se)
							rq.Enqueue(now, se)
							queued = append(queued, se)
							continue
						default:
						}
						switch {
						case len(queued) > 0 && (r.IntN(2) == 0 || len(asleep) == 0):
							i := r.IntN(len(queued))
							se := queued[i]
							queued = append(queued[:i], queued[i+1:]...)
							rq.Dequeue(now, se, false)
							if r.IntN(100) < 79 {
								inbox[(w+1+r.IntN(workers-1))%workers] <- se
							} else {
								asleep = append(asleep, se)
							}
						case len(asleep) > 0:
							i := r.IntN(len(asleep))
							se := asleep[i]
							asleep = append(asleep[:i], asleep[i+1:]...)
							rq.Enqueue(now, se)
							queued = append(queued, se)
						default:
							rq.UpdateBlocked(now)
						}
					}
					mine[w] = append(queued, asleep...)
				})
			}
			wg.Wait()
			// Tasks still in an inbox slept on some cfs_rq and are
			// attached there.
			var moved, drained, pending, attached uint64
			var contrib int64
			for w, rq := range rqs {
				moved += handed[w]
				st := rq.Stats()
				drained += st.RemovedLoad
				attached += st.AttachedLoad
				pending += rq.RemovedLoad()
				contrib += rq.Contrib()
			}
			if moved == 0 || moved != drained+pending || moved != attached {
				t.Errorf("moved %d, drained %d + pending %d, attached %d: want moved = drained + pending = attached > 0", moved, drained, pending, attached)
			}
			if a.Sum() != contrib {
				t.Errorf("store holds %d, contributions sum to %d", a.Sum(), contrib)
			}
			// Stop moving: everyone takes in what is in its inbox, and
			// the tasks sleep and wake where they are for 400ms, 12
			// half-lives, after which only rounding separates each
			// cfs_rq from its tasks.
			for w, rq := range rqs {
				now := t0 + int64(w)*12345 + int64(events)*40_000
				for len(inbox[w]) > 0 {
					se := <-inbox[w]
					RemoveEntityLoadAvg(se)
					rq.Enqueue(now, se)
					mine[w] = append(mine[w], se)
				}
			}
			for w, rq := range rqs {
				now := t0 + int64(w)*12345 + int64(events)*40_000
				for i := range 10_000 {
					now += 40_000
					if len(mine[w]) == 0 {
						rq.UpdateBlocked(now)
						continue
					}
					se := mine[w][i%len(mine[w])]
					if se.onRq {
						rq.Dequeue(now, se, false)
					} else {
						rq.Enqueue(now, se)
					}
				}
				var want int64
				for _, se := range mine[w] {
					want += int64(se.LoadAt(int64(rq.Avg().LastUpdateTime)))
				}
				if d := rq.Load() - want; d > 8*int64(len(mine[w]))+8 || -d > 8*int64(len(mine[w]))+8 {
					t.Errorf("cfs_rq %d: load %d, its %d tasks %d, after the tasks stopped moving", w, rq.Load(), len(mine[w]), want)
				}
			}
		})
	}
}

// TestPadding: the Go structs every event reads (a CfsRq's private state,
// a store's read-mostly metadata) keep PairStride bytes between their
// fields and any neighbouring heap object, and the removed mailbox, which
// other CPUs write, sits PairStride bytes from the owner's fields.
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
	typ := reflect.TypeOf(CfsRq{})
	state, _ := typ.FieldByName("cfsRqState")
	removed, _ := typ.FieldByName("removed")
	if gap := removed.Offset - (state.Offset + state.Type.Size()); gap < PairStride {
		t.Errorf("cfs_rq->removed is %d bytes after the owner's fields, want >= %d", gap, PairStride)
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
		{a, WritePolicy{}, ReadPolicy{Kind: ReadOneIn, K: -1}, 0, 0, "out of range"},
		{a, WritePolicy{}, ReadPolicy{Kind: ReadSkip, K: 2}, 0, 0, "takes no K"},
	}
	for _, tt := range tests {
		_, err := NewCfsRq(tt.s, tt.w, tt.r, tt.cpu, tt.node)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewCfsRq(%v, %+v, %+v, %d, %d) = %v, want error containing %q", tt.s, tt.w, tt.r, tt.cpu, tt.node, err, tt.want)
		}
	}
}

// TestEntityWeight: Init takes the weights sched_prio_to_weight holds, 15
// (nice 19) to 88761 (nice -20), and refuses what no nice level gives.
func TestEntityWeight(t *testing.T) {
	var se Entity
	for _, w := range []uint64{2, 15, 1024, 88761} {
		if err := se.Init(w); err != nil || se.weight != w {
			t.Errorf("Init(%d) = %v, weight %d", w, err, se.weight)
		}
	}
	for _, w := range []uint64{0, 1, 88762} {
		if err := se.Init(w); !errors.Is(err, ErrRange) {
			t.Errorf("Init(%d) = %v, want a range error", w, err)
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
func (r *refStore) ReadMostly() int64            { return ksim.Nice0Load }
func (r *refStore) Layout() Layout               { return Layout{} }
func (r *refStore) Close() error                 { return nil }
func (r *refStore) String() string               { return "ref" }

func TestForeignStore(t *testing.T) {
	var s refStore
	rq := newRq(t, &s, "every", "every")
	se := newTask(t)
	rq.Seed(se, 1024, false)
	rq.Enqueue(t0+1, se) // one task alone: no decay, no attach, no write yet
	if rq.Shares() != ksim.Nice0Load || s.Sum() != 0 {
		t.Errorf("first enqueue on a foreign store: shares %d, store %d; want %d, 0", rq.Shares(), s.Sum(), ksim.Nice0Load)
	}
	if d := rq.Flush(); d != 1024 || s.Sum() != 1024 {
		t.Errorf("Flush pushed %d, the foreign store holds %d, want 1024, 1024", d, s.Sum())
	}
	if rq.NrRunning() != 1 || rq.Weight() != ksim.Nice0Load || se.CfsRq() != rq {
		t.Errorf("after one enqueue: nr_running %d, load.weight %d, attached to %p; want 1, %d, %p", rq.NrRunning(), rq.Weight(), se.CfsRq(), ksim.Nice0Load, rq)
	}
}

func TestSyncLoadSum(t *testing.T) {
	if got := syncLoadSum(100, 0); got != 100 {
		t.Errorf("syncLoadSum(100, 0) = %d", got)
	}
	if got := syncLoadSum(0, 2); got != 2*ksim.PeltMinDivider {
		t.Errorf("syncLoadSum(0, 2) = %d, want %d", got, 2*ksim.PeltMinDivider)
	}
	var x uint64 = 5
	subPositive(&x, 7)
	if x != 0 {
		t.Errorf("subPositive(5, 7) = %d, want 0", x)
	}
}
