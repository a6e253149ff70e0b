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
// The lines and their pricing are bench.NohzLines'. The accesses, from
// v6.12's fair.c and tick-sched.c:
//
//   - nohz_balance_enter_idle(), which __tick_nohz_idle_stop_tick() calls
//     on the tick's transition to stopped ("if (!was_stopped &&
//     ts->tick_stopped)"), once per idle period that stops it: on a cpu
//     not in the mask yet (rq->nohz_tick_stopped unset) cpumask_set_cpu()
//     on the mask, atomic_inc(&nohz.nr_cpus) (counter),
//     WRITE_ONCE(nohz.needs_update, 1); on every call
//     WRITE_ONCE(nohz.has_blocked_load, 1), which the commit keeps. An
//     idle entry that finds the tick already stopped calls nothing.
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

// simulateNohz runs v5's row with nohz=counter and nohz=weight, the same
// events in each (one seed), and returns their lines' rows.
func simulateNohz(cfg SimConfig, tick int) ([]bench.NohzRow, error) {
	var rows []bench.NohzRow
	for _, mode := range []string{"counter", "weight"} {
		sc, err := newIdleMask(simVariant(cfg, "update=tickstop/scan=mask", tick) + "/nohz=" + mode)
		if err != nil {
			return nil, fmt.Errorf("simulate %w", err)
		}
		lines := bench.NewNohzLines(cfg.CPUs, mode == "counter")
		row, err := sc.(*idleMask).simulate(cfg, lines)
		if err != nil {
			return nil, fmt.Errorf("simulate %w", err)
		}
		rows = append(rows, lines.Row(mode, row.sec))
	}
	return rows, nil
}

// writeNohz writes -nohz's table under the main one.
func writeNohz(b *strings.Builder, c SimConfig, rows []bench.NohzRow) {
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
