package cfsmodel

import (
	"fmt"

	"github.com/contend/contend/counter"
)

// StoresConserved checks a stopped group of CPUs, stores[i] holding
// level i+1's tg->load_avg, exactly:
//
//   - every level's store holds the sum of that level's cfs_rqs'
//     tg_load_avg_contrib: no write was lost or doubled;
//   - every level above the leaf holds its child group's entity on each
//     CPU, queued exactly when the child's cfs_rq has something queued;
//   - every task is in one place (queued on one CPU, or asleep on one,
//     to wake there or elsewhere) and attached to that CPU's cfs_rq;
//   - every unit of load a wakeup took from a cfs_rq (what
//     remove_entity_load_avg() put in cfs_rq->removed) is either drained
//     by that cfs_rq's owner or still waiting in cfs_rq->removed, and was
//     attached, whole, to the waking CPU's cfs_rq; the load a move of a
//     queued task detached at once (DO_DETACH) was attached too.
//
// The cfs_rq's PELT sum itself is not compared with its tasks' here: the
// kernel keeps the two apart, and a task that migrates within a PELT
// period leaves what it accrued since the last period boundary behind on
// the cfs_rq it left (its load_avg is only recomputed at a boundary, and
// attach rebuilds its sum from load_avg), where it decays with PELT's
// half-life. loadavg.TestLoadAvgConservation shows it decaying away.
func StoresConserved(cpus []*CPU, stores []counter.Store) error {
	for i, store := range stores {
		var contrib int64
		for _, c := range cpus {
			rq := c.RQ
			for range i {
				rq = rq.Parent()
			}
			if rq == nil || (rq.Parent() == nil) != (i == len(stores)-1) {
				return fmt.Errorf("cpu %d has not %d levels of cfs_rqs", c.Self, len(stores))
			}
			contrib += rq.Contrib()
			if p := rq.Parent(); p != nil {
				_, queued := rq.GroupLoad()
				if want := rq.NrRunning() > 0; queued != want || (p.NrRunning() == 1) != want || p.NrRunning() > 1 {
					return fmt.Errorf("cpu %d, level %d: the group entity is queued %v on a parent with %d queued, its cfs_rq has %d queued",
						c.Self, i+1, queued, p.NrRunning(), rq.NrRunning())
				}
			}
		}
		if got := store.Sum(); got != contrib {
			return fmt.Errorf("level %d: the store holds %d, the cfs_rqs' contributions sum to %d: writes were lost", i+1, got, contrib)
		}
	}
	return tasksConserved(cpus)
}

// tasksConserved is StoresConserved's check of the tasks and the load their
// wakeups moved.
func tasksConserved(cpus []*CPU) error {
	var moved, drained, pending, attached, detached uint64
	seen := map[*Task]bool{}
	tasks := 0
	for _, c := range cpus {
		tasks += c.Tasks
		st := c.RQ.Stats()
		moved += uint64(c.Moved)
		drained += st.RemovedLoad
		pending += c.RQ.RemovedLoad()
		attached += st.AttachedLoad
		detached += st.DetachedLoad
		for _, ts := range [][]*Task{c.Queued, c.Local, c.Away.Tasks} {
			for _, t := range ts {
				if seen[t] {
					return fmt.Errorf("task %#x is in two places", t.ID)
				}
				seen[t] = true
				if t.SE.CfsRq() != c.RQ {
					return fmt.Errorf("task %#x, on cpu %d, is attached to another cfs_rq", t.ID, c.Self)
				}
			}
		}
	}
	if len(seen) != tasks {
		return fmt.Errorf("%d tasks found, %d were started", len(seen), tasks)
	}
	if moved != drained+pending || moved+detached != attached {
		return fmt.Errorf("wakeups moved load %d; the sources drained %d and hold %d in cfs_rq->removed; moves detached %d; the destinations attached %d: load was not conserved",
			moved, drained, pending, detached, attached)
	}
	return nil
}

// Level returns rq's ancestor i levels up (0: rq itself).
func Level(rq *counter.CfsRq, i int) *counter.CfsRq {
	for range i {
		rq = rq.Parent()
	}
	return rq
}
