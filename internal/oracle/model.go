package oracle

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench/balanceflag"
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/loadavg"
	"github.com/contend/contend/counter"
	"github.com/contend/contend/internal/kernel"
)

// ModelTolerance is how far the loadavg model may be from the kernel's
// count, as a factor either way, before the table says it misses. Not
// tighter, because the kernel's writes include paths the model leaves out
// (update_blocked_averages, attach and detach on a cgroup change) and a
// guest's events are spread over an emulator's stretched time, so the
// model is held to the count's size and to the direction 6.1 → 6.12 takes,
// not its digits; not looser, because a model off by more than half again
// would put the seed's finding on the wrong side.
const ModelTolerance = 1.5

// ModelOptions are how long each model runs per count, in kernel time,
// and the seed of its random draws.
type ModelOptions struct {
	Duration time.Duration
	Seed     uint64
	// MoveRun is a trial's loadavg.SimConfig.MoveRun: a moved task's run
	// on its new cpu before it sleeps, which no count measures (0: none,
	// the model's own).
	MoveRun time.Duration
	// TicksOnTime is a trial's: the model's busy ticks run on time where
	// the count's tick trace says they ran late (loadavg.SimConfig.TickLate).
	TicksOnTime bool
}

// WriteModelTable holds simulate loadavg, fed each count's measured rates
// and run for opt's kernel time and seed, against the KernelCount results in
// files: one row per quantity, kernel, model, model/kernel, and whether
// the ratio is within ModelTolerance. A file with no KernelCount result
// adds no rows; no rows at all is an error.
func WriteModelTable(w io.Writer, files []string, opt ModelOptions) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "kernel\tworkload\tquantity\tkernel\tmodel\tmodel/kernel\twithin ×%.1f\n", ModelTolerance)
	n := 0
	var runs []modelRun
	var outside []string
	for _, path := range files {
		counts, err := ReadCounts(path)
		if err != nil {
			return err
		}
		for _, kc := range counts {
			rows, run, err := modelRows(kc, opt)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if run.kc.V["wakeups/s"] > 0 {
				runs = append(runs, run)
			}
			for i, r := range rows {
				ratio := r.model / r.kernel
				within, shown := "yes", fmt.Sprintf("%.2f", ratio)
				switch {
				case r.kernel == 0 && r.model == 0:
					shown = "-" // two zeros agree: no flag on either side
				case !inside(ratio):
					within = "NO"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.3g\t%.3g\t%s\t%s\n", kc.Kernel, kc.Workload, r.name, r.kernel, r.model, shown, within)
				n++
				if within == "NO" {
					why := balanceMissing(kc, r, rows[run.loadavgRows:])
					if i < run.loadavgRows {
						why = loadavgMissing(run, r)
					}
					outside = append(outside, fmt.Sprintf("outside: %s %s %s (%.2fx): %s\n", kc.Kernel, kc.Workload, strings.TrimSpace(r.name), ratio, why))
				}
			}
		}
	}
	if n == 0 {
		return errors.New("no KernelCount results in the files")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, o := range outside {
		io.WriteString(w, o)
	}
	for _, r := range runs {
		writePaths(w, r.kc, r.cfg, r.row)
		if _, ok := r.kc.V["balances/s"]; ok && r.kc.BalanceOrder != "" {
			fmt.Fprintf(w, "balancer order: %s %s: %s, read from %s\n", r.kc.Kernel, r.kc.Workload, r.kc.BalanceOrder, r.kc.BalanceOrderFrom)
		}
	}
	// Where the model was not fed how long each task stays runnable (no
	// pairs workload: the seed's coin, whose tasks are queued about half
	// the time by construction), say so; docs/loadavg.md says what
	// that does to writes per enqueue.
	for _, r := range runs {
		if v, ok := r.kc.V["runnable-%"]; ok && r.cfg.Pairs == 0 {
			fmt.Fprintf(w, "duty: %s %s: the pingers were runnable %.1f %% of their time (the model's tasks: about 50 %%)\n", r.kc.Kernel, r.kc.Workload, v)
		}
	}
	return nil
}

// A CountResult is one KernelCount line of a results file WriteResults
// wrote: the kernel and workload it names, the config the model needs,
// and its values by unit.
type CountResult struct {
	Kernel, Workload string
	CPUs, HZ, Levels int
	Nodes            int // the counted machine's nodes (its provenance), taken as sockets
	Pairs            int
	Shape            string
	RateLimit        bool
	// BalanceOrder is the counted kernel's order of the balancer's flag
	// and its interval test, as balanceflag names it: "check-first" where
	// the kernel has 3324b2180c17 ("Skip sched_balance_running cmpxchg
	// when balance is not due": v6.19, and 6.18.y's backport), else
	// "cmpxchg-first" (6.1's spin_trylock() and v6.9's cmpxchg both take
	// the line before the test). BalanceOrderFrom says where it was read:
	// the kernel's own text (the sites file kernel sites wrote beside the
	// results, its balance-running form line) or, without one, the
	// release.
	BalanceOrder, BalanceOrderFrom string
	// IdleTick is how the counted kernel's idle loop decides the tick
	// (ksim.IdleLoop), and IdleTickFrom where that was read: the guest's
	// cpuidle driver (cpuidle-driver) and, without one, the idle loop's
	// form in the kernel's own text (the sites file beside the count, or
	// the count's kernel-idle-tick).
	IdleTick     ksim.IdleTickRule
	IdleTickFrom string
	// Domains are the counted guest's sched domains (cpu 0's, kernel
	// count's kernel-domains), nil in older files; NewidleCost their
	// max_newidle_lb_cost after the counted run (kernel-newidle-cost).
	Domains     []kernel.SchedDomain
	NewidleCost []time.Duration
	// Run is each of the count's runs' length (bare, counted, checked:
	// kernel count's -duration, from the command line it recorded).
	Run time.Duration
	// Date is when the count was made (its date: line), zero where the
	// file has none.
	Date time.Time
	V    map[string]float64
}

// threadStatsFixed is when kernel count began reading the workload's
// schedstats from its own threads, kept alive to be read (workload.Load.TIDs):
// counts before it read them after the pingers had exited.
var threadStatsFixed = time.Date(2026, 12, 5, 10, 5, 0, 0, time.UTC)

// runLength is the -duration of a recorded kernel count command line, or
// kernel count's default (5 s) where it has none.
func runLength(command string) time.Duration {
	f := strings.Fields(command)
	for i, a := range f {
		v, ok := strings.CutPrefix(a, "-duration=")
		if !ok && a == "-duration" && i+1 < len(f) {
			v, ok = f[i+1], true
		}
		if d, err := time.ParseDuration(v); ok && err == nil && d > 0 {
			return d
		}
	}
	return 5 * time.Second
}

// ReadCounts reads the KernelCount results of a results file, skipping
// every other benchmark; one without kernel-cpus, levels or pairs is an
// error naming it.
func ReadCounts(path string) ([]CountResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []CountResult
	rd := benchfmt.NewReader(f, path)
	for rd.Scan() {
		r, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		base, parts := r.Name.Parts()
		if string(base) != "KernelCount" {
			continue
		}
		kc := CountResult{V: map[string]float64{}, Workload: strings.Join(strings.Fields(strings.ReplaceAll(string(r.Name), "/", " "))[1:], "/")}
		for _, p := range parts {
			k, v, _ := strings.Cut(strings.TrimPrefix(string(p), "/"), "=")
			switch k {
			case "shape":
				kc.Shape = v
			case "pairs":
				kc.Pairs, _ = strconv.Atoi(v)
			case "levels":
				kc.Levels, _ = strconv.Atoi(v)
			}
		}
		kc.Kernel = r.GetConfig("kernel")
		kc.CPUs, _ = strconv.Atoi(r.GetConfig("kernel-cpus"))
		kc.Nodes, _ = strconv.Atoi(r.GetConfig("nodes"))
		kc.HZ, _ = strconv.Atoi(r.GetConfig("kernel-hz"))
		kc.RateLimit = r.GetConfig("kernel-rate-limit") == "yes"
		kc.Run = runLength(r.GetConfig("command"))
		kc.Date, _ = time.Parse(time.RFC3339, r.GetConfig("date"))
		for _, v := range r.Values {
			kc.V[v.Unit] = v.Value
		}
		if kc.CPUs < 1 || kc.Levels < 1 || kc.Pairs < 1 {
			return nil, fmt.Errorf("%s: %s lacks kernel-cpus, levels or pairs", path, r.Name)
		}
		kc.BalanceOrder, kc.BalanceOrderFrom = balanceOrder(filepath.Dir(path), kc.Kernel)
		if d := r.GetConfig("kernel-domains"); d != "" {
			if kc.Domains, err = kernel.ParseDomains(d); err != nil {
				return nil, fmt.Errorf("%s: %s: kernel-domains: %w", path, r.Name, err)
			}
		}
		for _, f := range strings.Fields(r.GetConfig("kernel-newidle-cost")) {
			ns, err := strconv.ParseInt(f, 10, 64)
			if err != nil || ns < 0 {
				return nil, fmt.Errorf("%s: %s: kernel-newidle-cost %q: want ns per domain", path, r.Name, f)
			}
			kc.NewidleCost = append(kc.NewidleCost, time.Duration(ns))
		}
		driver, driverFrom := countDriver(r.GetConfig("cpuidle-driver"), r.GetConfig("hypervisor"))
		kc.IdleTick, kc.IdleTickFrom = idleTick(filepath.Dir(path), kc.Kernel, driver, r.GetConfig("kernel-idle-tick"))
		if driverFrom != "" {
			kc.IdleTickFrom += " (" + driverFrom + ")"
		}
		out = append(out, kc)
	}
	return out, rd.Err()
}

type modelRow struct {
	name          string
	kernel, model float64
}

// balanceOrder reads the counted kernel's balancer order from the kernel's
// own text where kernel sites' output for that release lies beside the
// results (sites-RELEASE.txt, as scripts/vmlab.sh history keeps them): its
// balance-running form line, mapped to balanceflag's orders:
//
//   - the spinlock, or the cmpxchg before the interval test
//     (sched_balance_domains, v6.9 to 3324b2180c17): cmpxchg-first;
//   - the interval test and should_we_balance() first, in
//     sched_balance_rq, guarded by idle != CPU_NEWLY_IDLE (3324b2180c17
//     alone, periodic passes only): check-first;
//   - the same with no CPU_NEWLY_IDLE test in the guard (522fb20fbdbe:
//     newidle passes over an SD_SERIALIZE domain take the flag too):
//     check-first+newidle. Debian 6.18.15, 6.19.14, 7.0.13, 7.2.12 and
//     7.3.4 all read so (kernel sites; 7.2's and 7.3's linux-source
//     fair.c: "if (!need_unlock && (sd->flags & SD_SERIALIZE))").
//
// A sites file written before kernel sites read the guard (its form line
// names the test-first order but neither which passes) and a count with
// no sites file fall back on the release: 3324b2180c17 and 522fb20fbdbe
// landed together for v6.19 and came to 6.18.y in one stable review
// (2026-02-09), so v6.19 and later, and a test-first 6.18.y, are
// check-first+newidle; a 6.18.y without a sites file may or may not have
// the backport, so it, like every earlier release, is taken as
// cmpxchg-first and says so.
func balanceOrder(dir, release string) (order, from string) {
	const both = "3324b2180c17 and 522fb20fbdbe came together, to v6.19 and to 6.18.y"
	if b, err := os.ReadFile(filepath.Join(dir, "sites-"+release+".txt")); err == nil {
		text, file := string(b), "sites-"+release+".txt"
		switch {
		case strings.Contains(text, "form: interval test and should_we_balance() before the cmpxchg"):
			switch {
			case strings.Contains(text, "by newidle passes too"):
				return "check-first+newidle", file
			case strings.Contains(text, "by periodic passes only"):
				return "check-first", file
			}
			return "check-first+newidle", file + " (its form does not say which passes; " + both + ")"
		case strings.Contains(text, "form: cmpxchg before the interval test"), strings.Contains(text, "form: spinlock"):
			return "cmpxchg-first", file
		}
	}
	if kernelAtLeast(release, 6, 19) {
		return "check-first+newidle", "the release (" + both + ")"
	}
	return "cmpxchg-first", "the release (no sites file beside the count; a 6.18.y may have 3324b2180c17's backport)"
}

// countDriver is the counted guest's cpuidle driver: the count's own
// cpuidle-driver line, or, where an older file has none but its
// hypervisor line says QEMU's TCG (the lab's guests), "none", which every
// count of those guests that records the driver records
// (TestLabGuestsHaveNoDriver), with the note saying so.
func countDriver(driver, hypervisor string) (string, string) {
	if driver == "" && strings.HasPrefix(hypervisor, "TCG") {
		return "none", "the count, an older file, records no cpuidle driver: none taken, as every count of the lab's TCG guests that records it records none"
	}
	return driver, ""
}

// The idle loop's driver-less forms, as kernel sites' form line and kernel
// count's kernel-idle-tick say them.
const (
	idleFormStop      = "idle loop without a cpuidle driver: tick_nohz_idle_stop_tick() at every iteration"
	idleFormAfterTick = "idle loop without a cpuidle driver: the tick stops only after an iteration the tick ended"
)

// idleTick is the counted kernel's idle-loop tick rule and where it was
// read. A guest with a cpuidle driver asks its governor (menu); one
// without takes cpuidle_not_available()'s branch, whose form
// (f4c31b07b136, ksim.IdleTickAfterTick) comes from the kernel's text:
// the sites file beside the count, else the count's own reading. A count
// that recorded no driver (older files) is taken to have one, as the
// models did before the counts recorded it.
func idleTick(dir, release, driver, counted string) (ksim.IdleTickRule, string) {
	if driver != "none" {
		if driver == "" {
			return ksim.IdleTickGovernor, "no cpuidle-driver in the count (an older file): the governor taken"
		}
		return ksim.IdleTickGovernor, "cpuidle-driver " + driver
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sites-"+release+".txt")); err == nil {
		text, file := string(b), "sites-"+release+".txt"
		switch {
		case strings.Contains(text, idleFormAfterTick):
			return ksim.IdleTickAfterTick, file
		case strings.Contains(text, idleFormStop):
			return ksim.IdleTickStop, file
		}
	}
	switch counted {
	case "after-tick":
		return ksim.IdleTickAfterTick, "the count's kernel-idle-tick"
	case "stop":
		return ksim.IdleTickStop, "the count's kernel-idle-tick"
	}
	return ksim.IdleTickStop, "neither the sites file nor the count read the idle loop's form: cpuidle_not_available()'s branch before f4c31b07b136 taken"
}

// modelConfigAt is the simulation fed the count's own rates: its cpus and
// levels, an event (enqueue or dequeue) every 1/(2·enqueues per cpu per
// second), the measured migrations per wakeup, tasks per cpu from the
// workload's threads, the kernel's HZ, and the rate limit where the kernel
// has it (v6.7+: the rate preset, else base).
//
// The rate is given: the workload's wakeups per second (or, in older
// files, enqueue_task_fair's calls), of the counted or the checking run.
func modelConfigAt(kc CountResult, enqPerSec float64, opt ModelOptions) (loadavg.SimConfig, error) {
	perCPU := 2 * enqPerSec / float64(kc.CPUs)
	if perCPU <= 0 {
		return loadavg.SimConfig{}, errors.New("no enqueue rate")
	}
	threads := countPingers(kc)
	var mig loadavg.SimMig
	// A count that splits its migrations (nr_wakeups_migrate, from
	// 2026-12-05 12:00) feeds the wakeup path's alone as Mig, and the
	// rest, moves of a queued or running task (the balancer's, the
	// migrate shape's sched_setaffinity()), as the pairs' RunMoves.
	migs, moves := kc.V["migrations/wakeup"], 0.0
	if w, ok := kc.V["wakeup-migrations/wakeup"]; ok && w <= migs {
		migs, moves = w, kc.V["migrations/wakeup"]-w
	}
	pct := int(math.Round(100 * migs))
	if err := mig.Set(strconv.Itoa(min(max(pct, 0), 100))); err != nil {
		return loadavg.SimConfig{}, err
	}
	variant := "base"
	if kc.RateLimit {
		variant = "rate"
	}
	hz := countHZ(kc)
	cfg := loadavg.SimConfig{
		CPUs: kc.CPUs, Nodes: 1, Levels: kc.Levels, Duration: opt.Duration,
		Gap:   time.Duration(float64(time.Second) / perCPU),
		Mig:   mig,
		Tasks: max(1, int(math.Round(float64(threads)/float64(kc.CPUs)))),
		HZ:    hz, Seed: opt.Seed, Variants: []string{variant},
	}
	// The pipe, migrate and udp shapes are pairs of pingers (udp's over
	// connected loopback sockets, whose sock_def_readable() wakes the
	// reader WF_SYNC from the sender's own softirq, as pipe_write() does):
	// where the count measured their run and runnable shares, the model
	// runs them as pairs (loadavg's pairs workload), which realises the
	// wakeups fed. The server shape, clients of one server, is no pairs
	// and keeps the seed's workload.
	run, runnable := kc.V["run-%"]/100, kc.V["runnable-%"]/100
	if (kc.Shape == "pipe" || kc.Shape == "migrate" || kc.Shape == "udp") && run > 0 && runnable >= run && runnable <= 1 {
		cfg.Pairs, cfg.Run, cfg.Runnable, cfg.RunMoves, cfg.WakeupMig = kc.Pairs, run, runnable, min(moves, 1), min(migs, 1)
		// A moved task's run on its new cpu before it sleeps there. The
		// migrate shape's moves are its sched_setaffinity(): the
		// stopper's move_queued_task() queues the task there and kicks
		// that cpu, idle, whose wait to run it under TCG is a kicked
		// idle vCPU's, the count's pending spells' median (the wake
		// trace's, a measured quantity of the run); the syscall's return
		// and the loop to the next read after it are left out. The other
		// shapes' few run moves are the balancer's pulls, which the
		// pulling cpu runs at once: no wait. A count without the spells
		// sleeps the task at the move's instant. A trial's opt.MoveRun
		// stands in for it.
		if cfg.MoveRun = opt.MoveRun; cfg.MoveRun == 0 && kc.Shape == "migrate" {
			cfg.MoveRun = time.Duration(kc.V["pending-median-us"] * 1e3)
		}
		// The emulator's host leaves a busy vCPU unrun past its tick's
		// due time: the tick runs late, after a stretch with no
		// scheduler event on that cpu, and finds the running task's
		// cfs_rqs as they were before it. The lateness is the count's
		// tick trace's (busy-tick-lateness-us, its busy ticks' median
		// after their due time: a measured quantity of the run, no
		// write count); its spread, exponential about that median, is
		// the model's, which the count's busy-tick-lateness-period-%
		// holds (pathMissing sets the two side by side on a tick row
		// outside). A count without a tick trace runs its
		// ticks on time.
		if l := kc.V["busy-tick-lateness-us"]; l > 0 && !opt.TicksOnTime {
			cfg.TickLate = time.Duration(l * 1e3)
		}
		// The balance softirq's update_blocked_averages(), on busy and
		// idle cpus: its cadence from the lowest sched domain, the
		// guest's own (lowestDomain).
		cfg.DomainCPUs = lowestDomain(kc)
		// v6.12's DELAY_DEQUEUE (152e11f6df29, "sched/fair: Implement
		// delayed dequeue"), on by default (features.h:
		// SCHED_FEAT(DELAY_DEQUEUE, true)): the counted kernel's version.
		cfg.DelayDequeue = kernelAtLeast(kc.Kernel, 6, 12)
		// The wakeup preemption's rules: EEVDF's from v6.6 (147f3efaa241,
		// "sched/fair: Implement an EEVDF-like scheduling policy"), CFS's
		// before.
		cfg.EEVDF = kernelAtLeast(kc.Kernel, 6, 6)
		// The share of idle entries that stop the tick, where the count
		// has both (nohz_balance_enter_idle() and nohz_run_idle_balance()
		// kprobes): a measured input here, as wakeups/s is, never the
		// quantity compared (no loadavg row is a tick-stop count).
		stops, okStops := kc.V["nohz-tick-stops/s"]
		idles, okIdles := kc.V["nohz-run-idle/s"]
		if okStops && okIdles && idles > 0 && stops <= idles {
			cfg.TickStopShare, cfg.TickStopMeasured = stops/idles, true
		}
	}
	return cfg, nil
}

// lowestDomain is the counted guest's lowest sched domain's span: its
// own (kernel-domains) where the count has it, else a node's cpus (the
// lab's oracle-2n, whose LLC is its node).
func lowestDomain(kc CountResult) int {
	if len(kc.Domains) > 0 {
		return kc.Domains[0].Span
	}
	return max(kc.CPUs/max(kc.Nodes, 1), 1)
}

// kernelAtLeast says whether a kernel release ("6.12.117+deb12-amd64",
// uname -r) is major.minor or later; an unreadable one is not.
func kernelAtLeast(release string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(release, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// A modelRun is the loadavg simulation one count's first rows came from.
type modelRun struct {
	kc  CountResult
	cfg loadavg.SimConfig
	row loadavg.SimRow
	// loadavgRows is how many of the count's rows, the first, are the
	// loadavg model's (the balanceflag rows follow).
	loadavgRows int
}

func modelRows(kc CountResult, opt ModelOptions) ([]modelRow, modelRun, error) {
	// The workload's own wakeups are the model's events where the file
	// has them: enqueue_task_fair counts every task's enqueue, and in a
	// guest the machine's own tasks (the counting process, kernel
	// threads) enqueue 2-4 times as often as the hierarchy's, which
	// alone write tg->load_avg. Older files have only the enqueues.
	perWakeup := kc.V["wakeups/s"] > 0
	rate := kc.V["enqueue/s"]
	if perWakeup {
		rate = kc.V["wakeups/s"]
	}
	cfg, err := modelConfigAt(kc, rate, opt)
	if err != nil {
		return nil, modelRun{}, err
	}
	tab, err := loadavg.Simulate(cfg)
	if err != nil {
		return nil, modelRun{}, err
	}
	row := tab.Rows[0]
	run := modelRun{kc: kc, cfg: tab.Config, row: row}
	var rows []modelRow
	if perWakeup {
		// Per second too: a guest's ticks (HZ 250) update the running
		// task's cfs_rqs whatever the wakeups, so where wakeups are few
		// per tick, writes per wakeup mostly counts ticks.
		rows = append(rows,
			modelRow{"tg writes per workload wakeup (all sites)", kc.V["tg-writes/wakeup"], float64(row.Writes) / math.Max(float64(row.Wakeups), 1)},
			modelRow{"tg writes per cpu per s (all levels)", kc.V["tg-writes/s"] / float64(kc.CPUs), row.WritesPerCPUSec})
	} else {
		enq := math.Max(float64(row.Events)/2, 1)
		rows = append(rows,
			modelRow{"tg writes per enqueue (update_load_avg)", kc.V["ula-writes/enqueue"], float64(row.Writes) / enq},
			modelRow{"tg writes per enqueue (all sites)", kc.V["tg-writes/enqueue"], float64(row.Writes) / enq})
	}
	if perWakeup {
		rows = append(rows, pathRows(kc, row, tab.Config.Pairs > 0)...)
	}
	if kc.RateLimit && kc.V["ula-tests/enqueue"] > 0 {
		rows = append(rows, modelRow{"writes per 1 ms test (update_load_avg)",
			kc.V["ula-writes/enqueue"] / kc.V["ula-tests/enqueue"], float64(row.Writes) / math.Max(float64(row.Calls), 1)})
	}
	// Per level, from the checking run's watchpoints, the model fed that
	// run's rate (slower: its watchpoints): system.slice's writes and the
	// container's. The model's level 0 is the tasks' group (the
	// container), the kernel's depth 2.
	if l1, l2 := kc.V["check-l1-writes/wakeup"], kc.V["check-l2-writes/wakeup"]; kc.Levels == 2 && l1 > 0 && l2 > 0 && kc.V["check-wakeups/s"] > 0 {
		// The checking run's own run and runnable shares where the count
		// has them (kernel count from 2026-12-05); older files give the
		// counted run's.
		ck := kc
		if r, rn := kc.V["check-run-%"], kc.V["check-runnable-%"]; r > 0 && rn >= r {
			ck.V = maps.Clone(kc.V)
			ck.V["run-%"], ck.V["runnable-%"] = r, rn
		}
		cfg, err := modelConfigAt(ck, kc.V["check-wakeups/s"], opt)
		if err != nil {
			return nil, run, err
		}
		tab, err := loadavg.Simulate(cfg)
		if err != nil {
			return nil, run, err
		}
		lv, wk := tab.Rows[0].Levels, math.Max(float64(tab.Rows[0].Wakeups), 1)
		rows = append(rows,
			modelRow{"system.slice writes per wakeup (checking run)", l1, float64(lv[1].Writes) / wk},
			modelRow{"container writes per wakeup (checking run)", l2, float64(lv[0].Writes) / wk},
			modelRow{"system.slice / container writes (checking run)", l1 / l2, float64(lv[1].Writes) / math.Max(float64(lv[0].Writes), 1)})
	}
	run.loadavgRows = len(rows)
	return append(rows, balanceRows(kc, opt)...), run, nil
}

// loadavgMissing names what the loadavg model lacks for row r of count kc,
// fed cfg, should the row fall outside the tolerance: by the kernel's
// source, the mechanisms not modelled that move that quantity in that
// direction; docs/loadavg.md ("Rows still outside") has the counts
// that show each.
func loadavgMissing(run modelRun, r modelRow) string {
	if strings.Contains(r.name, "by path:") {
		return serverShape(run, placed(run, pathMissing(run, r)))
	}
	why := undercounted(run, serverShape(run, placed(run, loadavgWhy(run, r))))
	if g := pathGap(run); g != "" && (strings.HasPrefix(r.name, "tg writes") || strings.Contains(r.name, "update_load_avg's site")) {
		why += "; " + g
	}
	return why
}

// walkIdleShare is the share of the cpus in nohz.idle_cpus_mask idle at
// the count's kicks (kick-idle/kick over kick-masked/kick), kept above 0
// where measured, since 0 means unmeasured (ksim.TickPattern.WalkIdle).
func walkIdleShare(kc CountResult) float64 {
	m := kc.V["kick-masked/kick"]
	if m <= 0 {
		return 0
	}
	return min(max(kc.V["kick-idle/kick"]/m, 1e-6), 1)
}

// serverShape names, on a line that names nothing, the server shape's
// workload, which the model does not have: one UDP server thread that
// sleeps in recvfrom() between requests, answering client threads that
// each sleep in recvfrom() on its reply. The model runs the seed's coin
// workload for it (a task per cpu, an event per cpu per gap, never
// asleep), so its cpus go idle only where a coin says so and its group's
// tasks never switch with each other.
func serverShape(run modelRun, why string) string {
	return named(why, func() string {
		if !isServer(run) {
			return ""
		}
		return serverMissing(run)
	})
}

// isServer is whether run is a server count, which the model runs as the
// seed's coin workload (serverShape).
func isServer(run modelRun) bool {
	return run.kc.Shape == "server" && run.cfg.Pairs == 0 && run.kc.V["wakeups/s"] > 0
}

// serverMissing is serverShape's mechanism, with the count's figures.
func serverMissing(run modelRun) string {
	kc, row := run.kc, run.row
	return fmt.Sprintf("the server shape's transactions, not modelled: its %d clients of one server thread, each asleep on its reply, the server asleep between requests, run in the model as the seed's coin workload (%d task per cpu, idle %.0f %% of its event slots), where the guest's cpus made %.0f idle entries per cpu per s and its threads ran %.1f %% of their time; so the model has few idle cpus holding the group's blocked load (the blocked paths), no switch between two of the group's tasks (the switch path), and its enqueues and dequeues, and the load changes they write, fall where its coins do, not at the requests and replies",
		kc.Pairs, run.cfg.Tasks, 100*float64(row.Idle)/math.Max(float64(row.Idle+row.Events), 1), kc.V["nohz-run-idle/s"]/math.Max(float64(kc.CPUs), 1), kc.V["run-%"])
}

// undercounted names, on a line that names nothing, the inputs of a count
// made before kernel count read the workload's own threads
// (threadStatsFixed): the model was fed the Go runtime's threads' wakeups
// and shares and those of the pingers not yet exited. Every loadavg row
// divides by the wakeups or follows from the gap they give, so the row is
// the model's answer to another workload.
func undercounted(run modelRun, why string) string {
	return named(why, func() string {
		kc := run.kc
		if kc.Date.IsZero() || !kc.Date.Before(threadStatsFixed) || kc.V["wakeups/s"] <= 0 {
			return ""
		}
		return fmt.Sprintf("the count's own inputs, an undercount: counted %s, before kernel count read the workload's own threads, so it fed the model %.0f wakeups per cpu per s (a wakeup every %v on each cpu) and run and runnable shares of %.1f %% and %.1f %% that are not the pingers' (on the 6.12, 6.18 and 7.3 history counts, recounted with the fix, the wakeups were 6-18x the old figure and the pingers ran 51-60 %%: docs/loadavg.md, \"By path, and the counts' own inputs\")",
			kc.Date.Format("2006-01-02"), kc.V["wakeups/s"]/float64(kc.CPUs), run.cfg.Gap.Round(time.Microsecond), 100*run.cfg.Run, 100*run.cfg.Runnable)
	})
}

// idleLeafMissing names, for the blocked paths under, where the count's
// tick trace shows the guest's idle ticks finding the workload's leaf
// cfs_rq past a PELT period far more often than the model's (the row
// "idle ticks finding the leaf past a period"): "" where the count has
// no leaf ages or the shares agree.
func idleLeafMissing(run modelRun) string {
	k, ok := run.kc.V["idle-tick-crossed-%"]
	it := run.row.IdleTicks
	if !ok || it[0] == 0 {
		return ""
	}
	m := 100 * float64(it[1]) / float64(it[0])
	if k <= ModelTolerance*m {
		return ""
	}
	return fmt.Sprintf("the guest's idle stretches, not modelled: its idle ticks found the workload's leaf cfs_rq past a PELT period at %.0f %% of them (the tick trace's leaf ages), the model's at %.0f %%: a guest cpu stays idle across periods with the group's load on its cfs_rqs, so the update_blocked_averages() of its ticks decays them and writes, where the model's idles are short (the pairs alternate across their cpus at every ping: its idle entries per cpu per s beside the count's, the inputs line) and its idle ticks find the leaf updated within the period", k, m)
}

// groupTickWhy names a tick path under from the count's group tick
// records (kernel.TickTrace.SumGroupTicks: the ticks that found one of
// the workload's tasks running, read before entity_tick()) against the
// model's own: where their leaves crossed a period about as often as the
// model's, what is short is the writes those crossings make; else the
// crossings. writes is the guest's tick writes per cpu per s; "" where
// the count has no group tick records.
func groupTickWhy(run modelRun, writes float64) string {
	kc, row := run.kc, run.row
	kCrossed, ok := kc.V["group-tick-crossed-%"]
	secs := run.cfg.Duration.Seconds()
	if !ok || row.GroupTicks[0] == 0 || secs <= 0 {
		return ""
	}
	cpus := math.Max(float64(kc.CPUs), 1)
	levels := float64(max(kc.Levels, 1))
	mCrossed := 100 * float64(row.GroupTicks[1]) / float64(row.GroupTicks[0])
	mTicks := float64(row.GroupTicks[0]) / (cpus * secs)
	ps := row.Paths[counter.PathTick]
	mWrote := 100 * float64(ps.Writes) / math.Max(float64(ps.Updates), 1)
	figures := fmt.Sprintf("the guest's ticks that found a group task running found its leaf past a period at %.0f %% of them, a median %.0f µs old (group-tick-crossed-%%, group-tick-leaf-age-us: read before entity_tick()), the model's at %.0f %%, %.0f µs", kCrossed, kc.V["group-tick-leaf-age-us"], mCrossed, row.GroupAgeUs)
	if !inside(mCrossed / kCrossed) {
		return "the crossings at the group's ticks: " + figures
	}
	kTicks, ok := kc.V["group-ticks/s"]
	if !ok || kTicks <= 0 {
		return "not named: the crossings at the group's ticks hold (" + figures + "); the count has no group-ticks/s to say how many such ticks, nor so the writes per crossing"
	}
	kTicks /= cpus
	kWrote := 100 * writes / math.Max(kTicks*kCrossed/100*levels, 1e-9)
	if !inside(mTicks / kTicks) {
		return fmt.Sprintf("the group's ticks: %s; the guest's cpus took %.0f such ticks per cpu per s, the model's %.0f (its pingers' run share as the model realised it)", figures, kTicks, mTicks)
	}
	return fmt.Sprintf("the writes per crossing: %s, on %.0f and %.0f such ticks per cpu per s; so the guest's %.0f tick writes per cpu per s are %.0f %% of its crossings on %d levels, where the model's crossings write %.0f %% of the time: a crossing whose leaf waited longer has decayed further past contrib/64 (update_tg_load_avg()'s test), and that wait, the stall before a late tick, is longer in the guest than the model's stall drawn at the due time", figures, kTicks, mTicks, writes, kWrote, kc.Levels, mWrote)
}

// blockedCompounding names a blocked path over where the model's own
// figures beside the count's account for it: its balance softirqs per
// cpu (each runs update_blocked_averages()), the share of its idle ticks
// whose leaf had crossed a PELT period (what such an update finds to
// decay and write), and the wakeups it realised against those fed (the
// row is per workload wakeup). Each may be within ×1.5 and the row not:
// their product is named where it leaves the row within the tolerance of
// it, else it returns "".
func blockedCompounding(run modelRun, r modelRow) string {
	kc, row := run.kc, run.row
	cpus := math.Max(float64(kc.CPUs), 1)
	soft, okSoft := kc.V["balance-softirqs/s"]
	crossed, okCrossed := kc.V["idle-tick-crossed-%"]
	secs := run.cfg.Duration.Seconds()
	if !okSoft || !okCrossed || soft <= 0 || crossed <= 0 || row.IdleTicks[0] == 0 || row.Wakeups == 0 || secs <= 0 {
		return ""
	}
	mCrossed := 100 * float64(row.IdleTicks[1]) / float64(row.IdleTicks[0])
	fed, realised := kc.V["wakeups/s"]/cpus, float64(row.Wakeups)/(cpus*secs)
	fSoft, fCrossed, fWake := row.SoftirqsPerCPUSec/(soft/cpus), mCrossed/crossed, fed/realised
	prod := fSoft * fCrossed * fWake
	if prod <= 1 || !inside(r.model/r.kernel/prod) {
		return ""
	}
	return fmt.Sprintf("the model's softirqs and idle leaves, compounding: it ran %.0f balance softirqs per cpu per s against the count's %.0f (%.2fx), its idle ticks found the leaf past a period at %.0f %% against %.0f %% (%.2fx), and it realised %.0f of the %.0f wakeups per cpu per s fed (%.2fx per wakeup): together %.2fx of this row's %.2fx", row.SoftirqsPerCPUSec, soft/cpus, fSoft, mCrossed, crossed, fCrossed, realised, fed, fWake, prod, r.model/r.kernel)
}

// idleTicksWhy is the idle-tick row's line: how long a cpu's leaf went
// without an update at its idle ticks follows how long its idles last,
// so where the guest's idle entries per cpu per s and the model's are
// over 1.5x apart, the idles' lengths are named, with both counts.
func idleTicksWhy(run modelRun, over bool) string {
	k := run.kc.V["nohz-run-idle/s"] / math.Max(float64(run.kc.CPUs), 1)
	m := run.row.IdlesPerCPUSec
	dir := "fewer, so longer"
	if over {
		dir = "more, so shorter"
	}
	if k <= 0 || m <= 0 || inside(k/m) || (k < m) != !over {
		return fmt.Sprintf("not named: the guest's idle entries per cpu per s (%.0f) and the model's (%.0f) are within 1.5x of each other or apart the other way; what else updates an idle cpu's leaf (a wakee's enqueue there, a pair's move, the nohz balancer's blocked update on a tickless cpu) the count does not split", k, m)
	}
	return fmt.Sprintf("the idles' lengths: the guest's cpus made %.0f idle entries per cpu per s against the model's %.0f, %s idles than the model's, so its idle ticks find the leaf cfs_rq %s since its last update (the pairs' placement decides the model's: the inputs line)", k, m, dir, map[bool]string{false: "older", true: "fresher"}[over])
}

// carriers is what the count's move records say carries its stacked pairs
// between cpus, where it has them (balance-moves-cold-%), else an earlier
// count's.
func carriers(kc CountResult) string {
	cold, ok := kc.V["balance-moves-cold-%"]
	if !ok {
		return "a 6.1 count's move records: the balancer pulling a stacked pinger's partner off its cpu cold, past the migration cost, behind a run the emulator's host stretched"
	}
	return fmt.Sprintf("its move records: %.4f balancer moves per wakeup, %.0f %% of them cold, past the migration cost, %.0f %% off a cpu running the partner, behind runs the emulator's host stretched",
		kc.V["balance-moves/wakeup"], cold, kc.V["balance-moves-off-partner-%"])
}

// placed puts the pairs' placement (placementMissing) in place of a
// line that names no mechanism, where the count shows it.
func placed(run modelRun, why string) string {
	return named(why, func() string { return placementMissing(run) })
}

// named puts mechanism() in place of a line why that names none ("not
// named: ..."), the rest of the line beside it; mechanism is asked only
// then, and "" leaves the line as it is.
func named(why string, mechanism func() string) string {
	rest, ok := strings.CutPrefix(why, "not named: ")
	if !ok {
		return why
	}
	if m := mechanism(); m != "" {
		return m + "; beside it, " + rest
	}
	return why
}

// placementMissing names the pairs' placement where the count shows the
// guest's pingers sleeping onto their partner queued on their own cpu
// far more often than the model's: "" where the count predates the
// figures (kernel count from 2026-12-05 12:00: sleeps/wakeup) or the
// shares agree. A sleep whose cpu had nothing else to run is an idle
// entry, so idle entries per sleep is the share of sleeps that left the
// cpu idle, the guest's at most (its other tasks' sleeps idle cpus too).
func placementMissing(run modelRun) string {
	kc, row := run.kc, run.row
	sleeps, idles := kc.V["wakeups/s"]*kc.V["sleeps/wakeup"], kc.V["nohz-run-idle/s"]
	mw := float64(row.Wakeups)
	if run.cfg.Pairs == 0 || sleeps <= 0 || idles <= 0 || mw <= 0 || row.IdlesPerCPUSec <= 0 {
		return ""
	}
	kIdle := idles / sleeps
	mIdle := row.IdlesPerCPUSec * float64(run.cfg.CPUs) * run.cfg.Duration.Seconds() / mw
	// The wakeups onto the waking cpu say it directly, where the count
	// read them (nr_wakeups_local, from 13:00).
	kLocal, hasLocal := kc.V["local-wakeups/wakeup"]
	mLocal := float64(row.LocalWakeups) / mw
	stacked := hasLocal && kLocal > ModelTolerance*mLocal
	if mIdle <= ModelTolerance*kIdle && !stacked {
		return ""
	}
	local := ""
	if hasLocal {
		local = fmt.Sprintf("; %.0f %% of its wakeups landed on the waker's own cpu (nr_wakeups_local), the model's %.0f %%", 100*kLocal, 100*mLocal)
	}
	causes := ""
	if c := placementCauses(run); c != "" {
		causes = "; " + strings.TrimPrefix(c, "the pairs' placement, ")
	}
	return fmt.Sprintf("the pairs' placement, not modelled: the guest's pingers slept %.2f times per wakeup and left their cpu idle at %.0f %% of those sleeps (idle entries per sleep), the model's cpus made %.0f idle entries per 100 wakeups (a kept tick's iteration counted as an entry where the share of stops is measured): the guest's sleep onto their partner, queued on the same cpu (a WF_SYNC wakeup's pull to the waker's cpu, wake_affine_idle()'s \"if (sync && cpu_rq(this_cpu)->nr_running == 1) return this_cpu;\"), its wakees preempted at %.0f %% of wakeups (involuntary switches; the model's %.0f %%) and %.1f %% of them moved cpu (nr_wakeups_migrate)%s, where the model's pairs start split one task to a cpu and move by a drawn share; placed instead by ksim's select_task_rq_fair() from stacked starts (branch wip-pairs-wakeup-path), they stayed still and made 0.24-0.35x of the writes per wakeup of three recounted history guests: what carries the guest's stacked pairs between cpus is missing too (%s: docs/loadavg.md, \"What carries a stacked pair\")%s",
		kc.V["sleeps/wakeup"], 100*kIdle, 100*mIdle, 100*kc.V["preemptions/wakeup"], 100*float64(row.Preempted)/mw, 100*kc.V["wakeup-migrations/wakeup"], local, carriers(kc), causes)
}

// loadavgWhy is loadavgMissing's line for a row other than a path's.
func loadavgWhy(run modelRun, r modelRow) string {
	if why := overfilled(run, r); why != "" {
		return why
	}
	cfg := run.cfg
	over := r.model > r.kernel
	stops, counted := run.row.TickStopsPerCPUSec, run.kc.V["nohz-tick-stops/s"]/float64(run.kc.CPUs)
	leaf := idleLeafMissing(run)
	switch {
	case isServer(run):
		return serverMissing(run)
	case cfg.Pairs == 0:
		return olderFileMissing(run.kc)
	case strings.Contains(r.name, partedRow) || strings.Contains(r.name, joinedRow) || strings.Contains(r.name, placedRow) || strings.Contains(r.name, mateRow):
		return placementWhy(run, r)
	case strings.Contains(r.name, "onto the waker's cpu"):
		if p := placementMissing(run); p != "" {
			return p
		}
		if p := placementCauses(run); p != "" {
			return p
		}
		return "not named: the model stacks a pair by a drawn migration to its waker's cpu and parts it at the next wakeup that finds an idle cpu of the LLC within SIS_UTIL's budget (the inputs line); what else keeps the guest's pairs together or apart, the count does not say"
	case !over && counted > 0 && stops > ModelTolerance*counted:
		return fmt.Sprintf("the model's cpus stop their tick %.1fx as often as the count's (%.1f against %.1f per cpu per s, the inputs line), so fewer ticks and balance softirqs run: the idle loop's rule decides them (%v, from %s; ksim.IdleLoop), on the model's idle periods, whose lengths against the tick the count does not give", stops/counted, stops, counted, run.kc.IdleTick, run.kc.IdleTickFrom)
	case strings.Contains(r.name, "checking run") && !over && run.kc.V["check-run-%"] > 0:
		return fmt.Sprintf("the model ran the checking run's own shares (run %.1f %%, runnable %.1f %%) at its wakeup rate; the switch updates are modelled, and so is wakeup preemption among the group's tasks (the inputs line), but not the guest's other tasks' switches with the group's within a wait (the model runs one task outside the group per wait), nor their preemption of the group's running task", run.kc.V["check-run-%"], run.kc.V["check-runnable-%"])
	case strings.Contains(r.name, "checking run") && !over:
		return "the checking run's own run and runnable shares (its watchpoints slow the guest several-fold; the model takes the counted run's, the count has none of its own); the switch updates are modelled, and so is wakeup preemption among the group's tasks (the inputs line), but not the guest's other tasks' switches with the group's within a wait (the model runs one task outside the group per wait), nor their preemption of the group's running task"
	case strings.Contains(r.name, "system.slice / container"):
		return "a ratio: it moves with the container's writes of the same checking run, whose row says what they lack"
	case strings.Contains(r.name, "other sites") && over && blockedCompounding(run, r) != "":
		return blockedCompounding(run, r)
	case strings.Contains(r.name, "other sites") && over:
		return "not named: the leaf list is modelled (cfs_rq_is_decayed() takes a cfs_rq off once its load_sum is 0, after its load_avg and so its contribution reached 0, when update_tg_load_avg() has nothing left to write: it moved this row by under 5 %); the model's writes here are its balance softirqs' on ticking cpus with none of the group's tasks queued (docs/loadavg.md, \"Rows still outside\"), and the count has no calls at this site to tell fewer period crossings from fewer deltas past contrib/64; the model's softirqs and tick stops beside the count's are in the inputs line"
	case strings.Contains(r.name, "idle ticks finding the leaf"):
		return idleTicksWhy(run, over)
	case strings.Contains(r.name, "other sites") && !over && leaf != "":
		return leaf
	case cfg.DelayDequeue && over: // 6.12 among the counts
		return "not named: 6.12's DELAY_DEQUEUE is modelled (the inputs line has its delayed dequeues and requeues per wakeup; a delayed task whose cpu has nothing else to run is picked and fully dequeued at once, as pick_next_entity() does), and moved this row by 2 % or less; the moves of a running task (the migrate shape's sched_setaffinity() after every transaction, the stopper's move_queued_task(): its load detached at once) are modelled where the count splits its migrations (the inputs line's run moves)"
	case !over && cfg.TickStopMeasured:
		others := 0.0
		if wk := run.kc.V["wakeups/s"]; wk > 0 {
			others = max(run.kc.V["enqueue/s"]-wk, 0) / wk
		}
		return fmt.Sprintf("not named: the tick stops are the count's own share of idle entries (the model stops %.1f per cpu per s against %.1f counted, out of fewer idle entries: the inputs line); the switch updates, migrations (measured) and the leaf list are modelled, and wakeup preemption among the group's tasks by the version's rules (%.3f per wakeup here: stacked pingers' vruntimes stay within a run of each other); the guest's other tasks (%.2f enqueue_task_fair calls beyond the workload's per workload wakeup here) are not what is missing where a run with more of them per wakeup fits (count-oracle-2n-causes' 6.12 run, 5.20: docs/loadavg.md); left: their preemption of the group's running task, a put_prev_task_fair() and, on its return, a set_next_task_fair() of every level, which the count does not count (no sched_switch of a runnable prev)", stops, counted, float64(run.row.Preempted)/max(float64(run.row.Wakeups), 1), others)
	case !over && stops > 0:
		return fmt.Sprintf("the model's cpus stop their tick %.1f times per cpu per s (the inputs line; this count has no tick stops, the counts that do show 12-17x fewer than the model there), so fewer ticks and balance softirqs run: ksim.Governor is menu's with the softlockup watchdog its one timer, where the lab's guests have no cpuidle driver, so no governor runs and the tick stops unless tick_nohz_next_event() finds an event within a tick (timers, RCU callbacks, irq_work), which the model lacks", stops)
	case !over:
		return "not named: the switch updates are modelled (the paths line's switch), and wakeup preemption among the group's tasks (the inputs line); not modelled: the guest's other tasks' switches with the group's within a wait, and their preemption of the group's running task"
	}
	return "not named: no mechanism left out of the model moves this quantity up"
}

// overfilled says, for a per-second row under, that the model realised
// too few of the wakeups it was fed and would be within had it realised
// them: "" where that is not the row's case. What holds the model's rate
// back is not named: its pingers' runs are the count's, its waker runs
// on after the wakeup (pairSim.tail), and still, on some counts, they run
// less than the count's.
func overfilled(run modelRun, r modelRow) string {
	kc, cfg := run.kc, run.cfg
	fed := kc.V["wakeups/s"] / math.Max(float64(kc.CPUs), 1)
	realised := float64(run.row.Wakeups) / (math.Max(float64(cfg.CPUs), 1) * cfg.Duration.Seconds())
	if !strings.Contains(r.name, "per cpu per s") || r.model >= r.kernel || fed <= 0 || realised >= fed/1.1 {
		return ""
	}
	if ratio := r.model / r.kernel * fed / realised; !inside(ratio) {
		return ""
	}
	return fmt.Sprintf("not named: the model realised %.0f of the %.0f wakeups per cpu per s it was fed (%.0f %%), at which this row would be %.2fx; its pingers ran %.1f %% and were runnable %.1f %% of their time, the count's %.1f %% and %.1f %%: what holds the model's rate back (its runs are the count's length, its waker runs on after the wakeup) is not known",
		realised, fed, 100*realised/fed, r.model/r.kernel*fed/realised, run.row.RunPct, run.row.RunnablePct, kc.V["run-%"], kc.V["runnable-%"])
}

// pathMissing names what the model lacks on one path of the writes (a
// "by path" row: the count sampled update_load_avg()'s callers).
func pathMissing(run modelRun, r modelRow) string {
	kc, over := run.kc, r.model > r.kernel
	p, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(r.name), "by path: "), " ")
	mw := math.Max(float64(run.row.Wakeups), 1)
	ps := modelPath(run.row, p)
	calls, wrote := float64(ps.Updates)/mw, 100*float64(ps.Writes)/math.Max(float64(ps.Updates), 1)
	model := fmt.Sprintf("the model's %s path makes %.3f update_tg_load_avg() calls per wakeup, %.0f %% of them writing", p, calls, wrote)
	cpus := math.Max(float64(kc.CPUs), 1)
	leaf := idleLeafMissing(run)
	switch {
	case p == kernel.OtherPath:
		return "the model has no attach, detach or propagation outside enqueue and dequeue: attach_entity_cfs_rq(), detach_entity_cfs_rq() and propagate_entity_cfs_rq() on a task's cgroup or class change (task_change_group_fair(), switched_to_fair()), which the count's callers hold"
	case p == "tick" && !over:
		lp, ok := kc.V["busy-tick-lateness-period-%"]
		if !ok {
			return "not named: " + model + "; the count has no tick trace to say when its ticks ran (busy-tick-lateness-period-%)"
		}
		writes := r.kernel * kc.V["wakeups/s"] / cpus
		late := fmt.Sprintf("the guest's busy ticks ran a median %.0f µs after their due time (idle ticks %.0f µs), a period boundary within a busy tick's lateness %.0f %% of the time (busy-tick-lateness-period-%%); %.0f tick writes per cpu per s", kc.V["busy-tick-lateness-us"], kc.V["idle-tick-lateness-us"], lp, writes)
		if why := groupTickWhy(run, writes); why != "" && run.cfg.Pairs > 0 {
			return why + "; " + model + "; " + late
		}
		switch {
		case run.cfg.Pairs == 0:
			return "the emulator's late ticks, not modelled: " + model + "; " + late + ", where the model's ticks run on time: the " + kc.Shape + " shape runs the seed's workload, which has no runs to stall (only the pairs workload does)"
		case run.cfg.TickLate == 0:
			return "the emulator's late ticks, not modelled: " + model + "; " + late + ", where the model's ticks run on time (a trial's -ticks-on-time)"
		}
		// The model's late ticks (pairs' freeze): only the ticks that
		// find one of the group's tasks running stall, each by a
		// lateness exponential about the count's median. Where their
		// mean lateness in periods falls short of the count's, the
		// guest's lateness has a longer tail than that spread.
		mp := 100 * run.row.LatePeriod
		if mp < lp/ModelTolerance || run.row.LateTicks == 0 {
			return fmt.Sprintf("the emulator's late ticks' spread, not the exponential the model draws: %s; %s; the model's late ticks (%d, those that found a group task running) ran a period boundary within their lateness %.0f %% of the time, under the count's %.0f %%: the guest's lateness has more of its mass past a period than an exponential about its median", model, late, run.row.LateTicks, mp, lp)
		}
		return fmt.Sprintf("the stall's age at the tick, not modelled: %s; %s; the model's late ticks ran a period boundary within their lateness %.0f %% of the time (the count's %.0f %%), but each of its stalls starts at the tick's due time, where a guest's tick falls into a stall already under way (the longer a stall, the likelier a tick falls in it), so its cfs_rqs were last updated before the due time too, by as much again on average for an exponential stall", model, late, mp, lp)
	case (p == "blocked" || p == "blocked-entity") && !over && leaf != "":
		return leaf + "; " + model
	case (p == "blocked" || p == "blocked-entity") && over:
		if why := blockedCompounding(run, r); why != "" {
			return why + "; " + model
		}
		return fmt.Sprintf("not named: %s: its balance softirqs' update_blocked_averages() on ticking cpus with none of the group's tasks queued, where a cfs_rq's sums decay on (docs/loadavg.md, \"Rows still outside\"); the leaf list, which takes a decayed cfs_rq off, is modelled; the count has no calls on this path to tell fewer period crossings from fewer deltas past contrib/64", model)
	}
	dir := "under"
	if over {
		dir = "over"
	}
	if !over && r.kernel > calls {
		// Every call at most one write: the guest's writes alone
		// outnumber the model's calls, whatever the threshold.
		return fmt.Sprintf("not named: %s, under the kernel's %.3f writes alone: the model calls this path too seldom (it makes fewer updates here, or fewer of them cross a PELT period; the delta past contrib/64 aside), and which, the count does not show", model, r.kernel)
	}
	return fmt.Sprintf("not named: %s, %s the kernel's; the count gives this path's writes, not its calls, so fewer period crossings and fewer deltas past contrib/64 cannot be told apart", model, dir)
}

// olderFileMissing says what a count without the pairs workload's inputs
// lacks, by name, and why its other figures do not stand in for them:
// every row of such a file is the seed's coin fed every
// enqueue_task_fair call.
func olderFileMissing(kc CountResult) string {
	var lacks []string
	for _, u := range []string{"wakeups/s", "run-%", "runnable-%", "balances/s"} {
		if _, ok := kc.V[u]; !ok {
			lacks = append(lacks, u)
		}
	}
	why := fmt.Sprintf("the count has no %s (an older file): the model is fed every enqueue_task_fair call, the guest's own tasks' too, and runs the seed's coin workload, not the pairs", strings.Join(lacks, ", "))
	// A pipe transaction is two pipe writes, each waking the reader
	// blocked on it: two workload wakeups, each an enqueue_task_fair().
	if tx, enq := kc.V["tx/s"], kc.V["enqueue/s"]; (kc.Shape == "pipe" || kc.Shape == "migrate") && tx > 0 && 2*tx > enq {
		why += fmt.Sprintf("; its %.0f tx/s would be %.0f workload wakeups per s, more than its %.0f enqueue_task_fair calls per s, which count every wakeup, so neither figure stands in for the workload's wakeups (the file is oracle_test.go's cut-down fixture, not a lab run); the run and runnable shares cannot be derived at all; a recount with kernel count would have them", tx, 2*tx, enq)
	}
	return why
}

// pathRows splits the writes per workload wakeup by the kernel's sites:
// update_load_avg()'s lock add (every caller: enqueue, dequeue, tick, the
// blocked update of a group entity) and the rest, update_blocked_averages()'
// own and the cgroup-change paths' (attach_entity_cfs_rq and the like, which
// the workload reaches only when it moves its threads into the hierarchy,
// and the model not at all); and, where the count sampled
// update_load_avg()'s callers, by the model's paths, each a row.
func pathRows(kc CountResult, row loadavg.SimRow, pairs bool) []modelRow {
	ula, tg, wk := kc.V["ula-writes/enqueue"], kc.V["tg-writes/wakeup"], kc.V["wakeups/s"]
	if ula <= 0 || tg <= 0 || wk <= 0 {
		return nil
	}
	kULA := ula * kc.V["enqueue/s"] / wk
	mw := math.Max(float64(row.Wakeups), 1)
	var mULA, mRest float64
	for p, ps := range row.Paths {
		if counter.Path(p).InUpdateLoadAvg() {
			mULA += float64(ps.Writes)
		} else {
			mRest += float64(ps.Writes)
		}
	}
	rows := []modelRow{{"  of which update_load_avg's site", kULA, mULA / mw}}
	if rest := tg - kULA; rest > 0 {
		rows = append(rows, modelRow{"  of which the other sites (blocked, attach)", rest, mRest / mw})
	}
	// Where the kernel has the 1 ms test (v6.7+) it is update_tg_load_avg's
	// first instruction, so its count at update_load_avg's copy is that
	// site's calls: whether the model reaches update_tg_load_avg too often
	// (a period crossed, an attach, a propagation) or lets too many calls
	// through (the 1/64 threshold, the limit) is then told apart.
	if tests := kc.V["ula-tests/enqueue"]; kc.RateLimit && tests > 0 {
		var calls float64
		for p, ps := range row.Paths {
			if counter.Path(p).InUpdateLoadAvg() {
				calls += float64(ps.Updates)
			}
		}
		rows = append(rows, modelRow{"  update_load_avg's update_tg_load_avg calls", tests * kc.V["enqueue/s"] / wk, calls / mw})
	}
	// By path, where the count sampled update_load_avg()'s callers
	// (kernel count from 2026-12-05): each cause of the writes a row.
	// The pairs' placement, where the count read nr_wakeups_local (from
	// 2026-12-05 13:00): the wakeups onto the waking cpu, for pingers
	// the wakee stacked on its waker's.
	// Only the pairs count theirs: the seed's coin has no waker.
	if k, ok := kc.V["local-wakeups/wakeup"]; ok && pairs && row.Wakeups > 0 {
		rows = append(rows, modelRow{"  wakeups onto the waker's cpu (stacked), %", 100 * k, 100 * float64(row.LocalWakeups) / mw})
	}
	rows = append(rows, placementRows(kc, row.Place, row.Wakeups)...)
	if k, ok := kc.V["idle-tick-crossed-%"]; ok && row.IdleTicks[0] > 0 {
		rows = append(rows, modelRow{"  idle ticks finding the leaf cfs_rq past a period, %", k, 100 * float64(row.IdleTicks[1]) / float64(row.IdleTicks[0])})
	}
	// The tick path's cause: of the ticks that found one of the group's
	// tasks running, those whose leaf had crossed a period as they came
	// (the count's group tick records, read before entity_tick()).
	if k, ok := kc.V["group-tick-crossed-%"]; ok && row.GroupTicks[0] > 0 {
		rows = append(rows, modelRow{"  ticks finding a group task running, its leaf past a period, %", k, 100 * float64(row.GroupTicks[1]) / float64(row.GroupTicks[0])})
	}
	for _, p := range kernel.Paths {
		k, ok := kc.V[p+"-tg-writes/wakeup"]
		if !ok {
			break
		}
		rows = append(rows, modelRow{"    by path: " + p + " (" + pathCallers[p] + ")", k, float64(modelPath(row, p).Writes) / mw})
	}
	return rows
}

// pathCallers names the kernel functions behind each path's writes.
var pathCallers = map[string]string{
	"enqueue": "enqueue_task_fair", "dequeue": "dequeue_task_fair", "tick": "entity_tick",
	"blocked-entity": "a group entity's, update_blocked_averages", "blocked": "update_blocked_averages' own",
	"switch": "set_next_entity", kernel.OtherPath: "attach, detach, propagate",
}

// modelPath is the model's calls and writes on the kernel's path p (none
// for kernel.OtherPath, which the model has not).
func modelPath(row loadavg.SimRow, p string) counter.PathStats {
	for i, ps := range row.Paths {
		if counter.Path(i).String() == p {
			return ps
		}
	}
	return counter.PathStats{}
}

// pathGap says, for a total row of run outside, which paths hold the gap
// between kernel and model, per workload wakeup, largest first: "" where
// the count has no paths.
func pathGap(run modelRun) string {
	kc, mw := run.kc, math.Max(float64(run.row.Wakeups), 1)
	if _, ok := kc.V["enqueue-tg-writes/wakeup"]; !ok {
		return ""
	}
	type gap struct {
		p    string
		k, m float64
	}
	var gaps []gap
	total := 0.0
	for _, p := range kernel.Paths {
		g := gap{p, kc.V[p+"-tg-writes/wakeup"], float64(modelPath(run.row, p).Writes) / mw}
		gaps = append(gaps, g)
		total += math.Abs(g.k - g.m)
	}
	slices.SortStableFunc(gaps, func(a, b gap) int { return cmp.Compare(math.Abs(b.k-b.m), math.Abs(a.k-a.m)) })
	var parts []string
	for _, g := range gaps[:2] {
		parts = append(parts, fmt.Sprintf("%s %.3f → %.3f", g.p, g.k, g.m))
	}
	return fmt.Sprintf("by path (kernel → model per workload wakeup, the by-path rows), %s hold %.0f %% of the gap", strings.Join(parts, " and "), 100*(math.Abs(gaps[0].k-gaps[0].m)+math.Abs(gaps[1].k-gaps[1].m))/math.Max(total, 1e-12))
}

// writePaths writes, for each count, what the loadavg model was fed (the
// inputs beside its ratio: per-cpu wakeup rate and gap, migration share,
// tasks per cpu, HZ, the rate limit) and its writes per wakeup by the
// caller that issued them, with each caller's calls per wakeup and the
// share of them that wrote.
func writePaths(w io.Writer, kc CountResult, cfg loadavg.SimConfig, row loadavg.SimRow) {
	wk := math.Max(float64(row.Wakeups), 1)
	realised := float64(row.Wakeups) / (float64(cfg.CPUs) * cfg.Duration.Seconds())
	if cfg.Pairs > 0 {
		counted := "not counted"
		if v, ok := kc.V["balance-softirqs/s"]; ok {
			counted = fmt.Sprintf("%.0f counted", v/float64(kc.CPUs))
		}
		counted += fmt.Sprintf("; tick stops per cpu per s: model %.1f", row.TickStopsPerCPUSec)
		if v, ok := kc.V["nohz-tick-stops/s"]; ok {
			counted += fmt.Sprintf(", %.1f counted", v/float64(kc.CPUs))
		}
		counted += fmt.Sprintf(", of %.0f idle entries (model)", row.IdlesPerCPUSec)
		if v, ok := kc.V["nohz-run-idle/s"]; ok {
			counted += fmt.Sprintf(", %.0f counted", v/float64(kc.CPUs))
		}
		fmt.Fprintf(w, "model inputs: %s %s: %.0f wakeups per cpu per s (gap %v), mig %.2f %% (run moves %.4f per wakeup, drawn per sleep%s), %d pairs pinging, run %.1f %% and runnable %.1f %% of their time, %d levels, HZ %d, %s; the model realised %.0f wakeups per cpu per s, its pingers ran %.1f %% and were runnable %.1f %% of their time; balance softirqs (update_blocked_averages) per cpu per s: model %.0f, %s%s\n",
			kc.Kernel, kc.Workload, kc.V["wakeups/s"]/float64(kc.CPUs), cfg.Gap.Round(time.Microsecond), 100*cfg.WakeupMig, cfg.RunMoves, moveRunLine(kc, cfg), cfg.Pairs, 100*cfg.Run, 100*cfg.Runnable, cfg.Levels, cfg.HZ, cfg.Variants[0],
			realised, row.RunPct, row.RunnablePct, row.SoftirqsPerCPUSec, counted+preemptLine(kc, cfg, row), delayLine(cfg, row))
	} else {
		fmt.Fprintf(w, "model inputs: %s %s: %.0f wakeups per cpu per s (gap %v), mig %v %%, %d tasks per cpu, %d levels, HZ %d, %s; model idle %.0f %% of event slots, realised %.0f wakeups per cpu per s; not fed: the pingers ran %.1f %% and waited runnable %.1f %% of their time\n",
			kc.Kernel, kc.Workload, kc.V["wakeups/s"]/float64(kc.CPUs), cfg.Gap.Round(time.Microsecond), cfg.Mig, cfg.Tasks, cfg.Levels, cfg.HZ, cfg.Variants[0],
			100*float64(row.Idle)/math.Max(float64(row.Idle+row.Events), 1), realised, kc.V["run-%"], kc.V["runnable-%"]-kc.V["run-%"])
	}
	if kc.V["wakeups/s"] > 0 && !kc.Date.IsZero() && kc.Date.Before(threadStatsFixed) {
		fmt.Fprintf(w, "model inputs: %s %s: counted %s, before kernel count read the workload's own threads (%s): its wakeups, run and runnable shares are the Go runtime's threads' and the pingers' not yet exited, an undercount (docs/oracle.md)\n",
			kc.Kernel, kc.Workload, kc.Date.Format(time.RFC3339), threadStatsFixed.Format(time.RFC3339))
	}
	var parts []string
	for p, ps := range row.Paths {
		parts = append(parts, fmt.Sprintf("%s %.3f (%.3f calls, %.0f %% wrote)", counter.Path(p), float64(ps.Writes)/wk,
			float64(ps.Updates)/wk, 100*float64(ps.Writes)/math.Max(float64(ps.Updates), 1)))
	}
	ticks := ""
	if g := row.GroupTicks; g[0] > 0 {
		ticks = fmt.Sprintf("; ticks that found a group task running: %.0f per cpu per s, %.0f %% of them with the leaf past a period, its median age %.0f µs", float64(g[0])/(float64(cfg.CPUs)*cfg.Duration.Seconds()), 100*float64(g[1])/float64(g[0]), row.GroupAgeUs)
	}
	fmt.Fprintf(w, "model paths: %s %s: writes per wakeup by caller: %s%s\n", kc.Kernel, kc.Workload, strings.Join(parts, "; "), ticks)
}

// moveRunLine says how long a moved task runs on its new cpu before it
// sleeps there (loadavg.SimConfig.MoveRun) and where that comes from.
func moveRunLine(kc CountResult, cfg loadavg.SimConfig) string {
	switch {
	case cfg.RunMoves == 0:
		return ""
	case cfg.MoveRun == 0 && kc.Shape != "migrate":
		return ", each asleep at once on its new cpu: the balancer's pulls, which the pulling cpu runs at once"
	case cfg.MoveRun == 0:
		return ", each asleep at once on its new cpu: the count has no pending spells for the new cpu's wait to take it"
	case time.Duration(kc.V["pending-median-us"]*1e3) == cfg.MoveRun:
		return fmt.Sprintf(", each run %v on its new cpu before it sleeps: the new cpu's wait to take it, the count's pending spells' median", cfg.MoveRun.Round(time.Microsecond))
	}
	return fmt.Sprintf(", each run %v on its new cpu before it sleeps: a trial's (-move-run)", cfg.MoveRun.Round(time.Microsecond))
}

// delayLine says, for a model run with 6.12's DELAY_DEQUEUE, how many
// dequeues it delayed and how many wakeups requeued a delayed task, per
// workload wakeup.
func delayLine(cfg loadavg.SimConfig, row loadavg.SimRow) string {
	if !cfg.DelayDequeue {
		return ""
	}
	wk := math.Max(float64(row.Wakeups), 1)
	return fmt.Sprintf("; DELAY_DEQUEUE: %.3f dequeues delayed and %.3f wakeups requeued per wakeup", float64(row.Delayed)/wk, float64(row.Requeued)/wk)
}

// preemptLine says how many of a pairs run's wakeups preempted another of
// the group's tasks, by which version's rules.
func preemptLine(kc CountResult, cfg loadavg.SimConfig, row loadavg.SimRow) string {
	rule := "6.1's check_preempt_wakeup()"
	if cfg.EEVDF || cfg.DelayDequeue {
		rule = "EEVDF's check_preempt_wakeup_fair()"
	}
	line := fmt.Sprintf("; wakeup preemptions (%s): %.3f per wakeup", rule, float64(row.Preempted)/math.Max(float64(row.Wakeups), 1))
	if v, ok := kc.V["preemptions/wakeup"]; ok {
		line += fmt.Sprintf(", %.3f counted (involuntary switches, the tick's too)", v)
	}
	return line
}

// bfCAS is the cmpxchg handoff the balanceflag rows assume: no figure for
// a TCG guest's, and the rows compare counts of attempts and passes,
// which it does not change (only the time they take).
const bfCAS = 100 * time.Nanosecond

// bfNewidle is how often, in ticks, a busy cpu of the count's workload
// goes newly idle (SimConfig.Newidle). Each such walk pulls
// rq->next_balance in to an idle interval (sched_balance_newidle()'s
// update_next_balance() with busy 0), so the next busy tick runs the
// softirq. A cpu walks newidle each time it is about to go idle, so the
// measure is the count's idle entries per cpu per second (do_idle()'s
// nohz_run_idle_balance() calls) where it has them; else its wakeups per
// cpu per second, which are the idle entries only where a pinger's block
// leaves its cpu nothing to run (one thread to a cpu: the lab's 2 pairs on
// 4 cpus made 4744 idle entries against 5744 wakeups per second, where 4
// pairs on 4 cpus made 122 against 2362). Every tick (1) at one a tick or
// more; 0 (only a cpu turning idle for whole ticks) where the file has
// neither.
func bfNewidle(kc CountResult, hz int) int {
	w := kc.V["nohz-run-idle/s"] / float64(kc.CPUs)
	if w <= 0 {
		w = kc.V["wakeups/s"] / float64(kc.CPUs)
	}
	if w <= 0 {
		return 0
	}
	return max(1, int(math.Round(float64(hz)/w)))
}

// balanceRates are the balanceflag model's rates the rows compare, per
// second of kernel time: sched_balance_domains() walks (Softirqs), those
// run on an idle cpu's behalf, the kicks' IPIs to the nohz balancer, and the flag's
// attempts.
type balanceRates struct {
	passes, nohzPasses, walks, cas, ticks, idleTicks float64
	lb                                               [3]float64 // sched_balance_rq() calls by idle type
}

func ratesOf(r balanceflag.SimRow) balanceRates {
	return balanceRates{r.Softirqs, r.NohzPasses, r.KickIPIs, r.CAS, r.Ticks, r.IdleTicks, r.LBPasses}
}

// balanceAfterWarmup runs the balanceflag model fed cfg and returns its
// rates over cfg.Duration after a warm-up of warm, where the counted kernel
// throws the newidle dice: their statistics start as sd_init() sets them
// (a 50 % ratio) and settle over thousands of newidle calls, which the
// kernel had made before its counted window (the bare run of the same
// workload, warm long, came first). The simulation is deterministic, so
// the window's counts are a run of warm + Duration less a run of warm.
// Without the dice it is one run.
func balanceAfterWarmup(cfg balanceflag.SimConfig, warm time.Duration) (balanceRates, error) {
	run := func(d time.Duration) (balanceRates, error) {
		c := cfg
		c.Duration = d
		tab, err := balanceflag.Simulate(c)
		if err == nil && len(tab.Rows) == 0 {
			err = errors.New("balanceflag: no rows")
		}
		if err != nil {
			return balanceRates{}, err
		}
		return ratesOf(tab.Rows[0]), nil
	}
	if !cfg.NewidleRandom || warm <= 0 {
		return run(cfg.Duration)
	}
	all, err := run(warm + cfg.Duration)
	if err != nil {
		return all, err
	}
	first, err := run(warm)
	if err != nil {
		return all, err
	}
	a, f, d := (warm + cfg.Duration).Seconds(), warm.Seconds(), cfg.Duration.Seconds()
	after := func(x, y float64) float64 { return (x*a - y*f) / d }
	r := balanceRates{after(all.passes, first.passes), after(all.nohzPasses, first.nohzPasses),
		after(all.walks, first.walks), after(all.cas, first.cas), after(all.ticks, first.ticks), after(all.idleTicks, first.idleTicks), [3]float64{}}
	for t := range r.lb {
		r.lb[t] = after(all.lb[t], first.lb[t])
	}
	return r, nil
}

// bfNewidlePerTick is how many newidle walks a busy cpu makes in a tick
// that has them (SimConfig.NewidlePerTick): the count's idle entries per
// cpu per tick where they are one a tick or more (the lab's pipe pairs:
// 4-5), else 1. It sets how often the newidle dice are thrown, and so, with
// NI_RATE, how fast the ratio's rate part falls (newidleFeatures).
func bfNewidlePerTick(kc CountResult, hz int) int {
	w := kc.V["nohz-run-idle/s"] / float64(max(kc.CPUs, 1)) / float64(hz)
	return max(1, int(math.Round(w)))
}

// newidleFeatures says whether the counted kernel throws the newidle dice
// (sched_feat(NI_RANDOM), 33cf66d88306: v6.19, and 6.18.y from 6.18.5's
// backport) and adds the walk rate to the ratio (NI_RATE, 9fe89f022c05:
// v7.1), by its release. The Debian kernels' own sched_feat_names agree:
// NI_RANDOM in 6.18.15, 6.19.14, 7.0.13, 7.2.12 and 7.3.4, NI_RATE in 7.2
// and 7.3 only (read from their images and linux-source-7.2/7.3's
// features.h).
func newidleFeatures(release string) (random, rate bool) {
	ma, mi := 0, 0
	var y int
	fmt.Sscanf(release, "%d.%d.%d", &ma, &mi, &y)
	random = kernelAtLeast(release, 6, 19) || ma == 6 && mi == 18 && y >= 5
	return random, kernelAtLeast(release, 7, 1)
}

// countHZ is the count's CONFIG_HZ, or Debian's 250 where the count could
// not read it (kernel-hz: 0: the lab's guests expose no kernel config).
// Both models need it: the simulations' own default is 1000, a tick four
// times as often as the lab's kernels have, which is what made the first
// balanceflag rows 1.8× the kernel's passes.
func countHZ(kc CountResult) int {
	if kc.HZ == 250 || kc.HZ == 1000 {
		return kc.HZ
	}
	return 250 // Debian's CONFIG_HZ_250
}

// balanceRows holds simulate balanceflag, fed the count's cpus, nodes (as
// sockets, one node each, no SMT: the lab's oracle-2n), HZ (countHZ) and measured
// busy share, against the balancer's passes and its flag's attempts
// (6.12's cmpxchg, 6.1's trylock: each tried before the interval test,
// the model's cmpxchg-first order). No rows where the file has no
// balancer counts, or the model refuses the machine (say, cpus not a
// multiple of the nodes).
func balanceRows(kc CountResult, opt ModelOptions) []modelRow {
	busy := int(math.Round(kc.V["busy-%"]))
	if kc.V["balances/s"] <= 0 || busy < 1 {
		return nil
	}
	hz := countHZ(kc)
	newidle := bfNewidle(kc, hz)
	sockets, serialized := guestMachine(kc)
	cfg := balanceflag.SimConfig{
		CPUs: kc.CPUs, Sockets: sockets, SNC: 1, SMT: 1, HZ: hz, Busy: min(busy, 100), Newidle: newidle,
		Duration: opt.Duration, CAS: bfCAS, Seed: opt.Seed, Orders: []string{cmp.Or(kc.BalanceOrder, "cmpxchg-first")},
	}
	cfg.NewidleRandom, cfg.NewidleRate = newidleFeatures(kc.Kernel)
	cfg.Stacked = stackedShare(kc)
	// sched_balance_newidle()'s gate, rq->avg_idle against each domain's
	// max_newidle_lb_cost: the guest's costs where the count read them
	// (an emulator's run to tens of ms), and its mean idle as the sample
	// avg_idle follows (the idle share over the idle entries).
	cfg.NewidleCost = kc.NewidleCost
	if n := kc.V["nohz-run-idle/s"] / float64(kc.CPUs); n > 0 && len(kc.NewidleCost) > 0 {
		cfg.ShortIdle = min(time.Duration((100-kc.V["busy-%"])/100/n*1e9), time.Duration(ksim.HZ(hz).TickNs()-1))
	}
	cfg.NewidlePerTick = bfNewidlePerTick(kc, hz)
	cfg.IdleTick = kc.IdleTick
	// The guest's idles, far shorter than a tick, each begin after the
	// cpu's last tick: its idle ticks fall in fresh idles (freshIdle).
	cfg.FreshIdle = freshIdle(kc)
	cfg.IdlePull = idlePull(kc)
	cfg.IdleQueued = idleQueued(kc, cfg.IdlePull)
	cfg.TickCorr = tickCorr(kc)
	// The share of the cpus in nohz.idle_cpus_mask idle at a kick (the
	// tick trace's kick records): what a nohz walk finds of them
	// (ksim.TickPattern.IdleAtWalk), measured beside the passes the rows
	// compare, as the idle ticks' queued share is.
	cfg.WalkIdle = walkIdleShare(kc)
	cfg.NewidleShare = newidleShare(kc)
	m, err := balanceAfterWarmup(cfg, kc.Run)
	if err != nil {
		return nil
	}
	rows := []modelRow{
		{"balancer passes per s (busy " + strconv.Itoa(busy) + " %, newidle every " + strconv.Itoa(newidle) + " ticks)", kc.V["balances/s"], m.passes},
	}
	// By cause, where the count has _nohz_idle_balance()'s calls of the
	// pass (kernel count's on-behalf probe): the cpus' own passes and the
	// nohz balancer's on idle cpus' behalf.
	if nb, ok := kc.V["nohz-balances/s"]; ok {
		rows = append(rows,
			modelRow{"  of which the cpus' own passes per s", kc.V["own-balances/s"], m.passes - m.nohzPasses},
			modelRow{"  of which on idle cpus' behalf (nohz) per s", nb, m.nohzPasses})
		// The kicked walks those passes come from: nohz_csd_func(), the
		// kick's IPI reaching the chosen idle cpu, against the model's
		// kick_ilb() IPIs (balance kicks, and the NOHZ_STATS_KICK and
		// NOHZ_NEXT_KICK ones whose walks run no pass: ksim.Nohz.KickIPIs).
		if kicks, ok := kc.V["nohz-kick-ipis/s"]; ok {
			rows = append(rows, modelRow{"    from nohz balancer walks per s (kicked)", kicks, m.walks})
		}
	}
	// The tick stops (nohz_balance_enter_idle()'s calls: tick-sched.c
	// calls it when the tick stops, "!was_stopped &&"), and the idle cpus
	// the nohz balancer can walk: the mask's entries, the calls that find
	// rq->nohz_tick_stopped clear (a cpu stays in the mask until a busy
	// tick's nohz_balance_exit_idle(), however often it wakes and stops its
	// tick before one), counted as the mask's bts where the count has it.
	// The model stops the tick by the count's idle-loop rule (IdleTick).
	if ts, ok := kc.V["nohz-tick-stops/s"]; ok {
		if nt, err := balanceflag.SimulateNohz(cfg); err == nil && len(nt.Rows) > 0 {
			rows = append(rows, modelRow{"  tick stops per s (nohz_balance_enter_idle)", ts, nt.Rows[0].CallsPerSec})
			if sets, ok := kc.V["nohz-mask-entries/s"]; ok {
				rows = append(rows, modelRow{"  of which entering nohz.idle_cpus_mask per s", sets, nt.Rows[0].StopsPerSec})
			}
		}
	}
	// The idle pattern at the tick instants, which the model draws per
	// tick: the ticks that fire (sched_tick(), scheduler_tick() before
	// v6.10), and those that find the cpu idle (task_tick_idle(), the idle
	// class's task_tick): a busy cpu's tick always fires, an idle cpu's
	// until the idle loop stops it.
	if t, ok := kc.V["ticks/s"]; ok {
		rows = append(rows, modelRow{"ticks per s (sched_tick)", t, m.ticks})
		if it, ok := kc.V["idle-ticks/s"]; ok {
			rows = append(rows, modelRow{"  of which on idle cpus (task_tick_idle)", it, m.idleTicks})
		}
	}
	// The passes over a domain by the cpu's idle type: schedstat's
	// lb_count, sched_balance_rq()'s calls counted at entry, before
	// should_we_balance(), over every domain (ksim.Balance.LBCount).
	for t, k := range lbKinds {
		if v, ok := kc.V[k+"-lb/s"]; ok {
			rows = append(rows, modelRow{"sched_balance_rq() calls per s, " + lbRowNames[t], v, m.lb[t]})
		}
	}
	if !serialized {
		// No SD_SERIALIZE domain on the guest: no pass takes the flag
		// (sched_balance_domains(): "if (need_serialize) ..."), whatever
		// the simulation's top level did.
		m.cas = 0
	}
	return append(rows,
		modelRow{"flag attempts per s", kc.V["flag-ops/s"], m.cas},
		modelRow{"flag attempts per pass", kc.V["flag-ops/balance"], m.cas / math.Max(m.passes, 1)})
}

// stackedShare is the share of a busy cpu's ticks that find a second of
// the workload's tasks queued on it (rq->nr_running >= 2, the kick's own
// reason): the workload's waiting tasks at an instant (its pingers, each
// runnable but not running for runnable-% less run-% of its time, the
// count's schedstats) over the busy cpus (busy-%, /proc/stat), each
// waiting task on a cpu of its own. 0 where the count lacks the shares; the
// guest's other tasks, which stack too, are not counted.
func stackedShare(kc CountResult) float64 {
	run, runnable, busy := kc.V["run-%"], kc.V["runnable-%"], kc.V["busy-%"]
	if run <= 0 || runnable < run || busy <= 0 {
		return 0
	}
	waiting := float64(countPingers(kc)) * (runnable - run) / 100
	return min(1, waiting/(float64(kc.CPUs)*busy/100))
}

// countPingers is the workload's threads: both sides of each pair, or the
// server's clients and its one server (kernel count's pingers()).
func countPingers(kc CountResult) int {
	if kc.Shape == "server" {
		return kc.Pairs + 1
	}
	return 2 * kc.Pairs
}

// guestMachine is the balanceflag machine of the counted guest: its top
// level's groups as the simulation's sockets, and whether any of its
// domains has SD_SERIALIZE (sd_init() sets it on NUMA levels only). From
// the guest's own domains (kernel-domains) where the count has them: a
// one-node guest with two LLCs is two groups under a top level that takes
// no flag. Older files: a socket per node, serialized above one node.
func guestMachine(kc CountResult) (sockets int, serialized bool) {
	ds := kc.Domains
	if len(ds) < 2 {
		return max(kc.Nodes, 1), kc.Nodes > 1 || len(ds) == 0
	}
	serialized = slices.ContainsFunc(ds, func(d kernel.SchedDomain) bool { return d.Serialize })
	return max(ds[len(ds)-1].Span/max(ds[len(ds)-2].Span, 1), 1), serialized
}
