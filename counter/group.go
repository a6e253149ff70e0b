package counter

import (
	"fmt"

	"github.com/contend/contend/bench/ksim"
)

// The task-group hierarchy on one CPU. A task in a group two levels below
// the root (a docker container's scope under system.slice) is queued on
// its group's cfs_rq; that group's sched_entity on this CPU (tg->se[cpu])
// is queued on the parent group's cfs_rq, whose own entity is queued on
// the root cfs_rq. Every level has its own tg->load_avg: a contended line
// that update_tg_load_avg() writes for that level's cfs_rq and
// calc_group_shares() reads for that level's group entity. What moves the
// load of a level above the leaf is its child group's entity: its PELT
// sum, its weight (reweight_entity() with calc_group_shares()'s answer),
// and the load the child propagates when a task attaches, detaches or is
// removed (add_tg_cfs_propagate(), then propagate_entity_load_avg() and
// update_tg_cfs_load() on the parent's next update_load_avg()).
//
// Each parent here has one child group on the CPU, as system.slice holds
// only the container: a parent's cfs_rq holds that child's entity and
// nothing else, and the root's holds the top group's entity and nothing
// else. Utilisation and runnable averages are not kept (nothing on the
// tg->load_avg paths reads them) but for one use: update_tg_cfs_load()
// raises the propagated runnable sum to the entity's running sum
// ("runnable_sum can't be lower than running_sum", se->avg.util_sum >>
// SCHED_CAPACITY_SHIFT), without which a removal propagated while the
// child's cfs_rq has nothing queued would zero the group entity's load. The
// kernel's group util_sum is the child cfs_rq's util_avg copied up
// (update_tg_cfs_util()), which a removal lowers by the removed task's
// util; here it is the group entity's own running time (Entity.run: the
// group is all its CPU runs, so it runs whenever it is queued), which a
// removal does not lower. The floor after a removal is thus the time the
// group ran, a little above the kernel's: it keeps the upper levels' load
// nearer their busy time, and makes the writes removals cause there
// smaller than the kernel's.

// NewCfsRqPath makes cpu's cfs_rqs of nested task groups and returns the
// leaf's: stores[0] is the tasks' own group's tg->load_avg, stores[1] its
// parent's, and so on up to the group under the root. Every level gets the
// same write and read policy, as the patches change the functions every
// level calls. With one store it is NewCfsRq.
func NewCfsRqPath(stores []Store, w WritePolicy, r ReadPolicy, cpu, node int) (*CfsRq, error) {
	if len(stores) == 0 {
		return nil, fmt.Errorf("cfs_rq: no store: a task group has at least one level")
	}
	var leaf, child *CfsRq
	for i, s := range stores {
		rq, err := NewCfsRq(s, w, r, cpu, node)
		if err != nil {
			return nil, fmt.Errorf("level %d: %w", i+1, err)
		}
		rq.level = i + 1
		if child == nil {
			leaf = rq
		} else {
			child.parent = rq
			child.gse.my = child
			rq.publish = false // no task is attached to a parent's cfs_rq
		}
		child = rq
	}
	return leaf, nil
}

// Parent returns the parent group's cfs_rq on this CPU, nil for a group
// under the root.
func (rq *CfsRq) Parent() *CfsRq { return rq.parent }

// Level returns the cfs_rq's level: 1 for the tasks' own group, 2 for its
// parent, and so on.
func (rq *CfsRq) Level() int { return rq.level }

// Levels returns the number of levels from this cfs_rq to the root.
func (rq *CfsRq) Levels() int {
	n := 0
	for c := rq; c != nil; c = c.parent {
		n++
	}
	return n
}

// GroupLoad returns the load_avg of this group's entity on its parent and
// whether it is queued there; 0 and false without a parent.
func (rq *CfsRq) GroupLoad() (load uint64, queued bool) {
	if rq.parent == nil {
		return 0, false
	}
	return rq.gse.avg.LoadAvg, rq.gse.onRq
}

// SeedGroups attaches the group entity of this cfs_rq and of each
// ancestor but the top one's to its parent at the current time: weight
// shares (scaled, as calc_group_shares() returns it, clamped to
// [MinShares, tg->shares]), queued if its own cfs_rq has anything queued,
// and carrying the runnable sum the entities attached below it have
// propagated (clipped to a full period, as update_tg_cfs_load() clips
// it). Like Seed it calls nothing and counts nothing: the starting state
// of a run, after the leaf's tasks are seeded. The caller picks shares as
// the weight a cfs_rq of a group spread evenly over n CPUs gets,
// tg->shares/n, which the first read then corrects.
func (rq *CfsRq) SeedGroups(shares int64) {
	for c := rq; c.parent != nil; c = c.parent {
		p, se := c.parent, &c.gse
		c.shares = min(max(shares, MinShares), c.tgShares)
		se.weight = uint64(ksim.ScaleLoadDown(c.shares))
		divider := p.avg.Divider()
		run := uint64(min(max(c.propRunnableSum, 0), int64(divider)))
		c.propagate, c.propRunnableSum = false, 0
		se.avg = ksim.SchedAvg{LoadAvg: se.weight * run / divider}
		p.attachEntityLoadAvg(se)
		se.run = ksim.SchedAvg{LastUpdateTime: se.avg.LastUpdateTime, PeriodContrib: se.avg.PeriodContrib, LoadSum: run}
		if c.nrRunning > 0 {
			p.accountEnqueue(se)
		}
	}
}

// addTgCfsPropagate is add_tg_cfs_propagate() with patch 3's hunk, which
// folds the delayed removed sum in with the next propagation:
//
//	cfs_rq->propagate = 1;
//	cfs_rq->prop_runnable_sum += runnable_sum;
//	if (cfs_rq->prop_removed_sum) {
//		cfs_rq->prop_runnable_sum += cfs_rq->prop_removed_sum;
//		cfs_rq->prop_removed_sum = 0;
//	}
func (rq *CfsRq) addTgCfsPropagate(runnableSum int64) {
	rq.propagate = true
	rq.propRunnableSum += runnableSum + rq.propRemovedSum
	rq.propRemovedSum = 0
}

// propagateEntityLoadAvg is propagate_entity_load_avg(se) for the group
// entity se of rq's child group, load only:
//
//	gcfs_rq = group_cfs_rq(se);
//	if (!gcfs_rq->propagate)
//		return 0;
//	gcfs_rq->propagate = 0;
//	cfs_rq = cfs_rq_of(se);
//	add_tg_cfs_propagate(cfs_rq, gcfs_rq->prop_runnable_sum);
//	update_tg_cfs_util(cfs_rq, se, gcfs_rq);
//	update_tg_cfs_runnable(cfs_rq, se, gcfs_rq);
//	update_tg_cfs_load(cfs_rq, se, gcfs_rq);
//	return 1;
//
// It reports whether it propagated, which makes update_load_avg() call
// update_tg_load_avg() for rq. At the top level the propagation would go
// on into the root cfs_rq, which has no tg->load_avg: rq has no parent,
// and nothing keeps the flag.
func (rq *CfsRq) propagateEntityLoadAvg(se *Entity) bool {
	g := se.my
	if !g.propagate {
		return false
	}
	g.propagate = false
	if rq.parent != nil {
		rq.addTgCfsPropagate(g.propRunnableSum)
	}
	rq.updateTgCfsLoad(se, g)
	rq.stats.Propagations++
	return true
}

// updateTgCfsLoad is update_tg_cfs_load(cfs_rq, se, gcfs_rq) as of v6.5,
// its running sum the entity's own (see above):
//
//	if (!runnable_sum)
//		return;
//	gcfs_rq->prop_runnable_sum = 0;
//	divider = get_pelt_divider(&cfs_rq->avg);
//	if (runnable_sum >= 0) {
//		runnable_sum += se->avg.load_sum;
//		runnable_sum = min_t(long, runnable_sum, divider);
//	} else {
//		if (scale_load_down(gcfs_rq->load.weight))
//			load_sum = div_u64(gcfs_rq->avg.load_sum, scale_load_down(gcfs_rq->load.weight));
//		runnable_sum = min(se->avg.load_sum, load_sum);
//	}
//	running_sum = se->avg.util_sum >> SCHED_CAPACITY_SHIFT;
//	runnable_sum = max(runnable_sum, running_sum);
//	load_sum = se_weight(se) * runnable_sum;
//	load_avg = div_u64(load_sum, divider);
//	delta_avg = load_avg - se->avg.load_avg;
//	if (!delta_avg)
//		return;
//	delta_sum = load_sum - (s64)se_weight(se) * se->avg.load_sum;
//	se->avg.load_sum = runnable_sum;
//	se->avg.load_avg = load_avg;
//	add_positive(&cfs_rq->avg.load_avg, delta_avg);
//	add_positive(&cfs_rq->avg.load_sum, delta_sum);
//	cfs_rq->avg.load_sum = max_t(u32, cfs_rq->avg.load_sum, cfs_rq->avg.load_avg * PELT_MIN_DIVIDER);
func (rq *CfsRq) updateTgCfsLoad(se *Entity, g *CfsRq) {
	runnable := g.propRunnableSum
	if runnable == 0 {
		return
	}
	g.propRunnableSum = 0
	divider := rq.avg.Divider()
	if runnable >= 0 {
		runnable = min(runnable+int64(se.avg.LoadSum), int64(divider))
	} else {
		var loadSum uint64
		if g.weight != 0 {
			loadSum = g.avg.LoadSum / g.weight
		}
		runnable = int64(min(se.avg.LoadSum, loadSum))
	}
	// runnable_sum = max(runnable_sum, running_sum)
	runnable = max(runnable, int64(se.run.LoadSum))
	loadSum := se.weight * uint64(runnable)
	loadAvg := loadSum / divider
	deltaAvg := int64(loadAvg) - int64(se.avg.LoadAvg)
	if deltaAvg == 0 {
		return
	}
	deltaSum := int64(loadSum) - int64(se.weight*se.avg.LoadSum)
	se.avg.LoadSum, se.avg.LoadAvg = uint64(runnable), loadAvg
	addPositive(&rq.avg.LoadAvg, deltaAvg)
	addPositive(&rq.avg.LoadSum, deltaSum)
	rq.avg.LoadSum = syncLoadSum(rq.avg.LoadSum, rq.avg.LoadAvg)
}

// reweightEntity is reweight_entity(cfs_rq_of(se), se, shares) for this
// group's entity, load only, as update_cfs_group() calls it after every
// calc_group_shares() (v6.5 reweights whatever the answer):
//
//	if (se->on_rq)
//		update_load_sub(&cfs_rq->load, se->load.weight);
//	dequeue_load_avg(cfs_rq, se);
//	update_load_set(&se->load, weight);
//	se->avg.load_avg = div_u64(se_weight(se) * se->avg.load_sum, get_pelt_divider(&se->avg));
//	enqueue_load_avg(cfs_rq, se);
//	if (se->on_rq)
//		update_load_add(&cfs_rq->load, se->load.weight);
//
// The parent's queued weight is kept in se_weight() units, scale_load_down
// of load.weight, which is all its PELT sum and calc_group_shares() use of
// it (with one entity queued the two agree exactly).
func (rq *CfsRq) reweightEntity(shares int64) {
	p, se := rq.parent, &rq.gse
	if se.onRq {
		p.weight -= se.weight
	}
	p.dequeueLoadAvg(se)
	se.weight = uint64(ksim.ScaleLoadDown(shares))
	se.avg.LoadAvg = se.weight * se.avg.LoadSum / se.avg.Divider()
	p.enqueueLoadAvg(se)
	if se.onRq {
		p.weight += se.weight
	}
	rq.stats.Reweights++
}

// skipBlockedUpdate is skip_blocked_update() for this group's entity,
// load only: the blocked-load update leaves an entity alone that has no
// load to decay and no propagation pending.
func (rq *CfsRq) skipBlockedUpdate() bool {
	return rq.gse.avg.LoadAvg == 0 && !rq.propagate
}

// addPositive is add_positive(): add a signed delta, clamping at zero
// when a negative one would wrap.
func addPositive(x *uint64, d int64) {
	r := *x + uint64(d)
	if d < 0 && r > *x {
		r = 0
	}
	*x = r
}
