package wakeup

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
)

// The units the scenario reports beside ns/op. An operation is one wakeup
// (a try_to_wake_up() call, including the rare one that finds the task
// already awake).
var (
	Migrations = bench.Unit{Name: "migrations/op", Better: bench.Lower,
		Doc: "wakeups that placed the task on another cpu than it last ran on, per wakeup (counted)"}
	LinesPulled = bench.Unit{Name: "lines-pulled/op", Better: bench.Lower,
		Doc: "working-set lines a woken task's new cpu pulled from the cpu that last wrote them, per wakeup (counted)"}
	RemoteWakes = bench.Unit{Name: "remote-wakes/op", Better: bench.Lower,
		Doc: "wakeups queued on another cpu's wake list rather than run on the waking cpu, per wakeup (counted)"}
	CrossLLC = bench.Unit{Name: "cross-llc-%", Better: bench.Lower,
		Doc: "wakeups that moved the task to another last-level cache, per cent (counted)"}
	CrossNode = bench.Unit{Name: "cross-node-%", Better: bench.Lower,
		Doc: "wakeups that moved the task to another node, per cent (counted; made-up nodes on a fake topology)"}
	Noops = bench.Unit{Name: "noop-%", Better: bench.Lower,
		Doc: "wakeups that found the task already awake and did nothing, per cent"}
	// MigrationCost is in seconds, so that benchfmt never re-tidies it (it
	// tidies an "ns" unit only when the value is not zero, splitting one
	// unit in two); go test prints it in ns (benchtest.GoTestValue), which
	// reads back as this unit.
	MigrationCost = bench.Unit{Name: "sec/migration", Better: bench.Lower,
		Doc: "measured: extra run time of a task on a cpu it moved to over one it stayed on, seconds (median of sampled runs)"}
	// The kernel policies' decisions (wake=llcstats and wake=basic only).
	Affine = bench.Unit{Name: "affine-%", Better: bench.Lower,
		Doc: "wake_affine() calls that said yes (pull the task to the waking cpu), per cent (counted; wake=llcstats and basic)"}
	SISEarly = bench.Unit{Name: "sis-early-%", Better: bench.Higher,
		Doc: "select_idle_sibling() calls answered by a shortcut (an idle target, an idle prev sharing its LLC) before any scan, per cent (counted; wake=llcstats and basic)"}
	SISProbes = bench.Unit{Name: "sis-probes/op", Better: bench.Lower,
		Doc: "runqueues select_idle_cpu()'s scan probed, the target first, per wakeup (counted; wake=llcstats and basic)"}
	PerFiveSec = bench.Unit{Name: "migrations/5s", Better: bench.Lower,
		Doc: "migrations in 5 s of kernel time at the variant's rate= wakeups per second (seed 004's ~27K before, ~2K after)"}
	SeedSaving = bench.Unit{Name: "seed-mig-cpu-%", Better: bench.Lower,
		Doc: "share of one cpu that 25K migrations per 5 s (seed 004's saving) cost at this run's sec/migration"}
)

// Defaults, and the seed's rate. seedRate is seed 004's machine-wide wakeup
// rate, estimated: sysbench oltp's baseline 5655 transactions/s, each of
// about 20 statements (10 point selects, 4 ranges, 2 updates, a delete, an
// insert, begin and commit), each statement one wakeup of the server thread
// and one of the client: 5655 × 40 ≈ 226000 wakeups/s, 1.13M in 5 s, so the
// thread's ~27K migrations are 2.4% of wakeups and ~2K are 0.18%: mig=1.2
// and mig=0.09 under wake=affine.
const (
	seedRate     = 226000
	seedBefore   = 27000 // migrations per 5 s, unpatched
	seedAfter    = 2000  // patched
	maxLines     = 16384 // 1 MiB of working set per task
	maxTasks     = 64
	maxWorkingKB = 4096 // tasks × lines × 64 B per cpu
)

// keys are the variant's keys, in canonical order.
var keys = []bench.Key{
	{Name: "wake", Default: "affine", Domain: bench.OneOf(policyNames...),
		Doc: "where a woken task runs: the waking cpu (wake_affine said yes); where it last ran (the patch's 'otherwise meh'); an idle cpu of the waking cpu's LLC (select_idle_sibling); " +
			"llcstats: the pre-patch wake_affine_llc() (4.13 + 90001d67be2f + a731ebe6f17b), then select_idle_sibling(); basic: PeterZ's patched wake_affine(), then select_idle_sibling()"},
	{Name: "lines", Default: "16", Domain: bench.IntRange(1, maxLines),
		Doc: "the task's working set in cache lines, read and written by every run"},
	{Name: "mig", Default: "10", Domain: bench.Form("0..100", "at most two decimals", canonPercent),
		Doc: "percent of wakeups made on another cpu than the task's home (its partner's); under wake=affine about 2P% of wakeups migrate (away and back)"},
	{Name: "tasks", Default: "4", Domain: bench.IntRange(1, maxTasks),
		Doc: "sleeping tasks per cpu (tasks×lines ≤ " + strconv.Itoa(maxWorkingKB*1024/64) + ": " + strconv.Itoa(maxWorkingKB/1024) + " MiB per cpu)"},
	{Name: "rate", Default: strconv.Itoa(seedRate), Domain: bench.IntRange(1, 1_000_000_000),
		Doc: "machine-wide wakeups per second of kernel time, for migrations/5s only; " + strconv.Itoa(seedRate) + " is seed 004's, estimated"},
	// Added after results were recorded: left out of names at their
	// defaults, which are what the model did before them.
	{Name: "sync", Default: "0", Domain: bench.IntRange(0, 100), OmitDefault: true,
		Doc: "percent of wakeups flagged WF_SYNC (the waker sleeps soon after), which wake=llcstats and wake=basic read"},
	{Name: "llc", Default: "host", Domain: bench.Or(bench.OneOf("host"), bench.IntRange(1, 4096)), OmitDefault: true,
		Doc: "the model's LLCs: the host's caches, or N consecutive workers per LLC (1: every cpu its own, which 4.13 gives no LLC statistics, so wake=llcstats never pulls)"},
	// Added after the kernel policies: its default is the kernel's
	// behaviour, which wake=llcstats follows from then on; live is the
	// model's first, exact figures, kept for comparison.
	{Name: "stats", Default: "balance", Domain: bench.OneOf(statsNames...), OmitDefault: true,
		Doc: "the LLC statistics wake=llcstats reads: balance, 4.13's, snapshotted into sd_llc_shared by each cpu's busy load balance of its LLC (every 64×LLC-size ms); live, the runqueues read at the wakeup"},
}

// The stats= values, in the order of their index.
var statsNames = []string{"balance", "live"}

func init() {
	bench.Register(&bench.Spec{
		Name:       "wakeup",
		BenchName:  "Wakeup",
		Summary:    "the price of a wake_affine migration (seed 004): a woken task's working set follows it to the cpu the policy picks",
		Keys:       keys,
		HotSymbols: []string{"wakeupLoop", "touchLines"},
		Quick: []string{
			"wake=affine/lines=16/mig=10/tasks=4/rate=226000",
			"wake=prev/lines=16/mig=10/tasks=4/rate=226000",
			"wake=idle/lines=16/mig=10/tasks=4/rate=226000",
		},
		Full:       fullVariants(),
		Units:      []bench.Unit{Migrations, LinesPulled, RemoteWakes, CrossLLC, CrossNode, Noops, MigrationCost, PerFiveSec, SeedSaving, Affine, SISEarly, SISProbes},
		MinWorkers: 2,
		New:        func(v string) (bench.Scenario, error) { return newWakeup(v) },
		// The simulation's flags are still cmd/contend's
		// (simulate_wakeup.go).
		Simulate: &bench.Simulation{Usage: "wakeup"},
		Lab:      &bench.LabTest{Variant: "wake=affine/lines=16/mig=10/tasks=4/rate=226000"},
		Findings: []int{9},
	})
}

// fullVariants is the seed's experiment: the cost of a wakeup against the
// working set for the policy that moves the task and the one that leaves it,
// the idle-sibling policy at two sizes, and the seed's own migration rates at
// one working set: wake=affine/mig=1.2 makes about 27K migrations per 5 s at
// the seed's rate (2.4% of wakeups), wake=prev/mig=1.2 the same wakers with
// nothing moved, and wake=affine/mig=0.09 the seed's residual ~2K (fixed
// answers standing in for the policies); then the kernel's own decisions before and after the patch
// at one workload, whose migrations are the outcome.
func fullVariants() []string {
	const tail = "/tasks=4/rate=226000"
	var vs []string
	for _, w := range []int{1, 4, 16, 64, 256, 1024} {
		for _, wake := range []string{"affine", "prev"} {
			vs = append(vs, fmt.Sprintf("wake=%s/lines=%d/mig=10%s", wake, w, tail))
		}
	}
	for _, w := range []int{16, 256} {
		vs = append(vs, fmt.Sprintf("wake=idle/lines=%d/mig=10%s", w, tail))
	}
	return append(vs,
		"wake=affine/lines=256/mig=1.2"+tail,
		"wake=prev/lines=256/mig=1.2"+tail,
		"wake=affine/lines=256/mig=0.09"+tail,
		// The kernel's two policies at one workload (finding 9): every
		// wakeup sync, as sysbench's socket wakeups can be (doc.go,
		// WF_SYNC), on LLCs of one cpu, so that every away wakeup
		// crosses LLCs: one the patch judges, and one the pre-patch
		// code refuses for want of LLC statistics (an LLC of one cpu
		// has no sd_llc_shared).
		"wake=llcstats/lines=256/mig=1.2"+tail+"/sync=100/llc=1",
		"wake=basic/lines=256/mig=1.2"+tail+"/sync=100/llc=1",
	)
}

// A policy decides where a woken task runs.
type policy int8

const (
	wakeAffine policy = iota
	wakePrev
	wakeIdle
)

var policyNames = []string{"affine", "prev", "idle", "llcstats", "basic"}

// The parsed variant.
type config struct {
	wake  policy
	lines int
	mig   int // basis points: hundredths of a per cent
	tasks int
	rate  int
	sync  int  // per cent of wakeups WF_SYNC
	llc   int  // cpus per model LLC; 0: the host's
	live  bool // stats=live: wake=llcstats reads the runqueues, not the balance's snapshot
}

// parseConfig reads a variant into its configuration and canonical
// parameters.
func parseConfig(variant string) (config, *bench.Params, error) {
	p, err := bench.ParseParams("wakeup", variant, keys)
	if err != nil {
		return config{}, nil, err
	}
	c := config{wake: policy(p.Index("wake")), lines: p.Int("lines"), tasks: p.Int("tasks"), rate: p.Int("rate"), sync: p.Int("sync"),
		live: p.Index("stats") == 1}
	c.mig, _ = parsePercent(p.Get("mig")) // canonical, so valid
	if v := p.Get("llc"); v != "host" {
		c.llc, _ = strconv.Atoi(v) // canonical, so valid
	}
	if c.live && c.wake != wakeLLCStats {
		return c, nil, fmt.Errorf("wakeup: stats=live is read only by wake=llcstats, not wake=%s", policyName(c.wake))
	}
	if kb := c.tasks * c.lines * 64 / 1024; kb > maxWorkingKB {
		return c, nil, fmt.Errorf("wakeup: tasks=%d × lines=%d is %d KiB of working set per cpu (want tasks×lines ≤ %d, %d KiB)",
			c.tasks, c.lines, kb, maxWorkingKB*1024/64, maxWorkingKB)
	}
	return c, p, nil
}

// canonPercent spells a mig= value canonically: "2.40" and "002.4" are
// "2.4".
func canonPercent(v string) (string, error) {
	bp, err := parsePercent(v)
	if err != nil {
		return "", errors.New("not a per cent from 0 to 100 with at most two decimals")
	}
	return formatPercent(bp), nil
}

// parsePercent reads mig=: a per cent from 0 to 100 with at most two
// decimals ("2.4", "0.18", "100"), in basis points. Only digits and one
// point: no signs, exponents or spaces, so that every value has one
// canonical spelling (formatPercent) and a benchmark name reads back as
// itself.
func parsePercent(s string) (int, error) {
	bad := fmt.Errorf("mig=%q is not a percentage (want 0..100 with at most two decimals, e.g. 2.4)", s)
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 3 || (dot && (frac == "" || len(frac) > 2)) {
		return 0, bad
	}
	for _, r := range whole + frac {
		if r < '0' || r > '9' {
			return 0, bad
		}
	}
	w, _ := strconv.Atoi(whole)
	f, _ := strconv.Atoi((frac + "00")[:2])
	bp := w*100 + f
	if bp > 10000 {
		return 0, fmt.Errorf("mig=%s out of range [0, 100]", s)
	}
	return bp, nil
}

// formatPercent writes basis points as the shortest decimal per cent.
func formatPercent(bp int) string {
	s := strconv.Itoa(bp / 100)
	if f := bp % 100; f != 0 {
		s += strings.TrimSuffix(fmt.Sprintf(".%02d", f), "0")
	}
	return s
}

func newWakeup(variant string) (*wakeup, error) {
	c, p, err := parseConfig(variant)
	if err != nil {
		return nil, err
	}
	return &wakeup{cfg: c, variant: p.String()}, nil
}

func (s *wakeup) Variant() string { return s.variant }

// Notes says what a fake topology's node crossings are, and how big the
// working sets are.
func (s *wakeup) Notes() []string {
	notes := []string{fmt.Sprintf("working set: %d tasks × %d lines = %d KiB per cpu", s.cfg.tasks, s.cfg.lines, s.cfg.tasks*s.cfg.lines*s.line/1024)}
	if s.fake != "" {
		notes = append(notes, "topology "+s.fake+": cross-node-% counts moves between made-up nodes; every cpu still shares the real machine's caches and memory")
	}
	if s.lay != nil && s.derived && s.cfg.llc == 0 {
		notes = append(notes, "LLCs: the kernel reports no shared cache for some cpus, so the model takes the scheduler's sd_llc for them, as arm64's cpu_coregroup_mask() derives it (the smaller of the node and the package), and cross-llc-% counts moves between those; llc=N gives the model LLCs of its own")
	}
	if s.lay != nil && !s.llcsKnown() {
		notes = append(notes, "LLCs: the kernel reports no shared cache for some cpus (no LLC in the topology), so cross-llc-% is left out and the policies take those cpus for one LLC; llc=N gives the model LLCs of its own")
	}
	if s.cfg.wake == wakeLLCStats && s.lay != nil {
		notes = append(notes, s.statsNote())
	}
	return notes
}

// llcsKnown reports whether every model cpu has an LLC: llc=N, or a topology
// that names one for each worker's cpu. Where it does not (an arm64 guest
// whose kernel reports only L1s, a run without a topology), a move between
// LLCs cannot be told from a move inside one, and cross-llc-% would claim 0.
func (s *wakeup) llcsKnown() bool { return !slices.Contains(s.lay.llc, -1) }

// statsNote says what LLC statistics the pre-patch policy read in the run:
// how many balances wrote them, or that there were none to read.
func (s *wakeup) statsNote() string {
	if s.cfg.live {
		return "LLC statistics: stats=live, the runqueues at each wakeup (4.13 read a load balance's snapshot)"
	}
	var balances int64
	for _, w := range s.workers {
		if w != nil {
			balances += w.balances
		}
	}
	if !slices.ContainsFunc(s.lay.shared, func(sh *llcShared) bool { return sh != nil }) {
		return "LLC statistics: none (every LLC is one cpu, so no sd_llc_shared: the pre-patch wake_affine() says no to every wakeup)"
	}
	return fmt.Sprintf("LLC statistics: sd_llc_shared as the LLC's busy load balances wrote it, %d times in the run's kernel time", balances)
}

// Finish checks the run's bookkeeping against the working sets themselves
// and reports the metrics.
func (s *wakeup) Finish(res *bench.Result) error {
	var c counts
	perFive := 0.0
	for _, w := range s.workers {
		c.add(&w.counts)
		perFive += ktime.PerSecond(w.migrations, w.attempts*w.gap) * 5
	}
	if c.attempts != res.Ops {
		return fmt.Errorf("wakeup: workers made %d wakeups, runner counted %d operations", c.attempts, res.Ops)
	}
	if err := s.check(&c); err != nil {
		return err
	}
	ops := float64(max(c.attempts, 1))
	res.AddMetric(Migrations, float64(c.migrations)/ops)
	res.AddMetric(LinesPulled, float64(c.moved*int64(s.cfg.lines))/ops)
	res.AddMetric(RemoteWakes, float64(c.remoteWakes)/ops)
	if s.llcsKnown() {
		res.AddMetric(CrossLLC, 100*float64(c.crossLLC)/ops)
	}
	res.AddMetric(CrossNode, 100*float64(c.crossNode)/ops)
	res.AddMetric(Noops, 100*float64(c.noops)/ops)
	res.AddMetric(PerFiveSec, perFive)
	if c.sisCalls > 0 {
		res.AddMetric(Affine, 100*float64(c.affine)/float64(max(c.affineTries, 1)))
		res.AddMetric(SISEarly, 100*float64(c.sisTarget+c.sisPrev)/float64(c.sisCalls))
		res.AddMetric(SISProbes, float64(c.probes)/ops)
	}
	if cost, ok := s.migrationCost(); ok {
		res.AddMetric(MigrationCost, cost)
		res.AddMetric(SeedSaving, 100*cost*(seedBefore-seedAfter)/5)
	}
	return nil
}

// migrationCost is the median time of the sampled runs of tasks that moved
// less that of tasks that stayed, in seconds; false until both were sampled.
func (s *wakeup) migrationCost() (float64, bool) {
	var moved, stay []int64
	for _, w := range s.workers {
		moved = append(moved, w.movedT.ns...)
		stay = append(stay, w.stayT.ns...)
	}
	if len(moved) == 0 || len(stay) == 0 {
		return 0, false
	}
	return (median(moved) - median(stay)) * 1e-9, true
}

// median sorts xs and returns its median.
func median(xs []int64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return float64(xs[n/2])
	}
	return float64(xs[n/2-1]+xs[n/2]) / 2
}

// check holds the counters to what the working sets say happened: every run
// wrote each line of its task once, every wakeup was run or is still queued,
// a task that is asleep ran where it was last placed, and the migrations the
// wakers counted are the moves the runners found (task.ran) or still queued.
func (s *wakeup) check(c *counts) error {
	if c.noops+c.wakeups != c.attempts {
		return fmt.Errorf("wakeup: %d wakeups and %d no-ops do not add up to %d attempts", c.wakeups, c.noops, c.attempts)
	}
	var pending, pendingMoves, runs int64
	for _, t := range s.tasks {
		for i := range s.cfg.lines {
			if got := t.words[i*t.stride]; got != uint64(t.runs) {
				return fmt.Errorf("wakeup: task %d line %d was written %d times, task ran %d times", t.idx, i, got, t.runs)
			}
		}
		runs += t.runs
		cpu := t.cpu.Load()
		switch {
		case t.state.Load() != 0:
			pending++
			if cpu != t.ran {
				pendingMoves++
			}
		case cpu != t.ran:
			return fmt.Errorf("wakeup: task %d sleeps placed on cpu %d but last ran on %d", t.idx, cpu, t.ran)
		}
	}
	if runs != c.runs || c.runs+pending != c.wakeups {
		return fmt.Errorf("wakeup: %d wakeups, %d runs (%d by the tasks' own count), %d still queued", c.wakeups, c.runs, runs, pending)
	}
	if c.moved+pendingMoves != c.migrations {
		return fmt.Errorf("wakeup: %d migrations, but %d runs of a moved task and %d moved tasks still queued", c.migrations, c.moved, pendingMoves)
	}
	return nil
}
