package counter

import (
	"fmt"

	"github.com/contend/contend/bench/ksim"
)

// maxWeight is sched_prio_to_weight[0], the weight of a nice -20 task: the
// heaviest a task's load.weight gets, unscaled.
const maxWeight = 88761

// Entity is a task's sched_entity, the part the load paths use: its
// weight, its PELT average and the cfs_rq its load is attached to. A task
// is owned by one goroutine at a time (the CPU it is queued or woken on);
// handing it to another must synchronise, as a wake list does. An Entity
// must not be copied.
type Entity struct {
	noCopy noCopy
	weight uint64 // se_weight(): load.weight, unscaled
	avg    ksim.SchedAvg
	onRq   bool
	cfsRq  *CfsRq // cfs_rq_of(se) while its load is attached; nil in flight
	my     *CfsRq // group_cfs_rq(se): the cfs_rq a group entity stands for; nil for a task
	// run is a group entity's running sum, the time it ran on its CPU
	// decayed as PELT decays (LoadSum, unweighted), for
	// update_tg_cfs_load()'s floor (group.go).
	run ksim.SchedAvg
}

// Init sets up the entity of a task of weight w (unscaled, a nice level's
// sched_prio_to_weight, 1024 at nice 0), not yet attached anywhere. It works
// in place, so that callers may embed the entity in a padded struct of
// their own.
func (se *Entity) Init(w uint64) error {
	if w < 2 || w > maxWeight {
		return fmt.Errorf("entity: weight %d %w [2, %d]", w, ErrRange, maxWeight)
	}
	*se = Entity{weight: w}
	return nil
}

// CfsRq returns the cfs_rq the task's load is attached to: where it is
// queued, or where it last slept; nil once RemoveEntityLoadAvg or a
// migrating Dequeue took it away, until the next Enqueue attaches it.
func (se *Entity) CfsRq() *CfsRq { return se.cfsRq }

// LoadAt returns the entity's load_avg as PELT would have it at now
// (nanoseconds on its cfs_rq's clock), without changing the entity: what
// its cfs_rq's average holds for it at that time. A time before the
// entity's last update gives its current load_avg.
func (se *Entity) LoadAt(now int64) uint64 {
	avg := se.avg
	var load uint64
	if se.onRq {
		load = 1
	}
	if avg.LastUpdateTime != 0 && avg.UpdateLoadSum(uint64(now), load) {
		avg.UpdateLoadAvg(se.weight)
	}
	return avg.LoadAvg
}

// updateLoadAvgSe is __update_load_avg_se(): the sum grows by 1 per unit
// of time while the entity is queued, and the average is its weight times
// the sum over the divider.
func (se *Entity) updateLoadAvgSe(now uint64) {
	var load uint64
	if se.onRq {
		load = 1
	}
	if se.my != nil {
		se.run.UpdateLoadSum(now, load)
	}
	if se.avg.UpdateLoadSum(now, load) {
		se.avg.UpdateLoadAvg(se.weight)
	}
}
