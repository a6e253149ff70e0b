package oracle

import (
	"fmt"
	"io"
	"math"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/internal/kernel"
)

// causeUnits are the results units of the balancer's per-cause counts
// (kernel.CauseWhat), per second of the counted run.
var causeUnits = map[string]string{
	"softirq":        "balance-softirqs/s",
	"nohz-walk":      "nohz-walks/s",
	"nohz-softirq":   "nohz-softirq-calls/s",
	"nohz-run-idle":  "nohz-run-idle/s",
	"nohz-newidle":   "nohz-newidle/s",
	"kick":           "nohz-kicks/s",
	"kick-ipi":       "nohz-kick-ipis/s",
	"tick-stop":      "nohz-tick-stops/s",
	"idle-stop-asks": "idle-stop-asks/s",
	"idle-retains":   "idle-retains/s",
	"tick":           "ticks/s",
	"idle-tick":      "idle-ticks/s",
	"on-behalf":      "nohz-balances/s",
}

// causeValues are a count's per-cause rates, each cause that was counted;
// with the passes on an idle cpu's behalf counted, also the cpus' own
// (own-balances/s: every pass less those).
func causeValues(c *kernel.Counted) []benchfmt.Value {
	var vs []benchfmt.Value
	for _, k := range kernel.CauseWhat {
		if n, ok := c.CauseHits(k.Name); ok {
			vs = append(vs, benchfmt.Value{Value: rate(float64(n), c), Unit: causeUnits[k.Name]})
		}
	}
	if n, ok := c.CauseHits("on-behalf"); ok && uint64(n) <= c.Balances {
		vs = append(vs, benchfmt.Value{Value: rate(float64(c.Balances-uint64(n)), c), Unit: "own-balances/s"})
	}
	return vs
}

// writeCauses writes the balancer's passes by cause: a line per cause,
// its hits and rate, or why it was not counted.
func writeCauses(w io.Writer, c *kernel.Counted) {
	if len(c.BalanceCauses) == 0 {
		return
	}
	what := map[string]string{}
	for _, k := range kernel.CauseWhat {
		what[k.Name] = k.What
	}
	for _, x := range c.BalanceCauses {
		if x.Hits < 0 {
			fmt.Fprintf(w, "  %s: not counted: %s\n", x.Name, x.Why)
			continue
		}
		fmt.Fprintf(w, "  %s: %d (%.0f/s) at %s: %s", x.Name, x.Hits, rate(float64(x.Hits), c), x.At, what[x.Name])
		if x.Miss > 0 {
			fmt.Fprintf(w, "; %d missed", x.Miss)
		}
		fmt.Fprintln(w)
	}
	if n, ok := c.CauseHits("on-behalf"); ok && uint64(n) <= c.Balances {
		own := c.Balances - uint64(n)
		fmt.Fprintf(w, "  own passes: %d (%.0f/s, %.0f %% of the passes): the passes less those on an idle cpu's behalf\n",
			own, rate(float64(own), c), 100*float64(own)/float64(max(c.Balances, 1)))
	}
}

// lbKinds name /proc/schedstat's idle types (schedstat.Domain's indices:
// CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE) in the results' units.
var lbKinds = [3]string{"idle", "busy", "newidle"}

// lbRowNames name the idle types in kernel model's rows.
var lbRowNames = [3]string{"idle cpus (lb_count CPU_IDLE)", "busy cpus (CPU_NOT_IDLE)", "newly idle (CPU_NEWLY_IDLE)"}

// lbValues are the balancer's passes over a domain (sched_balance_rq()'s
// lb_count) and the tasks they pulled (lb_gained), per idle type, summed
// over the domains, per second of the counted run: "idle-lb/s",
// "idle-lb-gained/s" and so on. None where the count has no schedstat
// change.
func lbValues(c *kernel.Counted) []benchfmt.Value {
	if c.LB == nil || c.Counted == nil || c.Counted.Seconds <= 0 {
		return nil
	}
	var vs []benchfmt.Value
	for t, k := range lbKinds {
		var n, g uint64
		for _, d := range c.LB.Domains {
			n += d.LBCount[t]
			g += d.LBGained[t]
		}
		vs = append(vs, benchfmt.Value{Value: rate(float64(n), c), Unit: k + "-lb/s"},
			benchfmt.Value{Value: rate(float64(g), c), Unit: k + "-lb-gained/s"})
	}
	return vs
}

// tickValues are the tick trace's shares (kernel.TickTrace), where the
// count took one: "traced-ticks/s" (beside the cause probe's "ticks/s":
// the same ticks), "idle-tick-not-idle-%" (idle ticks whose
// rq->idle_balance was 0: a task queued or a wakeup pending, so a due
// walk balances CPU_NOT_IDLE), "idle-tick-due-%" and "busy-tick-due-%"
// (ticks whose own walk was due), "tick-stale-%" (a cpu's ticks a
// period apart that read the same jiffy) and "tick-busy-corr" (the
// correlation of a cpu's busy or idle state at those ticks); and where
// idle entries were traced, "traced-idle-entries/s" and
// "busy-tick-idle-entry-%" (the pairs of busy ticks with an idle entry
// between: a newidle walk, which brings the next tick's walk due) and
// "busy-tick-late-%" (of the pairs with none, the later tick a period
// and a half or more after: the cpu ran throughout, so its tick was
// late, not stopped), "busy-tick-lateness-us" and "idle-tick-lateness-us"
// (the median tick's time after its due time, kernel.TickLateness) and
// "busy-tick-lateness-period-%" (a busy tick's lateness in PELT periods,
// capped at one: the chance a period boundary fell within it); and
// where the records read the workload's leaf cfs_rq (kernel.LeafFetch),
// "group-ticks/s", "group-tick-crossed-%" and "group-tick-leaf-age-us" (the ticks that
// found one of the workload's tasks running, read before entity_tick():
// those whose leaf was past a PELT period, and the leaves' median age,
// kernel.TickTrace.SumGroupTicks), and
// "queued-tick-crossed-%" (of the idle ticks that found a task queued,
// those whose leaf cfs_rq had crossed a PELT period since its last
// update: the tick's balance softirq decays it, before set_next_entity()
// can), "queued-tick-leaf-age-us" (their leaves' median age) and
// "idle-tick-crossed-%" (the same share of the idle ticks with none
// queued); and where kicks were traced (kernel.KickFetch), per kick
// "kick-masked/kick" (the other cpus in nohz.idle_cpus_mask),
// "kick-idle/kick" (those of them idle_cpu() calls idle) and
// "kick-idle-due/kick" (those of them due: what the walk after the kick
// would balance), and "kick-self-due-%" (kicks whose own cpu was all
// three); where the kicks read their flags, "kick-walk-%" (kicks whose
// own cpu was idle: a walk raised), "kick-balance-walk-%" (those that
// were NOHZ_BALANCE_KICKs too: walks that pass) and "kick-passes/kick"
// (the cpus those walks would pass over, its own included); and where
// the newidle walks were traced (at their entry, kernel.NewidleArgs),
// "newidle-gated-%" (those that returned at sched_balance_newidle()'s
// gate: kernel.TickRecord.GateClosed), "newidle-not-overloaded-%" (of
// them, because the root domain was not overloaded),
// "newidle-avg-idle-us" and "newidle-cost-us" (the medians of
// rq->avg_idle and of the lowest domain's max_newidle_lb_cost). Rates
// only where the ring buffer lost nothing; pair shares
// only where ticks paired.
func tickValues(c *kernel.Counted) []benchfmt.Value {
	t := c.Ticks
	if t == nil || t.Ticks == 0 || c.Counted == nil || c.Counted.Seconds <= 0 {
		return nil
	}
	pct := func(n, of int) float64 { return 100 * float64(n) / math.Max(float64(of), 1) }
	var vs []benchfmt.Value
	if t.Lost == 0 { // else the trace holds the run's end only
		vs = append(vs, benchfmt.Value{Value: rate(float64(t.Ticks), c), Unit: "traced-ticks/s"})
	}
	vs = append(vs, []benchfmt.Value{
		{Value: pct(t.IdleNotIdle, t.Idle), Unit: "idle-tick-not-idle-%"},
		{Value: pct(t.IdleQueued, t.Idle), Unit: "idle-tick-queued-%"},
		{Value: pct(t.IdleDue, t.Idle), Unit: "idle-tick-due-%"},
		{Value: pct(t.BusyDue, t.Ticks-t.Idle), Unit: "busy-tick-due-%"},
	}...)
	// The pairs' shares, where ticks paired (HZ known).
	if pairs := t.Slots[0] + t.Slots[1] + t.Slots[2]; pairs > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(t.Slots[0], pairs), Unit: "tick-stale-%"},
			benchfmt.Value{Value: t.BusyCorr(), Unit: "tick-busy-corr"})
	}
	if t.IdleEntries > 0 && t.Lost == 0 {
		vs = append(vs, benchfmt.Value{Value: rate(float64(t.IdleEntries), c), Unit: "traced-idle-entries/s"})
	}
	if b := t.BusyEntry[0] + t.BusyEntry[1]; t.IdleEntries > 0 && b > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(t.BusyEntry[1], b), Unit: "busy-tick-idle-entry-%"})
	}
	if b := t.BusyRun[0] + t.BusyRun[1]; t.IdleEntries > 0 && b > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(t.BusyRun[1], b), Unit: "busy-tick-late-%"})
	}
	if t.BusyLateUs > 0 || t.BusyLatePeriod > 0 {
		vs = append(vs, benchfmt.Value{Value: t.BusyLateUs, Unit: "busy-tick-lateness-us"},
			benchfmt.Value{Value: t.IdleLateUs, Unit: "idle-tick-lateness-us"},
			benchfmt.Value{Value: 100 * t.BusyLatePeriod, Unit: "busy-tick-lateness-period-%"})
	}
	if t.GroupTicks > 0 {
		if t.Lost == 0 {
			vs = append(vs, benchfmt.Value{Value: rate(float64(t.GroupTicks), c), Unit: "group-ticks/s"})
		}
		vs = append(vs, benchfmt.Value{Value: pct(t.GroupCrossed, t.GroupTicks), Unit: "group-tick-crossed-%"},
			benchfmt.Value{Value: t.GroupAgeUs, Unit: "group-tick-leaf-age-us"})
	}
	if t.QueuedLeaf > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(t.QueuedCrossed, t.QueuedLeaf), Unit: "queued-tick-crossed-%"},
			benchfmt.Value{Value: t.QueuedAgeUs, Unit: "queued-tick-leaf-age-us"})
	}
	if t.IdleLeaf > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(t.IdleCrossed, t.IdleLeaf), Unit: "idle-tick-crossed-%"})
	}
	if t.Newidles > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(t.NewidleNotOverloaded+t.NewidleUnderCost, t.Newidles), Unit: "newidle-gated-%"},
			benchfmt.Value{Value: pct(t.NewidleNotOverloaded, t.Newidles), Unit: "newidle-not-overloaded-%"},
			benchfmt.Value{Value: t.NewidleAvgIdleUs, Unit: "newidle-avg-idle-us"},
			benchfmt.Value{Value: t.NewidleCostUs, Unit: "newidle-cost-us"})
	}
	if t.Kicks > 0 {
		per := func(n int) float64 { return float64(n) / float64(t.Kicks) }
		vs = append(vs, benchfmt.Value{Value: per(t.KickMasked), Unit: "kick-masked/kick"},
			benchfmt.Value{Value: per(t.KickIdle), Unit: "kick-idle/kick"},
			benchfmt.Value{Value: per(t.KickIdleDue), Unit: "kick-idle-due/kick"},
			benchfmt.Value{Value: pct(t.KickSelfDue, t.Kicks), Unit: "kick-self-due-%"})
	}
	if t.KickFlagged > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(t.KickWalks, t.KickFlagged), Unit: "kick-walk-%"},
			benchfmt.Value{Value: pct(t.KickBalance, t.KickFlagged), Unit: "kick-balance-walk-%"},
			benchfmt.Value{Value: float64(t.KickPasses) / float64(t.KickFlagged), Unit: "kick-passes/kick"})
	}
	return vs
}

// wakeValues are the wake trace's shares (kernel.WakeTrace), where one
// was taken: "wake-placed/wakeup" (the workload's wakeups that
// select_task_rq_fair() placed, of all schedstat counts: try_to_wake_up()
// places no other: a task still queued, ttwu_runnable(), a delayed
// dequeue's or one not yet off its cpu; one still switching out, queued
// on its own cpu's wakelist, ttwu_queue_wakelist(); and one allowed a
// single cpu, for which select_task_rq() skips the class), and of the
// placed, "wake-local-%" (put on the waking cpu: schedstat's local
// wakeups, counted apart), "wake-sync-%" (WF_SYNC), "wake-at-prev-%" (put
// back on prev_cpu, another cpu), "wake-no-scan-%" (the waking cpu's
// LLC's nr_idle_scan 0: SIS_UTIL scans nothing) and "wake-stacked-%"
// (prev_cpu the waking cpu: the pair on one cpu); "pending-median-us"
// and "pending-p95-us" (the median and 95th percentile of the spells a
// cpu stayed idle with a wakeup queued to it, its IPI not yet taken:
// WakeTrace.PendingMedianUs, PendingP95Us); from the move records,
// "balance-moves/wakeup" (the balancer's moves of the workload's tasks),
// "balance-moves-cold-%" (of them, a task that had waited past
// sysctl_sched_migration_cost since it last ran) and
// "balance-moves-off-partner-%" (taken off a cpu running its partner: a
// stacked pair parted); of the stacked,
// "stacked-part-%" (put elsewhere: the pair parted), "stacked-no-scan-%",
// "stacked-idle-mate-%" (an idle cpu in the waking cpu's LLC besides
// it), "stacked-scan-idle-%" (that with a budget: what select_idle_cpu()
// would take were its budget unlimited), "stacked-scan-finds-%" (an idle
// cpu within the budget's reach: what it takes), "stacked-rule-part-%"
// (that or an idle recent_used_cpu: what select_idle_sibling()'s rules
// part), "stacked-recent-idle-%"
// (the wakee's recent_used_cpu another cpu of the LLC, idle:
// select_idle_sibling() takes it before any scan), "stacked-mate-work-%"
// (another cpu of the LLC running one of the workload's tasks) and
// "stacked-mate-pending-%" (another idle but for a wakeup queued to it,
// ttwu_pending); of the split, "split-join-%" (put on the
// waking cpu: the pair joined), and of those "join-prev-idle-%",
// "join-prev-far-%" (prev_cpu idle; that outside the waking cpu's LLC,
// so select_idle_sibling() passes it over) and "join-alone-%" (WF_SYNC,
// the waker alone on its cpu: wake_affine_idle()'s this_cpu).
func wakeValues(c *kernel.Counted) []benchfmt.Value {
	w := c.Wakes
	if w == nil || w.Wakes == 0 {
		return nil
	}
	pct := func(n, of int) float64 { return 100 * float64(n) / math.Max(float64(of), 1) }
	var vs []benchfmt.Value
	if n := c.Threads.Wakeups; n > 0 && w.Lost == 0 && w.Unpaired == 0 {
		// The rest try_to_wake_up() did not place (above).
		vs = append(vs, benchfmt.Value{Value: float64(w.Wakes) / float64(n), Unit: "wake-placed/wakeup"})
	}
	vs = append(vs, []benchfmt.Value{
		{Value: pct(w.Local, w.Wakes), Unit: "wake-local-%"},
		{Value: pct(w.Sync, w.Wakes), Unit: "wake-sync-%"},
		{Value: pct(w.AtPrev, w.Wakes), Unit: "wake-at-prev-%"},
		{Value: pct(w.Stacked, w.Wakes), Unit: "wake-stacked-%"},
	}...)
	if w.Scanned > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(w.NoScan, w.Scanned), Unit: "wake-no-scan-%"})
	}
	if w.PendingMedianUs > 0 {
		vs = append(vs, benchfmt.Value{Value: w.PendingMedianUs, Unit: "pending-median-us"},
			benchfmt.Value{Value: w.PendingP95Us, Unit: "pending-p95-us"})
	}
	if m := w.Moves; m != nil {
		vs = append(vs, benchfmt.Value{Value: float64(m.Balanced) / float64(w.Wakes), Unit: "balance-moves/wakeup"})
		if m.Balanced > 0 {
			vs = append(vs, benchfmt.Value{Value: pct(m.Cold(), m.Balanced), Unit: "balance-moves-cold-%"},
				benchfmt.Value{Value: pct(m.FromPartner, m.Balanced), Unit: "balance-moves-off-partner-%"})
		}
	}
	if w.Stacked > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(w.StackedParted, w.Stacked), Unit: "stacked-part-%"})
		if w.Scanned > 0 {
			vs = append(vs, benchfmt.Value{Value: pct(w.StackedNoScan, w.Stacked), Unit: "stacked-no-scan-%"})
		}
		if w.LLCKnown {
			vs = append(vs, benchfmt.Value{Value: pct(w.StackedIdleMate, w.Stacked), Unit: "stacked-idle-mate-%"},
				benchfmt.Value{Value: pct(w.StackedScanIdle, w.Stacked), Unit: "stacked-scan-idle-%"},
				benchfmt.Value{Value: pct(w.StackedScanFinds, w.Stacked), Unit: "stacked-scan-finds-%"},
				benchfmt.Value{Value: pct(w.StackedByRule, w.Stacked), Unit: "stacked-rule-part-%"},
				benchfmt.Value{Value: pct(w.StackedMateWork, w.Stacked), Unit: "stacked-mate-work-%"},
				benchfmt.Value{Value: pct(w.StackedMatePending, w.Stacked), Unit: "stacked-mate-pending-%"},
				benchfmt.Value{Value: pct(w.StackedRecentIdle, w.Stacked), Unit: "stacked-recent-idle-%"})
		}
	}
	if split := w.Wakes - w.Stacked; split > 0 {
		vs = append(vs, benchfmt.Value{Value: pct(w.Joined, split), Unit: "split-join-%"})
		if w.Joined > 0 {
			vs = append(vs, benchfmt.Value{Value: pct(w.JoinedPrevIdle, w.Joined), Unit: "join-prev-idle-%"},
				benchfmt.Value{Value: pct(w.JoinedAlone, w.Joined), Unit: "join-alone-%"})
			if w.LLCKnown {
				vs = append(vs, benchfmt.Value{Value: pct(w.JoinedPrevFar, w.Joined), Unit: "join-prev-far-%"})
			}
		}
	}
	return vs
}
