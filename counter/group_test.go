package counter

import (
	"github.com/contend/contend/bench/ksim"
	"math/rand/v2"
	"strings"
	"testing"
)

// newPath makes cpu's cfs_rqs of a hierarchy over the stores, its clock at
// t0.
func newPath(t testing.TB, stores []Store, write string, cpu int) *CfsRq {
	t.Helper()
	rq, err := NewCfsRqPath(stores, mustWrite(t, write), mustRead(t, "every"), cpu, 0)
	if err != nil {
		t.Fatal(err)
	}
	rq.Init(t0)
	return rq
}

func newAtomics(t testing.TB, n int) []Store {
	t.Helper()
	var s []Store
	for range n {
		s = append(s, newAtomic(t))
	}
	return s
}

func TestCfsRqPath(t *testing.T) {
	if _, err := NewCfsRqPath(nil, WritePolicy{}, ReadPolicy{}, 0, 0); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Errorf("NewCfsRqPath(no stores) = %v, want an error", err)
	}
	pn, err := NewPerNode(Options{Nodes: []int{0}, Fake: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pn.Close()
	if _, err := NewCfsRqPath([]Store{newAtomic(t), pn}, WritePolicy{}, ReadPolicy{}, 0, 3); err == nil || !strings.Contains(err.Error(), "level 2: cfs_rq: node 3") {
		t.Errorf("NewCfsRqPath with a node the level-2 store lacks = %v, want the level named", err)
	}
	stores := newAtomics(t, 3)
	rq := newPath(t, stores, "every", 0)
	for i, c := 0, rq; i < 3; i, c = i+1, c.Parent() {
		if c.Level() != i+1 || c.Levels() != 3-i || c.store != stores[i] || (c.Parent() == nil) != (i == 2) {
			t.Errorf("level %d: Level %d, Levels %d, parent %p", i+1, c.Level(), c.Levels(), c.Parent())
		}
	}
	if _, q := rq.Parent().Parent().GroupLoad(); q {
		t.Error("the top group's entity (on the root, not modelled) reports queued")
	}
}

// migrated returns a task of load_avg load that a remote CPU has just
// taken off another cfs_rq (last_update_time 0: attach me).
func migrated(t *testing.T, load uint64) *Entity {
	t.Helper()
	src := newRq(t, newAtomic(t), "every", "every")
	se := newTask(t)
	src.Seed(se, load, false)
	RemoveEntityLoadAvg(se)
	return se
}

// TestPropagationReplay replays one CPU of a two-level hierarchy, event by
// event, against the values the kernel's code gives, worked by hand: a
// migrated task's attach at the leaf writes the leaf's tg->load_avg, sets
// the leaf's propagate flag, and in the same enqueue_task_fair() the
// parent's update_load_avg() propagates it (update_tg_cfs_load()) and
// writes the parent's tg->load_avg when the group entity's new load
// qualifies, and not when it does not; the rate limit runs per level.
func TestPropagationReplay(t *testing.T) {
	stores := newAtomics(t, 2)
	rq := newPath(t, stores, "every", 0)
	p := rq.Parent()
	a := newTask(t)
	rq.Seed(a, 512, true)
	rq.SeedGroups(ksim.Nice0Load) // the whole group on this one CPU
	rq.Flush()
	p.Flush()
	div := rq.avg.Divider()
	// a: load_sum = 512 × div / 1024; the group entity runs what it
	// propagated, half a period's worth: load 1024 × (div/2) / div.
	if gl, q := rq.GroupLoad(); gl != 512 || !q || p.Load() != 512 || stores[1].Sum() != 512 || rq.gse.run.LoadSum != div/2 {
		t.Fatalf("seeded: group entity load %d queued %v, parent load %d, store %d, running sum %d; want 512, true, 512, 512, %d",
			gl, q, p.Load(), stores[1].Sum(), rq.gse.run.LoadSum, div/2)
	}

	// b arrives at t0 (no PELT time passes): attach, 512 more at the leaf;
	// prop_runnable_sum div/2; the parent's propagation makes the entity's
	// runnable min(div/2 + div/2, div) = div, load 1024: a delta of 512 over
	// a contribution of 512 writes.
	b := migrated(t, 512)
	rq.Enqueue(t0, b)
	ps := p.Stats()
	if stores[0].Sum() != 1024 || stores[1].Sum() != 1024 || ps.Propagations != 1 || ps.Updates != 1 || ps.Writes != 1 {
		t.Fatalf("after b's attach: stores %d, %d; parent %+v; want 1024, 1024, one propagation, call and write",
			stores[0].Sum(), stores[1].Sum(), ps)
	}
	if gl, _ := rq.GroupLoad(); gl != 1024 || rq.Shares() != ksim.Nice0Load {
		t.Fatalf("after b's attach: group entity load %d, weight %d; want 1024, %d (all of the group is here)", gl, rq.Shares(), ksim.Nice0Load)
	}

	// c, a sliver of load (8), arrives: the leaf writes (8 > 1024/64 is
	// false: no), the entity's runnable is already a full period, so the
	// propagation moves nothing and the parent's call does not write.
	c := migrated(t, 8)
	rq.Enqueue(t0, c)
	ps = p.Stats()
	if ps.Propagations != 2 || ps.Updates != 2 || ps.Writes != 1 || stores[1].Sum() != 1024 {
		t.Fatalf("after c's attach: parent %+v, store %d; want a second propagation and call, no second write", ps, stores[1].Sum())
	}

	// A dequeue with no PELT time passed and nothing moved calls nothing at
	// either level.
	lu, pu := rq.Stats().Updates, p.Stats().Updates
	rq.Dequeue(t0, c, false)
	if rq.Stats().Updates != lu || p.Stats().Updates != pu || p.Stats().Propagations != 2 {
		t.Fatalf("a local dequeue in the same period called update_tg_load_avg: leaf %d→%d, parent %d→%d",
			lu, rq.Stats().Updates, pu, p.Stats().Updates)
	}

	// b leaves while queued (detach): the leaf propagates -b's sum; the
	// estimate of the entity's runnable is the leaf's load_sum per unit of
	// queued weight, floored at the time it ran.
	rq.Dequeue(t0, b, true)
	ps = p.Stats()
	if ps.Propagations != 3 || ps.Updates != 3 {
		t.Fatalf("after b's detach: parent %+v, want a third propagation and call", ps)
	}
}

// TestPropagationDelay: under patch 3 the removed load a remote wakeup
// left in cfs_rq->removed reaches neither the leaf's tg->load_avg nor the
// parent when the owner drains it; the next attach carries both
// (prop_removed_sum folded into prop_runnable_sum).
func TestPropagationDelay(t *testing.T) {
	for _, write := range []string{"every", "delay"} {
		stores := newAtomics(t, 2)
		rq := newPath(t, stores, write, 0)
		p := rq.Parent()
		x, y := newTask(t), newTask(t)
		rq.Seed(x, 512, false)
		rq.Seed(y, 512, true)
		rq.SeedGroups(ksim.Nice0Load)
		rq.ResetStats()
		p.ResetStats()
		RemoveEntityLoadAvg(x)        // woken elsewhere
		rq.Dequeue(t0+1024, y, false) // the owner drains removed, no period crossed
		want := int64(1)
		if write == "delay" {
			want = 0
			if rq.propRemovedSum >= 0 || rq.propagate {
				t.Errorf("write=delay: prop_removed_sum %d, propagate %v after the drain; want the removal held", rq.propRemovedSum, rq.propagate)
			}
		}
		if got := p.Stats().Propagations; got != want {
			t.Errorf("write=%s: %d propagations to the parent on the drain, want %d", write, got, want)
		}
		rq.Enqueue(t0+2048, migrated(t, 300))
		if got := p.Stats().Propagations; got != want+1 || rq.propRemovedSum != 0 {
			t.Errorf("write=%s: after an attach %d propagations, prop_removed_sum %d; want %d, 0", write, got, rq.propRemovedSum, want+1)
		}
	}
}

// TestPropagationRule drives two CPUs of a two-level hierarchy through
// random wakeups, sleeps and migrations (both kinds: a remote wakeup
// through cfs_rq->removed, and a detach while queued) and checks, event
// by event, the kernel's rule for the parent level: its update_load_avg()
// propagates exactly when the leaf attached, detached or drained removed
// load in that event (patch 3: attached or detached only), it calls
// update_tg_load_avg() exactly when it propagated or its own sums crossed
// a period boundary, and it writes only when it calls. Each level's store
// holds its cfs_rqs' contributions throughout.
func TestPropagationRule(t *testing.T) {
	for _, write := range []string{"every", "delay", "ratelimit"} {
		stores := newAtomics(t, 2)
		rqs := []*CfsRq{newPath(t, stores, write, 0), newPath(t, stores, write, 1)}
		type task struct {
			se     *Entity
			cpu    int
			queued bool
		}
		var tasks []*task
		for i := range 6 {
			tk := &task{se: newTask(t), cpu: i % 2, queued: i < 3}
			rqs[tk.cpu].Seed(tk.se, 400, tk.queued)
			tasks = append(tasks, tk)
		}
		for _, rq := range rqs {
			rq.SeedGroups(ksim.Nice0Load / 2)
			rq.Flush()
			rq.Parent().Flush()
		}
		rng := rand.New(rand.NewPCG(1, 2))
		now := t0
		counts := map[string]int{}
		for ev := range 20000 {
			now += 40_000
			tk := tasks[rng.IntN(len(tasks))]
			var rq *CfsRq
			before := func(rq *CfsRq) (Stats, Stats) { return rq.Stats(), rq.Parent().Stats() }
			var l0, p0 Stats
			switch {
			case tk.queued && rng.IntN(4) == 0: // detach while queued, attach elsewhere
				src, dst := rqs[tk.cpu], rqs[1-tk.cpu]
				src.Dequeue(now, tk.se, true)
				rq = dst
				l0, p0 = before(rq)
				rq.Enqueue(now, tk.se)
				tk.cpu = 1 - tk.cpu
				counts["detach+attach"]++
			case tk.queued:
				rq = rqs[tk.cpu]
				l0, p0 = before(rq)
				rq.Dequeue(now, tk.se, false)
				tk.queued = false
				counts["sleep"]++
			case rng.IntN(2) == 0: // a remote wakeup: removed on the source, attached here
				RemoveEntityLoadAvg(tk.se)
				tk.cpu = 1 - tk.cpu
				rq = rqs[tk.cpu]
				l0, p0 = before(rq)
				rq.Enqueue(now, tk.se)
				tk.queued = true
				counts["remote wakeup"]++
			default:
				rq = rqs[tk.cpu]
				l0, p0 = before(rq)
				rq.Enqueue(now, tk.se)
				tk.queued = true
				counts["local wakeup"]++
			}
			l1, p1 := before(rq)
			moved := l1.Attaches-l0.Attaches+l1.Detaches-l0.Detaches > 0
			if write != "delay" && l1.Removed > l0.Removed {
				moved = true
			}
			prop := p1.Propagations - p0.Propagations
			calls := p1.Updates - p0.Updates
			decayed := p1.Decays > p0.Decays
			if prop != int64(btoi(moved)) || calls != int64(btoi(prop > 0 || decayed)) || p1.Writes-p0.Writes > calls {
				t.Fatalf("write=%s, event %d: leaf %+v → %+v; parent propagated %d times, called %d, wrote %d, decayed %v",
					write, ev, l0, l1, prop, calls, p1.Writes-p0.Writes, decayed)
			}
			for i, st := range stores {
				var sum int64
				for _, r := range rqs {
					sum += laLevelRq(r, i).Contrib()
				}
				if st.Sum() != sum {
					t.Fatalf("write=%s, event %d: level %d store %d, contributions %d", write, ev, i+1, st.Sum(), sum)
				}
			}
		}
		for _, k := range []string{"detach+attach", "sleep", "remote wakeup", "local wakeup"} {
			if counts[k] == 0 {
				t.Errorf("write=%s: no %s event", write, k)
			}
		}
		if write == "ratelimit" {
			kernelMs := (now - t0) / 1_000_000
			for _, rq := range rqs {
				if w := rq.Parent().Stats().Writes; w > kernelMs+1 {
					t.Errorf("write=ratelimit: the parent level wrote %d times in %d ms of kernel time", w, kernelMs)
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func laLevelRq(rq *CfsRq, i int) *CfsRq {
	for range i {
		rq = rq.Parent()
	}
	return rq
}

// TestDelayedDequeue: v6.12's delayed dequeue and requeue are one
// update_load_avg(…, 0) on the leaf: the task stays queued and weighted,
// no level calls update_tg_load_avg() or reads tg->load_avg, even when
// the leaf's sums crossed periods; the pick's full dequeue then walks
// every level as Dequeue does.
func TestDelayedDequeue(t *testing.T) {
	rq := newPath(t, newAtomics(t, 2), "every", 0)
	rq.Init(t0)
	a, b := newTask(t), newTask(t)
	rq.Seed(a, 512, false)
	rq.Seed(b, 512, false)
	rq.SeedGroups(512)
	now := t0
	rq.Enqueue(now, a)
	rq.Enqueue(now, b)
	before := func() (s [2]Stats) { s[0], s[1] = rq.Stats(), rq.Parent().Stats(); return }
	s0 := before()
	for i, step := range []func(now int64){
		func(now int64) { rq.DelayDequeue(now, a) },
		func(now int64) { rq.RequeueDelayed(now, a) },
	} {
		now += 5 * ksim.PeltPeriod // periods crossed: decayed
		step(now)
		s1 := before()
		if rq.NrRunning() != 2 || rq.Stats().Decays == s0[0].Decays {
			t.Errorf("step %d: nr_running %d, decays %d → %d: want 2 queued and the sums decayed", i, rq.NrRunning(), s0[0].Decays, rq.Stats().Decays)
		}
		for l := range s1 {
			if s1[l].Updates != s0[l].Updates || s1[l].Reads != s0[l].Reads || s1[l].Decays != s0[l].Decays && l > 0 {
				t.Errorf("step %d, level %d: updates %d → %d, reads %d → %d, decays %d → %d: want no update_tg_load_avg, no read, no ancestor touched",
					i, l+1, s0[l].Updates, s1[l].Updates, s0[l].Reads, s1[l].Reads, s0[l].Decays, s1[l].Decays)
			}
		}
		s0 = s1
	}
	rq.DelayDequeue(now, a)
	now += 5 * ksim.PeltPeriod
	rq.Dequeue(now, a, false) // picked: the full dequeue
	if rq.NrRunning() != 1 || rq.Stats().Updates == s0[0].Updates || rq.Parent().Stats().Updates == s0[1].Updates {
		t.Errorf("the pick's dequeue: nr_running %d, leaf updates %d → %d, parent %d → %d: want 1, both called", rq.NrRunning(),
			s0[0].Updates, rq.Stats().Updates, s0[1].Updates, rq.Parent().Stats().Updates)
	}
}

// TestLeafListDecayed: __update_blocked_fair() takes a fully decayed
// cfs_rq off the leaf list (cfs_rq_is_decayed(): no queued weight, the
// sums at 0, no child on the list), children before parents; a cfs_rq off
// the list is not updated by update_blocked_averages() (no
// update_tg_load_avg() call from it however many periods pass) until an
// enqueue puts every level back; a cfs_rq with a task queued never leaves.
func TestLeafListDecayed(t *testing.T) {
	rq := newPath(t, newAtomics(t, 2), "every", 0)
	parent := rq.Parent()
	se := newTask(t)
	rq.Seed(se, 512, false)
	rq.SeedGroups(rq.TGShares())
	now := t0
	for i := 0; !parent.offList; i++ {
		if i == 1000 { // 4 s: PELT's sums reach 0 in well under one
			t.Fatalf("after 4 s idle: leaf off the list %v (load_sum %d), parent %v (load_sum %d)", rq.offList, rq.avg.LoadSum, parent.offList, parent.avg.LoadSum)
		}
		now += 4_000_000
		rq.UpdateBlocked(now)
		if parent.offList && !rq.offList {
			t.Fatal("the parent left the list before its child (child_cfs_rq_on_list())")
		}
	}
	for _, c := range []*CfsRq{rq, parent} {
		if c.avg.LoadSum != 0 || c.avg.LoadAvg != 0 || c.stats.Unlisted != 1 {
			t.Errorf("level %d off the list with load_sum %d, load_avg %d, %d removals", c.Level(), c.avg.LoadSum, c.avg.LoadAvg, c.stats.Unlisted)
		}
	}
	before := [2]Stats{rq.Stats(), parent.Stats()}
	for range 10 {
		now += 4_000_000
		rq.UpdateBlocked(now)
	}
	for i, c := range []*CfsRq{rq, parent} {
		st := c.Stats()
		if st.Updates != before[i].Updates || st.Decays != before[i].Decays || st.Skipped != before[i].Skipped+10 {
			t.Errorf("level %d off the list: %d update_tg_load_avg calls and %d decays over 10 walks (want none), skipped %d of them (want 10)",
				c.Level(), st.Updates-before[i].Updates, st.Decays-before[i].Decays, st.Skipped-before[i].Skipped)
		}
	}
	now += 4_000_000
	rq.Enqueue(now, se)
	if rq.offList || parent.offList {
		t.Fatalf("after an enqueue: leaf off the list %v, parent %v; want both back (list_add_leaf_cfs_rq())", rq.offList, parent.offList)
	}
	for range 1000 {
		now += 4_000_000
		rq.UpdateBlocked(now)
	}
	if rq.offList || parent.offList {
		t.Errorf("with a task queued: leaf off the list %v, parent %v; want both on it", rq.offList, parent.offList)
	}
	// The decayed test alone: a parent with nothing left is kept while
	// its child is on the list.
	rq.Dequeue(now, se, false)
	parent.weight, parent.avg.LoadSum = 0, 0
	if parent.isDecayed(rq) {
		t.Error("a parent whose child is on the list counts as decayed")
	}
	rq.offList = true
	if !parent.isDecayed(rq) {
		t.Error("a parent with no weight, no load_sum and its child off the list does not count as decayed")
	}
}
