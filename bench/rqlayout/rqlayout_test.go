package rqlayout

import (
	"runtime"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// TestLayouts checks the two layouts against the commit: before, the lock
// shares the pick's first line and the pick spans four; after, the pick
// fields fill one line the lock is not on, and clock is beside clock_task.
func TestLayouts(t *testing.T) {
	for _, c := range []struct {
		name            string
		l               *layout
		pick, woken     int
		lockOnPick      bool
		clockBesideTask bool
	}{
		{"before", &layouts[0], 4, 2, true, false},
		{"after", &layouts[1], 1, 1, false, true},
	} {
		pick, woken := c.l.lines()
		if pick != c.pick || woken != c.woken {
			t.Errorf("%s: lines() = %d, %d, want %d, %d", c.name, pick, woken, c.pick, c.woken)
		}
		if got := c.l.lock/line == c.l.nrRunning/line; got != c.lockOnPick {
			t.Errorf("%s: lock on nr_running's line = %v, want %v", c.name, got, c.lockOnPick)
		}
		if got := c.l.clock/line == c.l.clockTask/line; got != c.clockBesideTask {
			t.Errorf("%s: clock on clock_task's line = %v, want %v", c.name, got, c.clockBesideTask)
		}
		seen := map[field]bool{}
		for _, f := range append(c.l.pickFields(), c.l.lock, c.l.clock, c.l.clockTask) {
			if seen[f] || int(f)+8 > c.l.size {
				t.Errorf("%s: field at %d overlaps another or lies outside the %d bytes", c.name, f, c.l.size)
			}
			seen[f] = true
		}
	}
}

// TestWakeupsRun drives two workers by hand: each wakes the other every
// picks operations, and the woken task is run at the owner's next pick.
func TestWakeupsRun(t *testing.T) {
	for _, variant := range []string{"layout=before/picks=2", "layout=after/picks=3/work=2"} {
		t.Run(variant, func(t *testing.T) {
			s := benchtest.StartUnpinned[*rqLayout](t, "rqlayout", variant, 2)
			s.workers[0].Run(6)
			s.workers[1].Run(6)
			picks := s.picks
			if w := s.workers[0].wakeups; w != int64(6/picks) {
				t.Errorf("worker 0 made %d wakeups, want %d", w, 6/picks)
			}
			// Worker 1's picks ran worker 0's wakeups; worker 1's own
			// wakeups wait on rq 0.
			if r := s.workers[1].ran; r != int64(6/picks) {
				t.Errorf("worker 1 ran %d woken tasks, want %d", r, 6/picks)
			}
			res := &bench.Result{Ops: 12}
			if err := s.Finish(res); err != nil {
				t.Fatal(err)
			}
			if got := benchtest.Metric(t, res, Wakeups); got != float64(2*(6/picks))/12 {
				t.Errorf("wakeups/op = %v", got)
			}
			*s.rqs[0].u32(s.layout.nrRunning) = 0 // lose the queued wakeups
			if err := s.Finish(&bench.Result{Ops: 12}); err == nil || !strings.Contains(err.Error(), "lost") {
				t.Errorf("Finish after a lost wakeup = %v, want an error saying so", err)
			}
			s.rqs[1].lock()
			if err := s.Finish(&bench.Result{Ops: 12}); err == nil {
				t.Error("Finish with a held lock passed")
			}
		})
	}
}

// TestRunnerCounts runs both layouts through the runner on the host's
// cpus: Finish cross-checks wakeups, locks and operations.
func TestRunnerCounts(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, min(2, runtime.NumCPU()))
	for _, variant := range []string{"layout=before/picks=1", "layout=after/picks=16"} {
		t.Run(variant, func(t *testing.T) {
			if _, err := bench.Run(benchtest.New(t, "rqlayout", variant), bench.Config{Topology: topo, CPUs: cpus, Ops: 20000}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestVariants(t *testing.T) {
	benchtest.CheckVariants(t, "rqlayout", [][2]string{
		{"", "layout=before/picks=16/work=0"},
		{"work=3/layout=after", "layout=after/picks=16/work=3"},
		{"picks=1", "layout=before/picks=1/work=0"},
		{"layout=middle", `!layout="middle": unknown value (want before|after)`},
		{"picks=0", "!out of range"},
		{"picks=x", "!not an integer"},
		{"lock=ticket", "!unknown"},
	})
}

func FuzzRqLayoutVariant(f *testing.F) {
	for _, seed := range []string{"", "layout=after", "picks=1", "picks=0", "layout=after/picks=16/work=100", "a=b", "layout=before/layout=after"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, variant string) {
		s, err := newRqLayout(variant)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "rqlayout: ") {
				t.Errorf("newRqLayout(%q) error is not one line naming the scenario: %q", variant, err)
			}
			return
		}
		again, err := newRqLayout(s.Variant())
		if err != nil || again.Variant() != s.Variant() {
			t.Errorf("newRqLayout(%q).Variant() = %q, which parses to %v, %v", variant, s.Variant(), again, err)
		}
	})
}
