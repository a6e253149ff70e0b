package ksim

import (
	"math"
	"slices"
	"testing"
)

// TestTickPattern: where each rule stops the tick and when a CPU is in the
// mask, tick by tick over a pattern, and the short idles and the moment of
// going idle in the halves of the tick they belong to.
func TestTickPattern(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rule  IdleTickRule
		fresh bool
		// stops and inMask say what the rule does, given the draws of
		// ticks j-1, j and j+1.
		stops, inMask func(prev, cur, next bool) bool
	}{
		{"at entry", IdleTickStop, false,
			func(_, cur, next bool) bool { return !cur && next },
			func(_, cur, _ bool) bool { return cur }},
		{"after the first tick", IdleTickAfterTick, false,
			func(prev, cur, _ bool) bool { return cur && !prev },
			func(prev, cur, _ bool) bool { return cur && prev }},
		{"after every tick, fresh idles", IdleTickAfterTick, true,
			func(_, cur, _ bool) bool { return cur },
			func(prev, cur, _ bool) bool { return cur && prev }},
	} {
		p := TickPattern{Seed: 7, Busy: 60, HZ: 250, CPUs: 8, Jit: 1000, Newidle: 2, PerTick: 3, Rule: tc.rule, Fresh: tc.fresh}
		for cpu := range p.CPUs {
			for j := int64(1); j < 500; j++ {
				prev, cur, next := p.Idle(cpu, j-1), p.Idle(cpu, j), p.Idle(cpu, j+1)
				at, stops := p.TickStop(cpu, j)
				if stops != tc.stops(prev, cur, next) {
					t.Fatalf("%s: cpu %d tick %d (%v %v %v): stops %v", tc.name, cpu, j, prev, cur, next, stops)
				}
				start := p.TickStart(cpu, j)
				if stops && (at < start || at >= start+p.HZ.TickNs()) {
					t.Errorf("%s: cpu %d tick %d: stops at %d, outside its tick [%d, +%d)", tc.name, cpu, j, at, start, p.HZ.TickNs())
				}
				if got := p.InMask(cpu, j); got != tc.inMask(prev, cur, next) {
					t.Fatalf("%s: cpu %d tick %d (%v %v %v): in the mask %v", tc.name, cpu, j, prev, cur, next, got)
				}
			}
		}
	}
	p := TickPattern{Seed: 7, Busy: 60, HZ: 250, CPUs: 8, Newidle: 2, PerTick: 3}
	half := p.HZ.TickNs() / 2
	for j := int64(1); j < 200; j++ {
		offs := p.ShortIdles(p.Hash(3, j))
		if len(offs) != 3 || !slices.IsSorted(offs) || offs[0] < 0 || offs[2] >= half {
			t.Errorf("tick %d: short idles %v, want 3, ascending, in the first half", j, offs)
		}
		if off := p.GoIdleAt(3, j) - p.TickStart(3, j); off < half || off >= 2*half {
			t.Errorf("tick %d: goes idle %d ns in, want the second half", j, off)
		}
		if p.ShortIdleTick(3, j) != ((j+3)%2 == 0) {
			t.Errorf("tick %d: short idles %v, want one tick in 2", j, p.ShortIdleTick(3, j))
		}
	}
	if (&TickPattern{Busy: 100}).Idle(0, 5) {
		t.Error("busy 100: a cpu idle")
	}
}

// TestTickPatternPull: with fresh idles after the idle's first tick, a
// pulled idle tick fires but does not stop the tick, about Pull of them
// are, and a cpu is in the mask at a tick when an idle tick of its run
// since its last busy tick stopped.
func TestTickPatternPull(t *testing.T) {
	p := TickPattern{Seed: 3, Busy: 40, HZ: 250, CPUs: 8, Rule: IdleTickAfterTick, Fresh: true, Pull: 0.6}
	var idle, pulled int
	for cpu := range p.CPUs {
		for j := int64(1); j < 2000; j++ {
			if !p.Idle(cpu, j) {
				if p.Fires(cpu, j) || p.InMask(cpu, j) {
					t.Fatalf("cpu %d tick %d: busy, yet fires %v, in the mask %v", cpu, j, p.Fires(cpu, j), p.InMask(cpu, j))
				}
				continue
			}
			idle++
			_, stops := p.TickStop(cpu, j)
			if !p.Fires(cpu, j) || stops == p.pulled(cpu, j) {
				t.Fatalf("cpu %d tick %d: fires %v, stops %v, pulled %v", cpu, j, p.Fires(cpu, j), stops, p.pulled(cpu, j))
			}
			if !stops {
				pulled++
			}
			want := false
			for k := j - 1; k >= 0 && p.Idle(cpu, k); k-- {
				if _, s := p.TickStop(cpu, k); s {
					want = true
					break
				}
			}
			if p.InMask(cpu, j) != want {
				t.Fatalf("cpu %d tick %d: in the mask %v, want %v", cpu, j, p.InMask(cpu, j), want)
			}
		}
	}
	if share := float64(pulled) / float64(idle); share < 0.55 || share > 0.65 {
		t.Errorf("%d of %d idle ticks pulled (%.3f), want about 0.6", pulled, idle, share)
	}
}

// TestTickPatternQueued: a fresh idle tick that finds a task queued
// fires and does not stop the tick, is never also a pulled one, and
// Queued and Pull stay shares of all the idle ticks; without fresh
// idles none is queued.
func TestTickPatternQueued(t *testing.T) {
	p := TickPattern{Seed: 5, Busy: 50, HZ: 250, CPUs: 8, Rule: IdleTickAfterTick, Fresh: true, Pull: 0.1, Queued: 0.5}
	var idle, queued, pulled, stopped int64
	for cpu := range p.CPUs {
		for j := int64(1); j < 4000; j++ {
			if !p.Idle(cpu, j) {
				continue
			}
			idle++
			_, stops := p.TickStop(cpu, j)
			q, pl := p.FindsQueued(cpu, j), p.pulled(cpu, j)
			if q && pl || stops == (q || pl) {
				t.Fatalf("cpu %d tick %d: queued %v, pulled %v, stops %v", cpu, j, q, pl, stops)
			}
			queued, pulled, stopped = queued+b2i(q), pulled+b2i(pl), stopped+b2i(stops)
		}
	}
	for _, c := range []struct {
		what  string
		n     int64
		share float64
	}{{"queued", queued, 0.5}, {"pulled", pulled, 0.1}, {"stopped", stopped, 0.4}} {
		if got := float64(c.n) / float64(idle); math.Abs(got-c.share) > 0.03 {
			t.Errorf("%s: %d of %d idle ticks (%.3f), want about %g", c.what, c.n, idle, got, c.share)
		}
	}
	p.Fresh = false
	for j := int64(1); j < 200; j++ {
		if p.FindsQueued(0, j) {
			t.Fatalf("tick %d queued without fresh idles", j)
		}
	}
}

// TestHasShortIdles: a busy tick holds short idles one tick in Newidle,
// an idle tick only with fresh idles.
func TestHasShortIdles(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		p := TickPattern{Seed: 5, Busy: 50, HZ: 250, CPUs: 4, Newidle: 2, PerTick: 1, Rule: IdleTickStop, Fresh: fresh}
		for cpu := range p.CPUs {
			for j := int64(1); j < 400; j++ {
				want := (j+int64(cpu))%2 == 0 && (fresh || !p.Idle(cpu, j))
				if got := p.HasShortIdles(cpu, j); got != want {
					t.Fatalf("fresh %v, cpu %d tick %d (idle %v): short idles %v, want %v", fresh, cpu, j, p.Idle(cpu, j), got, want)
				}
			}
		}
	}
}

// TestTickIdleRuns: runs keep the busy share and give successive ticks
// the correlation asked for; corr 0 is TickIdle.
func TestTickIdleRuns(t *testing.T) {
	for _, tc := range []struct {
		busy int
		corr float64
	}{{50, 0}, {50, 0.4}, {70, 0.6}, {30, 0.9}} {
		var n, busy, bb, b, ib, i float64
		for cpu := range 16 {
			prev := TickIdleRuns(7, tc.busy, tc.corr, cpu, 0)
			for j := int64(1); j < 5000; j++ {
				idle := TickIdleRuns(7, tc.busy, tc.corr, cpu, j)
				if tc.corr == 0 && idle != TickIdle(7, tc.busy, cpu, j) {
					t.Fatalf("corr 0: tick %d differs from TickIdle", j)
				}
				n++
				if !idle {
					busy++
				}
				if prev {
					i++
					if !idle {
						ib++
					}
				} else {
					b++
					if !idle {
						bb++
					}
				}
				prev = idle
			}
		}
		if share := 100 * busy / n; math.Abs(share-float64(tc.busy)) > 2 {
			t.Errorf("busy %d, corr %g: %.1f %% busy ticks", tc.busy, tc.corr, share)
		}
		if corr := bb/b - ib/i; math.Abs(corr-tc.corr) > 0.03 {
			t.Errorf("busy %d, corr %g: successive ticks correlate %.3f", tc.busy, tc.corr, corr)
		}
	}
}

// TestShortShare: with ShortShare a busy tick holds short idles as a draw
// of that share, an idle one (fresh) one in Newidle as before; without
// it, one busy tick in Newidle.
func TestShortShare(t *testing.T) {
	p := TickPattern{Seed: 9, Busy: 60, HZ: 250, CPUs: 4, Newidle: 1, PerTick: 2, Rule: IdleTickAfterTick, Fresh: true, ShortShare: 0.6}
	var busy, with int
	for cpu := range p.CPUs {
		for j := int64(1); j < 5000; j++ {
			if p.Idle(cpu, j) {
				if !p.HasShortIdles(cpu, j) {
					t.Fatalf("cpu %d tick %d: a fresh idle tick without short idles", cpu, j)
				}
				continue
			}
			busy++
			if p.HasShortIdles(cpu, j) {
				with++
			}
		}
	}
	if share := float64(with) / float64(busy); math.Abs(share-0.6) > 0.02 {
		t.Errorf("%d of %d busy ticks hold short idles (%.3f), want about 0.6", with, busy, share)
	}
	p.ShortShare, p.Newidle = 0, 3
	for j := int64(1); j < 30; j++ {
		if !p.Idle(0, j) && p.HasShortIdles(0, j) != (j%3 == 0) {
			t.Fatalf("no share: busy tick %d holds short idles %v, want one in 3", j, p.HasShortIdles(0, j))
		}
	}
}

// TestIdleAtWalk: a walk finds a CPU idle at its tick still idle with the
// measured share where there is one, else with the idle share where idles
// are fresh, always where they are not, and never one busy at its tick;
// the draws are the pattern's own (a pure function of cpu and tick).
func TestIdleAtWalk(t *testing.T) {
	for _, tc := range []struct {
		fresh    bool
		walkIdle float64
		want     float64
	}{{false, 0, 1}, {true, 0, 0.4}, {true, 0.7, 0.7}, {false, 0.25, 0.25}} {
		fresh := tc.fresh
		p := TickPattern{Seed: 7, Busy: 60, CPUs: 4, HZ: 250, Fresh: fresh, WalkIdle: tc.walkIdle}
		var idle, still int64
		for j := range int64(20000) {
			for cpu := range 4 {
				at := p.IdleAtWalk(cpu, j)
				if !p.Idle(cpu, j) {
					if at {
						t.Fatalf("cpu %d busy at tick %d, idle at the walk", cpu, j)
					}
					continue
				}
				idle++
				still += b2i(at)
			}
		}
		if share := float64(still) / float64(idle); math.Abs(share-tc.want) > 0.02 {
			t.Errorf("fresh %v, walk idle %g: %.3f of the idle CPUs idle at the walk, want %.2f", fresh, tc.walkIdle, share, tc.want)
		}
	}
}
