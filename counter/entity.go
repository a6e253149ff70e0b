package counter

import "fmt"

// SchedPrioToWeight is sched_prio_to_weight for nice -20..19: a task's
// load.weight, unscaled.
var SchedPrioToWeight = [40]uint64{
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
}

// NiceWeight returns the weight of a task of the given nice level.
func NiceWeight(nice int) (uint64, error) {
	if nice < -20 || nice > 19 {
		return 0, fmt.Errorf("nice %d %w [-20, 19]", nice, ErrRange)
	}
	return SchedPrioToWeight[nice+20], nil
}

// Entity is a task's sched_entity, the part the load paths use: its
// weight, its PELT average and the cfs_rq its load is attached to. A task
// is owned by one goroutine at a time (the CPU it is queued or woken on);
// handing it to another must synchronise, as a wake list does. An Entity
// must not be copied.
type Entity struct {
	noCopy noCopy
	weight uint64 // se_weight(): load.weight, unscaled
	avg    SchedAvg
	onRq   bool
	cfsRq  *CfsRq // cfs_rq_of(se) while its load is attached; nil in flight
}

// NewEntity makes the entity of a task of weight w (unscaled, as
// SchedPrioToWeight lists it), not yet attached anywhere.
func NewEntity(w uint64) (*Entity, error) {
	se := &Entity{}
	if err := se.Init(w); err != nil {
		return nil, err
	}
	return se, nil
}

// Init sets up an entity in place, for callers that embed it in a padded
// struct of their own.
func (se *Entity) Init(w uint64) error {
	if w < 2 || w > SchedPrioToWeight[0] {
		return fmt.Errorf("entity: weight %d %w [2, %d]", w, ErrRange, SchedPrioToWeight[0])
	}
	*se = Entity{weight: w}
	return nil
}

// Weight returns the task's weight, unscaled.
func (se *Entity) Weight() uint64 { return se.weight }

// Queued reports whether the task is on its cfs_rq's queue.
func (se *Entity) Queued() bool { return se.onRq }

// CfsRq returns the cfs_rq the task's load is attached to: where it is
// queued, or where it last slept; nil once RemoveEntityLoadAvg or a
// migrating Dequeue took it away, until the next Enqueue attaches it.
func (se *Entity) CfsRq() *CfsRq { return se.cfsRq }

// Avg returns the entity's PELT state.
func (se *Entity) Avg() SchedAvg { return se.avg }

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
	if avg.LastUpdateTime != 0 && avg.updateLoadSum(uint64(now), load) {
		avg.updateLoadAvg(se.weight)
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
	if se.avg.updateLoadSum(now, load) {
		se.avg.updateLoadAvg(se.weight)
	}
}
