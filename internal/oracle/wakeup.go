package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/wakeup"
	"github.com/contend/contend/internal/kernel"
	"github.com/contend/contend/internal/kernel/wakeups"
)

// WakeupTolerance is how far the wakeup model with 6.1's policy may be
// from the kernel's migrations and affine wakeups per second, as a factor
// either way. A factor of 2, not ModelTolerance's 1.5: the model is fed
// the guest's measured cpu per statement, but the rest of a TCG guest's
// timing is the host's — vCPU threads preempted by the host (a vCPU that
// does not run does not tick, balance or wake), an idle vCPU's wakeup
// taking an emulated HLT exit and the host's wakeup of its thread (the
// model's idlewake is the measured residual, one number for what is a
// wide distribution), timer slack on the stopped tick — and migrations
// are decisions taken on thresholds (nr_running == 1, idle_cpu(),
// task_hot()'s 500 µs), so a shift in the timing moves a count more than
// proportionally. Not looser: a model off by more than 2 either way could
// not tell 6.1's placement from a policy that pulls twice as often, and
// finding 9 turns on a factor of 13.
const WakeupTolerance = 2.0

// WakeupHZ is the lab kernels' CONFIG_HZ: Debian's amd64 config sets
// CONFIG_HZ_250.
const WakeupHZ = 250

// ReadWakeups reads a file contend kernel wakeups -o wrote, or the lab's
// copy of one (vmlab heads what a guest sends with "# vmlab: ..." lines).
func ReadWakeups(path string) (*wakeups.Run, error) {
	w, _, err := readWakeups(path)
	return w, err
}

// readWakeups is ReadWakeups, and whether the lab's header says the run
// was made in a TCG guest.
func readWakeups(path string) (*wakeups.Run, bool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	var b []byte
	tcg := false
	for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("#")) {
			b = append(b, line...)
		} else if bytes.HasPrefix(line, []byte("# vmlab:")) && bytes.Contains(line, []byte("accelerator TCG")) {
			tcg = true
		}
	}
	var w wakeups.Run
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if w.CPUs < 2 || w.Clients < 1 || w.Servers < 1 || w.Seconds <= 0 || w.Statements == 0 || w.Sched == nil {
		return nil, false, fmt.Errorf("%s: not a complete contend kernel wakeups run (cpus %d, clients %d, servers %d, %.3g s, %d statements)",
			path, w.CPUs, w.Clients, w.Servers, w.Seconds, w.Statements)
	}
	return &w, tcg, nil
}

// wakeupIdleTick is the idle loop's tick rule of the guest a wakeups run
// was made in (path's). The run records no cpuidle driver; the lab's header
// says the accelerator (tcg), and its TCG guests register none (every
// kernel count made in them records cpuidle-driver: none), so there the
// rule is the kernel's driver-less form (idleTick: the sites file beside
// the run); elsewhere the governor's.
func wakeupIdleTick(path string, w *wakeups.Run, tcg bool) (ksim.IdleTickRule, string) {
	if !tcg {
		return ksim.IdleTickGovernor, "not a lab TCG guest's run: the governor taken"
	}
	rule, from := idleTick(filepath.Dir(path), w.Kernel, "none", "")
	return rule, "a TCG guest, no cpuidle driver; the form from " + from
}

// WakeupModelConfig is simulate wakeup with 6.1's policy fed what the
// guest measured: its cpus and LLC size (one-cpu LLCs are the model's
// s390 topology: no sd_llc, DIE alone), the workload's threads, each
// side's cpu time per statement (sum_exec_runtime over the statements:
// the spin and the syscalls both), HZ 250, the guest's warm-up, and the
// idle vCPU's wakeup cost as the round trip's residual on the model's own
// critical path: a statement's round trip is the client's burst up to its
// send, the server's wakeup, the server's burst up to its reply, the
// client's wakeup, so a client's time per statement less both sides' cpu
// and the time both spent runnable but queued (wait_sum), plus the two
// tails (each side's cpu after its send's wakeup, which runs beside the
// partner, not before it), halved for the two wakeups of a round trip.
// The residual is only separable with a server per client (one server's
// socket queue is a wait schedstats does not see), so with fewer servers
// idlewake keeps the model's default. The waker's tail after the wakeup
// is half the measured send syscall; one level's newidle balance cost is
// the domains' max_newidle_lb_cost as the guest's debugfs shows it. The workload processes' other
// threads (the Go runtime's: sysmon sleeping up to 10 ms at a time, the
// idle Ms) are the model's Others, at their measured count, wakeups per
// second and cpu per wakeup. Nothing is set from the kernel's migrations
// or affine counts.
func WakeupModelConfig(w *wakeups.Run) wakeup.SimConfig {
	n := float64(w.Statements)
	think := time.Duration(w.Client["sum_exec_runtime"] * 1e6 / n)
	service := time.Duration(w.Server["sum_exec_runtime"] * 1e6 / n)
	topo := "s390"
	if w.LLCSize > 1 {
		topo = fmt.Sprintf("llc%d", w.LLCSize)
	}
	cfg := wakeup.SimConfig{CPUs: []int{w.CPUs}, Topology: topo, Policies: []string{"v6.1"}, HZ: WakeupHZ,
		Threads: w.Clients, Servers: w.Servers, Think: max(think, time.Microsecond), Service: max(service, time.Microsecond),
		Duration: 5 * time.Second, Warmup: time.Duration(w.WarmupNs)}
	if cfg.Warmup == 0 {
		cfg.Warmup = -1
	}
	if w.ClientSendNs > 0 && w.ServerSendNs > 0 {
		// The wakeup happens inside the send, as the loopback delivery
		// runs in its softirq; where inside, schedstats cannot say:
		// half of it is the estimate, the rest of the tail (the way into
		// the receive) left out.
		tail := time.Duration((w.ClientSendNs + w.ServerSendNs) / 4)
		cfg.Tail = min(tail, cfg.Think, cfg.Service)
	}
	if t := w.Wakes; t != nil {
		cfg.ScanFigures = true // its placement rows
		if len(t.PendingUs) > 0 {
			cfg.IdleWakeShape = t.PendingUs
		}
	}
	if w.NewidleLBCostNs > 0 {
		cfg.LBCost = min(time.Duration(w.NewidleLBCostNs), time.Second)
	}
	if ow := w.Others["nr_wakeups"]; w.OtherThreads > 0 && ow > 0 {
		cfg.Others = w.OtherThreads
		cfg.OthersPeriod = time.Duration(float64(w.OtherThreads) * w.Seconds * 1e9 / ow)
		cfg.OthersBurst = time.Duration(w.Others["sum_exec_runtime"] * 1e6 / ow)
	}
	if w.Servers == w.Clients {
		rt := w.Seconds * 1e9 * float64(w.Clients) / n // ns per statement per client
		queued := (w.Client["wait_sum"] + w.Server["wait_sum"]) * 1e6 / n
		// The tails overlap the partner's run: leaving them out of
		// the critical path (as before 2026-12-05) made the model's
		// round trip 2·tail shorter than the guest's, and its wakeups
		// per second 1.36× the guest's on the LLCs-of-4 count.
		idle := time.Duration((rt - float64(think) - float64(service) + 2*float64(cfg.Tail) - queued) / 2)
		cfg.IdleWake = min(max(idle, time.Microsecond), 10*time.Millisecond)
	}
	return cfg
}

// A WakeupRow is one quantity of the check, per second or, for the
// placement's, per cent.
type WakeupRow struct {
	Name          string
	Kernel, Model float64
	Held          bool // held to WakeupTolerance; the others are shown beside
}

// WakeupRows simulates the model for w and lists the quantities: all
// migrations, those at wakeup (nr_wakeups_migrate; the model's
// wake_affine and select_idle_sibling) and the rest (the balancer's:
// periodic, newidle, nohz, active), affine wakeups and attempts, the
// wakeups themselves (the fed inputs' check: the rate is an output of the
// model), and the machine-wide balancer moves from /proc/schedstat (every
// task's, kworkers' too, so shown, not held).
func WakeupRows(w *wakeups.Run, idle ksim.IdleTickRule) (wakeup.SimConfig, []WakeupRow, error) {
	cfg := WakeupModelConfig(w)
	cfg.IdleTick = idle
	tab, err := wakeup.Simulate(cfg)
	if err != nil {
		return cfg, nil, err
	}
	m := tab.Rows[0]
	per := func(k string) float64 { return (w.Client[k] + w.Server[k]) / w.Seconds }
	mod := func(v float64) float64 { return v / 5 } // the model's figures are per 5 s
	wakeMig := mod(m.ByCause["wake_affine"] + m.ByCause["select_idle_sibling"])
	var lb, newidle float64
	for _, d := range w.Sched.Domains {
		lb += float64(d.LBGained[0]+d.LBGained[1]+d.LBGained[2]+d.ALBPushed) / w.Seconds
		newidle += float64(d.LBGained[2]) / w.Seconds
	}
	rows := []WakeupRow{
		{"migrations/s", per("nr_migrations"), mod(m.Total), true},
		{"wakeup migrations/s", per("nr_wakeups_migrate"), wakeMig, true},
		{"balance migrations/s", per("nr_migrations") - per("nr_wakeups_migrate"), mod(m.Total) - wakeMig, true},
		{"affine wakeups/s", per("nr_wakeups_affine"), mod(m.Affine), true},
		{"affine attempts/s", per("nr_wakeups_affine_attempts"), mod(m.AffineAttempts), true},
		{"wakeups/s", per("nr_wakeups"), mod(m.Wakeups), false},
		{"local wakeups/s", per("nr_wakeups_local"), mod(m.LocalWakeups), false},
		{"involuntary switches/s", per("nr_involuntary_switches"), mod(m.Preempted), false},
		{"balancer moves/s (all tasks)", lb, mod(m.Total) - wakeMig, false},
		{"newidle moves/s (all tasks)", newidle, mod(m.ByCause["newidle"]), false},
	}
	return cfg, append(rows, wakePlacementRows(w.Wakes, m.Place)...), nil
}

// share is n of of, per cent (0 where of is).
func share[T int | int64](n, of T) float64 { return 100 * float64(n) / max(float64(of), 1) }

// wakePlacementRows hold the model's wakeup placement against the run's wake
// trace, where it has one (kernel.WakeTrace, ksim.Placements: the same
// counts): the wakeups stacked (prev_cpu the waking cpu: the pair on one
// cpu), how many of those parted and of the split ones joined, and what
// the stacked wakees' scans met, shown beside: the LLC's SIS_UTIL budget
// 0, an idle cpu beside the waking cpu, one within the budget's reach.
func wakePlacementRows(t *kernel.WakeTrace, p ksim.Placements) []WakeupRow {
	if t == nil || t.Wakes == 0 {
		return nil
	}
	return []WakeupRow{
		{wStacked, share(t.Stacked, t.Wakes), share(p.Stacked, p.Wakes), true},
		{"  " + wParted, share(t.StackedParted, t.Stacked), share(p.Parted, p.Stacked), true},
		{"  " + wJoined, share(t.Joined, t.Wakes-t.Stacked), share(p.Joined, p.Wakes-p.Stacked), true},
		{"  stacked: the LLC's scan budget 0, %", share(t.StackedNoScan, t.Stacked), share(p.NoScan, p.Stacked), false},
		{"  " + wPending, share(t.StackedMatePending, t.Stacked), share(p.PendingMate, p.Stacked), false},
		{"  " + wIdleMate, share(t.StackedIdleMate, t.Stacked), share(p.IdleMate, p.Stacked), false},
		{"  stacked: one within the budget's reach, %", share(t.StackedScanFinds, t.Stacked), share(p.ScanFinds, p.Stacked), false},
	}
}

// The placement rows' names (wakePlacementRows indents all but the
// first), which the naming reads back.
const (
	wStacked  = "wakeups stacked (prev_cpu the waking cpu), %"
	wParted   = "stacked ones parted (put elsewhere), %"
	wJoined   = "split ones joined (put on the waking cpu), %"
	wPending  = "stacked: a cpu of the LLC beside pending a wakeup, %"
	wIdleMate = "stacked: an idle cpu of the LLC beside, %"
)

// wakeupRow is the row of rows named name, its indent aside; the zero
// row where there is none.
func wakeupRow(rows []WakeupRow, name string) WakeupRow {
	for _, x := range rows {
		if strings.TrimSpace(x.Name) == name {
			return x
		}
	}
	return WakeupRow{}
}

// Within says whether model/kernel is inside WakeupTolerance. Two zeros
// agree; a zero against a count does not.
func (r WakeupRow) Within() bool {
	if r.Kernel == 0 && r.Model == 0 {
		return true
	}
	q := r.Model / r.Kernel
	return q <= WakeupTolerance && q >= 1/WakeupTolerance
}

// WriteWakeupTable holds the model against each file's run: the inputs
// it was fed, then kernel, model, model/kernel per quantity, and a
// verdict per run (every held row within WakeupTolerance).
func WriteWakeupTable(w io.Writer, files []string) error {
	if len(files) == 0 {
		return errors.New("no contend kernel wakeups files")
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "kernel\tguest\tquantity\tkernel\tmodel\tmodel/kernel\twithin ×%.0f\n", WakeupTolerance)
	var verdicts, outside []string
	for _, path := range files {
		k, tcg, err := readWakeups(path)
		if err != nil {
			return err
		}
		idle, idleFrom := wakeupIdleTick(path, k, tcg)
		cfg, rows, err := WakeupRows(k, idle)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		guest := fmt.Sprintf("%d cpus, llc %d, %d:%d", k.CPUs, k.LLCSize, k.Clients, k.Servers)
		ok := true
		for _, r := range rows {
			within := "(shown)"
			if r.Held {
				within = "yes"
				if !r.Within() {
					within, ok = "NO", false
					ratio := "no count"
					if r.Kernel != 0 {
						ratio = fmt.Sprintf("%.2fx", r.Model/r.Kernel)
					}
					outside = append(outside, fmt.Sprintf("outside: %s %s %s (%s): %s", k.Kernel, guest, r.Name, ratio, wakeupMissing(k, cfg, rows, r)))
				}
			}
			ratio := "-"
			if r.Kernel != 0 {
				ratio = fmt.Sprintf("%.2f", r.Model/r.Kernel)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.4g\t%.4g\t%s\t%s\n", k.Kernel, guest, r.Name, r.Kernel, r.Model, ratio, within)
		}
		v := "passes"
		if !ok {
			v = "misses"
		}
		verdicts = append(verdicts, fmt.Sprintf("%s, %s: model fed topo %s, think %s, service %s, idlewake %s, tail %s, lbcost %s, others %d every %s for %s, HZ %d: the 6.1 check %s",
			k.Kernel, guest, cfg.Topology, cfg.Think.Round(time.Microsecond), cfg.Service.Round(time.Microsecond), wakeIdle(cfg), cfg.Tail.Round(time.Microsecond), cfg.LBCost.Round(100*time.Nanosecond),
			cfg.Others, cfg.OthersPeriod.Round(time.Microsecond), cfg.OthersBurst.Round(100*time.Nanosecond), cfg.HZ, v)+
			fmt.Sprintf("; idle tick: %v (%s)", idle, idleFrom))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range append(outside, verdicts...) {
		if _, err := fmt.Fprintln(w, v); err != nil {
			return err
		}
	}
	return nil
}

// wakeupMissing names what the wakeup model lacks for row r of run k (the
// model fed cfg gave rows), r being outside WakeupTolerance: the
// mechanism, and the count's figures beside the model's that show it
// (docs/wakeup.md, "What each row still outside lacks", has the model's
// own placement and balance records behind each).
func wakeupMissing(k *wakeups.Run, cfg wakeup.SimConfig, rows []WakeupRow, r WakeupRow) string {
	row := func(name string) WakeupRow { return wakeupRow(rows, name) }
	both := func(key string) float64 { return k.Client[key] + k.Server[key] }
	over := r.Model > r.Kernel
	migrations := strings.Contains(r.Name, "migrations")
	if why := stackedByTheHost(k, rows, r); why != "" {
		return why
	}
	switch {
	case migrations && over && k.LLCSize > 1:
		local, wk, att := row("local wakeups/s"), row("wakeups/s"), row("affine attempts/s")
		// The guest's wakeups beyond the workload's and its
		// processes' other threads': what else could have kept its
		// cpus busy (kworkers, ksoftirqd).
		rest := float64(k.Sched.TTWU) - both("nr_wakeups") - k.Others["nr_wakeups"]
		// A run without the wake trace cannot show the host's part
		// itself; its rows have the traced runs' signature (fewer local
		// wakeups, fewer with no wake_affine() attempt: fewer stacked).
		name := "not named"
		if k.Wakes == nil && local.Model < local.Kernel {
			name = "the emulator's host, not modelled (this run has no wake trace; the traced runs of this guest and workload, with the same signature, name it: docs/wakeup.md, \"The host's part\")"
		}
		return fmt.Sprintf(name+": the model's select_idle_sibling() finds an idle cpu where the kernel's fell back to the waking cpu: "+
			"local wakeups %.0f/s against the kernel's %.0f, and wakeups with no wake_affine() attempt (cpu == prev_cpu: a pair on one cpu) %.0f%% against %.0f%%; "+
			"not other work in the guest (%.0f wakeups in %.1f s beyond the workload's and its threads'); "+
			"left: why the kernel's select_idle_cpu() scans came back empty (with no scan the model gives the kernel's local wakeups: docs/wakeup.md's trials), LLCs near 74%% of cpu_util_cfs() or cpus busy at the instant, which the count does not show (idlewake, %s, is one mean for TCG's host-scheduled wakeup of a halted vCPU)",
			local.Model, local.Kernel, 100*(1-att.Model/max(wk.Model, 1)), 100*(1-att.Kernel/max(wk.Kernel, 1)), max(rest, 0), k.Seconds, wakeIdle(cfg))
	case (migrations || strings.HasPrefix(r.Name, "wakeups stacked")) && !over && k.LLCSize == 1:
		if t := k.Wakes; t != nil && t.Moves != nil && t.Moves.Balanced > 0 {
			return coldPulls(k, cfg, rows)
		}
		var idleMoves uint64
		for _, d := range k.Sched.Domains {
			idleMoves += d.LBGained[0]
		}
		local := row("local wakeups/s")
		return fmt.Sprintf("the emulator's host, not modelled (this run has no move records; a later run of this guest and workload with them names it: docs/wakeup.md, \"The balancer's moves on one-cpu LLCs\", the balancer pulling the workload's tasks cold from behind runs the host stretched): wakeup preemption is modelled (ksim's check_preempt_wakeup()): the workload's tasks are switched out %.0f/s against the kernel's %.0f/s involuntary switches (the other threads' %.0f in %.1f s), the other threads preempting them "+
			"(of the kernel's %d CPU_IDLE moves the other threads made %.0f migrations, the workload's tasks %.0f); what is short is the workload's own moves: "+
			"the kernel's pairs share a cpu (local wakeups %.0f/s against the model's %.0f; no wakeup moved a task in either), which leaves a cold task queued for an idle cpu to pull, and the model's pairs stay apart, "+
			"their wakees queued cold only behind an other thread's %s burst; %s",
			row("involuntary switches/s").Model, both("nr_involuntary_switches")/k.Seconds, k.Others["nr_involuntary_switches"], k.Seconds, idleMoves, k.Others["nr_migrations"], both("nr_migrations")-both("nr_wakeups_migrate"), local.Kernel, local.Model, cfg.OthersBurst.Round(time.Microsecond), pairsTogether(k))
	case strings.Contains(r.Name, "affine attempts") && !over && k.LLCSize == 1:
		attempts, async := both("nr_wakeups_affine_attempts"), both("nr_wakeups")-both("nr_wakeups_sync")
		name := "not named"
		if async >= attempts {
			// The workload's wakeups without WF_SYNC are its processes'
			// other threads' (the traced runs: every one), which the
			// model's other threads never make: they wake nobody.
			name = "the other threads' wakeups of the workload, not modelled"
		}
		return fmt.Sprintf("%s: %.0f attempts in %.1f s (%.2f%% of the workload's wakeups); on one-cpu LLCs an attempt needs a waker or wakee with no wakee_flips (wake_wide()'s factor 1), "+
			"and every waker in the model carries the other threads' interrupt flips; the count keeps no waker, but its %.0f wakeups without WF_SYNC are where they can come from: "+
			"in the later traced runs of this guest and workload every such wakeup was made by another thread of the workload's processes, mostly onto another cpu than prev_cpu (an attempt, where wake_wide() lets it through: none did there), "+
			"and the model's other threads wake nobody (benchdata/2026-12-05-moves.md)",
			name, attempts, k.Seconds, 100*attempts/max(both("nr_wakeups"), 1), async)
	}
	return "not named: no mechanism the model lacks is known to move this quantity this way (docs/wakeup.md)"
}

// stackedByTheHost names, for a run with the wake trace on LLCs of more
// than one cpu, what keeps the guest's pairs stacked where the model's
// part: the cpus beside a stacked pair idle but for a wakeup queued to
// them (ttwu_pending), which select_idle_cpu() passes over. Under TCG a
// kicked idle vCPU is a host thread waiting to be run, longer the more
// vCPUs the host is running, while a stacked pair wakes its partner on
// its own cpu, with no IPI, and so runs fastest exactly where the LLC's
// other vCPUs wait longest (docs/wakeup.md, "The host's part"). The
// model draws each IPI's delay from the guest's spells
// (IdleWakeShape), independent of the host's load: its stacked pairs
// find an idle cpu beside them, and part. It covers the placement rows
// and the migrations and local wakeups that follow from them: a stacked
// pair migrates nobody at wakeup and queues a task for the balancer.
// "" where the run has no trace or the row is not one of those.
func stackedByTheHost(k *wakeups.Run, rows []WakeupRow, r WakeupRow) string {
	t := k.Wakes
	if t == nil || t.Stacked == 0 || k.LLCSize < 2 {
		return ""
	}
	row := func(name string) WakeupRow { return wakeupRow(rows, name) }
	stacked, parted := row(wStacked), row(wParted)
	pending, idle := row(wPending), row(wIdleMate)
	if !(stacked.Model < stacked.Kernel && parted.Model > parted.Kernel && idle.Model > idle.Kernel) {
		return ""
	}
	switch name := strings.TrimSpace(r.Name); {
	case name == wStacked, name == wParted,
		name == "migrations/s" && r.Model > r.Kernel, name == "wakeup migrations/s" && r.Model > r.Kernel,
		name == "balance migrations/s" && r.Model < r.Kernel:
	default:
		return ""
	}
	moves := ""
	if m := t.Moves; m != nil && m.Balanced > 0 && strings.TrimSpace(r.Name) == "balance migrations/s" {
		moves = fmt.Sprintf("; the balancer's moves of the workload (the move records): %d in %.1f s, %d of them cold, past sysctl_sched_migration_cost since they last ran (median wait %.0f µs), %s: tasks left waiting behind runs the host stretched",
			m.Balanced, k.Seconds, m.Cold(), m.WaitMedianUs, offWhom(m))
	}
	spells := ""
	if t.PendingMedianUs > 0 {
		spells = fmt.Sprintf(" (its pending spells: median %.0f µs, a twentieth past %.0f µs, of %d)", t.PendingMedianUs, t.PendingP95Us, t.PendingSpells)
	}
	return fmt.Sprintf("the emulator's host, not modelled: the guest's wakeups were stacked at %.1f %% (the model's %.1f %%), and its stacked pairs parted at %.1f %% of their wakeups (the model's %.1f %%): "+
		"at them a cpu of the LLC beside was idle at %.0f %% (the model's %.0f %%), and one idle but for a wakeup queued to it (ttwu_pending, its IPI not yet taken) at %.0f %% (the model's %.0f %%)%s; "+
		"under TCG a kicked idle vCPU is a host thread waiting to be run, the longer the more vCPUs run, while a stacked pair wakes its partner on its own cpu with no IPI, so it runs fastest where the cpus beside it wait longest; "+
		"the model draws each IPI's delay from the guest's spells, whatever the host runs, and its stacked pairs find an idle cpu and part, so fewer of its wakeups stay local (%.0f/s against %.0f) and more migrate, and fewer of its cpus hold two tasks for the balancer%s",
		stacked.Kernel, stacked.Model, parted.Kernel, parted.Model, idle.Kernel, idle.Model, pending.Kernel, pending.Model, spells, row("local wakeups/s").Model, row("local wakeups/s").Kernel, moves)
}

// pairsTogether says what brought the kernel's pairs onto one cpu on
// one-cpu LLCs, as far as the run shows it: with the wake trace, how many
// wakeups joined or parted a pair (select_idle_sibling() has no LLC to
// scan there; a sync wakeup wake_wide() lets through may still join by
// wake_affine()), the balancer's moves doing the rest.
func pairsTogether(k *wakeups.Run) string {
	t := k.Wakes
	if t == nil {
		return "this run has no wake trace to say what brings the kernel's pairs together"
	}
	if t.Joined > 0 || t.StackedParted > 0 {
		return fmt.Sprintf("the wake trace shows %d of its %d split wakeups joining a pair and %d of %d stacked ones parting one, the rest of the pairs' moves the balancer's",
			t.Joined, t.Wakes-t.Stacked, t.StackedParted, t.Stacked)
	}
	return fmt.Sprintf("the wake trace shows no wakeup bringing them together: none of its %d split wakeups joined a pair, none of %d stacked ones parted one, so the kernel's pairs meet by its balancer's moves alone",
		t.Wakes-t.Stacked, t.Stacked)
}

// coldPulls names, for a one-cpu-LLC run with the move records, how
// the kernel's pairs come together there and why the model's do not:
// the balancer pulls the workload's tasks cold, having waited past
// sysctl_sched_migration_cost behind a run the emulator's host
// stretched, where the model's queued wakees stay hot (docs/wakeup.md,
// "The balancer's moves on one-cpu LLCs").
func coldPulls(k *wakeups.Run, cfg wakeup.SimConfig, rows []WakeupRow) string {
	t, m := k.Wakes, k.Wakes.Moves
	var paths []string
	for _, p := range []struct{ key, what string }{
		{kernel.MoveTick, "at the idle cpu's tick"}, {kernel.MoveNohz, "by the nohz balancer"},
		{kernel.MoveNewidle, "newly idle"}, {kernel.MoveOther, "otherwise"},
	} {
		if n := m.ByPath[p.key]; n > 0 {
			paths = append(paths, fmt.Sprintf("%d %s", n, p.what))
		}
	}
	runs := "the trace's runs are not summed in this file"
	if t.WorkRuns > 0 && t.OtherRuns > 0 {
		runs = fmt.Sprintf("a task stayed current on its cpu a median %.0f µs, a hundredth of the time past %.0f µs (the other threads' runs: median %.0f µs, past %.0f µs a hundredth; their schedstat mean burst %s)",
			t.WorkRunMedianUs, t.WorkRunP99Us, t.OtherRunMedianUs, t.OtherRunP99Us, cfg.OthersBurst.Round(100*time.Nanosecond))
	}
	all := wakeupRow(rows, "balancer moves/s (all tasks)")
	whose := "these moves"
	if m.Moves > m.Balanced {
		whose = fmt.Sprintf("all %d of its moves (wakeups' too)", m.Moves)
	}
	return fmt.Sprintf("the emulator's host, not modelled: the kernel's balancer moved the workload's tasks %d times in %.1f s (%s), each from a cpu's queue: "+
		"%d of them had waited past sysctl_sched_migration_cost (500 µs) since they last ran (median %.0f µs), so can_migrate_task() took them at once (a hot task waits for cache_nice_tries failures), "+
		"%s; %d of %s joined a pair, %d parted one; "+
		"a wait that long is the guest's runs' tail: %s, under TCG a vCPU the host leaves unrun with its task current; "+
		"the model's tasks run their drawn think and service and the others their mean burst, so a wakee queued behind one has waited its sleep and that burst, under the migration cost, and stays hot: "+
		"the model's balancer moves %.1f tasks/s of all kinds against the kernel's %.1f",
		m.Balanced, k.Seconds, strings.Join(paths, ", "), m.Cold(), m.WaitMedianUs, offWhom(m), m.Joined, whose, m.Parted,
		runs, all.Model, all.Kernel)
}

// offWhom says what the old cpus ran as the balancer took the workload's
// tasks off them (the move records).
func offWhom(m *kernel.MoveTrace) string {
	return fmt.Sprintf("off a cpu running another thread %d times, the task's partner %d, another pair's task %d, an idle task not yet switched out %d",
		m.FromOther, m.FromPartner, m.FromWorkload, m.FromIdle)
}

func wakeIdle(c wakeup.SimConfig) string {
	if c.IdleWake == 0 {
		return "default"
	}
	return c.IdleWake.Round(time.Microsecond).String()
}
