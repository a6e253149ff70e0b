package idlemask

import (
	"testing"

	"github.com/contend/contend/bench"
)

// Where a woken task lands and what it waits, case by case, on an LLC of 8
// CPUs woken from CPU 0 (the target), every runqueue busy (busy=100) but
// those a case makes idle: a task stacked on a busy CPU waits from its
// enqueue until that CPU's task blocks, on that CPU's clock; one placed on
// an idle CPU waits nothing.
func TestIdleMaskStackedWait(t *testing.T) {
	for _, tt := range []struct {
		name  string
		early bool
		idle  []int
		// stackedOn is the CPU the task is queued on behind a running
		// task, -1 when it is placed on an idle one (or left on an idle
		// target, early=off).
		stackedOn int
	}{
		{"nothing idle: select_idle_sibling() returns the busy target", false, nil, 0},
		{"nothing idle, shortcuts on: the busy target", true, nil, 0},
		{"an idle cpu found: placed, no wait", false, []int{5}, -1},
		{"the target idle, shortcuts on: placed on it", true, []int{0}, -1},
		{"early=off leaves an idle target out of the scan and nothing waits on it", false, []int{0}, -1},
	} {
		s, ws := setup(t, "update=always/scan=all/sis=none/busy=100/wake=0/llc=8", 1)
		w := ws[0]
		w.early = tt.early
		for _, c := range tt.idle {
			s.llcs[0].rqs[c].state.Store(rqIdle)
		}
		w.wakeup(0, &w.local[0])
		var got int64
		on := -1
		for c := range w.local {
			if n := w.local[c].stacked; n > 0 {
				got += n
				on = c
			}
		}
		if w.stacked != got || on != tt.stackedOn || (on < 0) != (w.stacked == 0) {
			t.Errorf("%s: stacked %d, on cpu %d (%d queued in all); want on cpu %d", tt.name, w.stacked, on, got, tt.stackedOn)
			continue
		}
		if on < 0 {
			continue
		}
		// The cpu's task runs 7 µs more of kernel time, then blocks.
		loc := &w.local[on]
		loc.clock.Advance(7000)
		w.idleEntry(on, s.llcs[0].rqs[on], loc)
		if w.waitNs != 7000 || loc.stacked != 0 {
			t.Errorf("%s: waited %d ns, %d still stacked once cpu %d blocked 7 µs later; want 7000, 0", tt.name, w.waitNs, loc.stacked, on)
		}
	}
}

// A task that lost the race for an idle cpu of another worker is queued on
// that cpu's runqueue line; its owner takes it in at the cpu's next event and
// counts the wait from there, on its own clock.
func TestIdleMaskStackedRemote(t *testing.T) {
	s, ws := setup(t, "update=laststate/scan=mask/busy=100/wake=0/llc=8", 2)
	w0, w1 := ws[0], ws[1]
	const cpu = 5 // worker 1's, busy
	if w1.lo > cpu || w1.hi <= cpu || s.llcs[0].rqs[cpu].state.Load() == rqIdle {
		t.Fatalf("worker 1 owns cpus [%d, %d); cpu %d state %d: want it worker 1's and busy", w1.lo, w1.hi, cpu, s.llcs[0].rqs[cpu].state.Load())
	}
	w0.land(cpu)
	if q := s.llcs[0].rqs[cpu].queued.Load(); w0.stacked != 1 || q != 1 {
		t.Fatalf("landing on busy cpu %d of another worker: stacked %d, queued %d; want 1, 1", cpu, w0.stacked, q)
	}
	w1.Run(w1.hi - w1.lo) // one event on each of its cpus, all busy
	loc := &w1.local[cpu-w1.lo]
	if q := s.llcs[0].rqs[cpu].queued.Load(); q != 0 || loc.stacked != 1 {
		t.Fatalf("after the owner's next event: queued %d, stacked %d; want 0, 1", q, loc.stacked)
	}
	taken := loc.stackedAt
	loc.clock.Advance(3000)
	w1.idleEntry(cpu, s.llcs[0].rqs[cpu], loc)
	if want := loc.clock.Now() - taken; w1.waitNs != want || want < 3000 {
		t.Errorf("waited %d ns, want %d (from the owner's event that took it in, ≥ 3000)", w1.waitNs, want)
	}
	// Queued on cpu 5, now idle: the owner runs it at once, nothing waits.
	w0.stack(cpu)
	w1.Run(w1.hi - w1.lo)
	if q := s.llcs[0].rqs[cpu].queued.Load(); q != 0 || loc.stacked != 0 {
		t.Errorf("queued on an idle cpu: queued %d, stacked %d after the owner's next event; want 0, 0", q, loc.stacked)
	}
}

// Over runs of every kind, on one thread (no races): each wakeup either
// places its task on an idle cpu or stacks it (early=on), stacked-% and
// wait-sec/wakeup are reported, the wait is never negative, and a stacked
// task waits no longer on average than the run lasted. With the exact
// mask and no budget a task stacks exactly when no cpu of the LLC was idle.
func TestIdleMaskStackedCounts(t *testing.T) {
	for _, v := range []string{
		"update=always/scan=mask/sis=none/early=on",
		"update=always/scan=all/sis=prop/early=on",
		"update=tickstop/scan=mask/early=on",
		"update=laststate/scan=mask/early=on",
		"update=none/scan=all/early=on/busy=50/wake=30",
		"update=laststate/scan=mask/busy=99",
	} {
		s, ws := setup(t, v+"/llc=16", 2)
		for range 20 {
			ws[0].Run(500)
			ws[1].Run(500)
		}
		var c counts
		c.add(&ws[0].counts)
		c.add(&ws[1].counts)
		res := &bench.Result{Ops: c.events}
		if err := s.Finish(res); err != nil {
			t.Fatal(err)
		}
		stacked, ok1 := res.Metric(Stacked.Name)
		wait, ok2 := res.Metric(Wait.Name)
		if !ok1 || !ok2 || wait < 0 || stacked < 0 || stacked > 100 {
			t.Errorf("%s: %s %v (%v), %s %v (%v); want both reported, in range", v, Stacked.Name, stacked, ok1, Wait.Name, wait, ok2)
		}
		if s.early && c.placed+c.stacked != c.wakeups {
			t.Errorf("%s: %d placed + %d stacked, want the %d wakeups", v, c.placed, c.stacked, c.wakeups)
		}
		span := float64(ws[0].local[0].clock.Now()) * 1e-9
		if c.stacked > 0 && wait*float64(c.wakeups)/float64(c.stacked) > span {
			t.Errorf("%s: a stacked task waited %.3g s on average, longer than the run's %.3g s", v, wait*float64(c.wakeups)/float64(c.stacked), span)
		}
		if v == "update=always/scan=mask/sis=none/early=on" && c.stacked != c.wakeups-c.found {
			t.Errorf("%s: %d stacked, want the %d wakeups that found no idle cpu", v, c.stacked, c.wakeups-c.found)
		}
	}
}

// The per-cpu-kthread case of select_idle_sibling(): a kthread waking a task
// whose prev is the kthread's own cpu, with nothing else running there,
// stacks it on prev without a scan, even with an idle cpu in the LLC.
func TestIdleMaskKthreadStacks(t *testing.T) {
	for _, tt := range []struct {
		name        string
		kthread     string
		prevTarget  bool
		stackedHere int64 // tasks already stacked on the target
		wantOn      int   // where the task lands
	}{
		{"the kthread's cpu is prev: stacked there", "100", true, 0, 0},
		{"prev elsewhere: the scan finds cpu 5", "100", false, 0, 5},
		{"nr_running > 1 on prev: the scan", "100", true, 1, 5},
		{"no kthread wakers (kthread=0): the scan", "0", true, 0, 5},
	} {
		s, ws := setup(t, "update=always/scan=all/sis=none/busy=100/wake=0/llc=8/early=on/kthread="+tt.kthread, 1)
		w := ws[0]
		draw(t, w, func(p, r int) bool { return (p == 0) == tt.prevTarget && r != 5 && p != 5 })
		s.llcs[0].rqs[5].state.Store(rqIdle)
		w.local[0].stack(tt.stackedHere)
		got := w.placeWakee(0, &w.local[0])
		wantStacked := tt.stackedHere
		if tt.wantOn == 0 {
			wantStacked++
		}
		if got != tt.wantOn || w.local[0].stacked != wantStacked || (w.sisKthread == 1) != (tt.wantOn == 0) {
			t.Errorf("%s: landed on %d, %d stacked on the target, kthread case %d; want %d, %d", tt.name, got, w.local[0].stacked, w.sisKthread, tt.wantOn, wantStacked)
		}
	}
}
