package wakeup

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/contend/contend/bench"
)

// SimConfig is a simulation of the wakeup model: every policy on the same
// workload, on CPUs virtual cpus driven one wakeup each in turn from one
// thread, on kernel time.
type SimConfig struct {
	// CPUs is the number of virtual cpus (default 8). Seed 004 does not
	// give the guest's size.
	CPUs int
	// LLC is the cpus per last-level cache, consecutive ids sharing one
	// (default 1: every vCPU its own LLC, so every away wakeup crosses
	// LLCs, and 4.13 keeps no LLC statistics for the pre-patch
	// wake_affine_llc() to read; the seed does not give the guest's
	// topology either).
	LLC int
	// Mig (a per cent, two decimals), Sync (a per cent), Tasks and Rate
	// are the workload, as the scenario's mig=, sync=, tasks= and rate=
	// keys; empty or zero takes the default ("1.2", 100, 4, 226000).
	Mig   string
	Sync  int
	Tasks int
	Rate  int
	// Duration is the kernel time simulated per policy (default 5s, the
	// seed's window).
	Duration time.Duration
	// Seed perturbs each cpu's random draws; the same config and seed
	// replay the same wakeups (default 1).
	Seed uint64
	// Policies are the rows, wake= values, each optionally followed by
	// "/stats=live" (default: every policy, then llcstats/stats=live).
	Policies []string
}

// llcLive is the pre-patch policy on exact LLC statistics, for comparison
// with 4.13's snapshot.
const llcLive = "llcstats/stats=live"

// Limits of a simulation: beyond them it is a typo or would run for hours.
const (
	simMaxCPUs     = 8192
	simMaxDuration = time.Minute
	simMaxWakeups  = 1 << 30 // per policy
)

func (c SimConfig) withDefaults() SimConfig {
	if c.CPUs == 0 {
		c.CPUs = 8
	}
	if c.LLC == 0 {
		c.LLC = 1
	}
	if c.Mig == "" {
		c.Mig = "1.2"
	}
	if c.Sync == 0 {
		c.Sync = 100
	} else if c.Sync == -1 {
		c.Sync = 0 // SimConfig{Sync: -1} asks for no sync wakeups
	}
	if c.Tasks == 0 {
		c.Tasks = 4
	}
	if c.Rate == 0 {
		c.Rate = seedRate
	}
	if c.Duration == 0 {
		c.Duration = 5 * time.Second
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if len(c.Policies) == 0 {
		c.Policies = append(slices.Clip(policyNames), llcLive)
	}
	return c
}

func (c SimConfig) validate() error {
	switch {
	case c.CPUs < 2 || c.CPUs > simMaxCPUs:
		return fmt.Errorf("simulate wakeup: cpus %d out of range [2, %d]", c.CPUs, simMaxCPUs)
	case c.LLC < 1 || c.LLC > c.CPUs:
		return fmt.Errorf("simulate wakeup: llc %d out of range [1, cpus %d]", c.LLC, c.CPUs)
	case c.Duration <= 0 || c.Duration > simMaxDuration:
		return fmt.Errorf("simulate wakeup: duration %s out of range (0, %s]", c.Duration, simMaxDuration)
	}
	if n := float64(c.Rate) * c.Duration.Seconds(); n > simMaxWakeups {
		return fmt.Errorf("simulate wakeup: rate %d × %s is %.3g wakeups per policy, over the limit of %d", c.Rate, c.Duration, n, simMaxWakeups)
	}
	return nil
}

// A SimRow is one policy's results.
type SimRow struct {
	Policy  string
	Variant string // the scenario's canonical variant it ran
	Counts  SimCounts
	// PerFiveSec is migrations in 5 s of kernel time at the rate.
	PerFiveSec float64
}

// SimCounts are a row's tallies, from the model's own bookkeeping.
type SimCounts struct {
	Wakeups, Noops, Migrations, CrossLLC, RemoteWakes int64
	// Sync is the wakeups flagged WF_SYNC, AffineTries the wake_affine()
	// calls and Affine those that said yes (the kernel policies only).
	Sync, AffineTries, Affine int64
	// SISCalls are select_idle_sibling() calls; SISEarly those that
	// returned at a shortcut (an idle target or prev); Probes the
	// runqueues its scans probed.
	SISCalls, SISEarly, Probes int64
}

// A SimTable is a simulation's results, one row per policy.
type SimTable struct {
	Config SimConfig // with the defaults filled in
	Rows   []SimRow
}

// Simulate runs each policy on the same workload: the scenario's own
// workers, unpinned, each virtual cpu making one wakeup in turn, every
// working set one line (the counts do not depend on its size). Nothing is
// timed.
func Simulate(cfg SimConfig) (*SimTable, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	t := &SimTable{Config: cfg}
	for _, p := range cfg.Policies {
		v := fmt.Sprintf("wake=%s/lines=1/mig=%s/tasks=%d/rate=%d/sync=%d/llc=%d", p, cfg.Mig, cfg.Tasks, cfg.Rate, cfg.Sync, cfg.LLC)
		s, err := newWakeup(v)
		if err != nil {
			return nil, fmt.Errorf("simulate %w", err) // "simulate wakeup: ..."
		}
		row, err := s.simulate(cfg)
		if err != nil {
			return nil, fmt.Errorf("simulate %w", err)
		}
		row.Policy = p
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

func (s *wakeup) simulate(cfg SimConfig) (SimRow, error) {
	n := cfg.CPUs
	if err := s.Start(&bench.Env{CPUs: make([]int, n), Nodes: make([]int, n)}); err != nil {
		return SimRow{}, err
	}
	for i := range n {
		if _, err := s.Worker(bench.WorkerInfo{Index: i, Workers: n}); err != nil {
			return SimRow{}, err
		}
		s.workers[i].rng ^= cfg.Seed * 0xD1B54A32D192ED03
		s.workers[i].rng |= 1
	}
	// Each cpu's kernel time per wakeup is gap = n×1e9/rate, so Duration
	// is Duration/gap rounds of one wakeup each.
	rounds := int64(cfg.Duration) / s.workers[0].gap
	for range rounds {
		for _, w := range s.workers {
			w.Run(1)
		}
	}
	res := &bench.Result{Ops: rounds * int64(n)}
	if err := s.Finish(res); err != nil {
		return SimRow{}, err
	}
	var c counts
	for _, w := range s.workers {
		c.add(&w.counts)
	}
	perFive, _ := res.Metric(PerFiveSec.Name)
	return SimRow{
		Variant: s.variant,
		Counts: SimCounts{
			Wakeups: c.wakeups, Noops: c.noops, Migrations: c.migrations, CrossLLC: c.crossLLC, RemoteWakes: c.remoteWakes,
			Sync: c.syncWakeups, AffineTries: c.affineTries, Affine: c.affine,
			SISCalls: c.sisCalls, SISEarly: c.sisTarget + c.sisPrev, Probes: c.probes,
		},
		PerFiveSec: perFive,
	}, nil
}

// WriteText writes the table: migrations per 5 s per policy beside the
// seed's, and the decisions behind them.
func (t *SimTable) WriteText(w io.Writer) error {
	c := t.Config
	var b strings.Builder
	fmt.Fprintf(&b, "wakeup simulation: %d virtual cpus, %d per LLC, %s of kernel time per policy at %d wakeups/s\n",
		c.CPUs, c.LLC, c.Duration, c.Rate)
	fmt.Fprintf(&b, "workload: mig=%s%% of wakeups away from the task's home, sync=%d%% WF_SYNC, %d tasks per cpu, seed %d\n",
		c.Mig, c.Sync, c.Tasks, c.Seed)
	b.WriteString("seed 004: guest cpu migrations \"from ~27K to ~2K over 5 seconds\" (sysbench oltp, 4.13.0 + 90001d67be2f + a731ebe6f17b without and with the patch)\n")
	b.WriteString("          before = wake=llcstats (the pre-patch wake_affine_llc), after = wake=basic (the patch); migrations count select_idle_sibling()'s moves too\n")
	if c.LLC == 1 {
		b.WriteString("llcstats: an LLC of one cpu has no sd_llc_shared in 4.13 (its domain degenerates), so get_llc_stats() fails and wake_affine_llc() says no to every wakeup\n\n")
	} else {
		first, every := balanceTimes(c.LLC)
		fmt.Fprintf(&b, "llcstats: reads sd_llc_shared as each busy cpu's balance of its LLC wrote it, first at %s, then every %s of kernel time; %s reads the runqueues at the wakeup\n\n",
			time.Duration(first), time.Duration(every), llcLive)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "wake\tmigrations/5s\tseed\tmig/wakeup %\tcross-llc %\tremote %\tsync %\taffine %\tsis early %\tprobes/wakeup\tnoop %\t")
	for _, r := range t.Rows {
		k := r.Counts
		seed := "-"
		switch r.Policy {
		case "llcstats": // not the live row: the seed's kernel read the snapshot
			seed = "~27K"
		case "basic":
			seed = "~2K"
		}
		affine, early := "-", "-"
		if k.AffineTries > 0 {
			affine = fmt.Sprintf("%.1f", pct(k.Affine, k.AffineTries))
		}
		if k.SISCalls > 0 {
			early = fmt.Sprintf("%.1f", pct(k.SISEarly, k.SISCalls))
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t%.2f\t%.2f\t%.2f\t%.0f\t%s\t%s\t%.2f\t%.2f\t\n",
			r.Policy, r.PerFiveSec, seed, pct(k.Migrations, k.Wakeups), pct(k.CrossLLC, k.Wakeups),
			pct(k.RemoteWakes, k.Wakeups), pct(k.Sync, k.Wakeups), affine, early,
			float64(k.Probes)/float64(max(k.Wakeups, 1)), pct(k.Noops, k.Wakeups+k.Noops))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func pct(a, b int64) float64 { return 100 * float64(a) / float64(max(b, 1)) }
