package idlemask

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
)

// SimConfig is a simulation of the idlemask model at seed 003's size: every
// update policy on the same workload, on CPUs virtual cpus in LLCs of LLC,
// driven from one thread, on kernel time.
type SimConfig struct {
	// CPUs and LLC are the machine: default 192 and 48, seed 003's
	// 4-socket box (24 cores × 2 threads a socket, an LLC a socket).
	CPUs, LLC int
	// Busy and Wake are the workload, as the scenario's busy= and wake=
	// keys (default 90 and 10); -1 asks for 0.
	Busy, Wake int
	// Entries is the idle entries a cpu makes between two ticks (default
	// 80: "uperf enters and exits 80 times between two ticks when
	// utilizes 100% CPU"), which sets tick= from Busy and Wake.
	Entries int
	// HZ is CONFIG_HZ, 1000 or 250 (default 1000).
	HZ int
	// Probe is the kernel time one runqueue probe adds to avg_scan_cost
	// (default 50ns: a probe of a line in another core's cache within the
	// socket). One thread cannot measure the seed's machine; the scenario
	// measures the machine it runs on (probe=auto).
	Probe time.Duration
	// Duration is the kernel time simulated per row (default 50ms: 50
	// ticks, 13 million events at the defaults).
	Duration time.Duration
	// Seed perturbs the draws (default 1).
	Seed uint64
	// Prev is where a woken task's prev_cpu and recent_used_cpu come
	// from, as the scenario's prev= key: "draw" (the default) or
	// "history".
	Prev string
	// SMT is the hardware threads a core, 1 or 2, as the scenario's smt=
	// key. Default 2: seed 003's machine has two, and v5.11 on it runs
	// select_idle_core() before the mask and select_idle_smt() after.
	SMT int
	// Nohz adds the nohz lines' accesses per second on v5's tick-stop
	// path, nohz.nr_cpus kept and removed (simnohz.go).
	Nohz bool
}

// The rows: the kernel before the patch, v5 as posted, v5 with Vincent
// Guittot's change, that without the last_idle_state filter, and the exact
// mask.
var simRows = []struct{ label, variant string }{
	{"before (no mask)", "update=none/scan=all"},
	{"v5 (tick stopped)", "update=tickstop/scan=mask"},
	{"v5 + Vincent", "update=laststate/scan=mask"},
	{"  without filter", "update=tick/scan=mask"},
	{"exact mask", "update=always/scan=mask"},
}

const (
	simMaxCPUs   = 8192
	simMaxEvents = 1 << 31
)

func (c SimConfig) withDefaults() SimConfig {
	def := func(v *int, d int) {
		switch *v {
		case 0:
			*v = d
		case -1:
			*v = 0
		}
	}
	def(&c.CPUs, 192)
	def(&c.LLC, 48)
	def(&c.Busy, 90)
	def(&c.Wake, 10)
	def(&c.Entries, 80)
	def(&c.HZ, 1000)
	if c.Probe == 0 {
		c.Probe = 50 * time.Nanosecond
	}
	if c.Duration == 0 {
		c.Duration = 50 * time.Millisecond
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	def(&c.SMT, 2)
	if c.Prev == "" {
		c.Prev = "draw"
	}
	return c
}

// tick is the tick= that gives Entries idle entries a tick: an event is an
// idle entry with probability (1-wake)(1-busy).
func (c SimConfig) tick() int {
	p := float64(100-c.Wake) * float64(100-c.Busy) / 1e4
	if p == 0 {
		return 1
	}
	return max(1, int(math.Round(float64(c.Entries)/p)))
}

func (c SimConfig) validate() error {
	switch {
	case c.CPUs < 1 || c.CPUs > simMaxCPUs:
		return fmt.Errorf("simulate idlemask: cpus %d out of range [1, %d]", c.CPUs, simMaxCPUs)
	case c.LLC < 1 || c.LLC > min(c.CPUs, maxLLC) || c.CPUs%c.LLC != 0:
		return fmt.Errorf("simulate idlemask: llc %d: want a divisor of cpus %d in [1, %d]", c.LLC, c.CPUs, maxLLC)
	case c.Busy < 0 || c.Busy > 100 || c.Wake < 0 || c.Wake > 100:
		return fmt.Errorf("simulate idlemask: busy %d, wake %d: want percentages in [0, 100]", c.Busy, c.Wake)
	case c.Busy == 100 || c.Wake == 100:
		return fmt.Errorf("simulate idlemask: busy %d, wake %d: no idle entries to make %d of a tick", c.Busy, c.Wake, c.Entries)
	case c.Entries < 1 || c.tick() > 1_000_000:
		return fmt.Errorf("simulate idlemask: entries %d: want 1 or more, at most 1000000 events a tick (%d)", c.Entries, c.tick())
	case c.HZ != 1000 && c.HZ != 250:
		return fmt.Errorf("simulate idlemask: hz %d: want 1000 or 250", c.HZ)
	case c.Probe < time.Nanosecond || c.Probe > 100*time.Microsecond || c.Probe%time.Nanosecond != 0:
		return fmt.Errorf("simulate idlemask: probe %s out of range [1ns, 100us]", c.Probe)
	case c.SMT != 1 && c.SMT != 2:
		return fmt.Errorf("simulate idlemask: smt %d: want 1 or 2", c.SMT)
	case c.SMT == 2 && c.LLC%2 != 0:
		return fmt.Errorf("simulate idlemask: smt 2: llc %d is odd, no whole cores", c.LLC)
	case c.Prev != "draw" && c.Prev != "history":
		return fmt.Errorf("simulate idlemask: prev %q: want draw or history", c.Prev)
	case c.Duration <= 0 || c.Duration > time.Minute:
		return fmt.Errorf("simulate idlemask: duration %s out of range (0, 1m]", c.Duration)
	}
	gap := max(int64(1e9/c.HZ)/int64(c.tick()), 1)
	if ev := float64(c.CPUs) * float64(int64(c.Duration)/gap); ev > simMaxEvents {
		return fmt.Errorf("simulate idlemask: %d cpus × %s is %.3g events per row, over the limit of %d", c.CPUs, c.Duration, ev, int64(simMaxEvents))
	}
	return nil
}

// A SimRow is one update policy's results.
type SimRow struct {
	Label, Variant string
	Events         int64
	Wakeups        int64
	// Writes are the atomic writes to the LLCs' masks; WritesPerSec over
	// the whole machine per kernel second, WritesPerCPUTick per cpu per
	// tick.
	Writes           int64
	WritesPerSec     float64
	WritesPerCPUTick float64
	// ProbesPerWakeup is the runqueues select_idle_cpu() probed per
	// wakeup; FoundIdle, Early, Wrong and BudgetOut per cent of wakeups:
	// an idle cpu found, found by a shortcut of select_idle_sibling(), the
	// mask's wrong answers, the searches SIS_PROP cut short.
	ProbesPerWakeup                    float64
	FoundIdle, Early, Wrong, BudgetOut float64
	// Stacked is the per cent of wakeups whose task was queued behind a
	// running task, and Wait the kernel time a woken task waited for it
	// to block, mean over all wakeups (0 for one placed on an idle cpu).
	Stacked float64
	Wait    time.Duration
	// IdleCore is the per cent of wakeups select_idle_core() placed, and
	// CoreWritesPerSec the writes to has_idle_cores per kernel second
	// (SMT 2; 0 otherwise).
	IdleCore, CoreWritesPerSec float64

	sec float64 // the kernel time simulated per cpu, s
}

// A SimTable is a simulation's results.
type SimTable struct {
	Config SimConfig // with the defaults filled in
	Tick   int       // the tick= the entries give
	Rows   []SimRow
	// Nohz are the nohz lines' rows (Config.Nohz), counter then weight.
	Nohz []bench.NohzRow `json:",omitempty"`
}

// Simulate runs each row's policy at the config's size: the scenario's own
// workers, one per LLC owning all its cpus, one event each in turn, with
// select_idle_sibling()'s shortcuts and the SIS_PROP budget on the kernel
// clock. Nothing is timed.
func Simulate(cfg SimConfig) (*SimTable, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	t := &SimTable{Config: cfg, Tick: cfg.tick()}
	for _, r := range simRows {
		sc, err := newIdleMask(simVariant(cfg, r.variant, t.Tick))
		if err != nil {
			return nil, fmt.Errorf("simulate %w", err)
		}
		row, err := sc.(*idleMask).simulate(cfg, nil)
		if err != nil {
			return nil, fmt.Errorf("simulate %w", err)
		}
		row.Label = r.label
		t.Rows = append(t.Rows, row)
	}
	if cfg.Nohz {
		var err error
		if t.Nohz, err = simulateNohz(cfg, t.Tick); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// simVariant is the scenario variant of a row: its update= and scan=
// keys and the config's workload.
func simVariant(cfg SimConfig, row string, tick int) string {
	return fmt.Sprintf("%s/sis=prop/busy=%d/wake=%d/llc=%d/tick=%d/hz=%d/early=on/prev=%s/smt=%d/probe=%d",
		row, cfg.Busy, cfg.Wake, cfg.LLC, tick, cfg.HZ, cfg.Prev, cfg.SMT, cfg.Probe.Nanoseconds())
}

// simulate runs the scenario at cfg's size and returns its row; lines, if
// not nil, follows the nohz lines (nohz= other than none).
func (s *idleMask) simulate(cfg SimConfig, lines *bench.NohzLines) (SimRow, error) {
	nllc := cfg.CPUs / cfg.LLC
	// One worker per LLC, each on a real LLC of its own, so that each
	// owns a whole simulated LLC.
	if err := s.Start(&bench.Env{CPUs: make([]int, nllc), Nodes: make([]int, nllc)}); err != nil {
		return SimRow{}, err
	}
	real := make([]int, nllc)
	for i := range real {
		real[i] = i
	}
	var n int
	s.shares, n = planShares(real, s.width)
	s.llcs = make([]*sharedLLC, n)
	for i := range s.llcs {
		s.llcs[i] = newSharedLLC(s.width)
	}
	if s.nohz != nohzNone {
		// Start sized it for the Env's cpus; the simulation's are these.
		s.nohzState = bench.NewNohz(n*s.width, s.nohz == nohzCounter)
	}
	for i := range nllc {
		if _, err := s.Worker(bench.WorkerInfo{Index: i, Workers: nllc}); err != nil {
			return SimRow{}, err
		}
		w := s.workers[i]
		w.rng ^= cfg.Seed * 0xD1B54A32D192ED03
		w.rng |= 1
		w.nohzLines = lines
	}
	gap := s.workers[0].gap
	rounds := int64(cfg.Duration) / gap * int64(cfg.LLC) // events per worker: every cpu Duration/gap
	ksim.Lockstep(len(s.workers), rounds, func(i int) { s.workers[i].Run(1) })
	res := &bench.Result{Ops: rounds * int64(nllc)}
	if err := s.Finish(res); err != nil {
		return SimRow{}, err
	}
	var c counts
	var e earlyCounts
	for _, w := range s.workers {
		c.add(&w.counts)
		e.add(&w.earlyCounts)
	}
	span := float64(rounds/int64(cfg.LLC)) * float64(gap) // kernel ns per cpu
	ticks := span / float64(s.tickNs())
	row := SimRow{
		Variant: s.Variant(), Events: c.events, Wakeups: c.wakeups, Writes: c.writes,
		WritesPerSec:     float64(c.writes) * 1e9 / span,
		WritesPerCPUTick: float64(c.writes) / (float64(cfg.CPUs) * ticks),
		ProbesPerWakeup:  float64(c.probes) / float64(max(c.wakeups, 1)),
		Early:            100 * float64(e.total()) / float64(max(c.wakeups, 1)),
		sec:              span / 1e9,
	}
	row.FoundIdle, _ = res.Metric(FoundIdle.Name)
	row.Wrong, _ = res.Metric(Wrong.Name)
	row.BudgetOut, _ = res.Metric(BudgetOut.Name)
	row.Stacked, _ = res.Metric(Stacked.Name)
	row.IdleCore, _ = res.Metric(IdleCore.Name)
	row.CoreWritesPerSec = float64(c.coreWrites) * 1e9 / span
	wait, _ := res.Metric(Wait.Name)
	row.Wait = time.Duration(math.Round(wait * 1e9))
	return row, nil
}

// WriteText writes the table beside seed 003's figures.
func (t *SimTable) WriteText(w io.Writer) error {
	c := t.Config
	var b strings.Builder
	fmt.Fprintf(&b, "idlemask simulation: %d virtual cpus in %d LLCs of %d, %s of kernel time per row, hz=%d\n",
		c.CPUs, c.CPUs/c.LLC, c.LLC, c.Duration, c.HZ)
	fmt.Fprintf(&b, "workload: busy=%d%% wake=%d%%, %d idle entries a cpu between ticks (tick=%d events), SIS_PROP on, %s a probe, select_idle_sibling's shortcuts on\n",
		c.Busy, c.Wake, c.Entries, t.Tick, c.Probe)
	if c.SMT == 2 {
		b.WriteString("2 threads a core: select_idle_core() (whole LLC, unbudgeted, gated by has_idle_cores) before select_idle_cpu(), select_idle_smt() after; probes/wakeup counts both\n")
	}
	if c.Prev == "history" {
		fmt.Fprintf(&b, "prev_cpu and recent_used_cpu from each task's history (%d tasks a cpu), as v5.11 sets them\n", tasksPerCPU)
	}
	b.WriteString("seed 003: 192 cpus, 4 sockets × 24 cores × 2 threads; \"uperf enters and exits 80 times between two ticks\";\n")
	b.WriteString("          uperf v5 vs before +23% / +67% / +81% / +51% at 96 / 144 / 192 / 240 threads; v5's last_idle_state filter\n")
	b.WriteString("          bounds a cpu's writes to 2 a tick once Vincent's change sets the mask at every idle entry\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "row\tvariant\tmask writes/s\t/cpu/tick\tprobes/wakeup\tfound idle %\tshortcut %\twrong %\tbudget out %\tstacked %\twait/wakeup\t"
	if c.SMT == 2 {
		head += "idle core %\thas_idle_cores writes/s\t"
	}
	fmt.Fprintln(tw, head)
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.2fµs\t", r.Label, rowName(r.Variant),
			bench.SeedCount(r.WritesPerSec), r.WritesPerCPUTick, r.ProbesPerWakeup, r.FoundIdle, r.Early, r.Wrong, r.BudgetOut,
			r.Stacked, float64(r.Wait)/1e3)
		if c.SMT == 2 {
			fmt.Fprintf(tw, "%.1f\t%s\t", r.IdleCore, bench.SeedCount(r.CoreWritesPerSec))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(t.Nohz) > 0 {
		writeNohz(&b, c, t.Nohz)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rowName is the part of a row's variant that sets it apart: its update=
// and scan= keys.
func rowName(v string) string { return strings.SplitN(v, "/sis=", 2)[0] }
