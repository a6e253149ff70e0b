package wakeup

import (
	"fmt"
	"time"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/wakeup/replay"
)

// The units the scenario reports beside ns/op. An operation is one run of a
// task, replayed from the model's schedule on the cpu the model ran it on.
var (
	Migrations = bench.Unit{Name: "migrations/op", Better: bench.Lower,
		Doc: "set_task_cpu() calls the model made per run in the replayed window, every cause (counted)"}
	LinesPulled = bench.Unit{Name: "lines-pulled/op", Better: bench.Lower,
		Doc: "working-set lines a run pulled because its task last ran on another cpu, per run (counted)"}
	// MigrationCost is in seconds, so that benchfmt never re-tidies it;
	// go test prints it in ns (benchtest.GoTestValue), which reads back
	// as this unit.
	MigrationCost = bench.Unit{Name: "sec/migration", Better: bench.Lower,
		Doc: "measured: extra time of a run on a cpu the task moved to over one on the cpu it stayed on, seconds (median of sampled runs)"}
	PerFiveSec = bench.Unit{Name: "migrations/5s", Better: bench.Lower,
		Doc: "the model's migrations (set_task_cpu(), every cause) in 5 s of kernel time (seed 004's ~27K before, ~2K after)"}
	Affine = bench.Unit{Name: "affine-%", Better: bench.Lower,
		Doc: "the model's wake_affine() calls that chose a cpu, per cent of attempts (schedstat nr_wakeups_affine / nr_wakeups_affine_attempts)"}
	AffineWakeups = bench.Unit{Name: "affine-wakeups/5s", Better: bench.Higher,
		Doc: "the model's wakeups that wake_affine() sent to the waking cpu, in 5 s of kernel time (schedstat nr_wakeups_affine summed over the tasks): what the patch changes"}
	WaitPerWakeup = bench.Unit{Name: "wait-sec/wakeup", Better: bench.Lower,
		Doc: "the model's mean time from try_to_wake_up() to the woken task running, seconds (queued behind another task, or an idle vCPU's wakeup)"}
	BalanceMigrations = bench.Unit{Name: "balance-migrations/5s", Better: bench.Lower,
		Doc: "the model's migrations by the load balancer (periodic, newidle, nohz, active) in 5 s of kernel time: all a guest without LLCs makes before the patch"}
	TPS = bench.Unit{Name: "tps", Better: bench.Higher,
		Doc: "the model's sysbench transactions per second of kernel time, priced by its waits and pulls (seed 004's 5655 before, 9618 after)"}
)

// Defaults of the pinned run: the simulation's (sim.go says where each comes
// from) and the working set.
const (
	maxLines = 16384 // 1 MiB of working set per task
	// replayWindow is the kernel time recorded after the warm-up, and
	// replayMax the runs kept of it: enough that the schedule's moves
	// repeat little within a benchmark of a second, few enough to keep
	// in memory.
	replayWindow = 200 * time.Millisecond
	replayMax    = 1 << 17
)

// keys are the variant's keys, in canonical order.
var keys = []bench.Key{
	{Name: "wake", Default: "llcstats", Domain: bench.OneOf(policyNames...),
		Doc: "the kernel whose select_task_rq_fair() and balancer the model runs: llcstats, 4.13 before seed 004's patch (wake_affine_llc()); basic, with it; v6.1, wake_affine_idle() and wake_affine_weight()"},
	{Name: "topo", Default: "s390", Domain: bench.Form("s390|s390llcN|llcN", "N 2..64, cpus per LLC", canonTopo),
		Doc: "the guest's topology: s390, every vCPU its own core and only DIE left (seed 004's guest without the topology facility); s390llcN, with it (MC over chips of N cpus); llcN, x86 LLCs of N cpus"},
	{Name: "pairs", Default: "40", Domain: bench.IntRange(1, simMaxThreads),
		Doc: "sysbench client threads (--num-threads), each with its own server thread (40: PeterZ's smallest thread count in the seed where the patch helped)"},
	{Name: "lines", Default: "256", Domain: bench.IntRange(1, maxLines),
		Doc: "each task's working set in cache lines, read and written by every run"},
	{Name: "io", Default: "0", Domain: bench.IntRange(0, 1_000_000), OmitDefault: true,
		Doc: "the commit's log flush in µs, its completion an interrupt where the guest's land (s390: an idle vCPU first); 0: none"},
}

func canonTopo(v string) (string, error) {
	t, err := parseTopo(v)
	if err != nil {
		return "", fmt.Errorf("not a topology preset")
	}
	return t.name, nil
}

func init() {
	bench.Register(&bench.Spec{
		Name:       "wakeup",
		BenchName:  "Wakeup",
		Summary:    "seed 004's wakeup placement: the model's schedule of sysbench's clients and servers, replayed on pinned cpus, each run pulling its working set where the task moved",
		Keys:       keys,
		HotSymbols: []string{"github.com/contend/contend/bench/wakeup/replay.replayLoop", "github.com/contend/contend/bench/wakeup/replay.touchLines"},
		Quick: []string{
			"wake=llcstats/topo=s390/pairs=4/lines=256",
			"wake=basic/topo=s390/pairs=4/lines=256",
		},
		Full:       fullVariants(),
		Units:      []bench.Unit{Migrations, LinesPulled, MigrationCost, PerFiveSec, Affine, TPS, AffineWakeups, WaitPerWakeup, BalanceMigrations},
		MinWorkers: 2,
		New:        func(v string) (bench.Scenario, error) { return newWakeup(v) },
		Simulate:   &bench.Simulation{Usage: SimUsage, Flags: SimFlags},
		// Few pairs on the seed's topology: each configuration's Start
		// simulates 3.2 s of kernel time, which TCG runs slowly.
		Lab:      &bench.LabTest{Variant: "wake=basic/topo=s390/pairs=4/lines=256"},
		Findings: []int{9},
	})
}

// fullVariants is the seed's experiment: each policy on the seed's guest
// topology at a light and at the seed's thread count, and on x86 LLCs of 4,
// at one working set (the sweep's full plan has a time budget).
func fullVariants() []string {
	var vs []string
	for _, topo := range []string{"s390", "llc4"} {
		for _, th := range []int{4, 40} {
			for _, wake := range policyNames {
				vs = append(vs, fmt.Sprintf("wake=%s/topo=%s/pairs=%d/lines=256", wake, topo, th))
			}
		}
	}
	// Idle wakers: each commit's completion interrupt lands on cpu 0 (an
	// x86 guest's one virtio-blk vector), often idle, which the patch's
	// first case pulls the server to; on an LLC of two, so that 6.1's
	// wake_affine_idle(), which pulls only within an LLC, can too.
	for _, wake := range policyNames {
		vs = append(vs, fmt.Sprintf("wake=%s/topo=llc2/pairs=2/lines=256/io=100", wake))
	}
	return vs
}

// The parsed variant.
type config struct {
	wake    policy
	topo    string
	threads int
	lines   int
	io      int // µs
}

func parseConfig(variant string) (config, *bench.Params, error) {
	p, err := bench.ParseParams("wakeup", variant, keys)
	if err != nil {
		return config{}, nil, err
	}
	return config{wake: policy(p.Index("wake")), topo: p.Get("topo"), threads: p.Int("pairs"), lines: p.Int("lines"), io: p.Int("io")}, p, nil
}

func newWakeup(variant string) (*wakeup, error) {
	c, p, err := parseConfig(variant)
	if err != nil {
		return nil, err
	}
	return &wakeup{cfg: c, variant: p.String()}, nil
}

func (s *wakeup) Variant() string { return s.variant }

// simConfig is the simulation the pinned run replays: the variant's policy,
// topology and threads on as many cpus as there are workers, every other
// knob the simulation's default.
func (s *wakeup) simConfig(cpus int) SimConfig {
	return SimConfig{CPUs: []int{cpus}, Topology: s.cfg.topo, Policies: []string{s.cfg.wake.String()},
		Threads: s.cfg.threads, IO: time.Duration(s.cfg.io) * time.Microsecond, Duration: replayWindow, Warmup: pinnedWarmup}
}

// Notes says what was replayed.
func (s *wakeup) Notes() []string {
	if s.sim == nil {
		return nil
	}
	r := s.sim
	return []string{
		fmt.Sprintf("replayed: %d runs of %s of the model's kernel time (after %s of warm-up) on %d cpus, %s guest, %d sysbench threads",
			s.sched.Runs, replayWindow, s.simCfg.Warmup, r.CPUs, s.cfg.topo, s.cfg.threads),
		fmt.Sprintf("model: %.0f migrations per 5 s, %.0f tps", r.Total, r.TPS),
	}
}

// Finish checks the working sets against the schedule and reports the
// metrics.
func (s *wakeup) Finish(res *bench.Result) error {
	var ops, moved int64
	for _, w := range s.workers {
		ops += w.Ops
		moved += w.Moved
	}
	if ops != res.Ops {
		return fmt.Errorf("wakeup: workers ran %d runs, runner counted %d operations", ops, res.Ops)
	}
	for _, t := range s.tasks {
		if err := t.Check(); err != nil {
			return fmt.Errorf("wakeup: %w", err)
		}
	}
	n := float64(max(res.Ops, 1))
	res.AddMetric(Migrations, s.migPerRun)
	res.AddMetric(LinesPulled, float64(moved*int64(s.cfg.lines))/n)
	res.AddMetric(PerFiveSec, s.sim.Total)
	res.AddMetric(TPS, s.sim.TPS)
	res.AddMetric(AffineWakeups, s.sim.Affine)
	res.AddMetric(WaitPerWakeup, s.sim.WaitUs/1e6)
	res.AddMetric(BalanceMigrations, s.sim.BalancerMigrations())
	if s.sim.AffineAttempts > 0 {
		res.AddMetric(Affine, 100*s.sim.Affine/s.sim.AffineAttempts)
	}
	if cost, ok := replay.MigrationCost(s.workers); ok {
		res.AddMetric(MigrationCost, cost)
	}
	return nil
}
