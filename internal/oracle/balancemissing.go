package oracle

import (
	"fmt"
	"math"
	"strings"

	"github.com/contend/contend/bench/ksim"
)

// balanceMissing names what the balanceflag model lacks for row r of count
// kc, should the row fall outside the tolerance: by the kernel's source and
// the count's own figures (the rest of the count's balancer rows, its idle
// entries and tick stops). docs/balanceflag.md ("Against the kernel") has
// the counts behind each.
func balanceMissing(kc CountResult, r modelRow, rows []modelRow) string {
	name := strings.TrimSpace(r.name)
	over := r.model > r.kernel
	is := func(s string) bool { return strings.Contains(name, s) }
	flagRow := is("flag attempts")
	// The share of the guest's idle entries that stopped its tick:
	// nohz_balance_enter_idle() calls (tick-sched.c calls it as the tick
	// stops) over do_idle()'s nohz_run_idle_balance() calls.
	share, shareOK := 0.0, false
	if stops, idles := kc.V["nohz-tick-stops/s"], kc.V["nohz-run-idle/s"]; idles > 0 && stops > 0 {
		share, shareOK = stops/idles, true
	}
	driverless := idleLoopWhy(kc, share)
	switch {
	case flagRow && kc.Nodes == 1 && r.kernel == 0:
		return "the guest has one node, so no NUMA level and no SD_SERIALIZE domain (sd_init() sets it on NUMA levels only): the kernel takes no flag; balanceflag's simulation keeps a serialized level over a one-node machine (its scenario's box), and the count does not record the guest's LLCs, which its domains need"
	case (is("balancer passes") || is("own passes")) && !over && kc.Nodes == 1 && len(kc.Domains) == 0:
		return "the model builds its domains from the count's nodes (one here: one level over every cpu), where the guest may have several LLCs under its package (two levels, each its own interval and busy factor); the count does not record the guest's LLCs"
	case is("walks per s (kicked)") && over && rowRatio(rows, "entering nohz.idle_cpus_mask") > ModelTolerance:
		return fmt.Sprintf("the model's kick IPIs carry a NOHZ_NEXT_KICK after each cpu entering nohz.idle_cpus_mask (nohz_balance_enter_idle() sets nohz.needs_update), and its cpus enter the mask %.2fx as often as the kernel's: the tick-stop rows' cause", rowRatio(rows, "entering nohz.idle_cpus_mask"))
	case is("walks per s (kicked)") && !over:
		return fmt.Sprintf("the kick's reasons the model draws from the count are the LLC's nr_busy_cpus > 1 and a busy cpu's second task (rq->nr_running >= 2) at %.0f %% of busy ticks, the workload's waiting pingers over the busy cpus (its run and runnable shares); the guest's other tasks stack too, which the count does not give per cpu, and check_cpu_capacity() holds on no equal-capacity model (docs/balanceflag.md, \"The kick's other reasons\")", 100*stackedShare(kc))
	case (is("tick stops") || is("entering nohz.idle_cpus_mask") || is("on idle cpus' behalf")) && over && shareOK && share < 0.5:
		why := driverless
		if !is("tick stops") {
			why = "the nohz balancer walks the cpus in nohz.idle_cpus_mask, which a cpu enters when its tick stops: " + why
		}
		if e := rowRatio(rows, "entering nohz.idle_cpus_mask"); e > 0 && !is("entering") {
			why += fmt.Sprintf(" (the model's cpus enter the mask %.2fx as often as the kernel's)", e)
		}
		if is("on idle cpus' behalf") {
			why += perWalk(r, rows)
		}
		return why
	case is("sched_balance_rq() calls") && is("CPU_NEWLY_IDLE") && !over && len(kc.NewidleCost) > 0:
		why := fmt.Sprintf("the model's newidle walks pass few domains or none: each stops at sched_balance_newidle()'s gate, avg_idle (its sample the guest's mean idle, %.0f µs) under the lowest domain's max_newidle_lb_cost (the guest's, %.0f µs); the guest's avg_idle, a running average of its idles' lengths (update_avg(), an eighth of the difference at each wakeup) capped at 2 × max_idle_balance_cost, climbs past the gate after its few long idles (its idle tick slots no tick fired in: %.0f per s), which the model, whose idles all last the mean, has none of", meanIdleUs(kc), float64(kc.NewidleCost[0])/1e3, suppressedTicks(kc))
		if g := gateRead(kc); g != "" {
			why += "; " + g
		}
		return why
	case is("sched_balance_rq() calls") && is("CPU_NEWLY_IDLE") && over && newidleGate(kc) != "":
		return newidleGate(kc)
	case is("sched_balance_rq() calls") && is("CPU_NEWLY_IDLE") && over && gateRead(kc) != "":
		// The gate mostly open, and the guest's open walks still made
		// few calls: what ends a walk past the gate.
		walks := kc.V["nohz-run-idle/s"] * (100 - kc.V["newidle-gated-%"]) / 100
		return fmt.Sprintf("the walks past the gate: the guest's made %.2f sched_balance_rq() calls each (%.0f a second over some %.0f walks past it, its idle entries less the %.0f %% gated), the model's walks every domain whose cost its avg_idle clears; a walk ends at the first domain where avg_idle < the walk's cost so far plus that domain's max_newidle_lb_cost, with the costs as each pass leaves them, and returns before the gate on a wakeup already pending (this_rq->ttwu_pending), neither read per walk by the count (%s)",
			r.kernel/math.Max(walks, 1), r.kernel, walks, kc.V["newidle-gated-%"], gateRead(kc))
	case is("sched_balance_rq() calls") && is("CPU_NEWLY_IDLE") && over && gateRead(kc) == "" && kernelAtLeast(kc.Kernel, 6, 19):
		return "the newidle gate's inputs, not modelled as the guest's and not read on this kernel: from 6.19 sched_balance_newidle() is inlined into its one caller, so the tick trace has no newidle record (the count's note); on the 6.1-6.18 counts, where it is read, the gate closed at 55-100 % of the walks, mostly at avg_idle under max_newidle_lb_cost (benchdata/2026-12-05-kicks.md), where the model's gate is open at every walk or at none (its avg_idle the guest's mean idle)"
	case is("sched_balance_rq() calls") && is("CPU_NEWLY_IDLE") && over && kc.Shape == "pipe" && 2*kc.Pairs <= kc.CPUs && gateRead(kc) == "":
		return fmt.Sprintf("sched_balance_newidle() passes only where the root domain is overloaded (a cpu with a second task: get_rd_overloaded()), and the model's always is (its runqueues hold no tasks); the guest's %d pingers on %d cpus seldom stack, so its newidle walks mostly return at that gate, where the model's pass whenever avg_idle (the guest's mean idle, %.0f µs) clears the lowest domain's max_newidle_lb_cost; the count does not read rd->overloaded", 2*kc.Pairs, kc.CPUs, meanIdleUs(kc))
	case is("sched_balance_rq() calls") && is("CPU_NOT_IDLE") && !over:
		mt, mi := rowModel(rows, "ticks per s (sched_tick)"), rowModel(rows, "on idle cpus (task_tick_idle)")
		busy := kc.V["ticks/s"] - kc.V["idle-ticks/s"]
		if mt-mi <= 0 || busy <= 0 {
			break
		}
		runs := "the guest's cpus stay busy for runs of ticks, which the count's rates do not give"
		if c, ok := kc.V["tick-busy-corr"]; ok && tickCorr(kc) > 0 {
			runs = fmt.Sprintf("the model takes the runs the tick trace shows (a cpu's state at successive ticks correlates %.2f) where the guest's idle cpus tick on (after-tick), and the queued idle ticks' CPU_NOT_IDLE walks; what else brings the guest's busy interval due, the count does not show", c)
		}
		return fmt.Sprintf("a busy cpu's last pass is most often an idle tick's, from which the busy interval (balance_interval × busy_factor, less a jiffy) is seldom due: the model's busy cpus pass at %.1f %% of their busy ticks, the guest's at %.1f %% of theirs (ticks less idle ticks); %s", 100*r.model/(mt-mi), 100*r.kernel/busy, runs)
	case is("sched_balance_rq() calls") && is("CPU_IDLE") && over && idleLessBehalf(r, rows) != "":
		return idleLessBehalf(r, rows)
	case is("sched_balance_rq() calls") && is("CPU_IDLE") && over:
		mi, ki := rowModel(rows, "on idle cpus (task_tick_idle)"), kc.V["idle-ticks/s"]
		if mi <= 0 && shareOK && share >= 0.5 {
			// The model's idle ticks all fresh idles (stopping at
			// once), its CPU_IDLE passes the nohz walks' and its idle
			// ticks' own, as the passes row has them.
			return behalfPart(r, rows) + driverless + ", so the guest's idle cpus run no tick and no balance pass of their own (trigger_load_balance() runs from the tick), where each idle tick the model draws, a fresh idle, passes CPU_IDLE before its tick stops"
		}
		if mi <= 0 || ki <= 0 {
			break
		}
		return fmt.Sprintf("the model's idle cpus pass at each idle tick that finds no task queued (the idle interval, a jiffy at HZ %d) on every level whose interval has passed and should_we_balance() lets on, %.2f passes per idle tick, the guest's %.2f (the nohz balancer's passes on an idle cpu's behalf in both); ", countHZ(kc), r.model/mi, r.kernel/ki) + queuedWhy(kc)
	case is("sched_balance_rq() calls") && is("CPU_IDLE") && !over:
		mi, ki := rowModel(rows, "on idle cpus (task_tick_idle)"), kc.V["idle-ticks/s"]
		kb, mb := kc.V["nohz-balances/s"], rowModel(rows, "on idle cpus' behalf")
		if mi <= 0 || ki <= 0 {
			break
		}
		why := fmt.Sprintf("per idle tick the model passes %.2f times, the guest %.2f; the nohz balancer's walks on idle cpus' behalf pass CPU_IDLE too, the guest's %.1f per s, the model's %.1f", r.model/mi, r.kernel/ki, kb, mb)
		if inside((r.model / mi) / (r.kernel / ki)) {
			return fmt.Sprintf("the passes per idle tick are within (the model %.2f, the guest %.2f: %.2fx) and so are the idle ticks (the model's %.2fx the guest's, the task_tick_idle row: its busy share is the guest's time share, busy-%%, and the guest's ticks found its cpus idle more often than that); the row is their product", r.model/mi, r.kernel/ki, (r.model/mi)/(r.kernel/ki), mi/ki)
		}
		if kb-mb >= (r.kernel-r.model)/2 {
			return why + ": the guest's idles longer than a tick (the on-behalf row), which the model's fresh idles lack"
		}
		return "not named: " + why + ", too few to make up the difference; the count does not split the guest's CPU_IDLE passes by domain or by whose walk ran them"
	case is("ticks per s (sched_tick)") || is("on idle cpus (task_tick_idle)"):
		if why := tickWhy(kc, over, is("task_tick_idle")); why != "" {
			return why
		}
	case is("entering nohz.idle_cpus_mask") && over && shareOK && share >= 0.5:
		return driverless + "; a cpu enters nohz.idle_cpus_mask at its first tick stop since its last busy tick (nohz_balance_exit_idle() from nohz_balancer_kick()), and the model's short idles, NewidlePerTick of them every Newidle ticks from the count's idle entries, fall in each busy tick they are drawn for, so each of its busy ticks finds the cpu in the mask" + maskPerBusyTick(kc)
	case is("on idle cpus' behalf") && !over && freshIdle(kc):
		if _, ok := kc.V["ticks/s"]; !ok {
			return fmt.Sprintf("the nohz balancer passes for cpus whose tick stayed stopped, idles longer than a tick, which the later counts show (their tick slots no tick fired in); this count, an older file, has no ticks to say how many: the model's idles are fresh at every idle tick (the guest's average %.0f µs, under half a tick), so each fires, balances its cpu CPU_IDLE and leaves the walk little due: it has no idles longer than a tick, which the count's mean does not give", meanIdleUs(kc))
		}
		return fmt.Sprintf("the nohz balancer passes for cpus whose tick stayed stopped, idles longer than a tick: the guest's tick slots no tick fired in, %.0f per s (%.0f %% of its idle tick slots: HZ × cpus less its ticks, against its idle ticks); the model's idles are fresh at every idle tick (the guest's average %.0f µs, under half a tick), so each fires, balances its cpu CPU_IDLE and leaves the walk little due: it has no idles longer than a tick, which the count's mean does not give", suppressedTicks(kc), 100*suppressedTicks(kc)/math.Max(suppressedTicks(kc)+kc.V["idle-ticks/s"], 1), meanIdleUs(kc))
	case (is("balancer passes") || is("own passes")) && over && tickWhy(kc, true, false) != "" && inside(r.model/r.kernel*(1-lostShare(kc))):
		// A guest whose emulator lost ticks: each lost tick is a softirq
		// the model raises and the guest could not; named where the model
		// less that share would be within.
		return tickWhy(kc, true, false) + fmt.Sprintf("; less that share of its ticks the model would be %.2fx", r.model/r.kernel*(1-lostShare(kc)))
	case (is("balancer passes") || is("own passes")) && over && freshIdle(kc):
		after := "the busy tick after one (rq->next_balance a jiffy on) or after a short idle (its newidle walk brings rq->next_balance in)"
		if v, ok := kc.V["busy-tick-idle-entry-%"]; ok && newidleShare(kc) > 0 {
			after = fmt.Sprintf("a busy tick after an idle entry (its newidle walk brings rq->next_balance in: the tick trace's %.0f %% of busy ticks followed by a busy one had one between, which the model takes)", v)
		}
		return fmt.Sprintf("the guest's own walks (its balance softirqs less its nohz walks) ran at %.0f %% of its ticks, the model's at every idle tick it draws that finds no task queued (the idle interval, a jiffy at HZ %d) and at %s; ", 100*(kc.V["balance-softirqs/s"]-kc.V["nohz-walks/s"])/math.Max(kc.V["ticks/s"], 1), countHZ(kc), after) + queuedWhy(kc)
	case is("on idle cpus' behalf") && over && kickBusy(kc) != "":
		return kickBusy(kc) + perWalk(r, rows)
	case is("on idle cpus' behalf") && over && shareOK && share >= 0.5:
		return "not named" + perWalk(r, rows) + "; a guest that stops its tick at every idle entry has its idle cpus in the mask nearly all their idle time, yet its walks pass over fewer of them: _nohz_idle_balance() ends its walk when its own cpu has a task to run (need_resched()), and the guest's idles average " + fmt.Sprintf("%.0f µs", meanIdleUs(kc)) + " where the model's balancer is idle for whole ticks; the count does not say how many cpus each walk found in the mask or due, nor how many walks ended early"
	case is("on idle cpus' behalf") && over:
		return "not named" + perWalk(r, rows) + ", where the cpus entering the mask and the walks are the rows above; the count does not say how many cpus each walk found in the mask or due"
	case is("tick stops") && !over && shareOK && share >= 0.5 && kc.IdleTick == ksim.IdleTickStop:
		return driverless + fmt.Sprintf("; the model stops the tick at each of its idle entries too, but has them only in its busy ticks: the count's idle entries per cpu per tick, rounded (%d), in each busy tick (%.0f %% of them), and one going idle before each idle run, where the guest's idle ticks have theirs as well", bfNewidlePerTick(kc, countHZ(kc)), kc.V["busy-%"])
	case is("tick stops") && !over && shareOK && share >= 0.5:
		return driverless + "; each tick stop before the cpu's next busy tick calls nohz_balance_enter_idle() with the cpu still in the mask, which counts as a call and no entry (the mask-entries row)"
	case (is("balancer passes") || is("own passes") || is("flag attempts per s")) && over && shareOK && share >= 0.5:
		return driverless + ", so the guest's idle cpus run no tick and no balance pass of their own (trigger_load_balance() runs from the tick), where the model's keep their tick and balance CPU_IDLE"
	case (is("balancer passes") || is("own passes")) && !over && shareOK && share < 0.5:
		return fmt.Sprintf("the guest kept its tick at %.1f %% of its idle entries, so its idle cpus balance themselves CPU_IDLE from their ticks (the interval unscaled by busy_factor: about a tick at HZ %d): %s", 100*(1-share), countHZ(kc), idleLoopWhy(kc, share))
	case flagRow && over && strings.HasPrefix(kc.BalanceOrder, "check-first+newidle") && kernelAtLeast(kc.Kernel, 7, 1) && len(kc.NewidleCost) == 0:
		return "the model's root domain is always overloaded (it has no nr_running), so every newidle walk visits the domains and throws the dice; the kernel's sched_balance_newidle() returns before any where no cpu has a task waiting (!get_rd_overloaded()) or avg_idle is under the lowest domain's max_newidle_lb_cost. With NI_RATE (9fe89f022c05) a domain's newidle passes come to about 119 a second per cpu whatever its visit rate (the ratio adds the 512 calls' time >> 22), so the model's extra visits become extra passes, each an attempt on the flag; the count has no max_newidle_lb_cost (kernel-newidle-cost, from 2026-12-05), which under an emulator runs to milliseconds and shuts the gate on the guest's idles of a few hundred µs"
	case is("flag attempts per pass") && !over && strings.HasPrefix(kc.BalanceOrder, "check-first"):
		return "the kernel takes the flag on more of its softirq passes than the model, which takes it in sched_balance_rq() where the serialized domain is due and this cpu balances it (3324b2180c17), and on the newidle passes its order names (522fb20fbdbe, read from the kernel's text); with NI_RANDOM a newidle pass runs in proportion to the passes' pulls, and the model's never pull (no runqueues), so its ratio falls to the die's floor where the kernel's pulls keep theirs up"
	case is("flag attempts per pass") && attemptsOverPasses(rows) != "":
		return attemptsOverPasses(rows)
	case is("flag attempts per s"):
		p, a := rowRatio(rows, "balancer passes per s"), rowRatio(rows, "flag attempts per pass")
		if p > 0 && a > 0 && inside(p) && inside(a) {
			return fmt.Sprintf("the product of two rows within: the passes (%.2fx) and the attempts per pass (%.2fx), each off the same way", p, a)
		}
		return "the flag's attempts follow the passes (every pass over an SD_SERIALIZE domain, or the due ones): see the passes row"
	}
	split := "the count does not split the passes by the cpu's idle type or by domain, which would say whether the model's busy, idle or newidle passes are the ones " + map[bool]string{true: "over", false: "under"}[over]
	if _, ok := kc.V["idle-lb/s"]; ok {
		split = "the passes by idle type are their own rows (sched_balance_rq() calls); the count does not split them by domain, nor say which of the guest's walks met which cpus"
	}
	return fmt.Sprintf("not named: the count's busy share (%.0f %%), idle entries (%.0f per cpu per s) and newidle walks (every %d ticks, from them) are the model's inputs; %s", kc.V["busy-%"], kc.V["nohz-run-idle/s"]/math.Max(float64(kc.CPUs), 1), bfNewidle(kc, countHZ(kc)), split)
}

// newidleGate names, from the tick trace's newidle records, the newidle
// gate where the guest's closed at most of its walks: "" where the count
// read no gate or it was open at half its walks or more.
func newidleGate(kc CountResult) string {
	gated, ok := kc.V["newidle-gated-%"]
	if !ok || gated < 50 {
		return ""
	}
	why := "the newidle gate's inputs, not modelled as the guest's: " + gateRead(kc)
	if kc.V["newidle-not-overloaded-%"] >= gated/2 {
		return why + ", most of them for a root domain not overloaded (no cpu with a second task: get_rd_overloaded()), where the model's always is (its runqueues hold no tasks)"
	}
	return why + fmt.Sprintf(", most of them at the avg_idle test, where the model's avg_idle is the guest's mean idle (%.0f µs) at every walk against the domains' costs as the run left them: open at every walk or at none; avg_idle, a running average of the idles' lengths capped at twice max_idle_balance_cost, and a cost that moves with every pass, are not modelled as the guest's", meanIdleUs(kc))
}

// gateRead says what the count's newidle records read of the gate
// (kernel.TickRecord.GateClosed), "" where it read none.
func gateRead(kc CountResult) string {
	gated, ok := kc.V["newidle-gated-%"]
	if !ok {
		return ""
	}
	return fmt.Sprintf("the guest's newidle walks returned at sched_balance_newidle()'s gate at %.0f %% of them, read at each walk's entry (the root domain not overloaded at %.0f %%; rq->avg_idle under the lowest domain's max_newidle_lb_cost at the rest: medians %.0f µs and %.0f µs)",
		gated, kc.V["newidle-not-overloaded-%"], kc.V["newidle-avg-idle-us"], kc.V["newidle-cost-us"])
}

// kickBusy names, from the tick trace's kick records, what the guest's
// nohz kicks lose between the kick and the passes: "" where the count
// traced no kicks. The model takes the masked cpus' idle share at a kick
// (SimConfig.WalkIdle); it has no time between a kick and its walk, so
// the kicked cpu is idle when the walk runs and a balance kick's walk
// passes over every masked cpu idle and due. The guest's kicked cpu may
// be running again when the IPI lands (nohz_csd_func(): "if
// (rq->idle_balance)", no walk), a walk may end early (need_resched()),
// and a kick may carry no NOHZ_BALANCE_KICK (a stats or next-balance
// kick: no pass).
func kickBusy(kc CountResult) string {
	masked, ok := kc.V["kick-masked/kick"]
	walk, flagged := kc.V["kick-walk-%"]
	if !ok || !flagged || masked <= 0 {
		return ""
	}
	idle, due := kc.V["kick-idle/kick"], kc.V["kick-idle-due/kick"]
	why := fmt.Sprintf("the kicks' own losses, not modelled: at the guest's kicks (the tick trace's, at nohz_csd_func()) %.2f other cpus were in nohz.idle_cpus_mask, %.2f of them idle (%.0f %%: the model takes it as the chance a masked cpu idle at its tick is idle at a walk, ksim.TickPattern.IdleAtWalk) and %.2f idle and due; %.0f %% of the kicks found their own cpu idle when the IPI landed, so that nohz_csd_func() raised a walk, and %.0f %% were NOHZ_BALANCE_KICKs besides, whose walks pass: %.2f passes per kick had nothing changed (the kicked cpu's own included)",
		masked, idle, 100*idle/masked, due, walk, kc.V["kick-balance-walk-%"], kc.V["kick-passes/kick"])
	passes, okP := kc.V["nohz-balances/s"]
	ipis, okI := kc.V["nohz-kick-ipis/s"]
	if okP && okI && ipis > 0 {
		why += fmt.Sprintf(", and the guest's walks made %.2f per kick", passes/ipis)
		if passes/ipis < kc.V["kick-passes/kick"] {
			why += " (the rest ended early, need_resched(), or met a cpu woken since the kick)"
		}
	}
	return why + "; the model's kicked cpu is idle when its walk runs, at once, so none of its kicks is lost that way"
}

// idleLoopWhy says how the guest's idle loop decided its tick stops (the
// share of its idle entries that stopped it) and what the simulation does
// instead: with no cpuidle driver, the kernel's form read from its text
// (ksim.IdleTickRule, f4c31b07b136), where balanceflag's simulation draws
// each cpu idle or busy for whole ticks, so that every idle run of its
// reaches a tick, while the guest's idles are its tasks' waits, most of
// them shorter than a tick.
func idleLoopWhy(kc CountResult, share float64) string {
	idles := fmt.Sprintf("the guest's idles average %.0f µs (its idle share over its idle entries), a tick is %d µs, and balanceflag's simulation draws each cpu idle or busy for whole ticks, so each of its idle runs reaches a tick", meanIdleUs(kc), 1_000_000/countHZ(kc))
	if freshIdle(kc) {
		what := "whose tick fires and then stops"
		if kc.IdleTick == ksim.IdleTickStop {
			what = "its span holding idle entries as a busy tick's, each stopping the tick"
		}
		idles = fmt.Sprintf("the guest's idles average %.0f µs (its idle share over its idle entries), under half a %d µs tick, so balanceflag's simulation takes each idle tick it draws as a fresh idle, %s", meanIdleUs(kc), 1_000_000/countHZ(kc), what)
	}
	if kc.IdleTick == ksim.IdleTickAfterTick {
		idles += idleTicksStopped(kc)
	}
	switch kc.IdleTick {
	case ksim.IdleTickAfterTick:
		asks := ""
		if a, ok := kc.V["idle-stop-asks/s"]; ok {
			asks = fmt.Sprintf(" (its idle loop asked to stop the tick %.1f times per cpu per s, idle-stop-asks: the iterations after a tick woke an idle cpu, and those of cpus already tickless)", a/math.Max(float64(kc.CPUs), 1))
		}
		return fmt.Sprintf("the guest stopped its tick at %.1f %% of its idle entries: it has no cpuidle driver, and its idle loop (f4c31b07b136's form, from %s) keeps the tick at an idle's first iteration and stops it in the iteration after the tick woke the idle cpu (do_idle()'s got_tick), so only idles the tick reaches stop it%s; %s", 100*share, kc.IdleTickFrom, asks, idles)
	case ksim.IdleTickStop:
		return fmt.Sprintf("the guest stopped its tick at %.1f %% of its idle entries: it has no cpuidle driver, and its idle loop (before f4c31b07b136, from %s) asks tick_nohz_idle_stop_tick() at every iteration, which keeps the tick only for an event within a tick (a timer, rcu_needs_cpu(), irq_work) that the model has none of; %s", 100*share, kc.IdleTickFrom, idles)
	}
	return fmt.Sprintf("the guest stopped its tick at %.1f %% of its idle entries, by its governor (%s), where %s", 100*share, kc.IdleTickFrom, idles)
}

// inside says whether a model/kernel ratio is within ModelTolerance.
func inside(ratio float64) bool { return ratio <= ModelTolerance && ratio >= 1/ModelTolerance }

// idleLessBehalf names a CPU_IDLE calls row over where the on-behalf
// passes hold the excess: every pass the nohz balancer runs for an idle
// cpu is a sched_balance_domains(rq, CPU_IDLE), one sched_balance_rq()
// call or more, so less the on-behalf passes (a call each, at least) the
// rest, the cpus' own idle-tick passes, are within; "" where they are not.
func idleLessBehalf(r modelRow, rows []modelRow) string {
	b, ok := behalfRow(r, rows)
	if !ok {
		return ""
	}
	rest := (r.model - b.model) / (r.kernel - b.kernel)
	if !inside(rest) || inside(b.model/b.kernel) {
		return ""
	}
	return fmt.Sprintf("the nohz balancer's passes on idle cpus' behalf, each a sched_balance_domains(rq, CPU_IDLE): the on-behalf row is %.2fx (see its line), and less those passes (a call each, at least) the rest of the CPU_IDLE calls, the idle cpus' own, are %.2fx (the model %.0f per s, the guest %.0f)", b.model/b.kernel, rest, r.model-b.model, r.kernel-b.kernel)
}

// behalfPart says what of CPU_IDLE row r the nohz walks' passes on idle
// cpus' behalf make, each a sched_balance_domains(rq, CPU_IDLE), and
// the rest, the idle cpus' own: "" where the rows lack the on-behalf one.
func behalfPart(r modelRow, rows []modelRow) string {
	b, ok := behalfRow(r, rows)
	if !ok {
		return ""
	}
	return fmt.Sprintf("the passes on idle cpus' behalf are %.2fx (the on-behalf row, named there), and the rest, the idle cpus' own, %.2fx (the model %.0f per s, the guest %.0f): ",
		b.model/b.kernel, (r.model-b.model)/(r.kernel-b.kernel), r.model-b.model, r.kernel-b.kernel)
}

// behalfRow is the on-behalf row of rows where it is a part of CPU_IDLE
// row r in both the kernel and the model (each of its passes a
// CPU_IDLE call, and some calls left over).
func behalfRow(r modelRow, rows []modelRow) (modelRow, bool) {
	for _, b := range rows {
		if strings.Contains(b.name, "on idle cpus' behalf") && b.kernel > 0 && r.kernel > b.kernel && r.model > b.model {
			return b, true
		}
	}
	return modelRow{}, false
}

// rowModel is the model's figure of the first row whose name holds name,
// 0 where none does.
func rowModel(rows []modelRow, name string) float64 {
	for _, r := range rows {
		if strings.Contains(r.name, name) {
			return r.model
		}
	}
	return 0
}

// attemptsOverPasses names the attempts-per-pass row where it is the
// quotient of two rows each within the tolerance and off opposite ways
// (the attempts per s over, the passes per s under, or the reverse), so
// that their quotient is not: "" where it is not that.
func attemptsOverPasses(rows []modelRow) string {
	a, p := rowRatio(rows, "flag attempts per s"), rowRatio(rows, "balancer passes per s")
	if a <= 0 || p <= 0 || !inside(a) || !inside(p) || (a > 1) == (p > 1) {
		return ""
	}
	return fmt.Sprintf("a quotient of two rows within, off opposite ways: the flag attempts per s (%.2fx) over the balancer passes per s (%.2fx), so the model takes the SD_SERIALIZE domain (the flag's, the only one whose passes attempt it, with this kernel's newidle passes where its order says so) on a larger share of its passes than the guest; the count does not split the passes by domain to say which of the guest's walks reached it", a, p)
}

// rowRatio is the model/kernel ratio of the first row whose name holds
// name, 0 where none does or its kernel figure is 0.
func rowRatio(rows []modelRow, name string) float64 {
	for _, r := range rows {
		if strings.Contains(r.name, name) && r.kernel > 0 {
			return r.model / r.kernel
		}
	}
	return 0
}

// perWalk is the on-behalf passes per kicked walk, kernel and model, where
// the rows have both: the walk's own share of an on-behalf row outside.
func perWalk(r modelRow, rows []modelRow) string {
	for _, w := range rows {
		if strings.Contains(w.name, "walks per s (kicked)") && w.kernel > 0 && w.model > 0 {
			return fmt.Sprintf("; per kicked walk the model passes over %.2f idle cpus, the kernel %.2f, its walks %.2fx the kernel's", r.model/w.model, r.kernel/w.kernel, w.model/w.kernel)
		}
	}
	return ""
}

// freshIdle says whether the model takes the guest's idle ticks as fresh
// idles (balanceflag.SimConfig.FreshIdle): its idle loop has no cpuidle
// driver (either form: the governor's stand-in stops at entry) and its
// idles, on average, last under half a tick, so that one spanning a tick
// is the exception.
func freshIdle(kc CountResult) bool {
	m := meanIdleUs(kc)
	return (kc.IdleTick == ksim.IdleTickAfterTick || kc.IdleTick == ksim.IdleTickStop) && m > 0 && m < 1e6/float64(countHZ(kc))/2
}

// idlePull is the share of the guest's idle ticks whose work pulled a
// task (balanceflag.SimConfig.IdlePull): its CPU_IDLE passes' pulls
// (schedstat's lb_gained, summed over the domains) over its idle ticks
// (task_tick_idle()), where the model takes fresh idles after the idle's
// first tick. An upper bound: lb_gained counts tasks, not passes, and the
// nohz balancer's passes on a tickless cpu's behalf are CPU_IDLE too.
// 0 where the count has neither.
func idlePull(kc CountResult) float64 {
	g, it := kc.V["idle-lb-gained/s"], kc.V["idle-ticks/s"]
	if !freshIdle(kc) || kc.IdleTick != ksim.IdleTickAfterTick || g <= 0 || it <= 0 {
		return 0
	}
	return min(g/it, 1)
}

// idleQueued is the share of the guest's idle ticks that found a task
// queued or a wakeup pending (its tick trace's idle-tick-not-idle-%:
// rq->idle_balance 0 with rq->curr the idle task), where the model takes
// fresh idles after the idle's first tick; capped so that it and pull
// leave a share to stop. 0 where the count has no trace.
func idleQueued(kc CountResult, pull float64) float64 {
	q, ok := kc.V["idle-tick-not-idle-%"]
	if !ok || !freshIdle(kc) || kc.IdleTick != ksim.IdleTickAfterTick {
		return 0
	}
	return min(q/100, 1-pull)
}

// queuedWhy says what the tick trace shows of the guest's idle ticks
// and what the model takes of it, or, where the count has none, what one
// guest's showed.
func queuedWhy(kc CountResult) string {
	q, ok := kc.V["idle-tick-not-idle-%"]
	if !ok {
		return "the count has no tick trace (kernel count records one from 2026-12-05): a 7.2.12 guest's (pipe, 2 pairs) found 58 % of its idle ticks with a task already queued or a wakeup pending (rq->idle_balance 0, so a due walk balances CPU_NOT_IDLE and the idle ends without a tick stop), which the model takes from a count that has it (-idle-queued); on that count its CPU_IDLE passes went from 2.52x to 1.17x"
	}
	takes := "the model takes"
	if idleQueued(kc, idlePull(kc)) <= 0 {
		takes = "the model, whose idle ticks are not fresh idles under the after-tick form here, does not take"
	}
	return fmt.Sprintf("%s the tick trace's %.0f %% of idle ticks that found a task queued or a wakeup pending (rq->idle_balance 0: CPU_NOT_IDLE); the guest's walk was due (jiffies at rq->next_balance) at %.0f %% of its idle ticks and %.0f %% of its busy ones, and %.0f %% of its cpus' ticks a period apart read the jiffy the one before read (a jiffy's interval not yet due), which the model, whose ticks read every jiffy, does not take", takes, q, kc.V["idle-tick-due-%"], kc.V["busy-tick-due-%"], kc.V["tick-stale-%"])
}

// tickCorr is the correlation of the guest's cpus' busy or idle state at
// successive ticks (its tick trace's tick-busy-corr), where its idle cpus
// tick on (after-tick) so that successive ticks sample the state, in
// [0, 0.95]; 0 where the count has no trace.
func tickCorr(kc CountResult) float64 {
	c, ok := kc.V["tick-busy-corr"]
	if !ok || kc.IdleTick != ksim.IdleTickAfterTick {
		return 0
	}
	return min(max(c, 0), 0.95)
}

// newidleShare is the share of the guest's pairs of busy ticks with an
// idle entry between (its tick trace's busy-tick-idle-entry-%): the busy
// ticks that hold short idles, each a newidle walk that brings the next
// tick's walk due. Where the guest's idle cpus tick on (after-tick), as
// the other tick-trace inputs, and where its idle entries come to one or
// more a tick (bfNewidle 1: else Newidle's period stands, and PerTick
// with it); 0 (one busy tick in Newidle) where the count has no trace.
func newidleShare(kc CountResult) float64 {
	v, ok := kc.V["busy-tick-idle-entry-%"]
	if !ok || kc.IdleTick != ksim.IdleTickAfterTick || bfNewidle(kc, countHZ(kc)) != 1 {
		return 0
	}
	return min(max(v/100, minShortShare), 1)
}

// minShortShare stands for a measured 0 %: ShortShare 0 means "one busy
// tick in Newidle", not none.
const minShortShare = 1e-6

// suppressedTicks are the guest's tick slots per second no tick fired in
// (HZ × cpus less its sched_tick() calls): stopped ticks, and the
// emulator's lost ones.
func suppressedTicks(kc CountResult) float64 {
	return math.Max(float64(kc.CPUs*countHZ(kc))-kc.V["ticks/s"], 0)
}

// meanIdleUs is the guest's mean idle, µs: its idle share (busy-%) over
// its idle entries (nohz_run_idle_balance() calls), 0 without them.
func meanIdleUs(kc CountResult) float64 {
	if n := kc.V["nohz-run-idle/s"] / math.Max(float64(kc.CPUs), 1); n > 0 {
		return (100 - kc.V["busy-%"]) / 100 / n * 1e6
	}
	return 0
}

// idleTicksStopped is, where the count has the idle ticks (task_tick_idle()
// calls), the share of them the idle loop followed with a tick stop: under
// f4c31b07b136's form an idle tick stops the tick in the loop's next
// iteration, unless the idle is over by then, so the rest are ticks whose
// idle ended during the tick's own work (a wakeup: need_resched()) or that
// fell outside the loop's halt. The model stops at every idle run's first
// tick.
func idleTicksStopped(kc CountResult) string {
	it, ok := kc.V["idle-ticks/s"]
	stops := kc.V["nohz-tick-stops/s"]
	if !ok || it <= 0 {
		return ""
	}
	pulls := ""
	if p := idlePull(kc); p > 0 {
		pulls = fmt.Sprintf(" (at most %.0f %% of them pulled a task, schedstat's CPU_IDLE lb_gained over the idle ticks, which the model takes)", 100*p)
	}
	if q, ok := kc.V["idle-tick-not-idle-%"]; ok {
		pulls += fmt.Sprintf(" (%.0f %% found a task already queued or a wakeup pending at the tick, the tick trace's, which the model %s)", q, map[bool]string{true: "takes", false: "does not take here"}[idleQueued(kc, idlePull(kc)) > 0])
	}
	return fmt.Sprintf("; yet the guest's ticks found its cpus idle %.0f times per s (task_tick_idle()) and only %.0f %% of those stopped the tick: the others found the idle over before the loop's next iteration%s, a wakeup during the tick's own work (its softirq, under the emulator's probes) or a tick outside the loop's halt, where each of the model's kept idle ticks that pulls nothing stops the tick: the model has no length for the tick's work against the idle's rest", it, 100*stops/it, pulls)
}

// tickWhy names what the model lacks for the tick rows (sched_tick() calls,
// and idleRow: task_tick_idle()'s), from the count's own ticks: the idle
// tick slots (HZ × cpus less the busy ticks) that fired, and the slots the
// emulator lost (fewer ticks than a busy guest's HZ: late ticks that
// tick_sched_timer()'s hrtimer_forward() folds into one).
func tickWhy(kc CountResult, over, idleRow bool) string {
	t, it := kc.V["ticks/s"], kc.V["idle-ticks/s"]
	slots := float64(kc.CPUs * countHZ(kc))
	if t <= 0 || slots <= 0 {
		return ""
	}
	if idleRow && kc.IdleTick == ksim.IdleTickStop {
		return fmt.Sprintf("the model stops an idle cpu's tick at the idle's entry, as the guest's idle loop asks (before f4c31b07b136), so none of its idle cpus ticks; the guest's tick_nohz_stop_tick() kept the tick at %.0f idle entries per s (its idle entries less its tick stops), for an event due within a tick (a timer, rcu_needs_cpu(), irq_work), which the model has none of, and its idle cpus ticked %.0f times per s", kc.V["nohz-run-idle/s"]-kc.V["nohz-tick-stops/s"], it)
	}
	if lost := lostShare(kc) * slots; lost > 0.1*slots && (over || !idleRow) {
		return fmt.Sprintf("the guest fired %.0f of its %.0f tick slots per s at %.0f %% busy, so the emulator lost about %.0f (%.0f %%): late ticks that tick_sched_timer()'s hrtimer_forward() folds into one sched_tick(), where the model's every busy tick fires", t, slots, kc.V["busy-%"], lost, 100*lost/slots)
	}
	if over && idleRow {
		// Each idle slot either fired its tick or had it stopped across
		// an idle longer than a tick.
		idleSlots := slots * (100 - kc.V["busy-%"]) / 100
		if idleSlots <= it {
			return ""
		}
		return fmt.Sprintf("idles longer than a tick: the guest's idle cpus fired %.0f %% of their idle tick slots (%.0f of %.0f per s, the idle share of HZ × cpus), the rest lost to a tick stopped across an idle past the next jiffy; the model's ticks fire wherever its pattern's idle began within the tick (a fresh idle, ksim.TickPattern.Fires), from one mean idle (%.0f µs) where the guest's idles have lengths the count does not give", 100*it/idleSlots, it, idleSlots, meanIdleUs(kc))
	}
	if over {
		return ""
	}
	fired := 100 * it / math.Max(it+math.Max(slots-t, 0), 1)
	return fmt.Sprintf("the guest's idle cpus tick on: %.0f %% of its idle tick slots fired (task_tick_idle() against the slots no tick fired in), its idles being many and short (%.0f µs on average) and each wakeup restarting the tick (tick_nohz_idle_exit()), so a tick stop lasts to the idle's end, not to the next busy tick; the model draws idle runs of whole ticks and stops the tick at each run's first%s", fired, meanIdleUs(kc), map[bool]string{true: "", false: " (the ticks row holds the idle ones)"}[idleRow])
}

// lostShare is the share of the guest's tick slots (HZ × cpus) the
// emulator lost: the slots no tick fired in, less the idle ones a stopped
// tick accounts for (the idle share of the slots, busy-%, less the idle
// ticks that fired).
func lostShare(kc CountResult) float64 {
	t, it := kc.V["ticks/s"], kc.V["idle-ticks/s"]
	slots := float64(kc.CPUs * countHZ(kc))
	if t <= 0 || slots <= 0 {
		return 0
	}
	idleSlots := slots * (100 - kc.V["busy-%"]) / 100
	return math.Max(suppressedTicks(kc)-math.Max(0, idleSlots-it), 0) / slots
}

// maskPerBusyTick is the guest's mask entries over its busy ticks (ticks
// that fired less those on idle cpus): the share of busy ticks that found
// the cpu in the mask and took it out.
func maskPerBusyTick(kc CountResult) string {
	busy := kc.V["ticks/s"] - kc.V["idle-ticks/s"]
	if busy <= 0 {
		return ""
	}
	return fmt.Sprintf(" (the guest's cpus entered the mask %.0f times per s over %.0f busy ticks: %.0f %% of them, the idles clustering in some ticks, which the count's rates do not give)", kc.V["nohz-mask-entries/s"], busy, 100*kc.V["nohz-mask-entries/s"]/busy)
}
