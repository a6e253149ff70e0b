package loadavg

import (
	"fmt"

	"github.com/contend/contend/bench"
)

// The task-group hierarchy: levels=N puts the tasks' group N-1 groups
// below the group under the root, each level with its own tg->load_avg
// (counter.NewCfsRqPath).
const (
	// defaultLevels is what the seed ran: postgres "in a single docker
	// instance", a container scope (the tasks' group) under
	// system.slice (its parent) under the root, with systemd's cgroup
	// driver, docker's default on the distributions of 2023.
	defaultLevels = 2
	maxLevels     = 3
)

// Reads is calc_group_shares() calls per event, every level's.
var Reads = bench.Unit{Name: "reads/op", Better: bench.Lower,
	Doc: "calc_group_shares runs per event, every level's (one per level per en/dequeue unless patch 4 or read=onein skips it)"}

// Per-level figures, reported beside the sums when levels is 2 or more:
// LevelSharedWrites[i] is level i+1's (level 1 being the tasks' own
// group), and so on.
var (
	LevelSharedWrites      = levelUnits(SharedWrites, "shared writes")
	LevelReads             = levelUnits(Reads, "calc_group_shares runs")
	LevelCfsRqWritesPerSec = levelUnits(CfsRqWritesPerSec, "tg->load_avg writes per cfs_rq per kernel second")
	LevelTGWeightErr       = levelUnits(TGWeightErr, "tg_weight error, per cent")
)

// LevelUnits lists every per-level unit, for the scenario's Spec.
func LevelUnits() []bench.Unit {
	var us []bench.Unit
	for _, l := range [][maxLevels]bench.Unit{LevelSharedWrites, LevelReads, LevelCfsRqWritesPerSec, LevelTGWeightErr} {
		us = append(us, l[:]...)
	}
	return us
}

// levelUnits names u's per-level units "l1-" + u.Name and so on.
func levelUnits(u bench.Unit, what string) (us [maxLevels]bench.Unit) {
	names := [maxLevels]string{"the tasks' own group", "its parent, system.slice in the seed's setup", "the parent's parent"}
	for i := range us {
		name := names[i]
		us[i] = bench.Unit{Name: fmt.Sprintf("l%d-%s", i+1, u.Name), Better: u.Better,
			Doc: fmt.Sprintf("level %d (%s): %s, as %s", i+1, name, what, u.Name)}
	}
	return us
}
