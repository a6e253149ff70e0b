package cfsmodel

import (
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/counter"
)

// newGroup makes n CPUs of a group of the given levels, every write and
// read path the kernel's own, each CPU with tasks tasks, and runs rounds
// events on each, round robin.
func newGroup(t *testing.T, n, levels, tasks, mig, rounds int) ([]*CPU, []counter.Store) {
	t.Helper()
	w, err := counter.ParseWrite("every")
	if err != nil {
		t.Fatal(err)
	}
	r, err := counter.ParseRead("every")
	if err != nil {
		t.Fatal(err)
	}
	stores := make([]counter.Store, levels)
	for i := range stores {
		if stores[i], err = counter.NewAtomic(counter.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	peers := make([]*SleeperQueue, n)
	for i := range peers {
		peers[i] = &SleeperQueue{}
	}
	cpus := make([]*CPU, n)
	for i := range cpus {
		rq, err := counter.NewCfsRqPath(stores, w, r, i, 0)
		if err != nil {
			t.Fatal(err)
		}
		cpus[i] = &CPU{}
		if err := cpus[i].Init(rq, i, peers, tasks, mig, Nice0Load, 40_000, ksim.HZ(1000), CPUSeed(i, 1)); err != nil {
			t.Fatal(err)
		}
	}
	for range rounds {
		for _, c := range cpus {
			c.Event()
		}
	}
	return cpus, stores
}

// TestStoresConserved runs groups of every shape the scenario takes and
// checks the exact accounting, then breaks it each way the check names.
func TestStoresConserved(t *testing.T) {
	for _, tc := range []struct {
		name                string
		cpus, levels, tasks int
		mig                 int
	}{
		{"cpus=1/levels=1", 1, 1, 2, 79},
		{"cpus=4/levels=1/mig=0", 4, 1, 2, 0},
		{"cpus=4/levels=2/mig=79", 4, 2, 2, 79},
		{"cpus=3/levels=3/mig=100", 3, 3, 4, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cpus, stores := newGroup(t, tc.cpus, tc.levels, tc.tasks, tc.mig, 2000)
			if err := StoresConserved(cpus, stores); err != nil {
				t.Fatalf("StoresConserved after a clean run = %v", err)
			}
			var wakeups, moved int64
			for _, c := range cpus {
				wakeups += c.Wakeups
				moved += c.Moved
			}
			if wakeups == 0 || (tc.mig > 0 && tc.cpus > 1) != (moved > 0) {
				t.Errorf("%d wakeups moved %d load: want wakeups, and load moved exactly when tasks migrate", wakeups, moved)
			}
			top := len(stores) - 1
			stores[top].AddAt(0, 0, 1)
			if err := StoresConserved(cpus, stores); err == nil || !strings.Contains(err.Error(), "writes were lost") {
				t.Errorf("StoresConserved with a store off by one = %v, want writes lost", err)
			}
			stores[top].AddAt(0, 0, -1)
			for _, c := range cpus {
				if ts := slices.Concat(c.Queued, c.Local); len(ts) > 0 {
					c.Local = append(c.Local, ts[0])
					break
				}
			}
			if err := StoresConserved(cpus, stores); err == nil || !strings.Contains(err.Error(), "two places") {
				t.Errorf("StoresConserved with a task listed twice = %v, want it found", err)
			}
		})
	}
}

// TestEventAllocates nothing: the pinned hot loop runs Event.
func TestEventAllocates(t *testing.T) {
	cpus, _ := newGroup(t, 2, 2, 2, 79, 100)
	if n := testing.AllocsPerRun(1000, func() { cpus[0].Event(); cpus[1].Event() }); n != 0 {
		t.Errorf("Event allocates %v times per call, want 0", n)
	}
}
