package idlemask

import (
	"slices"
	"testing"

	"github.com/contend/contend/bench"
)

// nextWakee is the task w's next wakeup will wake (prev=history).
func nextWakee(w *worker) int32 {
	r, h := w.rng, *w.hist
	h.begin(bench.XorShift(&r))
	return h.wakee
}

// prev and recent_used_cpu from the wakee's history, case by case, on an
// LLC of 8 CPUs woken from CPU 0, every runqueue busy but those a case
// makes idle: the wakee's prev becomes where it landed, the waker's
// recent_used_cpu the target, the recent_used_cpu shortcut hands the old
// prev on, and the CPU that took the wakee runs it next.
func TestIdleMaskHistory(t *testing.T) {
	for _, tt := range []struct {
		name         string
		prev, recent int32 // the wakee's, before
		idle         []int
		landed       int
		wantRecent   int32 // the wakee's recent_used_cpu after
	}{
		{"the scan finds cpu 5", 0, 0, []int{5}, 5, 0},
		{"nothing idle: stacked on the target", 2, 2, nil, 0, 2},
		{"prev idle", 3, 0, []int{3, 5}, 3, 0},
		{"recent_used_cpu idle: it becomes the old prev", 3, 6, []int{6}, 6, 3},
		{"recent_used_cpu == prev, idle: the prev shortcut", 6, 6, []int{6}, 6, 6},
	} {
		s, ws := setup(t, "update=always/scan=all/sis=none/busy=100/wake=0/llc=8/early=on/prev=history", 1)
		w := ws[0]
		h := w.hist
		for _, c := range tt.idle {
			s.llcs[0].rqs[c].state.Store(rqIdle)
		}
		wakee, waker, displaced := nextWakee(w), h.curr[0], h.curr[tt.landed]
		h.tasks[wakee] = task{prev: tt.prev, recent: tt.recent}
		w.wakeup(0, &w.local[0])
		got := h.tasks[wakee]
		if got.prev != int32(tt.landed) || got.recent != tt.wantRecent || h.curr[tt.landed] != wakee {
			t.Errorf("%s: wakee %d prev %d recent %d, cpu %d runs %d; want prev %d recent %d, cpu %d running it",
				tt.name, wakee, got.prev, got.recent, tt.landed, h.curr[tt.landed], tt.landed, tt.wantRecent, tt.landed)
		}
		if r := h.tasks[waker].recent; waker != wakee && r != 0 {
			t.Errorf("%s: the waker's recent_used_cpu %d, want the target 0", tt.name, r)
		}
		if !slices.Contains(h.asleep, displaced) || slices.Contains(h.asleep, wakee) {
			t.Errorf("%s: asleep %v: want the displaced task %d in it, the wakee %d out", tt.name, h.asleep, displaced, wakee)
		}
	}
}

// Over runs, every task is either one CPU's current task or asleep, exactly
// once, and every prev and recent_used_cpu is a CPU of the LLC.
func TestIdleMaskHistoryInvariants(t *testing.T) {
	for _, v := range []string{
		"update=laststate/scan=mask/early=on/prev=history/llc=16",
		"update=none/scan=all/early=on/prev=history/busy=50/wake=40/llc=7",
		"update=tickstop/scan=mask/early=off/prev=history/llc=16",
	} {
		_, ws := setup(t, v, 2)
		for range 20 {
			ws[0].Run(500)
			ws[1].Run(500)
		}
		for i, w := range ws {
			h := w.hist
			all := append(slices.Clone(h.curr), h.asleep...)
			slices.Sort(all)
			for j, id := range all {
				if id != int32(j) {
					t.Fatalf("%s: worker %d: current %v and asleep %v are not its %d tasks once each", v, i, h.curr, h.asleep, len(h.tasks))
				}
			}
			for j, tk := range h.tasks {
				if tk.prev < 0 || tk.prev >= int32(w.width) || tk.recent < 0 || tk.recent >= int32(w.width) {
					t.Errorf("%s: worker %d task %d: prev %d recent %d, want cpus of the LLC of %d", v, i, j, tk.prev, tk.recent, w.width)
				}
			}
		}
	}
}
