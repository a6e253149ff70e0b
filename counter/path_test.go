package counter

import (
	"github.com/contend/contend/bench/ksim"
	"testing"
	"time"
)

// seededPath is a two-level path at t0 with two tasks of load 512, a and
// b, queued as asked, everything flushed and no stats counted.
func seededPath(t *testing.T, aQueued, bQueued bool) (rq *CfsRq, a, b *Entity) {
	rq = newPath(t, newAtomics(t, 2), "every", 0)
	a, b = newTask(t), newTask(t)
	rq.Seed(a, 512, aQueued)
	rq.Seed(b, 512, bQueued)
	rq.SeedGroups(ksim.Nice0Load)
	for c := rq; c != nil; c = c.Parent() {
		c.Flush()
		c.ResetStats()
	}
	return rq, a, b
}

// TestPaths: each update_tg_load_avg call and write is counted under the
// caller that issued it, on every level the caller walks, and the split
// adds up to Updates and Writes. Each case runs one caller on a two-level
// path whose sums have just crossed periods (5 ms since the last event),
// so every level's update_load_avg() calls update_tg_load_avg().
func TestPaths(t *testing.T) {
	const later = int64(5 * time.Millisecond)
	for _, tc := range []struct {
		name string
		run  func(rq *CfsRq, a, b *Entity)
		want []Path // the paths that may count; the first must, on the leaf
	}{
		{"enqueue", func(rq *CfsRq, a, b *Entity) { rq.Enqueue(t0+later, b) }, []Path{PathEnqueue}},
		{"dequeue", func(rq *CfsRq, a, b *Entity) { rq.Dequeue(t0+later, a, false) }, []Path{PathDequeue}},
		{"tick", func(rq *CfsRq, a, b *Entity) { rq.Tick(t0+later, a) }, []Path{PathTick}},
		{"blocked", func(rq *CfsRq, a, b *Entity) { rq.Dequeue(t0, a, false); rq.UpdateBlocked(t0 + later) }, []Path{PathBlocked, PathBlockedEntity, PathDequeue}},
		{"set-next", func(rq *CfsRq, a, b *Entity) { rq.SetNext(t0+later, a) }, []Path{PathSwitch}},
	} {
		t.Run("path="+tc.name, func(t *testing.T) {
			rq, a, b := seededPath(t, true, false)
			tc.run(rq, a, b)
			for l, c := 0, rq; c != nil; l, c = l+1, c.Parent() {
				st := c.Stats()
				var calls, writes int64
				for p, ps := range st.Paths {
					calls += ps.Updates
					writes += ps.Writes
					ok := false
					for _, w := range tc.want {
						ok = ok || Path(p) == w
					}
					if !ok && ps.Updates != 0 {
						t.Errorf("level %d: %d calls under %v, want only %v", l+1, ps.Updates, Path(p), tc.want)
					}
				}
				if calls != st.Updates || writes != st.Writes {
					t.Errorf("level %d: paths sum to %d calls, %d writes; Stats %d, %d", l+1, calls, writes, st.Updates, st.Writes)
				}
				// Above the leaf the blocked update's own call may find
				// nothing decayed: the child's group-entity update
				// (PathBlockedEntity) ran first, as the leaf list runs
				// children before parents.
				if (l == 0 || tc.name != "blocked") && st.Paths[tc.want[0]].Updates == 0 {
					t.Errorf("level %d: no call under %v: %+v", l+1, tc.want[0], st.Paths)
				}
			}
		})
	}
	if !PathSwitch.InUpdateLoadAvg() || PathSwitch.String() != "switch" ||
		PathBlocked.InUpdateLoadAvg() || !PathTick.InUpdateLoadAvg() || PathBlockedEntity.String() != "blocked-entity" || Path(99).String() != "Path(99)" {
		t.Error("Path's site or names are wrong")
	}
}

// TestSwitchLevels: a switch between two of the group's tasks updates
// their cfs_rq alone, set_next_entity()'s call under PathSwitch; where the
// task switched out is still queued (preempted, or 6.12's delayed),
// put_prev_entity()'s update_load_avg(…, 0) comes first and takes the
// period crossing, so set_next_entity() finds nothing decayed. A
// put_prev_task_fair() brings every queued level's sums to now and calls
// update_tg_load_avg() on none.
func TestSwitchLevels(t *testing.T) {
	const later = int64(5 * time.Millisecond)
	for _, prevQueued := range []bool{false, true} {
		rq, a, b := seededPath(t, prevQueued, true)
		rq.Switch(t0+later, a, b)
		want := int64(1)
		if prevQueued {
			want = 0
		}
		if l, p := rq.Stats(), rq.Parent().Stats(); l.Paths[PathSwitch].Updates != want || l.Updates != want || l.Decays != 1 || p.Updates != 0 || p.Decays != 0 {
			t.Errorf("Switch, prev queued %v: leaf %d calls (%d switch), %d decays; parent %d calls, %d decays; want %d, %d, 1, 0, 0",
				prevQueued, l.Updates, l.Paths[PathSwitch].Updates, l.Decays, p.Updates, p.Decays, want, want)
		}
		before := rq.Stats().Updates
		rq.PutPrev(t0+2*later, b)
		for l, c := 1, rq; c != nil; l, c = l+1, c.Parent() {
			if st := c.Stats(); st.Decays < 1 || c == rq && st.Updates != before || c != rq && st.Updates != 0 {
				t.Errorf("PutPrev: level %d: %d decays, %d calls; want its sums brought to now and no new call", l, st.Decays, st.Updates)
			}
		}
	}
}
