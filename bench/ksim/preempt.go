package ksim

// Wakeup preemption: whether a woken task takes the CPU from the task
// running there, the fair class's check_preempt_curr() hook that
// ttwu_do_wakeup() calls, as each version decides it (Kernel.EEVDF). The
// decision is made on the cfs_rq where find_matching_se() brings the two
// tasks' entities together (their own cfs_rq where they share it) from
// their virtual times: 6.1 compares vruntimes against the wakeup
// granularity, with the wakee placed by place_entity()'s sleeper credit;
// 6.12 asks pick_eevdf() whether the wakee is now the entity to run. A
// scenario that takes the decision switches as __schedule() then does,
// with the preempted task still queued (put_prev_entity() of an on_rq
// prev, set_next_entity() of the wakee), and runs the preempted task again
// later: what it counts on those switches is its own.
//
// Neither version's tick preemption (6.1's check_preempt_tick(), 6.12's
// update_deadline() from entity_tick()) is here: each is a decision at the
// tick, not at a wakeup.

// SysctlFactor is update_sysctl()'s factor on cpus CPUs under the default
// SCHED_TUNABLESCALING_LOG, 1 + ilog2(min(cpus, 8))
// (get_update_sysctl_factor()), by which sysctl_sched_latency,
// sysctl_sched_min_granularity, sysctl_sched_wakeup_granularity (before
// v6.6) and sysctl_sched_base_slice (v6.6 on) scale their normalized
// values.
func SysctlFactor(cpus int) int64 {
	factor := int64(1)
	for n := min(cpus, 8); n > 1; n >>= 1 {
		factor++
	}
	return factor
}

// WakeupGranularity is sysctl_sched_wakeup_granularity on cpus CPUs
// (before v6.6): "normalized_sysctl_sched_wakeup_granularity = 1000000UL"
// (1 ms) × SysctlFactor.
func WakeupGranularity(cpus int) int64 { return 1_000_000 * SysctlFactor(cpus) }

// SchedLatency is sysctl_sched_latency on cpus CPUs (before v6.6):
// "normalized_sysctl_sched_latency = 6000000ULL" (6 ms) × SysctlFactor.
func SchedLatency(cpus int) int64 { return 6_000_000 * SysctlFactor(cpus) }

// calcDeltaFair is calc_delta_fair(delta, se): delta ns of real time as
// virtual time of an entity of weight w, delta · NICE_0_LOAD / w, and, as
// the kernel's, no division for a nice-0 entity ("if
// (unlikely(se->load.weight != NICE_0_LOAD))").
func calcDeltaFair(delta, w int64) int64 {
	if w != Nice0LoadDown {
		delta = delta * Nice0LoadDown / w
	}
	return delta
}

// WakeupPreempt is whether wakee, just enqueued on f's cfs_rq, preempts
// curr, running there, under version k on cpus CPUs; queued are the
// cfs_rq's queued entities other than curr (the wakee among them), for
// pick_eevdf(). curr's vruntime is to be brought up to now first
// (check_preempt_wakeup()'s update_curr(), Fair.Run), and, before EEVDF,
// the wakee placed (Fair.PlaceSleeper).
//
// Before EEVDF (v6.1's check_preempt_wakeup()), wakeup_preempt_entity(se,
// pse) == 1:
//
//	s64 gran, vdiff = curr->vruntime - se->vruntime;
//	if (vdiff <= 0)
//		return -1;
//	gran = wakeup_gran(se);		// calc_delta_fair(sysctl_sched_wakeup_granularity, se)
//	if (vdiff > gran)
//		return 1;
//	return 0;
//
// the granularity scaled by the wakee's weight. NEXT_BUDDY is off by
// default, and LAST_BUDDY needs "cfs_rq->nr_running >= sched_nr_latency"
// (8) on the cfs_rq: neither changes the decision.
//
// With EEVDF (v6.12's check_preempt_wakeup_fair()), after update_curr():
//
//	if (do_preempt_short(cfs_rq, pse, se) && se->vlag == se->deadline)
//		se->vlag = se->deadline + 1;
//	if (pick_eevdf(cfs_rq) == pse)
//		goto preempt;
//
// (Fair.PickEEVDF). do_preempt_short() is PREEMPT_SHORT (v6.12,
// 85e511df3cec, "sched/eevdf: Allow shorter slices to wakeup-preempt"),
// which returns false at "if (pse->slice >= se->slice)": every task here
// has sysctl_sched_base_slice (no sched_setattr() custom slice), so it
// never acts and is not modelled.
func (k Kernel) WakeupPreempt(f *Fair, curr, wakee *Task, queued []*Task, cpus int) bool {
	if curr == nil || curr == wakee {
		return false
	}
	if !k.EEVDF {
		vdiff := curr.VRuntime - wakee.VRuntime
		return vdiff > 0 && vdiff > calcDeltaFair(WakeupGranularity(cpus), wakee.Weight)
	}
	return f.PickEEVDF(curr, queued, k.RunToParity) == wakee
}

// UpdateMin is update_min_vruntime() (before v6.6's EEVDF made it
// avg_vruntime()'s base only): min_vruntime moves up to the least of the
// running entity's vruntime and the leftmost queued one's, never back.
// curr is the running entity (nil: none, or not queued), queued the
// cfs_rq's other queued entities. An entity at or below min_vruntime
// already decides it (the least can only be lower, and min_vruntime does
// not go back), so the walk stops there: the kernel's rbtree gives the
// leftmost at once, and a model's FIFO should not cost a scan.
func (f *Fair) UpdateMin(curr *Task, queued []*Task) {
	v, found := f.min, false
	if curr != nil {
		if curr.VRuntime <= f.min {
			return
		}
		v, found = curr.VRuntime, true
	}
	for _, t := range queued {
		if t.VRuntime <= f.min {
			return
		}
		if !found || t.VRuntime < v {
			v, found = t.VRuntime, true
		}
	}
	f.min = max(f.min, v)
}

// Min is cfs_rq->min_vruntime.
func (f *Fair) Min() int64 { return f.min }

// Migrate is the vruntime's renormalization when t moves from cfs_rq
// from to f before v6.6: migrate_task_rq_fair()'s "se->vruntime -=
// cfs_rq->min_vruntime" of a waking task on its old cfs_rq, and
// enqueue_entity()'s "se->vruntime += cfs_rq->min_vruntime" of a
// migrated one on the new.
func (f *Fair) Migrate(t *Task, from *Fair) { t.VRuntime += f.min - from.min }

// PlaceSleeper is v6.1's place_entity(cfs_rq, se, 0) of a waking task on
// cpus CPUs: sleeps up to half a latency are credited, no more
// (GENTLE_FAIR_SLEEPERS, on by default),
//
//	thresh = sysctl_sched_latency;
//	if (sched_feat(GENTLE_FAIR_SLEEPERS))
//		thresh >>= 1;
//	vruntime -= thresh;	// from cfs_rq->min_vruntime
//	se->vruntime = max_vruntime(se->vruntime, vruntime);
//
// then Add.
func (f *Fair) PlaceSleeper(t *Task, cpus int) {
	t.VRuntime = max(t.VRuntime, f.min-SchedLatency(cpus)/2)
	f.Add(t)
}

// SetDeadline is place_entity()'s "se->deadline = se->vruntime + vslice"
// under EEVDF, vslice being calc_delta_fair(se->slice, se) of a slice of
// slice ns (BaseSlice).
func (t *Task) SetDeadline(slice int64) { t.Deadline = t.VRuntime + calcDeltaFair(slice, t.Weight) }

// UpdateDeadline is update_deadline() of the running t under EEVDF, after
// Run: once its vruntime reaches its deadline it gets a new slice, and the
// kernel reschedules ("The task has consumed its request, reschedule."),
// which it reports.
//
//	if ((s64)(se->vruntime - se->deadline) < 0)
//		return false;
//	se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
//	return true;
func (t *Task) UpdateDeadline(slice int64) bool {
	if t.VRuntime < t.Deadline {
		return false
	}
	t.SetDeadline(slice)
	return true
}

// Picked is set_next_entity()'s stash under EEVDF, "se->vlag =
// se->deadline": RUN_TO_PARITY's mark that t has kept the deadline it was
// picked with (vlag is not used again until dequeue recomputes it).
func (t *Task) Picked() { t.VLag = t.Deadline }

// PickEEVDF is pick_eevdf() of v6.12 on f's cfs_rq, whose running entity
// is curr (nil: none) and whose other queued entities are queued: the
// eligible entity of earliest deadline, curr kept while RUN_TO_PARITY
// protects it (runToParity),
//
//	if (cfs_rq->nr_running == 1)
//		return curr && curr->on_rq ? curr : se;
//	if (curr && (!curr->on_rq || !entity_eligible(cfs_rq, curr)))
//		curr = NULL;
//	if (sched_feat(RUN_TO_PARITY) && curr && curr->vlag == curr->deadline)
//		return curr;
//	[the leftmost eligible by deadline, or the heap search for it]
//	if (!best || (curr && entity_before(curr, best)))
//		best = curr;
//
// entity_before() comparing deadlines. 63304558ba5d ("sched/eevdf: Curb
// wakeup-preemption", v6.6) brought RUN_TO_PARITY, on by default.
func (f *Fair) PickEEVDF(curr *Task, queued []*Task, runToParity bool) *Task {
	if len(queued) == 0 {
		return curr
	}
	if curr != nil && !f.Eligible(curr) {
		curr = nil
	}
	if runToParity && curr != nil && curr.VLag == curr.Deadline {
		return curr
	}
	var best *Task
	for _, t := range queued {
		if f.Eligible(t) && (best == nil || t.Deadline < best.Deadline) {
			best = t
		}
	}
	if best == nil || curr != nil && curr.Deadline < best.Deadline {
		best = curr
	}
	return best
}

// UpdateCurr is update_curr() of t, running on f's cfs_rq on cpus CPUs,
// having run delta ns since the last: its vruntime (Run), then, by
// version, EEVDF's update_deadline() (UpdateDeadline, whose reschedule is
// the tick's business here) or CFS's update_min_vruntime() over t and
// the cfs_rq's other queued entities (queued).
func (k Kernel) UpdateCurr(f *Fair, t *Task, delta int64, queued []*Task, cpus int) {
	f.Run(t, delta)
	if k.EEVDF {
		t.UpdateDeadline(BaseSlice(cpus))
		return
	}
	f.UpdateMin(t, queued)
}

// PlaceWakee is enqueue_entity()'s placement of t, waking (ENQUEUE_WAKEUP)
// onto f's cfs_rq on cpus CPUs from from's (nil: it did not migrate), by
// version: under EEVDF, place_entity() with the lag it left with (Place)
// and its deadline a slice on (SetDeadline); before it, its vruntime
// renormalized onto f's min_vruntime if it migrated (Migrate) and
// place_entity()'s sleeper credit (PlaceSleeper). The running entity's
// update_curr() comes first (UpdateCurr).
func (k Kernel) PlaceWakee(f, from *Fair, t *Task, cpus int) {
	if k.EEVDF {
		f.Place(t)
		t.SetDeadline(BaseSlice(cpus))
		return
	}
	if from != nil && from != f {
		f.Migrate(t, from)
	}
	f.PlaceSleeper(t, cpus)
}

// DequeueSleeper is dequeue_entity()'s virtual time for t, going to sleep
// off f's cfs_rq (DequeueEntity with no running entity left: t was it).
func (k Kernel) DequeueSleeper(f *Fair, t *Task, limit int64, queued []*Task) {
	k.DequeueEntity(f, t, limit, nil, queued)
}

// DequeueEntity is dequeue_entity()'s virtual time for t leaving f's
// cfs_rq, by version: under EEVDF the lag it leaves with (UpdateLag, limit
// as there); before it, update_min_vruntime() over the running entity that
// stays (curr; nil where none does, as for a running t that sleeps, whose
// on_rq is 0 by then) and the entities left queued (queued, t not among
// them). Either way it leaves the sums (Sub).
func (k Kernel) DequeueEntity(f *Fair, t *Task, limit int64, curr *Task, queued []*Task) {
	if k.EEVDF {
		f.UpdateLag(t, limit)
	}
	f.Sub(t)
	if !k.EEVDF {
		f.UpdateMin(curr, queued)
	}
}

// LagLimit is update_entity_lag()'s limit on cpus CPUs at hz, in ns:
// max(2·slice, TICK_NSEC).
func LagLimit(cpus int, hz HZ) int64 { return max(2*BaseSlice(cpus), hz.TickNs()) }

// The fair class on an RQ whose tasks are all on one cfs_rq (a model
// without task groups), its virtual time in RQ.CFS: each function is the
// kernel's step on that cfs_rq, update_curr() first where the kernel's
// enqueue_entity(), dequeue_entity() and check_preempt_wakeup() take it,
// so that a model calling them where the kernel's scheduler does keeps
// the vruntimes (and, under EEVDF, lags and deadlines) the version's
// preemption reads.

// UpdateCurrRQ is update_curr() of rq's cfs_rq at now: the running task's
// vruntime brought up by its run since ExecAt (UpdateCurr); nothing where
// it has not run since ("if (unlikely((s64)delta_exec <= 0)) return;").
func (k Kernel) UpdateCurrRQ(rq *RQ, now int64, cpus int) {
	if now <= rq.ExecAt {
		return
	}
	if rq.Curr != nil {
		k.UpdateCurr(&rq.CFS, rq.Curr, now-rq.ExecAt, rq.Queue, cpus)
	}
	rq.ExecAt = now
}

// SetNextRQ is set_next_entity() of rq's Curr, just picked or switched to
// at now: its exec_start and, under EEVDF, RUN_TO_PARITY's stash (Picked).
func (k Kernel) SetNextRQ(rq *RQ, now int64) {
	rq.ExecAt = now
	if k.EEVDF && rq.Curr != nil {
		rq.Curr.Picked()
	}
}

// WakeRQ is a wakeup's enqueue_entity() of t onto rq at now, before
// RQ.Activate, from the RQ of the CPU it last ran on (from; rq itself if
// it did not move): update_curr(), then PlaceWakee.
func (k Kernel) WakeRQ(rq, from *RQ, t *Task, now int64, cpus int) {
	k.UpdateCurrRQ(rq, now, cpus)
	k.PlaceWakee(&rq.CFS, &from.CFS, t, cpus)
}

// SleepRQ is dequeue_task_fair() with DEQUEUE_SLEEP of rq's running task
// at now: update_curr(), RQ.Deactivate, then DequeueEntity. It returns the
// task (nil: the CPU was idle).
func (k Kernel) SleepRQ(rq *RQ, now int64, hz HZ, cpus int) *Task {
	k.UpdateCurrRQ(rq, now, cpus)
	t := rq.Deactivate()
	if t != nil {
		k.DequeueEntity(&rq.CFS, t, LagLimit(cpus, hz), nil, rq.Queue)
	}
	return t
}

// MoveRQ is a balance's move of t, queued on from, onto to at now, up to
// RQ.Activate there (the caller's, as for a wakee): detach_task()'s
// dequeue_entity() and attach_task()'s enqueue_entity(), neither a sleep
// nor a wakeup, each after its cfs_rq's update_curr(), from's while t is
// still queued there (update_min_vruntime() sees it), then RQ.Remove.
// Before EEVDF the vruntime keeps its distance from min_vruntime,
//
//	if (!(flags & DEQUEUE_SLEEP))
//		se->vruntime -= cfs_rq->min_vruntime;	// dequeue, before update_min_vruntime()
//	if (renorm && !curr)
//		se->vruntime += cfs_rq->min_vruntime;	// enqueue, after update_curr()
//
// under EEVDF place_entity() gives it the lag it left with (PlaceWakee).
// It reports whether t was queued on from (nothing changed if not).
func (k Kernel) MoveRQ(from, to *RQ, t *Task, now int64, hz HZ, cpus int) bool {
	k.UpdateCurrRQ(from, now, cpus)
	if !from.Remove(t) {
		return false
	}
	rel := t.VRuntime - from.CFS.min
	k.DequeueEntity(&from.CFS, t, LagLimit(cpus, hz), from.Curr, from.Queue)
	k.UpdateCurrRQ(to, now, cpus)
	if k.EEVDF {
		k.PlaceWakee(&to.CFS, nil, t, cpus)
		return true
	}
	t.VRuntime = rel + to.CFS.min
	to.CFS.Add(t)
	return true
}

// PreemptRQ is check_preempt_curr() of t, just activated on rq at now by
// a wakeup (ttwu_do_wakeup()) or a balance (attach_task()): whether it
// preempts rq's running task, after update_curr() (WakeupPreempt). False
// where the CPU runs its idle task, which a model wakes by its own rule.
func (k Kernel) PreemptRQ(rq *RQ, t *Task, now int64, cpus int) bool {
	if rq.Curr == nil {
		return false
	}
	if now > rq.ExecAt { // else WakeRQ's or MoveRQ's update_curr() was it
		k.UpdateCurrRQ(rq, now, cpus)
	}
	return k.WakeupPreempt(&rq.CFS, rq.Curr, t, rq.Queue, cpus)
}
