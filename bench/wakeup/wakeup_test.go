package wakeup

import (
	"strings"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

func TestVariants(t *testing.T) {
	benchtest.CheckVariants(t, "wakeup", [][2]string{
		{"", "wake=llcstats/topo=s390/pairs=40/lines=256"},
		{"wake=basic/topo=llc4", "wake=basic/topo=llc4/pairs=40/lines=256"},
		{"wake=v6.1/pairs=1/lines=1/io=0", "wake=v6.1/topo=s390/pairs=1/lines=1"},
		{"io=100", "wake=llcstats/topo=s390/pairs=40/lines=256/io=100"},
		{"wake=affine", `!wake="affine": unknown value (want llcstats|basic|v6.1)`},
		{"topo=llc1", `!topo="llc1": not a topology preset (want s390|s390llcN|llcN; N 2..64, cpus per LLC)`},
		{"topo=llc04", "!not a topology preset"},
		{"topo=x86", "!not a topology preset"},
		{"pairs=0", `!pairs="0": out of range (want 1..8192)`},
		{"lines=16385", "!out of range"},
		{"io=-1", `!io="-1": out of range (want 0..1000000)`},
		{"mig=1.2", `!unknown variant key "mig"`},
		{"wake", "!malformed variant part"},
	})
}

// The variant parser never panics, errors in one line, and what it accepts
// reads back as itself. Seed corpus in testdata/fuzz/FuzzWakeupVariant.
func FuzzWakeupVariant(f *testing.F) {
	f.Fuzz(func(t *testing.T, variant string) {
		s, err := newWakeup(variant)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "wakeup: ") {
				t.Errorf("newWakeup(%q) error = %q, want one line starting wakeup: ", variant, err)
			}
			return
		}
		again, err := newWakeup(s.Variant())
		if err != nil || again.Variant() != s.Variant() || again.cfg != s.cfg {
			t.Errorf("newWakeup(%q).Variant() = %q, which reads back as %+v, %v", variant, s.Variant(), again, err)
		}
	})
}

// A migration needs somewhere to go: a run on one worker is refused with a
// one-line reason, and a topology the worker count cannot hold too.
func TestStartErrors(t *testing.T) {
	for _, tt := range []struct {
		variant string
		workers int
		want    string
	}{
		{"", 1, "at least 2 cpus"},
		{"topo=llc4", 6, "do not nest"},
	} {
		s := benchtest.New(t, "wakeup", tt.variant)
		err := s.Start(&bench.Env{CPUs: make([]int, tt.workers), Nodes: make([]int, tt.workers)})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Start(%q) on %d workers: error = %v, want one line with %q", tt.variant, tt.workers, err, tt.want)
		}
	}
}

// The replay runs the model's schedule: every run's lines are written once,
// the moved runs are the schedule's, and the metrics are the model's.
func TestReplay(t *testing.T) {
	s := benchtest.StartUnpinned[*wakeup](t, "wakeup", "wake=basic/topo=llc2/pairs=2/lines=4/io=100", 2)
	var want, moved int64
	for _, l := range s.sched.Lists {
		want += int64(len(l))
		for _, r := range l {
			if r.Moved {
				moved++
			}
		}
	}
	if want == 0 || moved == 0 {
		t.Fatalf("schedule has %d runs, %d moved: want some of each", want, moved)
	}
	for i, w := range s.workers {
		w.Run(len(s.sched.Lists[i]))
	}
	res := &bench.Result{Ops: want}
	if err := s.Finish(res); err != nil {
		t.Fatal(err)
	}
	if got := benchtest.Metric(t, res, LinesPulled); got != 4*float64(moved)/float64(want) {
		t.Errorf("lines-pulled/op = %g, want 4 × %d moved / %d runs", got, moved, want)
	}
	if got := benchtest.Metric(t, res, PerFiveSec); got != s.sim.Total {
		t.Errorf("migrations/5s = %g, want the model's %g", got, s.sim.Total)
	}
	// Runs the runner did not count are caught (a stray write to a
	// working set: replay's TestCheck).
	res.Ops++
	if err := s.Finish(res); err == nil || !strings.Contains(err.Error(), "runner counted") {
		t.Errorf("Finish with a run miscounted: %v, want a count error", err)
	}
}
