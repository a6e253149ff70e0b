package counter

import (
	"github.com/contend/contend/bench/ksim"
	"testing"
	"time"
)

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
	} {
		t.Run("path="+tc.name, func(t *testing.T) {
			rq := newPath(t, newAtomics(t, 2), "every", 0)
			a, b := newTask(t), newTask(t)
			rq.Seed(a, 512, true)
			rq.Seed(b, 512, false)
			rq.SeedGroups(ksim.Nice0Load)
			for c := rq; c != nil; c = c.Parent() {
				c.Flush()
				c.ResetStats()
			}
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
	if PathBlocked.InUpdateLoadAvg() || !PathTick.InUpdateLoadAvg() || PathBlockedEntity.String() != "blocked-entity" || Path(99).String() != "Path(99)" {
		t.Error("Path's site or names are wrong")
	}
}
