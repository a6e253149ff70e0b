package loadavg

import (
	"fmt"
	"github.com/contend/contend/bench/loadavg/cfsmodel"
	"strings"
	"sync"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// TestLoadAvgLevelsConservation runs four unpinned workers at every depth
// and under the presets whose propagation differs (base; delay, which holds
// the removed load's propagation; rate, each level's own limit), under
// -race in CI: afterwards every level's store holds exactly its cfs_rqs'
// contributions and every parent holds its child's group entity, queued
// exactly when the child has something queued.
func TestLoadAvgLevelsConservation(t *testing.T) {
	events := 20_000
	if testing.Short() {
		events = 4000
	}
	for _, levels := range []int{1, 2, 3} {
		for _, preset := range []string{"base", "delay", "rate"} {
			v := fmt.Sprintf("preset=%s/levels=%d", preset, levels)
			s := benchtest.StartUnpinned[*loadAvg](t, "loadavg", v, 4)
			var wg sync.WaitGroup
			for _, w := range s.workers {
				wg.Go(func() { w.Run(events) })
			}
			wg.Wait()
			if err := cfsmodel.StoresConserved(s.cpus(), s.stores); err != nil {
				t.Errorf("%s: %v", v, err)
			}
			var props int64
			for _, w := range s.workers {
				if w.cpu.RQ.Levels() != levels {
					t.Errorf("%s: a worker's cfs_rq has %d levels", v, w.cpu.RQ.Levels())
				}
				for l := 1; l < levels; l++ {
					props += cfsmodel.Level(w.cpu.RQ, l).Stats().Propagations
				}
			}
			if levels > 1 && props == 0 {
				t.Errorf("%s: no load propagated to a parent level", v)
			}
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestLoadAvgLevelsCatchLoss: a level's store that loses writes fails the
// group check, which names the level.
func TestLoadAvgLevelsCatchLoss(t *testing.T) {
	s := newUnpinned(t, "preset=base/levels=2", 2)
	for _, w := range s.workers {
		w.Run(2000)
	}
	s.stores[1].AddAt(0, 0, 1) // a write no cfs_rq made
	err := cfsmodel.StoresConserved(s.cpus(), s.stores)
	if err == nil || !strings.Contains(err.Error(), "level 2: the store holds") {
		t.Errorf("StoresConserved with a level-2 store off by one = %v, want level 2 named", err)
	}
}

// TestLoadAvgLevelsMetrics: one level reports what it did before the
// hierarchy (no per-level units); two report each level's figures beside
// the sums, which they add up to, and the summed shared writes per event at
// least 1.5× one level's (the parent's line is written about as often as
// the leaf's at two workers); the rate limit caps each level.
//
// The workers run in lockstep on one goroutine (runLockstep), as two cpus
// whose events interleave: how many writes an event makes depends on the
// load the wakeups move between the cpus, which needs both running. Driven
// on two goroutines, whether they overlap is the scheduler's: beside one
// cpu hog levels=1 made 0.0022 to 0.13 shared writes per event from run
// to run (one worker finishing before the other started, or not), and the
// ratio came out 0.10×. In lockstep the figures are the model's, the same
// on every machine (levels=2 makes 2.04× levels=1's); the concurrent runs
// are TestLoadAvgLevelsConservation's, which checks what holds whatever the
// interleaving.
func TestLoadAvgLevelsMetrics(t *testing.T) {
	run := func(v string) *bench.Result {
		s := newUnpinned(t, v, 2)
		return runLockstep(t, s, 20_000)
	}
	one := run("preset=base/levels=1")
	if _, ok := one.Metric(LevelSharedWrites[0].Name); ok {
		t.Error("levels=1 reports per-level units")
	}
	two := run("preset=base/levels=2")
	var sum, reads float64
	for l := range 2 {
		sum += benchtest.Metric(t, two, LevelSharedWrites[l])
		reads += benchtest.Metric(t, two, LevelReads[l])
		benchtest.Metric(t, two, LevelTGWeightErr[l])
	}
	if got := benchtest.Metric(t, two, SharedWrites); !closeEnough(got, sum) {
		t.Errorf("levels=2: shared-writes/op %v, levels' sum %v", got, sum)
	}
	if got := benchtest.Metric(t, two, Reads); !closeEnough(got, reads) || reads < 1.5 {
		t.Errorf("levels=2: reads/op %v, levels' %v; want about one per level per event", got, reads)
	}
	if r := benchtest.Metric(t, two, SharedWrites) / benchtest.Metric(t, one, SharedWrites); r < 1.5 {
		t.Errorf("levels=2 makes %.2f× the shared writes per event of levels=1, want ≥ 1.5×", r)
	}
	rate := run("preset=rate/levels=2")
	for l := range 2 {
		if w := benchtest.Metric(t, rate, LevelCfsRqWritesPerSec[l]); w > 1000 {
			t.Errorf("rate: level %d writes %.0f times per cfs_rq per kernel second, over the 1 ms cap", l+1, w)
		}
	}
}

// runLockstep runs every worker of s for events events, one event of each
// in turn on the calling goroutine, and finishes the run: cpus running at
// once, with no scheduler to decide how their events interleave.
func runLockstep(t testing.TB, s *loadAvg, events int) *bench.Result {
	t.Helper()
	for range events {
		for _, w := range s.workers {
			w.Run(1)
		}
	}
	res := &bench.Result{Ops: int64(events * len(s.workers))}
	if err := s.Finish(res); err != nil {
		t.Fatal(err)
	}
	return res
}

func closeEnough(a, b float64) bool { return a-b < 1e-9*(a+b)+1e-12 && b-a < 1e-9*(a+b)+1e-12 }
