package balanceflag

import (
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/bench/ksim"
)

// skew_tick=1 spreads the ticks over the first half of the jiffy, cpu i at
// i × ((TICK_NSEC >> 1) / cpus), as tick_setup_sched_timer() does; jitter
// stays in [0, Jitter) and is a function of its inputs.
func TestSimTickStart(t *testing.T) {
	for _, tt := range []struct {
		hz, cpus int
		step     int64 // ns between two cpus' ticks
	}{
		{1000, 512, 976}, // 500000/512 = 976.5, do_div truncates
		{1000, 16, 31250},
		{250, 512, 3906},
	} {
		cfg := SimConfig{CPUs: tt.cpus, HZ: tt.hz, CAS: 100, SkewTick: true, SNC: 1}.withDefaults()
		s := newSim(cfg, ksim.SerializeInRQ)
		for _, cpu := range []int{0, 1, tt.cpus - 1} {
			if got, want := s.pat.TickStart(cpu, 7), 7*s.tickNs+int64(cpu)*tt.step; got != want {
				t.Errorf("hz %d, %d cpus: cpu %d's tick 7 at %d ns, want %d", tt.hz, tt.cpus, cpu, got, want)
			}
		}
		if last := s.pat.TickStart(tt.cpus-1, 0); last >= s.tickNs/2 {
			t.Errorf("hz %d, %d cpus: the last cpu's offset %d ns is past half a tick", tt.hz, tt.cpus, last)
		}
		cfg.SkewTick = false
		if got := newSim(cfg, ksim.SerializeInRQ).pat.TickStart(tt.cpus-1, 7); got != 7*s.tickNs {
			t.Errorf("skew_tick=0: cpu %d's tick 7 at %d ns, want the jiffy's edge %d", tt.cpus-1, got, 7*s.tickNs)
		}
	}
	cfg := SimConfig{CPUs: 64, CAS: 100, Jitter: 20 * time.Microsecond}.withDefaults()
	s, s2 := newSim(cfg, ksim.SerializeInRQ), newSim(cfg, ksim.SerializeInRQ)
	var sum, n int64
	for cpu := range 64 {
		for j := int64(1); j < 200; j++ {
			d := s.pat.Jitter(cpu, j)
			if d < 0 || d >= int64(cfg.Jitter) || d != s2.pat.Jitter(cpu, j) {
				t.Fatalf("cpu %d tick %d: jitter %d ns, want one value in [0, %d)", cpu, j, d, int64(cfg.Jitter))
			}
			sum, n = sum+d, n+1
		}
	}
	// Uniform: the mean of 12736 draws is within 5% of the half-width.
	if mean := sum / n; mean < 9500 || mean > 10500 {
		t.Errorf("mean jitter %d ns, want about 10000", mean)
	}
}

// With the ticks skewed far apart (16 cpus: 31 µs between two, a pass of
// the machine 1.6 µs) no access waits for the line: the flag's time is at
// most one handoff per cmpxchg, and at least one local access each. Aligned,
// the same walks queue: more time than that bound. Either way the same
// softirqs run (every cpu busy, no newidle: the periodic walks alone).
func TestSimSkewTickNoQueue(t *testing.T) {
	cfg := SimConfig{CPUs: 16, Sockets: 2, SNC: 1, SMT: 1, Busy: 100, HZ: 1000, Duration: 300 * time.Millisecond,
		CAS: 100 * time.Nanosecond, Local: 10 * time.Nanosecond}
	count := func(s *sim) (cas, softirqs int64) {
		for i := range s.cpus {
			cas, softirqs = cas+s.cpus[i].cas, softirqs+s.cpus[i].softirqs
		}
		return
	}
	aligned := simFor(t, cfg, "cmpxchg-first")
	cfg.SkewTick = true
	skewed := simFor(t, cfg, "cmpxchg-first")
	ca, sa := count(aligned)
	cs, ss := count(skewed)
	if ca != cs || sa != ss || ca == 0 {
		t.Errorf("aligned %d cmpxchg in %d softirqs, skewed %d in %d: want the same nonzero walks", ca, sa, cs, ss)
	}
	if skewed.flagNs > cs*int64(cfg.CAS) || skewed.flagNs < cs*int64(cfg.Local) {
		t.Errorf("skewed: %d ns on the flag for %d cmpxchg; want within [%d, %d] (no wait)", skewed.flagNs, cs, cs*int64(cfg.Local), cs*int64(cfg.CAS))
	}
	if aligned.flagNs <= ca*int64(cfg.CAS) {
		t.Errorf("aligned: %d ns on the flag for %d cmpxchg; want more than one handoff each (the burst queues)", aligned.flagNs, ca)
	}
}

// Jitter spreads the burst: at the seed's class of machine, scaled down,
// the aligned ticks are the worst case, and a jitter of half a tick takes
// most of the queue away; the walks and passes stay what they were (a
// jitter does not make the kernel balance less).
func TestSimJitterBounds(t *testing.T) {
	cfg := SimConfig{CPUs: 128, Duration: 100 * time.Millisecond, CAS: 100 * time.Nanosecond, Newidle: 2, Orders: []string{"cmpxchg-first"}}
	base, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []time.Duration{10 * time.Microsecond, 500 * time.Microsecond} {
		c := cfg
		c.Jitter = j
		tab, err := Simulate(c)
		if err != nil {
			t.Fatal(err)
		}
		b, r := base.Rows[0], tab.Rows[0]
		if r.FlagPct >= b.FlagPct {
			t.Errorf("jitter %v: flag %.4g%% of cycles, want below the aligned %.4g%%", j, r.FlagPct, b.FlagPct)
		}
		if r.CAS < 0.9*b.CAS || r.CAS > 1.1*b.CAS || r.passes() < 0.8*b.passes() {
			t.Errorf("jitter %v: %g cmpxchg/s, %g passes/s; want within 10%% of the aligned %g, and at least 80%% of %g", j, r.CAS, r.passes(), b.CAS, b.passes())
		}
	}
}

func TestSimFlagsTickKnobs(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "64", "-cas", "100ns", "-duration", "20ms", "-skew-tick", "-jitter", "5us", "-orders", "cmpxchg-first")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"skew_tick=1: (TICK_NSEC/2)/64 cpus", "7.812µs × i", "random [0, 5µs)",
		"what skew_tick=1, jitter 5µs moves (against the defaults: every cpu's tick at the same instant, no jitter, one short idle a tick as long as avg_idle's cap, every handoff at 100ns):",
		"cmpxchg-first: flag % of cycles "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	benchtest.CheckBadArgs(t, SimFlags, []benchtest.BadArgs{
		{Args: []string{"-cas", "100ns", "-jitter", "-1us"}, Want: "jitter -1µs out of range [0, 1ms)"},
		{Args: []string{"-cas", "100ns", "-jitter", "1ms"}, Want: "jitter 1ms out of range [0, 1ms)"},
		{Args: []string{"-cas", "100ns", "-hz", "250", "-jitter", "5ms"}, Want: "jitter 5ms out of range [0, 4ms)"},
	})
}

func TestSimFlagsNewidleKnobs(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "64", "-cas", "100ns", "-duration", "20ms", "-newidle-per-tick", "3", "-short-idle", "5us", "-orders", "check-first+newidle")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 short idles of a busy cpu in a tick every 2 ticks (1500/s)", "a short idle lasts 5µs",
		"what 3 newidle a tick, short idle 5µs moves", "cut by avg_idle"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	benchtest.CheckBadArgs(t, SimFlags, []benchtest.BadArgs{
		{Args: []string{"-cas", "100ns", "-newidle-per-tick", "0"}, Want: "-newidle-per-tick 0: want a positive count"},
		{Args: []string{"-cas", "100ns", "-newidle-per-tick", "65"}, Want: "newidle-per-tick 65 out of range [1, 64]"},
		{Args: []string{"-cas", "100ns", "-short-idle", "-1us"}, Want: "short-idle -1µs out of range"},
		{Args: []string{"-cas", "100ns", "-short-idle", "2ms"}, Want: "short-idle 2ms out of range [0, 1ms)"},
	})
}

// Every knob shows in Knobs, and Baseline takes each back to its default:
// a baseline has no knobs and simulates as the zero config does.
func TestSimKnobsBaseline(t *testing.T) {
	cfg := SimConfig{CPUs: 32, SNC: 1, Duration: 20 * time.Millisecond, CAS: 100 * time.Nanosecond,
		SkewTick: true, Jitter: time.Microsecond, NewidlePerTick: 2, ShortIdle: 5 * time.Microsecond, CASRemote: 200 * time.Nanosecond}
	if k := cfg.Knobs(); len(k) != 5 {
		t.Errorf("knobs %q, want all five", k)
	}
	base := cfg.Baseline()
	if k := base.Knobs(); len(k) != 0 {
		t.Errorf("baseline knobs %q, want none", k)
	}
	plain := SimConfig{CPUs: 32, SNC: 1, Duration: 20 * time.Millisecond, CAS: 100 * time.Nanosecond}
	a, err := Simulate(base)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Simulate(plain)
	var ta, tb strings.Builder
	_ = a.WriteText(&ta)
	_ = b.WriteText(&tb)
	if ta.String() != tb.String() {
		t.Errorf("the baseline's table differs from the plain config's:\n%s\n%s", ta.String(), tb.String())
	}
	k, _ := Simulate(cfg)
	b.Rows = b.Rows[:1]
	if err := k.WriteMoves(&strings.Builder{}, b); err == nil || !strings.Contains(err.Error(), "baseline rows") {
		t.Errorf("WriteMoves against a baseline of other rows = %v, want an error", err)
	}
}
