package loadavg

import (
	"errors"
	"fmt"
	"github.com/contend/contend/bench/loadavg/cfsmodel"
	"github.com/contend/contend/bench/loadavg/pairs"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/ktime"
	"github.com/contend/contend/counter"
)

// SimConfig describes a simulation: the seed's workload on n virtual CPUs,
// replayed on one thread on kernel time.
type SimConfig struct {
	// CPUs is the number of virtual CPUs, one cfs_rq of each group each
	// (default 224, the seed's Sapphire Rapids).
	CPUs int
	// Levels is the depth of the tasks' group below the root, as the
	// scenario's levels= key: every level is a task group with its own
	// tg->load_avg (default 2, the seed's docker container under
	// system.slice).
	Levels int
	// Weight is the tasks' weight, unscaled (default 1024, nice 0): the
	// load each task carries, for the sensitivity table.
	Weight int
	// Nodes is the number of NUMA nodes the per-node presets split the
	// CPUs over, in equal consecutive blocks (default 2: the seed's two
	// sockets). nr_node_ids is Nodes; scan=full still walks MAX_NUMNODES.
	Nodes int
	// Duration is the kernel time simulated per variant (default 1s).
	// Counts are given per 5 s, the seed's window, whatever it is: rates
	// settle within a few PELT half-lives, so a second of 224 CPUs is
	// already 5.6 million events per variant.
	Duration time.Duration
	// Gap, Mig, Tasks and HZ are the workload, as the scenario's gap=,
	// mig=, tasks= and hz= keys; zero takes the default (40us, 79, 2,
	// 1000); Mig is a SimMig, whose zero is the default and NoMig mig=0.
	Gap   time.Duration
	Mig   SimMig
	Tasks int
	HZ    int
	// Pairs, Run and Runnable choose the pairs workload (bench/loadavg/pairs), the
	// lab's pipe, migrate and udp shapes, in place of the seed's: Pairs pairs
	// of tasks pinging each other, each task running Run and runnable
	// Runnable of its time (shares, as a count measures them), waking
	// once per 2·Pairs/(CPUs/(2·Gap)) of kernel time. Zero Pairs is the
	// seed's workload, where Tasks and the coin decide.
	Pairs         int
	Run, Runnable float64
	// DomainCPUs, with Pairs, is the weight of each cpu's lowest sched
	// domain (the cpus of its node on the lab's machines): its
	// balance_interval, sd_init's weight in ms, sets when the tick raises
	// the balance softirq, whose update_blocked_averages() updates every
	// cfs_rq of the cpu, busy or idle (bench/loadavg/pairs, ksim.Softirqs). Zero: no
	// softirq, only the idle cpus' blocked updates every 32 ms.
	DomainCPUs int
	// RunMoves, with Pairs, is the share of sleeps that follow a move of
	// the running task to another cpu, which detaches its load at once
	// (bench/loadavg/pairs' moveTo): kernel model's is the count's migrations less
	// its wakeup migrations, per wakeup; Mig is then its wakeup
	// migrations alone.
	RunMoves float64
	// MoveRun, with RunMoves, is how long a moved task stays queued on
	// its new cpu before it sleeps there (the kernel's task runs on after
	// the stopper's move: its new cpu to take it, the syscall's return,
	// its loop to the next read): kernel model's is the new cpu's wait,
	// the count's pending spells' median. Zero sleeps it at the move's
	// instant (docs/loadavg.md, "The moved task's run").
	MoveRun time.Duration
	// TickLate, with Pairs, is the median lateness of a busy cpu's tick
	// under the emulator's host: each such tick runs late by a lateness
	// drawn exponentially about it, its vCPU making no scheduler event
	// until then (bench/loadavg/pairs' freeze). kernel model's is the
	// count's tick trace's busy-tick-lateness-us. Zero: ticks on time.
	TickLate time.Duration
	// WakeupMig, with Pairs, is the share of wakeups that migrate (Mig
	// is the seed workload's: a whole percent makes a count's 0.4 % none).
	WakeupMig float64
	// DelayDequeue, with Pairs, is v6.12's DELAY_DEQUEUE (152e11f6df29,
	// "sched/fair: Implement delayed dequeue"): a blocking task its
	// group's cfs_rq does not find eligible (EEVDF's entity_eligible())
	// stays queued until woken or picked (bench/loadavg/pairs). The kernel's
	// version decides it: kernel model sets it for 6.12 and later.
	DelayDequeue bool
	// EEVDF, with Pairs, takes a wakeup's preemption by v6.6's rules on
	// (147f3efaa241, ksim.Linux612), else by 6.1's CFS (ksim.Linux61);
	// DelayDequeue implies it. kernel model sets it for 6.6 on.
	EEVDF bool
	// TickStopShare, with DomainCPUs and TickStopMeasured, is the share
	// of idle entries that stop the tick, as a count measured it (its
	// nohz_balance_enter_idle() calls over its nohz_run_idle_balance()
	// calls, one a do_idle() entry): a measured property of the guest,
	// whose idle driver and near events (RCU, irq_work, timers within a
	// tick) decide it and which the model does not know. Without it
	// ksim.Governor, menu's algorithm with the watchdog's timer alone,
	// decides (docs/loadavg.md says how far apart the two are).
	TickStopShare    float64
	TickStopMeasured bool
	// IdleTick is the idle loop's tick rule where no share is measured
	// (ksim.IdleLoop; default the governor, menu).
	IdleTick ksim.IdleTickRule `json:",omitempty"`
	// Seed picks the random draws; the same config and seed replay the
	// same events (default 1).
	Seed uint64
	// Variants are the rows: preset names or counter variants
	// ("store=percpu/write=ratelimit"). Default: every preset in the
	// seed's order.
	Variants []string
}

// Limits of a simulation: beyond them it is a typo or would run for hours.
const (
	simMaxCPUs     = 8192
	simMaxNodes    = 1024
	simMaxDuration = time.Minute
	simMaxEvents   = 1 << 36 // CPUs × Duration/Gap, per variant
)

func (c SimConfig) withDefaults() SimConfig {
	if c.CPUs == 0 {
		c.CPUs = 224
	}
	if c.Levels == 0 {
		c.Levels = defaultLevels
	}
	if c.Weight == 0 {
		c.Weight = cfsmodel.Nice0Load
	}
	if c.Nodes == 0 {
		c.Nodes = 2
	}
	if c.Duration == 0 {
		c.Duration = time.Second
	}
	if c.Gap == 0 {
		c.Gap = defaultGap
	}
	if c.Tasks == 0 {
		c.Tasks = defaultTasks
	}
	if c.HZ == 0 {
		c.HZ = defaultHZ
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if len(c.Variants) == 0 {
		c.Variants = counter.Presets()
	}
	return c
}

func (c SimConfig) validate() error {
	switch {
	case c.CPUs < 1 || c.CPUs > simMaxCPUs:
		return fmt.Errorf("simulate loadavg: cpus %d out of range [1, %d]", c.CPUs, simMaxCPUs)
	case c.Levels < 1 || c.Levels > maxLevels:
		return fmt.Errorf("simulate loadavg: levels %d out of range [1, %d]", c.Levels, maxLevels)
	case c.Weight < 2 || c.Weight > cfsmodel.MaxWeight:
		return fmt.Errorf("simulate loadavg: weight %d out of range [2, %d]", c.Weight, cfsmodel.MaxWeight)
	case c.Nodes < 1 || c.Nodes > min(c.CPUs, simMaxNodes):
		return fmt.Errorf("simulate loadavg: nodes %d out of range [1, %d] (at most one per cpu)", c.Nodes, min(c.CPUs, simMaxNodes))
	case c.Gap < minGap || c.Gap > maxGap:
		return fmt.Errorf("simulate loadavg: gap %s out of range [%s, %s]", ktime.Format(c.Gap), ktime.Format(minGap), ktime.Format(maxGap))
	case c.Duration < c.Gap || c.Duration > simMaxDuration:
		return fmt.Errorf("simulate loadavg: duration %s out of range [gap %s, %s]", ktime.Format(c.Duration), ktime.Format(c.Gap), ktime.Format(simMaxDuration))
	case c.Mig < NoMig || c.Mig > 100:
		return fmt.Errorf("simulate loadavg: mig %d out of range [0, 100] (NoMig for 0)", int(c.Mig))
	case c.Tasks < 1 || c.Tasks > maxTasks:
		return fmt.Errorf("simulate loadavg: tasks %d out of range [1, %d]", c.Tasks, maxTasks)
	case c.Pairs < 0 || c.Pairs > maxTasks*c.CPUs:
		return fmt.Errorf("simulate loadavg: pairs %d out of range [0, %d]", c.Pairs, maxTasks*c.CPUs)
	case c.MoveRun < 0:
		return fmt.Errorf("simulate loadavg: move run %v: want none or a positive time", c.MoveRun)
	case c.TickLate < 0:
		return fmt.Errorf("simulate loadavg: tick lateness %v: want none or a positive time", c.TickLate)
	case !(c.RunMoves >= 0 && c.RunMoves <= 1) || !(c.WakeupMig >= 0 && c.WakeupMig <= 1):
		return fmt.Errorf("simulate loadavg: run moves %g, wakeup migrations %g: want shares in [0, 1]", c.RunMoves, c.WakeupMig)
	case c.DomainCPUs < 0 || c.DomainCPUs > c.CPUs:
		return fmt.Errorf("simulate loadavg: domain cpus %d out of range [0, cpus %d]", c.DomainCPUs, c.CPUs)
	case c.Pairs > 0 && !(c.Run > 0 && c.Run <= c.Runnable && c.Runnable <= 1):
		return fmt.Errorf("simulate loadavg: run share %g and runnable share %g: want 0 < run <= runnable <= 1", c.Run, c.Runnable)
	case c.TickStopMeasured && !(c.TickStopShare >= 0 && c.TickStopShare <= 1):
		return fmt.Errorf("simulate loadavg: tick-stop share %g: want a share in [0, 1]", c.TickStopShare)
	case c.HZ != 1000 && c.HZ != 250:
		return fmt.Errorf("simulate loadavg: hz %d: want 1000 or 250", c.HZ)
	}
	if ev := float64(c.CPUs) * float64(c.Duration/c.Gap); ev > simMaxEvents {
		return fmt.Errorf("simulate loadavg: %d cpus × %s / %s is %.3g events per variant, over the limit of %d", c.CPUs, ktime.Format(c.Duration), ktime.Format(c.Gap), ev, int64(simMaxEvents))
	}
	return nil
}

// A SimRow is one variant's results. Its counts are summed over the
// levels, its errors the tasks' own group's; Levels has each level's.
type SimRow struct {
	Name    string // the preset's name, or the variant as given
	Series  string // the seed's series ("v1", "v2", "v1, v2"), "" for a non-preset
	Label   string // the row's label in the seed's tables, "" for a non-preset
	Variant counter.Variant

	Events int64 // en/dequeue events (idle slots not counted)
	// RunPct and RunnablePct are the pairs workload's tasks' shares of
	// their time running and runnable (0 for the seed's workload).
	RunPct, RunnablePct float64
	// SoftirqsPerCPUSec is the pairs workload's balance softirqs per cpu
	// per second, each an update_blocked_averages() (0 without them).
	SoftirqsPerCPUSec float64
	// Delayed and Requeued are the pairs workload's delayed dequeues
	// (SimConfig.DelayDequeue) and the wakeups that requeued a delayed
	// task.
	Delayed, Requeued int64
	// Preempted is the pairs workload's wakeups that preempted another
	// of the group's tasks (ksim.Kernel.WakeupPreempt).
	Preempted int64
	// Place is the pairs workload's wakeups as the kernel's wake trace
	// splits them: stacked or split, parted or joined (ksim.Placements).
	Place ksim.Placements
	// TickStopsPerCPUSec is the pairs workload's tick stops per cpu per
	// second, with the softirq (ksim.Governor's decisions).
	TickStopsPerCPUSec float64
	// IdlesPerCPUSec is its idle entries per cpu per second, the
	// governor's decisions (a kept tick's re-entry included); IdleTicks
	// its ticks on idle cpus, all ([0]) and those whose leaf cfs_rq had
	// crossed a PELT period since its last update ([1]).
	IdlesPerCPUSec float64
	IdleTicks      [2]int64
	// GroupTicks are the pairs workload's ticks that found one of the
	// group's tasks running ([0]) and those whose leaf had crossed a
	// period as they came ([1]).
	GroupTicks [2]int64
	GroupAgeUs float64 // the median age of their leaves, µs
	// LateTicks are the pairs workload's busy ticks made late
	// (SimConfig.TickLate), LatePeriod their mean lateness in PELT
	// periods capped at one (kernel count's busy-tick-lateness-period-%).
	LateTicks    int64
	LatePeriod   float64
	Idle         int64 // event slots a CPU had nothing to do in
	Wakeups      int64
	LocalWakeups int64 // of them onto the waker's own CPU (nr_wakeups_local)
	Migrations   int64
	Calls        int64 // update_tg_load_avg calls
	Writes       int64 // tg->load_avg writes
	Reads        int64 // calc_group_shares runs
	// Paths splits Calls and Writes, summed over the levels, by the
	// caller that issued them (counter.Path): the model's output that
	// kernel model sets beside the kernel's per-site counts.
	Paths [counter.NumPaths]counter.PathStats

	// WritesPer5s and ReadsPer5s scale the counts to the seed's 5 s
	// window; WritesPerCPUSec is writes per cfs_rq per kernel second.
	WritesPer5s     float64
	ReadsPer5s      float64
	WritesPerCPUSec float64
	// Cut is base's writes over this row's (0 when base is not a row).
	Cut float64

	// TGWeightErr is the mean relative error, per cent, of the tg_weight
	// calc_group_shares would compute after an event, over Samples events
	// (every one that was not idle); SharesErr that of the group entity's
	// weight in effect, over those events that left it queued.
	TGWeightErr float64
	SharesErr   float64
	Samples     int64

	// Levels are the figures of each level, the tasks' own group's
	// first.
	Levels []SimLevel
}

// A SimLevel is one task-group level's figures in a SimRow: the calls of
// update_tg_load_avg() on its cfs_rqs, their writes to its tg->load_avg,
// the reads of it, and the errors of its readers, as SimRow's fields.
type SimLevel struct {
	Calls, Writes, Reads         int64
	Paths                        [counter.NumPaths]counter.PathStats
	WritesPer5s, WritesPerCPUSec float64
	Cut                          float64
	TGWeightErr, SharesErr       float64
	Samples                      int64
}

// A SimTable is a simulation's results, one row per variant.
type SimTable struct {
	Config SimConfig // with the defaults filled in
	Rows   []SimRow
}

// Simulate replays the model on cfg.CPUs virtual CPUs on one thread, one
// variant after another from the same seed: each CPU's cfs_rq, its tasks,
// the wake lists and the removed-load handoff are the scenario's own code;
// the store is the counter's, its writes uncontended; events interleave in
// kernel-time order (every CPU has one per gap, at its own phase). Nothing
// is timed: the counts and errors are the model's, on any machine.
func Simulate(cfg SimConfig) (*SimTable, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	t := &SimTable{Config: cfg, Rows: make([]SimRow, len(cfg.Variants))}
	vs := make([]counter.Variant, len(cfg.Variants))
	for i, name := range cfg.Variants {
		v, err := counter.ParseVariant(name)
		if err != nil {
			return nil, fmt.Errorf("simulate loadavg: %w", err)
		}
		vs[i] = v
	}
	// The rows are independent replays from the same seed: run them side
	// by side, each on its own goroutine, at most GOMAXPROCS at once.
	errs := make([]error, len(vs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, v := range vs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			row, err := simulate(cfg, v)
			if err != nil {
				errs[i] = fmt.Errorf("simulate loadavg: %s: %w", cfg.Variants[i], err)
				return
			}
			row.Name = cfg.Variants[i]
			if p := counter.PresetOf(v); p != "" {
				for _, info := range counter.PresetTable() {
					if info.Name == p {
						row.Name, row.Series, row.Label = p, info.Series, info.Label
					}
				}
			}
			t.Rows[i] = row
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	base, _ := counter.Preset("base")
	if i := slices.IndexFunc(t.Rows, func(r SimRow) bool { return r.Variant == base }); i >= 0 {
		for j := range t.Rows {
			t.Rows[j].Cut = float64(t.Rows[i].Writes) / math.Max(float64(t.Rows[j].Writes), 1)
			for l := range t.Rows[j].Levels {
				t.Rows[j].Levels[l].Cut = float64(t.Rows[i].Levels[l].Writes) / math.Max(float64(t.Rows[j].Levels[l].Writes), 1)
			}
		}
	}
	return t, nil
}

// simStore makes the variant's store for n CPUs on the config's nodes; the
// per-node store is fake (no mbind), which changes nothing here.
func simStore(cfg SimConfig, v counter.Variant) (counter.Store, error) {
	o := counter.Options{}
	switch v.Store {
	case counter.StorePerNode:
		for n := range cfg.Nodes {
			o.Nodes = append(o.Nodes, n)
		}
		o.NrNodeIDs, o.FullScan, o.Fake = cfg.Nodes, v.FullScan, true
	case counter.StorePerCPU:
		o.CPUs = cfg.CPUs
	}
	return counter.New(v.Store, o)
}

// simulate runs variant v as cfg says: one store per level, the CPUs on
// them, the events, then the counts and figures of its row.
func simulate(cfg SimConfig, v counter.Variant) (row SimRow, err error) {
	row.Variant = v
	stores := make([]counter.Store, 0, cfg.Levels)
	defer func() {
		for _, st := range stores {
			err = errors.Join(err, st.Close())
		}
	}()
	for range cfg.Levels {
		store, err := simStore(cfg, v)
		if err != nil {
			return row, err
		}
		stores = append(stores, store)
	}
	if cfg.Pairs > 0 {
		cpus, out, err := pairs.Simulate(pairs.Config{
			CPUs: cfg.CPUs, Nodes: cfg.Nodes, Pairs: cfg.Pairs, Weight: cfg.Weight, HZ: cfg.HZ, DomainCPUs: cfg.DomainCPUs,
			Duration: cfg.Duration, Gap: cfg.Gap, MoveRun: cfg.MoveRun, TickLate: cfg.TickLate,
			Run: cfg.Run, Runnable: cfg.Runnable, RunMoves: cfg.RunMoves, WakeupMig: cfg.WakeupMig,
			DelayDequeue: cfg.DelayDequeue, EEVDF: cfg.EEVDF, TickStopShare: cfg.TickStopShare, TickStopMeasured: cfg.TickStopMeasured,
			IdleTick: cfg.IdleTick, Seed: cfg.Seed,
		}, v, stores)
		if err != nil {
			return row, err
		}
		row.count(cpus, cfg.Levels)
		if err := cfsmodel.StoresConserved(cpus, stores); err != nil {
			return row, err
		}
		row.rate(&simErrs{}, int64(cfg.Duration), cfg.CPUs)
		row.RunPct, row.RunnablePct = 100*out.Run, 100*out.Runnable
		row.SoftirqsPerCPUSec = ksim.PerSecond(out.Softirqs, int64(cfg.Duration)*int64(cfg.CPUs))
		row.Delayed, row.Requeued, row.Preempted, row.IdleTicks, row.Place = out.Delayed, out.Requeued, out.Preempted, out.IdleTicks, out.Place
		row.LateTicks, row.LatePeriod, row.GroupTicks, row.GroupAgeUs = out.LateTicks, out.LatePeriod, out.GroupTicks, out.GroupAgeUs
		row.TickStopsPerCPUSec = ksim.PerSecond(out.TickStops, int64(cfg.Duration)*int64(cfg.CPUs))
		row.IdlesPerCPUSec = ksim.PerSecond(out.Idles, int64(cfg.Duration)*int64(cfg.CPUs))
		return row, nil
	}
	cpus, err := simCPUs(cfg, v, stores)
	if err != nil {
		return row, err
	}
	rounds := int64(cfg.Duration / cfg.Gap)
	errs := simRun(cpus, rounds)
	row.count(cpus, cfg.Levels)
	if err := cfsmodel.StoresConserved(cpus, stores); err != nil {
		return row, err
	}
	row.rate(&errs, rounds*int64(cfg.Gap), cfg.CPUs)
	return row, nil
}

// simCPUs makes the virtual CPUs: each one's cfs_rq path up the levels'
// stores, on its node, with its tasks and its own random draws.
func simCPUs(cfg SimConfig, v counter.Variant, stores []counter.Store) ([]*cfsmodel.CPU, error) {
	n := cfg.CPUs
	sleepers := make([]*cfsmodel.SleeperQueue, n)
	for i := range sleepers {
		sleepers[i] = &cfsmodel.SleeperQueue{}
	}
	cpus := make([]*cfsmodel.CPU, n)
	for i := range cpus {
		rq, err := counter.NewCfsRqPath(stores, v.Write, v.Read, i, i*cfg.Nodes/n)
		if err != nil {
			return nil, err
		}
		c := &cfsmodel.CPU{}
		if err := c.Init(rq, i, sleepers, cfg.Tasks, cfg.Mig.Percent(), uint64(cfg.Weight), int64(cfg.Gap), ksim.HZ(cfg.HZ), cfsmodel.CPUSeed(i, cfg.Seed)); err != nil {
			return nil, err
		}
		cpus[i] = c
	}
	return cpus, nil
}

// simErrs are the readers' errors a run sampled, per level: the sums of
// the tg_weight and shares errors and how many samples each sum holds.
type simErrs struct {
	tgw, shares      [maxLevels]float64
	samples, sharesN [maxLevels]int64
}

// simRun runs rounds of events on the CPUs and samples, after each event
// that ran, what its readers would compute against the true sums.
func simRun(cpus []*cfsmodel.CPU, rounds int64) (e simErrs) {
	// Kernel-time order (ksim.Lockstep): every CPU moves by one gap per
	// round, so the order within a round is the order of the starting
	// phases.
	order := slices.Clone(cpus)
	slices.SortStableFunc(order, func(a, b *cfsmodel.CPU) int { return int(a.Clock.Now() - b.Clock.Now()) })
	// Σ avg.load_avg and Σ tg_load_avg_contrib of each level, kept
	// current: only a CPU's own event moves its pairs (another CPU's
	// wakeup leaves the load in cfs_rq->removed until the owner drains
	// it).
	var load, contrib [maxLevels]int64
	for _, c := range cpus {
		for l, rq := 0, c.RQ; rq != nil; l, rq = l+1, rq.Parent() {
			load[l] += rq.Load()
			contrib[l] += rq.Contrib()
		}
	}
	var l0, ct0 [maxLevels]int64
	ksim.Lockstep(len(order), rounds, func(i int) {
		c := order[i]
		for l, rq := 0, c.RQ; rq != nil; l, rq = l+1, rq.Parent() {
			l0[l], ct0[l] = rq.Load(), rq.Contrib()
		}
		ran := c.Event()
		for l, rq := 0, c.RQ; rq != nil; l, rq = l+1, rq.Parent() {
			ld, ct := rq.Load(), rq.Contrib()
			load[l] += ld - l0[l]
			contrib[l] += ct - ct0[l]
			if !ran {
				continue // idle: nothing read, nothing to sample
			}
			te, se, ok, queued := tgWeightErr(rq, load[l]-ld, contrib[l]-ct)
			if ok {
				e.tgw[l] += te
				e.samples[l]++
			}
			if queued {
				e.shares[l] += se
				e.sharesN[l]++
			}
		}
	})
	return e
}

// count adds up the CPUs' events, wakeups and migrations, and each
// level's update calls, writes and reads.
func (row *SimRow) count(cpus []*cfsmodel.CPU, levels int) {
	row.Levels = make([]SimLevel, levels)
	for _, c := range cpus {
		st := c.RQ.Stats()
		row.Events += st.Events
		row.Idle += c.Idle
		row.Wakeups += c.Wakeups
		row.LocalWakeups += c.LocalWakeups
		row.Migrations += st.Attaches
		for l := range row.Levels {
			ls := cfsmodel.Level(c.RQ, l).Stats()
			row.Levels[l].Calls += ls.Updates
			row.Levels[l].Writes += ls.Writes
			row.Levels[l].Reads += ls.Reads
			for p, ps := range ls.Paths {
				row.Levels[l].Paths[p].Updates += ps.Updates
				row.Levels[l].Paths[p].Writes += ps.Writes
				row.Paths[p].Updates += ps.Updates
				row.Paths[p].Writes += ps.Writes
			}
		}
	}
}

// rate turns the counts into the seed's figures, per 5 s and per cfs_rq
// per kernel second over span (kernel time per CPU) on n CPUs, and the
// sampled errors e into mean percentages; the row's own errors are the
// tasks' group's, level 0's.
func (row *SimRow) rate(e *simErrs, span int64, n int) {
	scale := 5e9 / float64(span)
	for l := range row.Levels {
		lv := &row.Levels[l]
		row.Calls += lv.Calls
		row.Writes += lv.Writes
		row.Reads += lv.Reads
		lv.WritesPer5s = float64(lv.Writes) * scale
		lv.WritesPerCPUSec = ksim.PerSecond(lv.Writes, span*int64(n))
		lv.Samples = e.samples[l]
		if e.samples[l] > 0 {
			lv.TGWeightErr = 100 * e.tgw[l] / float64(e.samples[l])
		}
		if e.sharesN[l] > 0 {
			lv.SharesErr = 100 * e.shares[l] / float64(e.sharesN[l])
		}
	}
	row.WritesPer5s = float64(row.Writes) * scale
	row.ReadsPer5s = float64(row.Reads) * scale
	row.WritesPerCPUSec = ksim.PerSecond(row.Writes, span*int64(n))
	row.TGWeightErr, row.SharesErr, row.Samples = row.Levels[0].TGWeightErr, row.Levels[0].SharesErr, row.Levels[0].Samples
}

// tgWeightErr is one error sample for the cfs_rq rq, given the other cfs_rqs'
// true load (Σ avg.load_avg) and what they have pushed (Σ
// tg_load_avg_contrib, which is what tg->load_avg holds for them): the
// relative error of the tg_weight calc_group_shares would compute now,
//
//	tg_weight = tg->load_avg - tg_load_avg_contrib + load
//	          = pushed(others) + load,   load = max(scale_load_down(load.weight), avg.load_avg)
//
// against the same with every cfs_rq's current load (ok false when the
// group has no load), and, while the group entity is queued (queued; its
// weight means nothing otherwise), of its weight in effect, from the last
// read, which patch 4 may have skipped since, against the weight the true
// tg_weight gives.
func tgWeightErr(rq *counter.CfsRq, trueOthers, pushedOthers int64) (tgw, shares float64, ok, queued bool) {
	load := max(ksim.ScaleLoadDown(rq.Weight()), rq.Load())
	trueW := trueOthers + load
	if trueW <= 0 {
		return 0, 0, false, false
	}
	tgw = math.Abs(float64(pushedOthers-trueOthers)) / float64(trueW)
	if rq.NrRunning() == 0 {
		return tgw, 0, true, false
	}
	want := counter.CalcGroupShares(rq.TGShares(), trueOthers+rq.Contrib(), rq.Contrib(), rq.Weight(), rq.Load())
	shares = math.Abs(float64(rq.Shares()-want)) / float64(want)
	return tgw, shares, true, true
}

// WriteText writes the table as the seed's tables read: one row per
// variant, tg->load_avg updates per 5 s, what each changes against base,
// and the error the readers pay for it; with two levels or more, one row
// per level and one for their sum under each variant.
func (t *SimTable) WriteText(w io.Writer) error {
	c := t.Config
	var b strings.Builder
	if c.Levels == 1 {
		fmt.Fprintf(&b, "loadavg simulation: %d cfs_rqs of one task group on %d nodes, %s of kernel time per row\n",
			c.CPUs, c.Nodes, ktime.Format(c.Duration))
	} else {
		fmt.Fprintf(&b, "loadavg simulation: %d cpus on %d nodes, the tasks' group %d levels below the root (a cfs_rq of each level's group per cpu), %s of kernel time per row\n",
			c.CPUs, c.Nodes, c.Levels, ktime.Format(c.Duration))
	}
	weight := ""
	if c.Weight != cfsmodel.Nice0Load {
		weight = fmt.Sprintf(" of weight %d", c.Weight)
	}
	fmt.Fprintf(&b, "workload: an event every %s per cpu, %d tasks%s per cpu, mig=%d%%, hz=%d, seed %d\n",
		ktime.Format(c.Gap), c.Tasks, weight, c.Mig.Percent(), c.HZ, c.Seed)
	if len(t.Rows) > 0 {
		r := t.Rows[0]
		span := float64(c.CPUs) * float64(c.Duration/c.Gap) * float64(c.Gap) / 1e9
		fmt.Fprintf(&b, "per cpu per second: %.0f wakeups, %.0f migrations (%.0f%%), %.1f%% of event slots idle (seed: 12500, 9800, 79%%)\n",
			float64(r.Wakeups)/span, float64(r.Migrations)/span, 100*float64(r.Migrations)/math.Max(float64(r.Wakeups), 1),
			100*float64(r.Idle)/float64(r.Idle+r.Events))
	}
	b.WriteString("seed (v2, 224 cpus): \"from some 10 millions during a 5s window to ~25k\"\n")
	if c.Levels > 1 {
		b.WriteString("the seed does not say whether it counted one group's updates or every level's, nor calls or writes: hold each level, the sum, and calls against it\n")
		b.WriteString("level 1 is the tasks' own group; sum's /cfs_rq/s is per cpu, all its cfs_rqs together; its errors are level 1's\n\n")
		if err := t.writeLevels(&b); err != nil {
			return err
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "series\tlabel\tpreset\tupdates/5s\t/cfs_rq/s\tvs base\tcalls/5s\treads/5s\ttg_weight err %\tshares err %\t")
	for _, r := range t.Rows {
		cut := "-"
		if r.Cut > 0 {
			cut = fmt.Sprintf("%.3gx", r.Cut)
		}
		series, label := r.Series, r.Label
		if series == "" {
			series, label = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%.3f\t%.3f\t\n",
			series, label, r.Name, bench.SeedCount(r.WritesPer5s), r.WritesPerCPUSec, cut,
			bench.SeedCount(float64(r.Calls)*5e9/(float64(c.Duration/c.Gap)*float64(c.Gap))),
			bench.SeedCount(r.ReadsPer5s), r.TGWeightErr, r.SharesErr)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeLevels is WriteText's table for two levels or more.
func (t *SimTable) writeLevels(b *strings.Builder) error {
	per5s := 5e9 / (float64(t.Config.Duration/t.Config.Gap) * float64(t.Config.Gap))
	cut := func(x float64) string {
		if x > 0 {
			return fmt.Sprintf("%.3gx", x)
		}
		return "-"
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "series\tlabel\tpreset\tlevel\tupdates/5s\t/cfs_rq/s\tvs base\tcalls/5s\treads/5s\ttg_weight err %\tshares err %\t")
	for _, r := range t.Rows {
		series, label := r.Series, r.Label
		if series == "" {
			series, label = "-", "-"
		}
		for l, lv := range r.Levels {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%.0f\t%s\t%s\t%s\t%.3f\t%.3f\t\n",
				series, label, r.Name, l+1, bench.SeedCount(lv.WritesPer5s), lv.WritesPerCPUSec, cut(lv.Cut),
				bench.SeedCount(float64(lv.Calls)*per5s), bench.SeedCount(float64(lv.Reads)*per5s), lv.TGWeightErr, lv.SharesErr)
			series, label = "", ""
		}
		fmt.Fprintf(tw, "\t\t%s\tsum\t%s\t%.0f\t%s\t%s\t%s\t%.3f\t%.3f\t\n",
			r.Name, bench.SeedCount(r.WritesPer5s), r.WritesPerCPUSec, cut(r.Cut),
			bench.SeedCount(float64(r.Calls)*per5s), bench.SeedCount(r.ReadsPer5s), r.TGWeightErr, r.SharesErr)
	}
	return tw.Flush()
}
