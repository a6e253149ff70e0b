package balanceflag

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
)

// The nohz struct's lines per second (contend simulate balanceflag -nohz):
// nohz.nr_cpus before and after Shrikanth Hegde's 5d86d542f68f, on the
// model's own idle pattern: every access to the struct's line and the idle
// mask's (bench.NohzLines, on ksim.Nohz's state) at the model's times, and
// the transfers they cause, priced at SimConfig.CAS. docs/balanceflag.md
// ("The nohz lines") lists the lines and the accesses.

// A NohzRow is one nohz= variant's accesses, per second of kernel time
// (bench.NohzRow, the one idlemask's -nohz fills too).
type NohzRow = bench.NohzRow

// A NohzLine is one line's accesses per second.
type NohzLine = bench.LineCounts

// A NohzTable is contend simulate balanceflag -nohz's result.
type NohzTable struct {
	Config SimConfig
	Rows   []NohzRow
}

// The nohz variants, as nohz= names them.
var nohzVariants = []string{"counter", "weight"}

// SimulateNohz counts the nohz lines' accesses per second for each
// variant, on cfg's machine, idle pattern and ticks (the orders and
// balancing costs do not enter: the nohz paths are the same in all).
func SimulateNohz(cfg SimConfig) (*NohzTable, error) {
	cfg, err := cfg.checked()
	if err != nil {
		return nil, err
	}
	tab := &NohzTable{Config: cfg}
	for _, v := range nohzVariants {
		tab.Rows = append(tab.Rows, newSim(cfg, ksim.SerializeOrder(0)).nohzRow(v == "counter", v))
	}
	return tab, nil
}

// A nohzEvent is one cpu's nohz access at a time of a tick.
type nohzEvent struct {
	t    int64
	stop int // 0: the busy tick's exit and kick; 1: the tick stop, after the exits of its instant
	cpu  int
}

func (s *sim) nohzRow(counter bool, variant string) NohzRow {
	cpus := len(s.cpus)
	lines := bench.NewNohzLines(cpus, counter)
	n := s.nohz
	idle := func(c int, j int64) bool { return s.pat.Idle(c, j) }
	for c := range cpus {
		if idle(c, 0) {
			n.EnterIdle(c)
		}
	}
	n.Obs = lines
	var busyTicks int64
	var evs []nohzEvent
	for j := int64(1); j <= s.ticks; j++ {
		evs = evs[:0]
		for c := range cpus {
			if t, ok := s.pat.TickStop(c, j); ok {
				evs = append(evs, nohzEvent{t: t, stop: 1, cpu: c})
			}
			if !idle(c, j) {
				busyTicks++
				evs = append(evs, nohzEvent{t: s.pat.TickStart(c, j) + s.pat.Jitter(c, j), cpu: c})
			}
			// The driver-less idle loop before f4c31b07b136 stops the
			// tick at every idle entry: a busy tick's short idles too,
			// and with fresh idles an idle tick's.
			if s.cfg.IdleTick == ksim.IdleTickStop && s.pat.HasShortIdles(c, j) {
				for _, off := range s.pat.ShortIdles(s.pat.Hash(c, j)) {
					evs = append(evs, nohzEvent{t: s.pat.TickStart(c, j) + off, stop: 1, cpu: c})
				}
			}
		}
		slices.SortFunc(evs, func(a, b nohzEvent) int {
			return cmp.Or(cmp.Compare(a.t, b.t), a.stop-b.stop, a.cpu-b.cpu)
		})
		for _, e := range evs {
			if e.stop == 0 {
				n.BalancerKick(e.cpu, j, ksim.KickRQ{})
			} else {
				n.EnterIdle(e.cpu)
			}
		}
	}
	sec := float64(s.ticks) * float64(s.tickNs) / 1e9
	r := lines.Row(variant, sec)
	if busyTicks > 0 {
		r.CyclesPct = 100 * lines.Transfers() * float64(s.cfg.CAS) / (float64(busyTicks) * float64(s.tickNs))
	}
	return r
}

// Row returns the variant's row, nil if the table has none.
func (t *NohzTable) Row(variant string) *NohzRow {
	for i := range t.Rows {
		if t.Rows[i].Variant == variant {
			return &t.Rows[i]
		}
	}
	return nil
}

// NohzAssumptions are what the nohz figures rest on, for the table and
// for reproduce.
func (t *NohzTable) Assumptions() []string {
	c := t.Config
	return []string{
		fmt.Sprintf("%d cpus (the series' \"systems with 480+ cpus\"), HZ %d (nohz_balancer_kick() \"at scheduler (busy)tick frequency ... ~1 kHz\", the commit), %d%% busy per tick with the idle pattern of the flag's model: a cpu idle in a tick has stopped it%s", c.CPUs, c.HZ, c.Busy, c.idleTickNote()),
		"CONFIG_CPUMASK_OFFSTACK=y: the mask on a line of its own, nr_cpus on the struct's line with has_blocked_load and next_balance; needs_update and has_blocked_load stored at every tick stop in both variants",
		fmt.Sprintf("a transfer costs %v (the flag's handoff) and waits for no other; the nohz balancer's own reads of the mask are left out", c.CAS),
	}
}

// WriteText writes the table: per variant, tick stops and restarts per
// second, and each line's accesses and transfers per second.
func (t *NohzTable) WriteText(w io.Writer) error {
	c := t.Config
	var b strings.Builder
	fmt.Fprintf(&b, "nohz lines: %d cpus, HZ %d, busy %d%%, %v of kernel time; per second:\n", c.CPUs, c.HZ, c.Busy, c.Duration)
	fmt.Fprintf(&b, "  %-8s %8s %8s  %-29s %-24s %-13s %-13s %8s\n", "nohz", "stops", "restarts", "struct line lock/store/read", "mask line lock/read", "moves: idle", "moves: tick", "cycles")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "  %-8s %8s %8s  %-29s %-24s %-13s %-13s %7.3g%%\n", r.Variant, bench.SeedCount(r.StopsPerSec), bench.SeedCount(r.RestartsPerSec),
			fmt.Sprintf("%s/%s/%s → %s moves", bench.SeedCount(r.Struct.Locked), bench.SeedCount(r.Struct.Stores), bench.SeedCount(r.Struct.Reads), bench.SeedCount(r.Struct.Transfers)),
			fmt.Sprintf("%s/%s → %s moves", bench.SeedCount(r.Mask.Locked), bench.SeedCount(r.Mask.Reads), bench.SeedCount(r.Mask.Transfers)), bench.SeedCount(r.IdleTransfers), bench.SeedCount(r.TickTransfers), r.CyclesPct)
	}
	fmt.Fprintf(&b, "idle: the tick stop's and restart's writes (the commit's \"idle cost\"); tick: nohz_balancer_kick()'s reads on every busy tick (its \"scheduler tick cost\"); a move is a transfer of a line between cpus\n")
	for _, a := range t.Assumptions() {
		fmt.Fprintf(&b, "assumes: %s\n", a)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the table as JSON.
func (t *NohzTable) WriteJSON(w io.Writer, cas string) error {
	return bench.WriteJSON(w, struct {
		CAS         string
		Assumptions []string
		*NohzTable
	}{cas, t.Assumptions(), t})
}
