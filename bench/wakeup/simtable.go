package wakeup

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/contend/contend/bench/wakeup/figures"
)

// A SimTable is a simulation's results, one row per guest size and policy.
type SimTable struct {
	Config SimConfig // with the defaults filled in
	Rows   []SimRow
}

// The seed's four figures (package figures), run on this model.
type (
	FigConfig = figures.Config
	FigRow    = figures.Row[SimRow]
	FigTable  = figures.Table[SimRow]
)

// Figures runs the seed's four figures on the model.
func Figures(cfg FigConfig) (*FigTable, error) { return figures.Figures(cfg, simPair) }

// simPair is the figures' Sim: a run on the pre-patch kernel (llcstats)
// and the patched one (basic).
func simPair(r figures.Run) (b, a SimRow, err error) {
	tab, err := Simulate(SimConfig{CPUs: []int{r.CPUs}, Topology: r.Topology, Test: r.Test, Threads: r.Threads,
		Policies: []string{"llcstats", "basic"}, Duration: r.Duration, Warmup: r.Warmup})
	if err != nil {
		return b, a, err
	}
	return tab.Rows[0], tab.Rows[1], nil
}

// MigrationsPer5s and Throughput are the row as figures.Result.
func (r SimRow) MigrationsPer5s() float64 { return r.Total }
func (r SimRow) Throughput() float64      { return r.TPS }

// Ratio is the before/after ratio of the rows' total migrations and their
// after/before ratio of transactions per second, for cpus: before is the
// pre-patch policy (llcstats), after the patch (basic). ok is false when
// the table lacks either row.
func (t *SimTable) Ratio(cpus int) (mig, tps float64, ok bool) {
	var b, a *SimRow
	for i := range t.Rows {
		r := &t.Rows[i]
		if r.CPUs != cpus {
			continue
		}
		switch r.Policy {
		case "llcstats":
			b = r
		case "basic":
			a = r
		}
	}
	if b == nil || a == nil {
		return 0, 0, false
	}
	return b.Total / max(a.Total, 1), a.TPS / max(b.TPS, 1e-9), true
}

// Reproduces says whether the run for cpus reaches the seed's direction and
// order, figure 1's rule (figures.OLTP): the pre-patch policy's migrations
// within a factor 3 of ~27K, the patch's within 3 of ~2K, and throughput
// up.
func (t *SimTable) Reproduces(cpus int) bool {
	var b, a *SimRow
	for i := range t.Rows {
		r := &t.Rows[i]
		if r.CPUs == cpus && r.Policy == "llcstats" {
			b = r
		}
		if r.CPUs == cpus && r.Policy == "basic" {
			a = r
		}
	}
	if b == nil || a == nil {
		return false
	}
	return figures.OLTP(b, a)
}

// WriteText writes the table: per guest size and policy, migrations per 5 s
// by cause beside the seed's, the affine decisions, and throughput.
func (t *SimTable) WriteText(w io.Writer) error {
	c := t.Config
	var b strings.Builder
	fmt.Fprintf(&b, "wakeup simulation: %s guest, HZ %d, %s of kernel time per run\n", c.Topology, c.HZ, c.Duration)
	servers := "each with its server thread"
	switch {
	case c.Servers == 1:
		servers = "served by one server thread"
	case c.Servers != c.Threads:
		servers = fmt.Sprintf("served by %d server threads", c.Servers)
	}
	fmt.Fprintf(&b, "workload: sysbench oltp, %d client threads %s, %d statements a transaction, think %s, service %s, commit flush %s (irq %s)\n",
		c.Threads, servers, c.Statements, c.Think, c.Service, c.IO, c.IRQ)
	fmt.Fprintf(&b, "prices: idle vCPU wakeup %s, working set pulled after a move %s; newidle balance cost %s\n", c.IdleWake, c.Pull, c.LBCost)
	b.WriteString("seed 004: guest cpu migrations \"from ~27K to ~2K over 5 seconds\" (4.13.0 + 90001d67be2f + a731ebe6f17b, without and with the patch);\n")
	b.WriteString("          sysbench oltp 5655 -> 9618 tps (next-20170926, without and with it); before = llcstats, after = basic\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "cpus\tpolicy\tmigrations/5s\tseed\t")
	for _, n := range causeNames {
		fmt.Fprintf(tw, "%s\t", n)
	}
	fmt.Fprintln(tw, "affine/attempts\twide %\tidle waker %\ttps\twait µs\tipi %\tbusy %\t")
	for _, r := range t.Rows {
		seed := "-"
		switch r.Policy {
		case "llcstats":
			seed = "~27K"
		case "basic":
			seed = "~2K"
		}
		fmt.Fprintf(tw, "%d\t%s\t%.0f\t%s\t", r.CPUs, r.Policy, r.Total, seed)
		for _, m := range r.Migrations {
			fmt.Fprintf(tw, "%.0f\t", m)
		}
		aff := "-"
		if r.AffineAttempts > 0 {
			aff = fmt.Sprintf("%.0f/%.0f", r.Affine, r.AffineAttempts)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.0f\t%.1f\t%.1f\t%.0f\t\n", aff, 100*r.WakeWide/max(r.Wakeups, 1),
			r.IdleWakerPct, r.TPS, r.WaitUs, r.IPIPct, r.BusyPct)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\n")
	for _, n := range c.CPUs {
		mig, tps, ok := t.Ratio(n)
		if !ok {
			continue
		}
		verdict := "not reproduced by this model at this size"
		if t.Reproduces(n) {
			verdict = "reproduces the seed's direction and order"
		}
		fmt.Fprintf(&b, "%d cpus: migrations llcstats/basic %.1fx (seed 13.5x), tps basic/llcstats %.2fx (seed %.2fx): %s\n",
			n, mig, tps, figures.SeedTPSGain, verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
