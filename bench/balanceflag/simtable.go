package balanceflag

import (
	"fmt"
	"github.com/contend/contend/bench"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// The simulation's results: per order, each SD_SERIALIZE level's rates and
// the flag's share of cycles, and the table that prints them with the
// machine and the assumptions beside.

// A SimLevel is one serialized level's figures, per second of kernel time,
// the whole machine's.
type SimLevel struct {
	Level   string  // socket or all (kindNames)
	Weight  int     // CPUs in its span
	CAS     float64 // cmpxchg attempts per second
	Fails   float64 // attempts that found the flag taken, per second
	Passes  float64 // periodic passes done, per second
	Newidle float64 // newidle passes done, per second
	FlagPct float64 // share of the machine's non-idle cycles on the flag for this level, per cent
}

// A SimRow is one order's results.
type SimRow struct {
	Order    string
	Levels   []SimLevel
	CAS      float64 // every level's, per second
	Fails    float64
	FlagPct  float64 // share of the machine's non-idle cycles on the flag, per cent: the seed's "7.8% of total CPU cycles"
	Softirqs float64 // sched_balance_domains() walks per second, busy and nohz
	Newidles float64 // sched_balance_newidle() walks per second
	NohzRuns float64 // _nohz_idle_balance() walks per second
	// NohzPasses are Softirqs' walks the nohz balancer ran on an idle CPU's
	// behalf, and KickIPIs the kicks' IPIs (ksim.Nohz.KickIPIs), per second:
	// out of the JSON, as kernel model's (the counts' on-behalf passes, nohz_csd_func()).
	NohzPasses, KickIPIs float64 `json:"-"`
	// Ticks are sched_tick() calls per second, busy CPUs' and the kept
	// ticks of idle ones (IdleTicks): kernel model's, as the counts'.
	Ticks, IdleTicks float64 `json:"-"`
	// LBPasses are sched_balance_rq() calls per second over every level,
	// by ksim.IdleType (schedstat's lb_count: idle, busy, newidle).
	LBPasses [3]float64 `json:"-"`
	// NewidleCut is the newidle walks per second the avg_idle cutoff
	// stopped below the top domain.
	NewidleCut float64 `json:",omitempty"`
	// Handoffs are the flag line's moves from one CPU to another per
	// second, and RemoteHandoffs those from the other socket.
	Handoffs, RemoteHandoffs float64 `json:",omitempty"`
}

// A SimTable is a simulation's results, one row per order.
type SimTable struct {
	Config SimConfig
	Rows   []SimRow
}

// row sums the run's counts per second of kernel time.
func (s *sim) row(order string) SimRow {
	sec := float64(s.ticks) * float64(s.tickNs) / 1e9
	pct := func(ns int64) float64 { return 100 * float64(ns) / float64(max(s.busyNs, 1)) }
	r := SimRow{Order: order, FlagPct: pct(s.flagNs), NohzRuns: float64(s.nohzRuns) / sec, NohzPasses: float64(s.nohzPasses) / sec,
		KickIPIs: float64(s.nohz.KickIPIs) / sec}
	if s.cfg.CASRemote > 0 {
		r.Handoffs, r.RemoteHandoffs = float64(s.handoffs)/sec, float64(s.remoteHandoffs)/sec
	}
	cpus := make([]*cpuState, len(s.cpus))
	for i := range s.cpus {
		c := &s.cpus[i]
		cpus[i] = c
		r.CAS += float64(c.cas) / sec
		r.Fails += float64(c.casFails) / sec
		r.Softirqs += float64(c.softirqs) / sec
		r.Newidles += float64(c.newidleWalks) / sec
		r.NewidleCut += float64(c.newidleCut) / sec
		r.IdleTicks += float64(c.keptTicks) / sec
		for k := range c.levels {
			for t, n := range c.levels[k].bal.LBCount {
				r.LBPasses[t] += float64(n) / sec
			}
		}
	}
	r.Ticks = r.IdleTicks + float64(s.busyTicks)/sec
	sums := sumLevels(cpus)
	for _, sh := range s.m.topo.shapes() {
		if !sh.serialize {
			continue
		}
		sum := sums[sh.kind]
		r.Levels = append(r.Levels, SimLevel{Level: kindNames[sh.kind], Weight: sh.weight,
			CAS: float64(sum.cas) / sec, Fails: float64(sum.fails) / sec,
			Passes: float64(sum.passes) / sec, Newidle: float64(sum.newidlePasses) / sec,
			FlagPct: pct(sum.flagNs)})
	}
	return r
}

// Topology says what machine the table is for, in a line.
func (t *SimTable) Topology() string {
	c := t.Config
	tp := c.topo()
	var ls []string
	for _, sh := range tp.shapes() {
		l := fmt.Sprintf("%s %d", kindNames[sh.kind], sh.weight)
		if sh.serialize {
			l += " (SD_SERIALIZE)"
		}
		ls = append(ls, l)
	}
	return fmt.Sprintf("%d cpus: %d sockets × %d nodes of %d cpus, %d threads a core; domains %s",
		c.CPUs, c.Sockets, c.SNC, tp.group, c.SMT, strings.Join(ls, ", "))
}

// Assumptions are the model's inputs a reader must weigh the figures by.
func (t *SimTable) Assumptions() []string {
	c := t.Config
	newidle := "only when a cpu turns idle"
	if c.Newidle > 0 {
		newidle = fmt.Sprintf("when a cpu turns idle, and a busy cpu's short idle every %d ticks (%d/s)", c.Newidle, c.HZ/c.Newidle)
		if c.NewidlePerTick > 1 {
			newidle = fmt.Sprintf("when a cpu turns idle, and %d short idles of a busy cpu in a tick every %d ticks (%d/s)", c.NewidlePerTick, c.Newidle, c.NewidlePerTick*c.HZ/c.Newidle)
		}
	}
	short := "as long as avg_idle's cap (2*max_idle_balance_cost, 1 ms or more), so a walk of these costs is cut only after whole idle ticks shorter than it"
	if c.ShortIdle > 0 {
		short = fmt.Sprintf("%v (rq->avg_idle follows it, 1/8 a sample)", c.ShortIdle)
	}
	return []string{
		c.handoffLine(),
		fmt.Sprintf("a balancing pass costs %v per cpu of its domain's span (update_sd_lb_stats reading each rq)", c.CS),
		fmt.Sprintf("HZ=%d, %s; %d%% of cpus busy in a tick, drawn per cpu and tick (seed %d)", c.HZ, c.tickLine(), c.Busy, c.Seed),
		"newly idle: " + newidle + "; a newidle walk stops at the first domain whose max_newidle_lb_cost (its costliest pass, decayed 1% a second) and the walk's cost so far exceed the cpu's avg_idle; a short idle lasts " + short + "; nothing is pulled, and the root domain counts as overloaded",
		"idle cpus have stopped their tick" + c.idleTickNote() + ": the first idle cpu balances them (_nohz_idle_balance) when a busy cpu's tick finds one due",
		"flag-% is the flag accesses' time, waiting included, over the cpus' non-idle time (busy ticks and the nohz balancer's walks): a profile's share of cycles",
	}
}

// handoffLine says what an access to the flag's line costs.
func (c SimConfig) handoffLine() string {
	if c.CASRemote > 0 {
		return fmt.Sprintf("one contended cmpxchg or release = %v from a cpu of the same socket, %v from the other socket (a line handoff), one on a line already held = %v; accesses queue on the line in time order, ties by cpu number (one socket's burst, then the other's)", c.CAS, c.CASRemote, c.Local)
	}
	return fmt.Sprintf("one contended cmpxchg or release = %v (a line handoff), one on a line already held = %v; accesses queue on the line in time order", c.CAS, c.Local)
}

// tickLine says when the CPUs' ticks fire and their work starts.
func (c SimConfig) tickLine() string {
	t := "every cpu's tick at the same instant (skew_tick=0)"
	if c.SkewTick {
		t = fmt.Sprintf("cpu i's tick %v × i after the jiffy (skew_tick=1: (TICK_NSEC/2)/%d cpus)", time.Duration(ksim.HZ(c.HZ).TickNs()>>1/int64(c.CPUs)), c.CPUs)
	}
	if c.Jitter > 0 {
		return t + fmt.Sprintf(", its work delayed by a random [0, %v) per cpu and tick", c.Jitter)
	}
	return t
}

// Knobs are the settings of the model's refinements that differ from their
// defaults (the model as it was before them: aligned ticks, no jitter, ...),
// one phrase each; none when every one is at its default.
func (c SimConfig) Knobs() []string {
	var k []string
	if c.SkewTick {
		k = append(k, "skew_tick=1")
	}
	if c.Jitter > 0 {
		k = append(k, fmt.Sprintf("jitter %v", c.Jitter))
	}
	if c.NewidlePerTick > 1 {
		k = append(k, fmt.Sprintf("%d newidle a tick", c.NewidlePerTick))
	}
	if c.ShortIdle > 0 {
		k = append(k, fmt.Sprintf("short idle %v", c.ShortIdle))
	}
	if c.CASRemote > 0 {
		k = append(k, fmt.Sprintf("cross-socket handoff %v", c.CASRemote))
	}
	return k
}

// Baseline is c with every refinement Knobs names at its default.
func (c SimConfig) Baseline() SimConfig {
	c.SkewTick, c.Jitter, c.NewidlePerTick, c.ShortIdle, c.CASRemote = false, 0, 0, 0, 0
	return c
}

// idleTickNote is the assumptions' word on SimConfig.IdleTick and FreshIdle.
func (c SimConfig) idleTickNote() string {
	switch {
	case c.IdleTick.StopsAtEntry():
		return ""
	case c.FreshIdle:
		return " after each idle tick, every idle tick falling in an idle begun since the last (idles far shorter than a tick, its span holding short idles as a busy tick's) and kept (no cpuidle driver, f4c31b07b136) for a CPU_IDLE pass of its own"
	}
	return " but in an idle's first tick, kept (no cpuidle driver, f4c31b07b136) for a CPU_IDLE pass of its own"
}

// WriteMoves writes what t's knobs move against base, the same machine
// with them at their defaults: per order, the flag's share of cycles and
// the periodic passes, base's → t's.
func (t *SimTable) WriteMoves(w io.Writer, base *SimTable) error {
	var b strings.Builder
	fmt.Fprintf(&b, "what %s moves (against the defaults: every cpu's tick at the same instant, no jitter, one short idle a tick as long as avg_idle's cap, every handoff at %v):\n",
		strings.Join(t.Config.Knobs(), ", "), base.Config.CAS)
	for i, r := range t.Rows {
		if i >= len(base.Rows) || base.Rows[i].Order != r.Order {
			return fmt.Errorf("simulate balanceflag: baseline rows %d do not match", len(base.Rows))
		}
		o := base.Rows[i]
		fmt.Fprintf(&b, "  %s: flag %% of cycles %s → %s, cmpxchg/s %s → %s, periodic passes/s %s → %s, newidle walks/s %s → %s (cut by avg_idle %s → %s)\n", r.Order,
			simRate(o.FlagPct), simRate(r.FlagPct), simRate(o.CAS), simRate(r.CAS), simRate(o.passes()), simRate(r.passes()),
			simRate(o.Newidles), simRate(r.Newidles), simRate(o.NewidleCut), simRate(r.NewidleCut))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// passes is the row's periodic passes per second, every serialized level's.
func (r SimRow) passes() float64 {
	var n float64
	for _, l := range r.Levels {
		n += l.Passes
	}
	return n
}

// WriteText writes the table: the machine, the assumptions, and per order
// each serialized level's rates and the flag's share of cycles.
func (t *SimTable) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "sched_balance_running on %s\n", t.Topology())
	fmt.Fprintf(&b, "%v of kernel time per order. Assumptions:\n", t.Config.Duration)
	for _, a := range t.Assumptions() {
		fmt.Fprintf(&b, "  - %s\n", a)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "order\tlevel\tcmpxchg/s\tfails/s\tpasses/s\tnewidle passes/s\tflag % of cycles\t")
	for _, r := range t.Rows {
		for _, l := range r.Levels {
			fmt.Fprintf(tw, "%s\t%s %d\t%s\t%s\t%s\t%s\t%s\t\n", r.Order, l.Level, l.Weight,
				simRate(l.CAS), simRate(l.Fails), simRate(l.Passes), simRate(l.Newidle), simRate(l.FlagPct))
		}
		fmt.Fprintf(tw, "%s\ttotal\t%s\t%s\t\t\t%s\t\n", r.Order, simRate(r.CAS), simRate(r.Fails), simRate(r.FlagPct))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "walks per second: ")
	for i, r := range t.Rows {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s periodic (the nohz balancer ran %s times), %s newidle", r.Order,
			simRate(r.Softirqs), simRate(r.NohzRuns), simRate(r.Newidles))
		if r.NewidleCut > 0 {
			fmt.Fprintf(&b, " (%s cut by avg_idle)", simRate(r.NewidleCut))
		}
		if r.Handoffs > 0 {
			fmt.Fprintf(&b, ", the line moved %s times (%s across sockets, %.0f%%)", simRate(r.Handoffs), simRate(r.RemoteHandoffs), 100*r.RemoteHandoffs/r.Handoffs)
		}
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the table as indented JSON: the machine (Topology),
// where the price of a contended cmpxchg came from (cas), the assumptions
// and the rows.
func (t *SimTable) WriteJSON(w io.Writer, cas string) error {
	return bench.WriteJSON(w, struct {
		Topology    string
		CAS         string
		Assumptions []string
		*SimTable
	}{t.Topology(), cas, t.Assumptions(), t})
}

// simRate prints a rate with three significant digits.
func simRate(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
