package counter

import (
	"fmt"
	"testing"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/contend/contend/nodemask"
)

// These are the uncontended costs: one goroutine, every line in its own
// cache. They are the floor under the contended scenario in bench/, which
// is where the thread's numbers live; here they show what each storage and
// policy costs before any other CPU gets involved.

// BenchmarkAdd is one uncontended add per op through each storage's own
// Add (what updateTGLoadAvg inlines), and xsync.Counter.Add for reference.
func BenchmarkAdd(b *testing.B) {
	stores := newStores(b, 0)
	for _, s := range stores {
		b.Run("store="+s.String(), func(b *testing.B) {
			switch s := s.(type) {
			case *Atomic:
				for b.Loop() {
					s.Add(1)
				}
			case *FalseShare:
				for b.Loop() {
					s.Add(1)
				}
			case *PerNode:
				for b.Loop() {
					s.Add(1, 1)
				}
			case *PerCPU:
				for b.Loop() {
					s.Add(1, 1)
				}
			}
		})
	}
	b.Run("store=xsync", func(b *testing.B) {
		c := xsync.NewCounter()
		for b.Loop() {
			c.Add(1)
		}
	})
}

var sink int64

// BenchmarkSum is one read of the group load per op: a single load for
// Atomic, a walk of the node mask for PerNode (bounded by nr_node_ids or
// over all MAX_NUMNODES bits), every slot for PerCPU. read-lines/op is the
// number of counter lines the read touches; words-scanned/op the node-mask
// words the walk reads.
func BenchmarkSum(b *testing.B) {
	b.Run("store=atomic", func(b *testing.B) {
		s, err := NewAtomic(Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for b.Loop() {
			sink += s.Sum()
		}
		b.ReportMetric(1, "read-lines/op")
	})
	for _, nodes := range []int{1, 2, 4, 8} {
		for _, full := range []bool{false, true} {
			scan := "bounded"
			if full {
				scan = "full"
			}
			b.Run(fmt.Sprintf("store=pernode/nodes=%d/scan=%s", nodes, scan), func(b *testing.B) {
				ids := make([]int, nodes)
				for i := range ids {
					ids[i] = i
				}
				s, err := NewPerNode(Options{Nodes: ids, Fake: true, FullScan: full})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				for b.Loop() {
					sink += s.Sum()
				}
				bound := s.nr
				if full {
					bound = nodemask.MaxNumNodes
				}
				_, words := s.mask.ScanWords(bound)
				b.ReportMetric(float64(nodes), "read-lines/op")
				b.ReportMetric(float64(words), "words-scanned/op")
			})
		}
	}
	for _, cpus := range []int{1, 2, 4, 8, 64} {
		b.Run(fmt.Sprintf("store=percpu/cpus=%d", cpus), func(b *testing.B) {
			s, err := NewPerCPU(Options{CPUs: cpus})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				sink += s.Sum()
			}
			b.ReportMetric(float64(cpus), "read-lines/op")
		})
	}
	b.Run("store=xsync", func(b *testing.B) {
		c := xsync.NewCounter()
		for b.Loop() {
			sink += c.Value()
		}
	})
}

// BenchmarkEvent is one whole uncontended event per op (the PELT update,
// the write path when the kernel calls it, the read path) for each of the
// thread's presets and the storages left out of them: a cfs_rq with two
// nice-0 tasks, one sleeping and waking, one migrating in and out through
// cfs_rq->removed, events 40us apart on a synthetic clock (the seed's
// rate), so decay, attach and removed load call update_tg_load_avg as
// they would there.
func BenchmarkEvent(b *testing.B) {
	var variants []Variant
	for _, p := range Presets() {
		v, _ := Preset(p)
		variants = append(variants, v)
	}
	for _, extra := range []string{"store=falseshare", "store=percpu", "store=percpu/write=ratelimit"} {
		v, err := ParseVariant(extra)
		if err != nil {
			b.Fatal(err)
		}
		variants = append(variants, v)
	}
	for _, v := range variants {
		b.Run(v.String(), func(b *testing.B) {
			s, err := New(v.Store, Options{CPUs: 2, FullScan: v.FullScan})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			benchmarkEvent(b, s, v.Write, v.Read)
		})
	}
	// The reference counter through the same path (an interface call
	// instead of the inlined add).
	b.Run("store=xsync/write=every/read=every/scan=bounded", func(b *testing.B) {
		if NewReferenceStore == nil {
			b.Skip("the xsync reference store is set by xsyncref_test.go")
		}
		benchmarkEvent(b, NewReferenceStore(), WritePolicy{}, ReadPolicy{})
	})
}

func benchmarkEvent(b *testing.B, s Store, w WritePolicy, r ReadPolicy) {
	rq, err := NewCfsRq(s, w, r, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	other, err := NewCfsRq(s, w, r, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	rq.Init(t0)
	other.Init(t0)
	local, traveller := newTask(b), newTask(b)
	rq.Seed(local, 512, false)
	other.Seed(traveller, 512, false)
	now := t0
	i := 0
	for b.Loop() {
		now += 40_000
		switch i {
		case 0, 2:
			rq.Enqueue(now, local)
		case 1, 3:
			rq.Dequeue(now, local, false)
		case 4: // a wakeup here of the task asleep on the other cfs_rq
			RemoveEntityLoadAvg(traveller)
			rq.Enqueue(now, traveller)
		case 5: // it sleeps, and the other cfs_rq takes it back
			rq.Dequeue(now, traveller, false)
			RemoveEntityLoadAvg(traveller)
			other.Enqueue(now, traveller)
			other.Dequeue(now+1, traveller, false)
		}
		if i++; i == 6 {
			i = 0
		}
	}
	st := rq.Stats()
	b.ReportMetric(float64(st.Writes)/float64(st.Events), "writes/op")
	b.ReportMetric(float64(st.Reads)/float64(st.Events), "reads/op")
}

// BenchmarkUpdateBlocked is one update_blocked_averages() per op on a
// CPU's two-level path (its group cfs_rq and the parent's) whose task
// sleeps: state=decaying has blocked load left to decay (every level is
// updated, and writes while it decays), state=decayed has none (the
// kernel's __update_blocked_fair() took both levels off the leaf list,
// cfs_rq_is_decayed()), the idle CPU's steady state. Calls are 4 ms apart,
// a tick, as the balance softirq runs them.
func BenchmarkUpdateBlocked(b *testing.B) {
	for _, state := range []string{"decaying", "decayed"} {
		b.Run("state="+state, func(b *testing.B) {
			stores := newAtomics(b, 2)
			rq, err := NewCfsRqPath(stores, WritePolicy{}, ReadPolicy{}, 0, 0)
			if err != nil {
				b.Fatal(err)
			}
			rq.Init(t0)
			se := newTask(b)
			rq.Seed(se, 512, false)
			rq.SeedGroups(rq.TGShares())
			now := t0
			if state == "decayed" {
				for range 1000 { // 4 s: every sum reaches 0
					now += 4_000_000
					rq.UpdateBlocked(now)
				}
			}
			for b.Loop() {
				now += 4_000_000
				if state == "decaying" && rq.Load() == 0 {
					rq.Enqueue(now, se) // load again, off the clock of the loop's share
					rq.Dequeue(now+1_000_000, se, false)
					now += 1_000_000
				}
				rq.UpdateBlocked(now)
			}
		})
	}
}
