package loadavg

import (
	"fmt"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/counter"
)

// The task-group hierarchy: levels=N puts the tasks' group N-1 groups
// below the group under the root, each level with its own tg->load_avg
// (counter.NewCfsRqPath).
const (
	// laDefaultLevels is what the seed ran: postgres "in a single docker
	// instance", a container scope (the tasks' group) under
	// system.slice (its parent) under the root, with systemd's cgroup
	// driver, docker's default on the distributions of 2023.
	laDefaultLevels = 2
	laMaxLevels     = 3
)

// Reads is calc_group_shares() calls per event, every level's.
var Reads = bench.Unit{Name: "reads/op", Better: bench.Lower,
	Doc: "calc_group_shares runs per event, every level's (one per level per en/dequeue unless patch 4 or read=onein skips it)"}

// Per-level figures, reported beside the sums when levels is 2 or more:
// LevelSharedWrites[i] is level i+1's (level 1 being the tasks' own
// group), and so on.
var (
	LevelSharedWrites      = laLevelUnits(SharedWrites, "shared writes")
	LevelReads             = laLevelUnits(Reads, "calc_group_shares runs")
	LevelCfsRqWritesPerSec = laLevelUnits(CfsRqWritesPerSec, "tg->load_avg writes per cfs_rq per kernel second")
	LevelTGWeightErr       = laLevelUnits(TGWeightErr, "tg_weight error, per cent")
)

// LevelUnits lists every per-level unit, for the scenario's Spec.
func LevelUnits() []bench.Unit {
	var us []bench.Unit
	for _, l := range [][laMaxLevels]bench.Unit{LevelSharedWrites, LevelReads, LevelCfsRqWritesPerSec, LevelTGWeightErr} {
		us = append(us, l[:]...)
	}
	return us
}

// laLevelUnits names u's per-level units "l1-" + u.Name and so on.
func laLevelUnits(u bench.Unit, what string) (us [laMaxLevels]bench.Unit) {
	names := [laMaxLevels]string{"the tasks' own group", "its parent, system.slice in the seed's setup", "the parent's parent"}
	for i := range us {
		name := names[i]
		us[i] = bench.Unit{Name: fmt.Sprintf("l%d-%s", i+1, u.Name), Better: u.Better,
			Doc: fmt.Sprintf("level %d (%s): %s, as %s", i+1, name, what, u.Name)}
	}
	return us
}

// laLevel returns rq's ancestor i levels up (0: rq itself).
func laLevel(rq *counter.CfsRq, i int) *counter.CfsRq {
	for range i {
		rq = rq.Parent()
	}
	return rq
}
