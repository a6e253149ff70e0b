package oracle

import (
	"fmt"
	"strings"

	"github.com/contend/contend/bench/ksim"
)

// The pairs' placement by cause. A pair's wakeups are of two
// populations, stacked (the wakee's previous cpu the waker's) and split,
// and the stacked share is what the two ways between them leave: a
// wakeup that parts a stacked pair (select_idle_cpu() found an idle cpu
// of the LLC) and one that joins a split pair (select_idle_sibling() fell
// back to wake_affine()'s target, the waker's cpu). Where the count has
// the wake trace (kernel count from 2026-12-05 16:10), each is a row.
const (
	placedRow = "wakeups placed (select_task_rq_fair; not a task still queued or switching out), %"
	partedRow = "of the pair's wakeups on one cpu, parted (put elsewhere), %"
	mateRow   = "of them, another cpu of the LLC running the workload, %"
	joinedRow = "of the pair's wakeups apart, joined (put on the waker's cpu), %"
)

// placementRows are the placement's rows, those the count and the model
// both have.
func placementRows(kc CountResult, p ksim.Placements, wakeups int64) []modelRow {
	var rows []modelRow
	// The wakeups select_task_rq_fair() placed: try_to_wake_up() places
	// none that finds its task still queued (ttwu_runnable(): a delayed
	// dequeue's, from 6.12, or a pinger pinged before its read()), still
	// switching out (ttwu_queue_wakelist()) or allowed one cpu.
	if k, ok := kc.V["wake-placed/wakeup"]; ok && wakeups > 0 {
		rows = append(rows, modelRow{"    " + placedRow, 100 * k, share(p.Wakes, wakeups)})
	}
	if k, ok := kc.V["stacked-part-%"]; ok && p.Stacked > 0 {
		rows = append(rows, modelRow{"    " + partedRow, k, share(p.Parted, p.Stacked)})
	}
	if k, ok := kc.V["stacked-mate-work-%"]; ok && p.Stacked > 0 {
		rows = append(rows, modelRow{"      " + mateRow, k, share(p.BusyMate, p.Stacked)})
	}
	if k, ok := kc.V["split-join-%"]; ok && p.Wakes > p.Stacked {
		rows = append(rows, modelRow{"    " + joinedRow, k, share(p.Joined, p.Wakes-p.Stacked)})
	}
	return rows
}

// gathered is what keeps the guest's pairs beside each other in one
// LLC, which their load holds at a scan budget of 0.
const gathered = "the kernel's balancer leaves a node's few running tasks where they are while another node idles (adjust_numa_imbalance() in fair.c: an imbalance of up to NUMA_IMBALANCE_MIN, 2 tasks, with the destination running no more than sd->imb_numa_nr, \"a simple pair of communicating tasks that remain local\"), and a split pair joins on its waker's cpu where prev_cpu is busy; the model's pairs start one task to a cpu and move only by drawn migrations, with no balancer among them: the pairs' gathering is not modelled"

// placementWhy names what a placement row outside lacks, from what the
// wake trace read of the cpus at each wakeup beside what the model's
// scans met (ksim.LLCScans.Sibling).
func placementWhy(run modelRun, r modelRow) string {
	kc, p := run.kc, run.row.Place
	if strings.Contains(r.name, placedRow) {
		dd := "the model delays a block (DELAY_DEQUEUE, 6.12 on) only where the task is not eligible, ksim.Fair.Eligible, by its own EEVDF"
		if !run.cfg.DelayDequeue {
			dd = "the model has no delayed dequeue before 6.12, as the kernel has none"
		}
		return fmt.Sprintf("the guest placed none of %.0f %% of its wakeups (try_to_wake_up() found the task still queued, ttwu_runnable(): a delayed dequeue's sched_delayed task, or one pinged before its read(); or still switching out, ttwu_queue_wakelist(); or allowed one cpu), the model %.0f %%; %s, and a task pinged while it runs wakes with no sleep; how many of the guest's blocks were delayed the count does not read (no dequeue record)",
			100-r.kernel, 100-r.model, dd)
	}
	if strings.Contains(r.name, mateRow) {
		return fmt.Sprintf("the guest's stacked pairs had the workload beside them in the LLC at %.0f %% of their wakeups (the model's %.0f %%): %s",
			r.kernel, r.model, gathered)
	}
	if strings.Contains(r.name, joinedRow) {
		return fmt.Sprintf("the guest joins a split pair where the wakee's prev_cpu is busy (%.0f %% of its joins; idle at %.0f %%, outside the waker's LLC at %.0f %%) and no idle cpu of the waker's LLC is found: select_idle_sibling() falls back to wake_affine()'s target, the waker's cpu (WF_SYNC, the waker alone: wake_affine_idle()'s this_cpu); the model joins a pair only by a drawn migration to its waker's cpu (the count's wakeup migrations, %.2f %% of wakeups) and runs no select_idle_sibling() on a split wakeup: not modelled",
			100-kc.V["join-prev-idle-%"], kc.V["join-prev-idle-%"], kc.V["join-prev-far-%"], 100*kc.V["wakeup-migrations/wakeup"])
	}
	kScanIdle, kNoScan, kMate := kc.V["stacked-scan-idle-%"], kc.V["stacked-no-scan-%"], kc.V["stacked-idle-mate-%"]
	mNoScan, mMate := share(p.NoScan, p.Stacked), share(p.IdleMate, p.Stacked)
	why := fmt.Sprintf("the guest parts a stacked pair where select_idle_sibling() finds the wakee's recent_used_cpu idle in the LLC (%.1f %% of its stacked wakeups) or select_idle_cpu() has both a budget and an idle cpu of the LLC to find (%.1f %%), and %.1f %% parted; its LLC's nr_idle_scan was 0 at %.0f %% of them (the model's %.0f %%), an idle cpu beside the waker's at %.0f %% (the model's %.0f %%)",
		kc.V["stacked-recent-idle-%"], kScanIdle, kc.V["stacked-part-%"], kNoScan, mNoScan, kMate, mMate)
	if host := hostPending(kc); host != "" && mMate > ModelTolerance*kMate && kc.V["stacked-mate-pending-%"] >= kMate {
		return why + ": " + host
	}
	switch {
	case mMate > ModelTolerance*kMate:
		beside := ""
		if k, ok := kc.V["stacked-mate-work-%"]; ok {
			beside = fmt.Sprintf(" (the workload beside the waker's cpu at %.0f %%, the model's %.0f %%)", k, share(p.BusyMate, p.Stacked))
		}
		return why + beside + ": " + gathered
	case kScanIdle > ModelTolerance*kc.V["stacked-part-%"] && r.model > r.kernel:
		reach := "the guest's budgets' sizes this count's trace does not sum"
		if k, ok := kc.V["stacked-scan-finds-%"]; ok {
			reach = fmt.Sprintf("an idle cpu lay within the guest's budget's reach at %.1f %% of its stacked wakeups (the model's at %.1f %%)", k, share(p.ScanFinds, p.Stacked))
		}
		return why + fmt.Sprintf(": the guest's scans took an idle cpu at under %.0f %% of the stacked wakeups that had a budget and one, where the model's parted at %.1f %% against its idle cpu beside at %.0f %%: a budget of n probes n cpus from the waker's next (for_each_cpu_wrap() from target + 1), so on an LLC of more than two an idle cpu past them is missed; %s, and the model's budgets come from its own util (ksim.CPUUtil)",
			100*kc.V["stacked-part-%"]/kScanIdle, r.model, mMate, reach)
	case p.Unbudgeted > 0:
		return why + ": the model's scans keep no SIS_UTIL budget here (no balancer runs among its cpus to leave nr_idle_scan), so they take any idle cpu of the LLC"
	case mNoScan*ModelTolerance < kNoScan:
		return why + ": the model's budget is 0 less often; its cpu_util_cfs() counts only the group's tasks' runs (ksim.CPUUtil), not the guest's other tasks' nor util_est, which the count does not give"
	}
	return "not named: " + why
}

// hostPending names the emulator's host where the wake trace read the
// cpus beside the guest's stacked pairs idle but for a wakeup queued to
// them (ttwu_pending, the wakelist's IPI not yet taken): "" where the
// count has no such figures. Under TCG a kicked idle vCPU is a host
// thread waiting to be run, the longer the more vCPUs run
// (docs/wakeup.md, "The host's part"); a stacked pair wakes its partner
// with no IPI, so it runs fastest where the cpus beside it wait longest,
// and finds none of them idle to part to. The pairs model has no IPI,
// its cpus idle or running a group task.
func hostPending(kc CountResult) string {
	pend, ok := kc.V["stacked-mate-pending-%"]
	med, ok2 := kc.V["pending-median-us"]
	if !ok || !ok2 {
		return ""
	}
	return fmt.Sprintf("the emulator's host, not modelled: beside the guest's stacked wakees a cpu of the LLC was idle but for a wakeup queued to it (ttwu_pending, the IPI not yet taken) at %.0f %% of them, where its pending spells last a median %.0f µs, a twentieth of them past %.0f µs: under TCG a kicked idle vCPU waits for the host to run its thread, and a stacked pair, waking its partner with no IPI, runs fastest while the cpus beside it wait; the pairs model has no IPI, so the cpus beside its stacked pairs are idle, and they part",
		pend, med, kc.V["pending-p95-us"])
}

// placementCauses names the stacked row by its two causes where the count
// has the wake trace: how often the guest's pairs part and join beside
// the model's, the rows below it; "" without the trace.
func placementCauses(run modelRun) string {
	kc, p := run.kc, run.row.Place
	part, ok1 := kc.V["stacked-part-%"]
	join, ok2 := kc.V["split-join-%"]
	if !ok1 || !ok2 || p.Stacked == 0 || p.Wakes == p.Stacked {
		return ""
	}
	why := fmt.Sprintf("the pairs' placement, by its two causes (the rows below): the guest's stacked pairs parted at %.2f %% of their wakeups (the model's %.2f %%), its split pairs joined at %.2f %% (the model's %.2f %%); the stacked share is what the two leave",
		part, share(p.Parted, p.Stacked), join, share(p.Joined, p.Wakes-p.Stacked))
	if host := hostPending(kc); host != "" && kc.V["stacked-mate-pending-%"] >= kc.V["stacked-idle-mate-%"] && share(p.Parted, p.Stacked) > part {
		why += "; what keeps the guest's together: " + host
	}
	return why
}
