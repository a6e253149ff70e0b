package idlemask

import (
	"fmt"
	"strings"

	"github.com/contend/contend/bench"
)

// The nohz struct's lines per second (contend simulate idlemask -nohz):
// nohz.nr_cpus before and after Shrikanth Hegde's 5d86d542f68f ("Remove
// nohz.nr_cpus and use weight of cpumask instead", merged 2026-01), on
// v5's tick-stop path (update=tickstop) and this model's own idle
// pattern: a cpu stops its tick on an idle entry when the governor
// predicts an idle of a tick or more (menu: predicted_ns >= TICK_NSEC),
// so how often that happens comes from the workload's idle entries, not
// from a knob. The pinned benchmark (nohz=counter|weight) counts the
// locked writes per event of a few workers; this counts, per second of a
// machine of the simulation's size, every access to the two lines and
// how many of them move a line between cpus (bench.LineState).
//
// The lines, as bench.Nohz lays them out (CONFIG_CPUMASK_OFFSTACK=y, the
// large machines' config: the mask's bits are an allocation of their
// own): the struct's ____cacheline_aligned line (nr_cpus, counter only;
// has_blocked_load, needs_update, next_blocked, next_balance) and the
// mask's (nohz.idle_cpus_mask, up to 512 cpus). The accesses, from v6.12's
// fair.c:
//
//   - nohz_balance_enter_idle(), called on every idle entry that stops
//     the tick or finds it stopped: on the first of an idle period
//     (rq->nohz_tick_stopped unset) cpumask_set_cpu() on the mask,
//     atomic_inc(&nohz.nr_cpus) (counter), WRITE_ONCE(nohz.needs_update,
//     1); on every call WRITE_ONCE(nohz.has_blocked_load, 1), which the
//     commit keeps.
//   - nohz_balance_exit_idle(), from the first busy tick's
//     nohz_balancer_kick(): cpumask_clear_cpu(), atomic_dec(&nohz.nr_cpus)
//     (counter).
//   - nohz_balancer_kick() on every busy tick: "is any cpu tickless",
//     atomic_read(&nohz.nr_cpus) before, cpumask_empty() after; when one
//     is, its reads of has_blocked_load, next_blocked, next_balance and
//     needs_update on the struct's line (one access: the same cpu's reads
//     of one line at one moment move it at most once).
//
// Left out: the nohz balancer's own walk of the mask (find_new_ilb(),
// _nohz_idle_balance()) and kick_ilb()'s writes, which balanceflag's
// model carries, and set_cpu_sd_state_idle()'s write of the LLC's
// nr_busy_cpus, a line per LLC, not nohz's.

// A NohzRow is one nohz= variant's accesses to the nohz lines, per second
// of kernel time over the whole machine.
type NohzRow struct {
	Variant string // counter (before 5d86d542f68f) or weight (after)
	// StopsPerSec are the idle periods that entered nohz.idle_cpus_mask,
	// CallsPerSec all calls of nohz_balance_enter_idle(), RestartsPerSec
	// the busy ticks' nohz_balance_exit_idle() that left it.
	StopsPerSec, CallsPerSec, RestartsPerSec float64
	// Struct is the nohz struct's line, Mask the idle mask's.
	Struct, Mask bench.LineCounts
	// IdleTransfers and TickTransfers split both lines' transfers per
	// second by path, as the commit splits the cost: the tick stop and
	// restart (its "idle cost"), and the busy tick's nohz_balancer_kick()
	// reads (its "scheduler tick cost").
	IdleTransfers, TickTransfers float64
}

// nohzLines follows the two lines through one simulation, in the order
// the simulation takes the cpus' events (kernel time, ksim.Lockstep).
type nohzLines struct {
	counter             bool
	st, mask            *bench.LineState
	stops, calls, exits int64
	idleMoves           float64
	sec                 float64 // the kernel time simulated, per cpu
}

func newNohzLines(cpus int, counter bool) *nohzLines {
	return &nohzLines{counter: counter, st: bench.NewLineState(cpus), mask: bench.NewLineState(cpus)}
}

func (l *nohzLines) moves() float64 { return l.st.N.Transfers + l.mask.N.Transfers }

// enter is the first nohz_balance_enter_idle() of an idle period.
func (l *nohzLines) enter(cpu int) {
	m0 := l.moves()
	l.stops++
	l.mask.Write(cpu, true)
	if l.counter {
		l.st.Write(cpu, true)
	}
	l.st.Write(cpu, false) // needs_update
	l.idleMoves += l.moves() - m0
}

// blocked is every nohz_balance_enter_idle()'s has_blocked_load store.
func (l *nohzLines) blocked(cpu int) {
	m0 := l.moves()
	l.calls++
	l.st.Write(cpu, false)
	l.idleMoves += l.moves() - m0
}

// exit is nohz_balance_exit_idle() from a busy tick.
func (l *nohzLines) exit(cpu int) {
	m0 := l.moves()
	l.exits++
	l.mask.Write(cpu, true)
	if l.counter {
		l.st.Write(cpu, true)
	}
	l.idleMoves += l.moves() - m0
}

// kick is nohz_balancer_kick()'s test for a tickless cpu and, when one
// is, its reads of the struct's line.
func (l *nohzLines) kick(cpu int, tickless bool) {
	if l.counter {
		l.st.Read(cpu)
	} else {
		l.mask.Read(cpu)
	}
	if tickless {
		l.st.Read(cpu)
	}
}

// row is the lines' accesses per second of the kernel time simulated.
func (l *nohzLines) row(variant string) NohzRow {
	sec := l.sec
	return NohzRow{Variant: variant,
		StopsPerSec: float64(l.stops) / sec, CallsPerSec: float64(l.calls) / sec, RestartsPerSec: float64(l.exits) / sec,
		Struct: l.st.N.PerSecond(sec), Mask: l.mask.N.PerSecond(sec),
		IdleTransfers: l.idleMoves / sec, TickTransfers: (l.moves() - l.idleMoves) / sec}
}

// simulateNohz runs v5's row with nohz=counter and nohz=weight, the same
// events in each (one seed), and returns their lines' rows.
func simulateNohz(cfg SimConfig, tick int) ([]NohzRow, error) {
	var rows []NohzRow
	for _, mode := range []string{"counter", "weight"} {
		sc, err := newIdleMask(simVariant(cfg, "update=tickstop/scan=mask", tick) + "/nohz=" + mode)
		if err != nil {
			return nil, fmt.Errorf("simulate %w", err)
		}
		lines := newNohzLines(cfg.CPUs, mode == "counter")
		if _, err := sc.(*idleMask).simulate(cfg, lines); err != nil {
			return nil, fmt.Errorf("simulate %w", err)
		}
		rows = append(rows, lines.row(mode))
	}
	return rows, nil
}

// writeNohz writes -nohz's table under the main one.
func writeNohz(b *strings.Builder, c SimConfig, rows []NohzRow) {
	fmt.Fprintf(b, "\nnohz lines on v5's tick-stop path (update=tickstop), nohz.nr_cpus kept (counter) and removed (weight, 5d86d542f68f); per second, %d cpus:\n", c.CPUs)
	fmt.Fprintf(b, "  %-8s %8s %8s %8s  %-30s %-26s %11s %11s\n", "nohz", "stops", "calls", "restarts", "struct line lock/store/read", "mask line lock/read", "moves: idle", "moves: tick")
	for _, r := range rows {
		fmt.Fprintf(b, "  %-8s %8s %8s %8s  %-30s %-26s %11s %11s\n", r.Variant,
			bench.SeedCount(r.StopsPerSec), bench.SeedCount(r.CallsPerSec), bench.SeedCount(r.RestartsPerSec),
			fmt.Sprintf("%s/%s/%s → %s moves", bench.SeedCount(r.Struct.Locked), bench.SeedCount(r.Struct.Stores), bench.SeedCount(r.Struct.Reads), bench.SeedCount(r.Struct.Transfers)),
			fmt.Sprintf("%s/%s → %s moves", bench.SeedCount(r.Mask.Locked), bench.SeedCount(r.Mask.Reads), bench.SeedCount(r.Mask.Transfers)),
			bench.SeedCount(r.IdleTransfers), bench.SeedCount(r.TickTransfers))
	}
	if len(rows) > 0 && rows[0].CallsPerSec == 0 {
		fmt.Fprintf(b, "no idle period here was predicted to last a tick (%d idle entries a tick), so no tick stopped: at this workload the nohz lines are only the busy ticks' reads\n", c.Entries)
	}
	b.WriteString("stops: idle periods entering nohz.idle_cpus_mask; calls: every nohz_balance_enter_idle() (has_blocked_load stored in both variants); a move is a transfer of a line between cpus;\n")
	b.WriteString("idle: the tick stop's and restart's writes (the commit's \"idle cost\"); tick: nohz_balancer_kick()'s reads on every busy tick (its \"scheduler tick cost\")\n")
}
