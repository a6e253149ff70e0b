package balanceflag

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// idleRun finds a CPU and tick j of cfg's idle pattern where the CPU is
// busy in j-1, idle from j for exactly k ticks, and busy in j+k and j+k+1.
func idleRun(t *testing.T, cfg SimConfig, k int64) (int, int64) {
	t.Helper()
	idle := func(c int, j int64) bool { return idleAt(cfg.Seed, cfg.Busy, c, j) }
	for c := range cfg.CPUs {
		for j := int64(2); j < 5000; j++ {
			ok := !idle(c, j-1) && !idle(c, j+k) && !idle(c, j+k+1)
			for i := j; ok && i < j+k; i++ {
				ok = idle(c, i)
			}
			if ok {
				return c, j
			}
		}
	}
	t.Fatalf("no idle run of %d ticks in the pattern", k)
	return 0, 0
}

// An idle run of k ticks stops the tick once. At idle entry (stop, and the
// governor's stand-in): in the busy tick before the run, at the moment the
// cpu goes idle, in that tick's second half; the run's first tick finds it
// in the mask. After the idle's first tick: at that tick, once its work is
// done, so that tick's kicks find it out of the mask and its later ticks in.
func TestTickStopRule(t *testing.T) {
	for _, rule := range []ksim.IdleTickRule{ksim.IdleTickGovernor, ksim.IdleTickStop, ksim.IdleTickAfterTick} {
		for _, k := range []int64{1, 2, 3} {
			cfg := SimConfig{CPUs: 64, Busy: 70, CAS: 100, Jitter: 5 * time.Microsecond, IdleTick: rule}.withDefaults()
			s := newSim(cfg, ksim.SerializeInRQ)
			cpu, j := idleRun(t, cfg, k)
			stopTick, stopAt := j-1, s.pat.GoIdleAt(cpu, j-1)
			if rule == ksim.IdleTickAfterTick {
				stopTick, stopAt = j, s.pat.TickStart(cpu, j)+s.pat.Jitter(cpu, j)
			} else if off := stopAt - s.pat.TickStart(cpu, j-1); off < s.tickNs/2 || off >= s.tickNs {
				t.Errorf("%v, run of %d: goes idle %d ns into its tick, want the second half", rule, k, off)
			}
			for i := j - 1; i <= j+k; i++ {
				at, stops := s.pat.TickStop(cpu, i)
				if stops != (i == stopTick) || stops && at != stopAt {
					t.Errorf("%v, run of %d from tick %d: tick %d stops %v at %d; want a stop only in tick %d, at %d", rule, k, j, i, stops, at, stopTick, stopAt)
				}
				s.ilbJ = i
				if want := i >= j && i < j+k && i > stopTick; s.ilbInMask(cpu) != want {
					t.Errorf("%v, run of %d from tick %d: in the mask at tick %d's kicks %v, want %v", rule, k, j, i, !want, want)
				}
			}
		}
	}
}

// Over a whole run: each idle run is one tick stop (SimulateNohz's calls,
// every one entering the mask) and, after the idle's first tick, one kept
// tick whose CPU_IDLE pass the cpu runs itself when due; at idle entry no
// idle tick is kept. A cpu that idles only within its ticks (busy 100, a
// short idle every tick) stops its tick at each short idle where the idle
// loop stops it at every entry (before f4c31b07b136), entering the mask
// once between busy ticks, and never after the idle's first tick.
func TestTickStopsPerIdle(t *testing.T) {
	for _, rule := range []ksim.IdleTickRule{ksim.IdleTickStop, ksim.IdleTickAfterTick} {
		for _, busy := range []int{100, 80} {
			cfg := SimConfig{CPUs: 32, Sockets: 2, SNC: 2, SMT: 2, Busy: busy, Newidle: 1, CAS: 100 * time.Nanosecond,
				Duration: 40 * time.Millisecond, IdleTick: rule}.withDefaults()
			s := simFor(t, cfg, "cmpxchg-first")
			var runs, entries, shortStops, kept, busyTicks int64
			for c := range cfg.CPUs {
				for j := int64(1); j <= s.ticks; j++ {
					idle := func(j int64) bool { return idleAt(cfg.Seed, cfg.Busy, c, j) }
					if idle(j) && !idle(j-1) {
						runs++
					}
					busyTicks += b2i64(!idle(j))
					if rule == ksim.IdleTickStop && !idle(j) && s.pat.ShortIdleTick(c, j) {
						shortStops += int64(cfg.NewidlePerTick)
					}
					if rule.StopsAtEntry() && !idle(j) && idle(j+1) || !rule.StopsAtEntry() && idle(j) && !idle(j-1) {
						entries++
					}
				}
				kept += s.cpus[c].keptTicks
			}
			if want := runs * b2i64(!rule.StopsAtEntry()); kept != want {
				t.Errorf("%v, busy %d: %d idle ticks kept, want %d (one per idle run after the first tick)", rule, busy, kept, want)
			}
			// The tick rows: every busy tick fires, and the kept idle ones.
			row, sec := s.row("cmpxchg-first"), cfg.Duration.Seconds()
			if math.Abs(row.IdleTicks*sec-float64(kept)) > 0.5 || math.Abs(row.Ticks*sec-float64(busyTicks+kept)) > 0.5 {
				t.Errorf("%v, busy %d: %.1f ticks, %.1f idle, want %d and %d", rule, busy, row.Ticks*sec, row.IdleTicks*sec, busyTicks+kept, kept)
			}
			tab, err := SimulateNohz(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := tab.Rows[0]
			calls := r.CallsPerSec * cfg.Duration.Seconds()
			if math.Abs(calls-float64(entries+shortStops)) > 0.5 || shortStops == 0 && math.Abs(r.StopsPerSec-r.CallsPerSec) > 1e-9 || r.StopsPerSec > r.CallsPerSec {
				t.Errorf("%v, busy %d: %.1f tick stops (%.1f/s entering the mask of %.1f/s), want %d (%d at short idles), each entering but those at short idles", rule, busy, calls, r.StopsPerSec, r.CallsPerSec, entries+shortStops, shortStops)
			}
			if busy == 100 && (entries != 0 || kept != 0 || (shortStops > 0) != (rule == ksim.IdleTickStop)) {
				t.Errorf("%v, busy 100: %d tick stops, %d at short idles, %d kept ticks, want only those at short idles, and those only at every entry", rule, entries, shortStops, kept)
			}
			if busy == 100 && rule == ksim.IdleTickStop && math.Abs(r.StopsPerSec*cfg.Duration.Seconds()-float64(shortStops)) > 0.5 {
				t.Errorf("%v, busy 100: %.1f mask entries, want one a tick (%d): a busy tick takes the cpu out", rule, r.StopsPerSec*cfg.Duration.Seconds(), shortStops)
			}
		}
	}
}

func b2i64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// The kept tick's pass is the cpu's own, CPU_IDLE: its intervals are the
// idle ones, without busy_factor. At idle entry the run's first tick runs
// none. (LLCs of one cpu: no nohz kick, so no walk balances it instead.)
func TestKeptTickPass(t *testing.T) {
	for _, rule := range []ksim.IdleTickRule{ksim.IdleTickStop, ksim.IdleTickAfterTick} {
		cfg := SimConfig{CPUs: 8, Sockets: 2, SNC: 4, SMT: 1, Busy: 70, CAS: 100, IdleTick: rule}.withDefaults()
		s := newSim(cfg, ksim.SerializeInRQ)
		cpu, j := idleRun(t, cfg, 2)
		c := &s.cpus[cpu]
		c.rq.NextBalance = j // due
		d := ksim.Driver{Serve: s.serve}
		d.Run(cfg.CPUs, func(p *ksim.Proc) {
			if p.CPU == cpu && p.WaitUntil(s.pat.TickStart(cpu, j)) {
				newSimProc(s, p).tick(j)
			}
		})
		want := b2i64(rule == ksim.IdleTickAfterTick)
		if c.softirqs != want || c.keptTicks != want {
			t.Errorf("%v: %d passes, %d kept ticks in the idle's first tick, want %d", rule, c.softirqs, c.keptTicks, want)
		}
		if l := &c.levels[0]; want == 1 && l.interval != c.sdInterval(l, false) {
			t.Errorf("%v: the pass's interval %d, want the idle one %d (busy: %d)", rule, l.interval, c.sdInterval(l, false), c.sdInterval(l, true))
		}
	}
}

// A busy CPU with a second task queued kicks the nohz balancer on its own
// (rq->nr_running >= 2), so stacked tasks add kicked walks where each CPU
// is its own LLC (no nr_busy_cpus reason: smt=1 over nodes of one CPU);
// a share outside [0, 1] is refused.
func TestStackedKicks(t *testing.T) {
	walks := func(stacked float64) float64 {
		tab, err := Simulate(SimConfig{CPUs: 8, Sockets: 8, SNC: 1, SMT: 1, HZ: 250, Busy: 60, Newidle: 1, CAS: 100 * time.Nanosecond,
			Duration: 200 * time.Millisecond, Orders: []string{"cmpxchg-first"}, Stacked: stacked})
		if err != nil {
			t.Fatal(err)
		}
		return tab.Rows[0].NohzRuns
	}
	none, half := walks(0), walks(0.5)
	t.Logf("kicked walks per s: %.0f unstacked, %.0f half stacked", none, half)
	if !(half > none) {
		t.Errorf("kicked walks per s: %.0f with half the busy ticks stacked, %.0f with none: want more", half, none)
	}
	if _, err := Simulate(SimConfig{CPUs: 8, CAS: 100 * time.Nanosecond, Stacked: 1.5}); err == nil || !strings.Contains(err.Error(), "stacked share") {
		t.Errorf("stacked 1.5: err %v, want a stacked share error", err)
	}
}

// A domain's max_newidle_lb_cost over a busy CPU's short idle cuts the
// newidle walk there (sched_balance_newidle()'s "this_rq->avg_idle <
// sd->max_newidle_lb_cost" gate): a guest's measured costs, tens of ms
// under an emulator, against idles of a few hundred µs leave the newidle
// passes of the serialized level few, where the model's own pass costs
// leave every walk to the top.
func TestNewidleCostGate(t *testing.T) {
	newidle := func(costs []time.Duration) float64 {
		tab, err := Simulate(SimConfig{CPUs: 8, Sockets: 2, SNC: 1, SMT: 1, HZ: 250, Busy: 60, Newidle: 1, CAS: 100 * time.Nanosecond,
			Duration: 200 * time.Millisecond, Orders: []string{"check-first+newidle"}, ShortIdle: 200 * time.Microsecond, NewidleCost: costs})
		if err != nil {
			t.Fatal(err)
		}
		top := tab.Rows[0].Levels[len(tab.Rows[0].Levels)-1]
		return top.Newidle
	}
	own, measured := newidle(nil), newidle([]time.Duration{50 * time.Microsecond, 37 * time.Millisecond})
	t.Logf("newidle passes of the top level per s: %.0f at the model's own costs, %.0f at 50µs and 37ms", own, measured)
	if !(own > 0 && measured < own/10) {
		t.Errorf("newidle passes of the top level per s: %.0f at the model's own costs, %.0f at 37 ms: want a tenth or fewer", own, measured)
	}
}

// With FreshIdle (idles far shorter than a tick, each begun since the
// cpu's last tick) every idle tick fires, runs its own CPU_IDLE pass when
// due and stops the tick after its work: one call of
// nohz_balance_enter_idle() per idle tick, the mask entered once per idle
// run (no busy tick between to take the cpu out).
func TestFreshIdle(t *testing.T) {
	cfg := SimConfig{CPUs: 32, Sockets: 2, SNC: 2, SMT: 2, Busy: 70, Newidle: 1, CAS: 100 * time.Nanosecond,
		Duration: 40 * time.Millisecond, IdleTick: ksim.IdleTickAfterTick, FreshIdle: true}.withDefaults()
	s := simFor(t, cfg, "cmpxchg-first")
	var idleTicks, runs, kept int64
	for c := range cfg.CPUs {
		for j := int64(1); j <= s.ticks; j++ {
			if idleAt(cfg.Seed, cfg.Busy, c, j) {
				idleTicks++
				runs += b2i64(!idleAt(cfg.Seed, cfg.Busy, c, j-1))
			}
		}
		kept += s.cpus[c].keptTicks
	}
	if kept != idleTicks || runs >= idleTicks {
		t.Errorf("fresh idles: %d idle ticks kept, want every idle tick (%d; %d runs)", kept, idleTicks, runs)
	}
	tab, err := SimulateNohz(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sec := cfg.Duration.Seconds()
	if r := tab.Rows[0]; math.Abs(r.CallsPerSec*sec-float64(idleTicks)) > 0.5 || math.Abs(r.StopsPerSec*sec-float64(runs)) > 0.5 {
		t.Errorf("fresh idles: %.1f calls, %.1f mask entries, want %d (every idle tick) and %d (every run)", r.CallsPerSec*sec, r.StopsPerSec*sec, idleTicks, runs)
	}
}

// With FreshIdle an idle tick's span holds idle entries as a busy tick's
// does: its short idles, each a newidle walk and, where the idle loop
// stops the tick at every entry (IdleTickStop), a call of
// nohz_balance_enter_idle().
func TestFreshIdleEntries(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		cfg := SimConfig{CPUs: 16, Sockets: 2, SNC: 2, SMT: 2, Busy: 60, Newidle: 1, NewidlePerTick: 2, CAS: 100 * time.Nanosecond,
			Duration: 40 * time.Millisecond, IdleTick: ksim.IdleTickStop, FreshIdle: fresh}.withDefaults()
		s := simFor(t, cfg, "cmpxchg-first")
		var shortIdles, goIdle int64
		for c := range cfg.CPUs {
			for j := int64(1); j <= s.ticks; j++ {
				idle := idleAt(cfg.Seed, cfg.Busy, c, j)
				if !idle || fresh {
					shortIdles += int64(cfg.NewidlePerTick)
				}
				goIdle += b2i64(!idle && idleAt(cfg.Seed, cfg.Busy, c, j+1))
			}
		}
		var walks int64
		for c := range s.cpus {
			walks += s.cpus[c].newidleWalks
		}
		if walks != shortIdles+goIdle {
			t.Errorf("fresh %v: %d newidle walks, want %d (%d short idles, %d going idle)", fresh, walks, shortIdles+goIdle, shortIdles, goIdle)
		}
		tab, err := SimulateNohz(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if calls := tab.Rows[0].CallsPerSec * cfg.Duration.Seconds(); math.Abs(calls-float64(shortIdles+goIdle)) > 0.5 {
			t.Errorf("fresh %v: %.1f tick stops, want one per idle entry (%d)", fresh, calls, shortIdles+goIdle)
		}
	}
}

// An idle tick that finds a task queued (IdleQueued) balances, when
// due, CPU_NOT_IDLE and stops no tick: the CPU_IDLE passes and the tick
// stops fall about as the share; runs of busy ticks (TickCorr) bring the
// busy interval due more often.
func TestIdleQueuedAndRuns(t *testing.T) {
	base := SimConfig{CPUs: 16, Sockets: 2, SNC: 1, SMT: 2, HZ: 250, Busy: 50, Newidle: 1, CAS: 100 * time.Nanosecond,
		Duration: 2 * time.Second, IdleTick: ksim.IdleTickAfterTick, FreshIdle: true, Orders: []string{"cmpxchg-first"}}
	run := func(cfg SimConfig) (SimRow, NohzRow) {
		tab, err := Simulate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		nz, err := SimulateNohz(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return tab.Rows[0], nz.Rows[0]
	}
	r0, n0 := run(base)
	q := base
	q.IdleQueued = 0.5
	r1, n1 := run(q)
	// Fewer idle walks, but each finds more levels due (the queued
	// tick's CPU_NOT_IDLE walk, on the busy interval, seldom passes).
	if ratio := r1.LBPasses[ksim.CPUIdle] / r0.LBPasses[ksim.CPUIdle]; ratio < 0.5 || ratio > 0.85 || r1.LBPasses[ksim.CPUNotIdle] <= r0.LBPasses[ksim.CPUNotIdle] {
		t.Errorf("half the idle ticks queued: CPU_IDLE passes %.0f -> %.0f per s (%.2fx), want fewer; CPU_NOT_IDLE %.1f -> %.1f, want more",
			r0.LBPasses[ksim.CPUIdle], r1.LBPasses[ksim.CPUIdle], ratio, r0.LBPasses[ksim.CPUNotIdle], r1.LBPasses[ksim.CPUNotIdle])
	}
	if ratio := n1.CallsPerSec / n0.CallsPerSec; ratio < 0.4 || ratio > 0.6 {
		t.Errorf("half the idle ticks queued: tick stops %.0f -> %.0f per s (%.2fx), want about half", n0.CallsPerSec, n1.CallsPerSec, ratio)
	}
	if r1.IdleTicks != r0.IdleTicks {
		t.Errorf("queued idle ticks still count as idle (task_tick_idle): %.0f -> %.0f per s", r0.IdleTicks, r1.IdleTicks)
	}
	c := q
	c.TickCorr = 0.6
	r2, _ := run(c)
	t.Logf("busy passes per s: %.1f queued, %.1f with runs", r1.LBPasses[ksim.CPUNotIdle], r2.LBPasses[ksim.CPUNotIdle])
	if r2.LBPasses[ksim.CPUNotIdle] < 1.5*r1.LBPasses[ksim.CPUNotIdle] {
		t.Errorf("runs of ticks: busy passes %.1f -> %.1f per s, want half as many again or more", r1.LBPasses[ksim.CPUNotIdle], r2.LBPasses[ksim.CPUNotIdle])
	}
}
