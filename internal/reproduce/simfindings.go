package reproduce

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/contend/contend/internal/reproduce/rule"

	"github.com/contend/contend/bench/balanceflag"
	"github.com/contend/contend/bench/idlemask"
	"github.com/contend/contend/bench/loadavg"
)

// The simulations at the seeds' sizes. Each runs its model as contend
// simulate does, at the machine the seed measured on, and judges the
// figures the model counts; where the pinned criterion is a time (ns per
// event), the simulated one is the count that time stands for, said in
// its criterion. quick runs each for a quarter of the kernel time: the
// counts settle within a few PELT half-lives or ticks, so the verdicts
// agree, and -quick says so in its output.

// A SimBudget is the share of each simulation's full kernel time a run
// spends: 1, or QuickSims for reproduce -quick. Tests run smaller still.
type SimBudget float64

// The budgets reproduce runs: every simulation's full kernel time, or a
// quarter of it for -quick.
const (
	FullSims  SimBudget = 1
	QuickSims SimBudget = 0.25
)

// duration is the kernel time of a simulation whose full run is full, at
// least min (the model's own floor).
func (b SimBudget) duration(full, min time.Duration) time.Duration {
	return max(time.Duration(float64(full)*float64(b)), min)
}

func (b SimBudget) quick() bool { return b < 1 }

// tgWeightSlack is how far a load_avg fix may let calc_group_shares()'s
// tg_weight drift from the truth, in percentage points above its baseline's
// error, before it counts as no longer tracking it. The kernel gives no
// such bound: update_tg_load_avg()'s 1/64 threshold (1.6%) is what it
// tolerated before the rate limit, and the rate limit trades accuracy on
// purpose ("they both reduced the tracking accuracy ... result seem to
// suggest it's not bad", 000's cover letter): a cfs_rq's contribution may be
// a millisecond old, and in a millisecond a migrating task's whole load can
// arrive or leave. So the guard is a line between a fix that tracks coarser
// and one that stops tracking, not a tuning: the merged limit's error on
// the seed's workload is a few per cent (simulated on 224 cpus: 3.3% at
// the container's level, 7.8% at system.slice's against 6.6% before it; a
// pinned 2-worker run shows about 5%), while a counter that stops being
// written drifts by tens of per cent within PELT's 32 ms half-life. Ten
// points sits between them and is stated, not derived.
const tgWeightSlack = 10.0

// simRateLimit is finding 1 at the seed's size: base and rate on 224 cpus,
// 2 nodes, the docker hierarchy (levels=2), the seed's workload as
// contend simulate loadavg takes it by default.
func simRateLimit(b SimBudget) *SimVerdict {
	const size = "224 cpus, 2 nodes, levels=2 (seed 000's Sapphire Rapids and docker hierarchy)"
	cfg := loadavg.SimConfig{CPUs: 224, Nodes: 2, Levels: 2, Duration: b.duration(time.Second, 10*time.Millisecond), Variants: []string{"base", "rate"}}
	tab, err := loadavg.Simulate(cfg)
	if err != nil {
		return rule.Failed(size, err)
	}
	base, rate := tab.Rows[0], tab.Rows[1]
	c := tab.Config
	v := &SimVerdict{Size: size + fmt.Sprintf(", %v of kernel time scaled to 5 s", c.Duration),
		Assumptions: []string{
			fmt.Sprintf("an event every %v per cpu (the seed's 14M wakeups in 5 s on 224 cpus), %d tasks per cpu, mig=%v%% (its 11M migrations per 14M wakeups), HZ=%d", c.Gap, c.Tasks, c.Mig, c.HZ),
			"the seed does not say whether its \"~10M → ~25k\" counted one group's writes or every level's: the claim reads both levels' writes summed",
		}}
	rule.Judge(v,
		// "from some 10 millions during a 5s window to ~25k" (000, v2).
		[]rule.Figure{{What: "tg->load_avg writes per 5 s, both levels", Before: base.WritesPer5s, After: rate.WritesPer5s, Kind: Lower, Min: 10e6 / 25e3}},
		[][]rule.Figure{{{What: "tg->load_avg writes per 5 s, both levels", Before: base.WritesPer5s, After: rate.WritesPer5s, Kind: Lower, Min: 2}}},
		[]rule.Figure{{What: "tg_weight error %, the tasks' group", Before: base.TGWeightErr, After: rate.TGWeightErr, Kind: NoWorseBy, Min: tgWeightSlack, Doing: "keeping tg_weight current"}})
	// The merged limit lets every cfs_rq write once a millisecond, and at
	// the seed's event rate each one wants to far more often: its floor
	// is the cap itself.
	capPer5s := float64(c.CPUs) * float64(c.Levels) * 5 * 1000
	v.Why += fmt.Sprintf("; the merged limit (one write per cfs_rq per ms) allows %s writes per 5 s on %d cpus × %d levels, and the model writes %s: the seed's ~25k is about %.0f writes per cpu per second, one in %.0f ms, which no cap of the merged code gives; it must count something else (one cpu's writes, a sampled count, or Aaron Lu's first sketch timed by cfs_rq_clock_pelt()), for the kernel oracle (contend kernel) to count on a real kernel",
		perFive(capPer5s), c.CPUs, c.Levels, perFive(rate.WritesPer5s), 25e3/5/float64(c.CPUs), 1000/(25e3/5/float64(c.CPUs)))
	return v
}

// simIdleMask is finding 6 at the seed's size: 192 cpus in 4 LLCs of 48,
// 2 threads a core, uperf's 80 idle entries between ticks,
// select_idle_sibling()'s shortcuts on (the kernel's; the pinned finding
// runs early=on too) and its SMT search (the pinned finding runs smt=1).
func simIdleMask(b SimBudget) *SimVerdict {
	const size = "192 cpus in 4 LLCs of 48 (seed 003's 4-socket machine)"
	tab, err := idlemask.Simulate(idlemask.SimConfig{Duration: b.duration(50*time.Millisecond, 2*time.Millisecond)})
	if err != nil {
		return rule.Failed(size, err)
	}
	row := func(variant string) *idlemask.SimRow {
		for i := range tab.Rows {
			if strings.HasPrefix(tab.Rows[i].Variant, variant+"/") {
				return &tab.Rows[i]
			}
		}
		return nil
	}
	before, v5, lastState, noFilter := row(imScanAll.variant), row(imScanMask.variant), row(imLastState.variant), row(imNoFilter.variant)
	if before == nil || v5 == nil || lastState == nil || noFilter == nil {
		return rule.Failed(size, fmt.Errorf("the simulation has no row for one of %s, %s, %s, %s", imScanAll.variant, imScanMask.variant, imLastState.variant, imNoFilter.variant))
	}
	c := tab.Config
	v := &SimVerdict{Size: size + fmt.Sprintf(", %v of kernel time", c.Duration),
		Assumptions: []string{
			fmt.Sprintf("busy=%d%%, wake=%d%%, %d idle entries a cpu between ticks (\"uperf enters and exits 80 times between two ticks\"), HZ=%d", c.Busy, c.Wake, c.Entries, c.HZ),
			fmt.Sprintf("%v of kernel time per runqueue probe in avg_scan_cost (a line in another core's cache within the socket; the pinned run measures its own)", c.Probe),
			"no time is simulated: the probes a wakeup makes stand for the search's cost, and the mask's writes for the filter's",
			fmt.Sprintf("%d threads a core (seed 003's): v5.11's select_idle_core() scans the whole LLC, not the mask, while has_idle_cores is set, and its probes count in both rows", c.SMT),
			fmt.Sprintf("a woken task stacked on a busy cpu waits until its running task blocks, which the duty cycle gives (1/%d of a tick on average); no window between the probe and the enqueue, so no task finds a cpu found idle busy again", c.Entries),
		}}
	rule.Judge(v,
		[]rule.Figure{
			{What: "runqueues probed per wakeup", Before: before.ProbesPerWakeup, After: v5.ProbesPerWakeup, Kind: Lower, Min: 1.23},
			{What: "mask writes per second", Before: noFilter.WritesPerSec, After: lastState.WritesPerSec, Kind: Lower, Min: noticeable},
		},
		[][]rule.Figure{{{What: "runqueues probed per wakeup", Before: before.ProbesPerWakeup, After: v5.ProbesPerWakeup, Kind: Lower, Min: noticeable}}},
		// The mechanism: fewer probes per wakeup and no longer a wait
		// for v5, fewer mask writes for the filter. Found-idle and
		// wrong picks are shown (Measured), not gated on: the mask's
		// exclusion of short-idle cpus is deliberate, and the model has
		// no window between the probe and the enqueue in which it pays.
		[]rule.Figure{
			{What: "runqueues probed per wakeup, v5", Before: before.ProbesPerWakeup, After: v5.ProbesPerWakeup, Kind: Fewer, Doing: "probing fewer runqueues"},
			{What: "µs waited per wakeup, v5", Before: us(before.Wait), After: us(v5.Wait), Kind: NotAbove, Min: waitKept, Doing: "placing woken tasks on idle cpus"},
			{What: "mask writes per second, the filter", Before: noFilter.WritesPerSec, After: lastState.WritesPerSec, Kind: Fewer, Doing: "skipping the mask's unchanged writes"},
		})
	v.Measured += fmt.Sprintf("; shown, not gated on: wakeups that found an idle cpu %s%% → %s%% (v5), %s%% → %s%% (the filter); wrong picks %s%% → %s%% (v5)",
		rule.Num(before.FoundIdle), rule.Num(v5.FoundIdle), rule.Num(noFilter.FoundIdle), rule.Num(lastState.FoundIdle), rule.Num(before.Wrong), rule.Num(v5.Wrong))
	return v
}

// A woken task's wait may grow by a tenth (waitKept) at most: at the
// seed's workload every wakeup the search fails is stacked on the busy
// target, so a mask that finds idle cpus for nine wakeups in ten of its
// baseline's stacks a few per cent more of them (from the full scan's 68%
// to 71%), well inside it. v5's empty mask waits 15% more at 192 cpus
// without the SMT search (outside) and 9.8% more with it (select_idle_core()
// still places some tasks: just inside). Stated, not derived.
const waitKept = 1.1

// us is a duration in microseconds, the unit a simulated wait is judged in.
func us(d time.Duration) float64 { return float64(d) / 1e3 }

// The handoffs and newidle periods finding 8's simulation ranges over, and
// the reference setting its verdict is read at: reproduce's own
// balanceflag machine (newidle=2, bfMachine), and a 100 ns handoff (the
// flag's line moving between cores of a socket; across sockets it costs
// more: the 200 and 400 ns columns). The seed measured neither.
var (
	bfSimCAS     = []time.Duration{50 * time.Nanosecond, 100 * time.Nanosecond, 200 * time.Nanosecond, 400 * time.Nanosecond}
	bfSimNewidle = []int{1, 2, 4}
)

// bfSimTicks are the tick alignments finding 8's simulation shows beside
// its grid: skew_tick=1 (tick_setup_sched_timer()'s offset, a boot
// option), and a jitter of 10 µs per cpu and tick (a figure of no
// measurement: interrupts and softirqs before SCHED_SOFTIRQ vary by more
// than that on a busy server, and the share falls steeply with it).
var bfSimTicks = []struct {
	name   string
	skew   bool
	jitter time.Duration
}{
	{"skew_tick=1", true, 0},
	{"jitter 10µs", false, 10 * time.Microsecond},
}

const (
	bfRefCAS     = 100 * time.Nanosecond
	bfRefNewidle = 2
)

// simFlagProfile is finding 8 at the seed's size: 512 cpus, 2 sockets of
// SNC-2 (Granite Rapids with SMT), 90% busy, over the handoffs and newidle
// periods above.
func simFlagProfile(b SimBudget) *SimVerdict {
	const size = "512 cpus, 2 sockets × 2 SNC nodes, SMT 2 (seed 002's Granite Rapids class)"
	cas, newidles := bfSimCAS, bfSimNewidle
	if b.quick() {
		cas, newidles = []time.Duration{bfRefCAS, 200 * time.Nanosecond}, []int{1, bfRefNewidle}
	}
	runWith := func(cfg balanceflag.SimConfig) (before, after balanceflag.SimRow, err error) {
		cfg.Duration = b.duration(time.Second, 10*time.Millisecond)
		cfg.Orders = []string{strings.TrimPrefix(bfBefore, "order="), strings.TrimPrefix(bfAfter, "order=")}
		tab, err := balanceflag.Simulate(cfg)
		if err != nil {
			return before, after, err
		}
		return tab.Rows[0], tab.Rows[1], nil
	}
	run := func(c time.Duration, n int) (before, after balanceflag.SimRow, err error) {
		return runWith(balanceflag.SimConfig{CAS: c, Newidle: n})
	}
	judge := func(before, after balanceflag.SimRow) *SimVerdict {
		v := &SimVerdict{}
		rule.Judge(v,
			[]rule.Figure{
				{What: "% of cycles on the flag before", After: before.FlagPct, Kind: AtLeast, Min: inProfile},
				{What: "% of cycles on the flag", Before: before.FlagPct, After: after.FlagPct, Kind: Lower, Min: 10},
			},
			[][]rule.Figure{{
				{What: "% of cycles on the flag before", After: before.FlagPct, Kind: AtLeast, Min: inProfile},
				{What: "% of cycles on the flag", Before: before.FlagPct, After: after.FlagPct, Kind: Lower, Min: 2},
			}},
			[]rule.Figure{{What: "periodic balance passes per second", Before: passes(before), After: passes(after), Kind: NotBelow, Min: 0.9, Doing: "balancing"}})
		return v
	}
	before, after, err := run(bfRefCAS, bfRefNewidle)
	if err != nil {
		return rule.Failed(size, err)
	}
	v := judge(before, after)
	v.Size = size + fmt.Sprintf(", %v of kernel time per order", b.duration(time.Second, 10*time.Millisecond))
	v.Assumptions = []string{
		fmt.Sprintf("verdict at a %v handoff and a busy cpu newly idle every %d ticks (reproduce's balanceflag load, busy=90): the seed gives neither", bfRefCAS, bfRefNewidle),
		"a balancing pass costs 100 ns per cpu of its span; every cpu's tick at the same instant with no jitter, the model's worst case (the figures after the grid show what skew_tick=1 and a jitter take away)",
		"the flag's line served first come first served, ties by cpu number, at the handoff's cost; with a dearer cross-socket handoff (-cas-remote) the flag's time lies between the grid's columns at the two prices, for any arbitration (the line is busy for the sum of its handoffs); with aligned ticks only about 1% of its moves cross sockets",
	}
	var grid []string
	for _, n := range newidles {
		for _, c := range cas {
			b, a, err := run(c, n)
			if err != nil {
				return rule.Failed(size, err)
			}
			mark := ""
			if c == bfRefCAS && n == bfRefNewidle {
				mark = " (the verdict's)"
			}
			grid = append(grid, fmt.Sprintf("%v newidle=%d: %s%% → %s%% %s%s", c, n, rule.Num(b.FlagPct), rule.Num(a.FlagPct), judge(b, a).Verdict(), mark))
		}
	}
	v.Measured += "; over the handoff and the newidle period: " + strings.Join(grid, ", ") + " (the seed's 7.8% is what a row must reach)"
	// The grid's ticks are aligned: every cpu's softirq reaches the line
	// at the same instant, and nearly all of the old order's share is the
	// queue that burst forms. How much goes with the alignment, at the
	// verdict's setting and at the only grid row that reaches the seed's
	// figure.
	var ticks []string
	for _, k := range bfSimTicks {
		for _, at := range []struct {
			cas time.Duration
			n   int
		}{{bfRefCAS, bfRefNewidle}, {200 * time.Nanosecond, 1}} {
			b, a, err := runWith(balanceflag.SimConfig{CAS: at.cas, Newidle: at.n, SkewTick: k.skew, Jitter: k.jitter})
			if err != nil {
				return rule.Failed(size, err)
			}
			ticks = append(ticks, fmt.Sprintf("%s at %v newidle=%d: %s%% → %s%% %s", k.name, at.cas, at.n, rule.Num(b.FlagPct), rule.Num(a.FlagPct), judge(b, a).Verdict()))
		}
	}
	v.Measured += "; with the ticks out of step: " + strings.Join(ticks, ", ")
	return v
}

// simNohz is finding 14 at the commit's size: 480 cpus ("systems with
// 480+ cpus"), balanceflag's machine and idle pattern, counting the nohz
// lines' transfers per second with nohz.nr_cpus (counter) and without
// (weight). The finding's path is the tick stop's: its claim reads the
// transfers of the stops' and restarts' writes, as the pinned one reads
// the event's time; the busy tick's reads, which the commit moves onto the
// mask's line, are figures beside it.
func simNohz(b SimBudget) *SimVerdict {
	const size = "480 cpus, 2 sockets × 2 SNC nodes, SMT 2 (5d86d542f68f's \"480+ cpus\")"
	tab, err := balanceflag.SimulateNohz(balanceflag.SimConfig{CPUs: 480, CAS: bfRefCAS, Duration: b.duration(time.Second, 10*time.Millisecond)})
	if err != nil {
		return rule.Failed(size, err)
	}
	c, w := tab.Row("counter"), tab.Row("weight")
	if c == nil || w == nil {
		return rule.Failed(size, fmt.Errorf("the simulation has no counter and weight rows"))
	}
	v := &SimVerdict{Size: size + fmt.Sprintf(", %v of kernel time", tab.Config.Duration), Assumptions: tab.Assumptions()}
	moves := "line transfers per second at tick stops and restarts"
	rule.Judge(v,
		[]rule.Figure{{What: moves, Before: c.IdleTransfers, After: w.IdleTransfers, Kind: Lower, Min: noticeable}},
		[][]rule.Figure{{{What: moves, Before: c.IdleTransfers, After: w.IdleTransfers, Kind: Lower, Min: small}}},
		[]rule.Figure{{What: "tick stops per second", Before: c.StopsPerSec, After: w.StopsPerSec, Kind: NotBelow, Min: 0.9, Doing: "tracking tickless cpus"}})
	v.Measured += fmt.Sprintf("; locked writes per second to the struct's line %s → %s, tick restarts per second %s; line transfers per second in the busy tick's nohz_balancer_kick() %s → %s (%s); %% of busy cycles on the two lines %s → %s",
		rule.Num(c.Struct.Locked), rule.Num(w.Struct.Locked), rule.Num(c.RestartsPerSec), rule.Num(c.TickTransfers), rule.Num(w.TickTransfers), rule.Change(c.TickTransfers, w.TickTransfers), rule.Num(c.CyclesPct), rule.Num(w.CyclesPct))
	v.Why += "; the busy tick pays instead: has_blocked_load is still stored at every tick stop, so each busy tick's read of the struct's line still misses, and cpumask_empty() now misses on the mask's line too, which every stop and restart writes"
	return v
}

// passes is an order's periodic balance passes per second, every level's.
func passes(r balanceflag.SimRow) float64 {
	var n float64
	for _, l := range r.Levels {
		n += l.Passes
	}
	return n
}

// Simulate judges, beside each row the pinned run earned, the finding's
// simulation at the seed's size where it has one, on budget b of each
// simulation's kernel time (1, or QuickSims).
func (e *Env) Simulate(rows []Row, b SimBudget) {
	byID := map[int]*Finding{}
	for _, f := range findings(e) {
		byID[f.ID] = f
	}
	for i := range rows {
		if f := byID[rows[i].ID]; f != nil && f.simulate != nil {
			rows[i].Simulated = simulated(f, b)
		}
	}
}

// simKey names one simulation's verdict: a finding's, on a budget.
type simKey struct {
	id int
	b  SimBudget
}

// sims holds the verdicts simulated in this process. A simulation depends
// on its budget alone and is deterministic, so each runs once: contend
// judges one results file, the tests judge several.
var sims sync.Map // simKey → *SimVerdict

// simulated returns f's simulated verdict on budget b, a copy of its own.
func simulated(f *Finding, b SimBudget) *SimVerdict {
	k := simKey{f.ID, b}
	v, ok := sims.Load(k)
	if !ok {
		v, _ = sims.LoadOrStore(k, f.simulate(b))
	}
	if v.(*SimVerdict) == nil {
		return nil
	}
	s := *v.(*SimVerdict)
	s.Assumptions = slices.Clone(s.Assumptions)
	return &s
}
