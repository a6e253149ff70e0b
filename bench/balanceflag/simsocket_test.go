package balanceflag

import (
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/benchtest"
)

// TestSimulateHandCase's two cpus sit on two sockets, so with a dearer
// cross-socket handoff every move of the line costs it; the first access,
// to a line nobody holds yet, and each cpu's release of a line it holds,
// do not. cmpxchg-first: cpu 0's first cmpxchg 100, cpu 1's queued behind
// it 100+300, six more at 300 each: 2300 ns, in 8 moves, all across.
// check-first: 100 and five at 300: 1600 ns in 5 moves.
func TestSimulateHandCaseCrossSocket(t *testing.T) {
	cfg := SimConfig{CPUs: 2, Sockets: 2, SNC: 1, SMT: 1, Busy: 100, HZ: 1000, Duration: 200 * time.Millisecond,
		CAS: 100 * time.Nanosecond, CASRemote: 300 * time.Nanosecond, Local: 10 * time.Nanosecond, CS: 100 * time.Nanosecond}
	for _, tt := range []struct {
		order          string
		flag, handoffs int64
	}{
		{"cmpxchg-first", 2300, 8},
		{"check-first", 1600, 5},
	} {
		s := simFor(t, cfg, tt.order)
		if s.flagNs != tt.flag || s.handoffs != tt.handoffs || s.remoteHandoffs != tt.handoffs {
			t.Errorf("%s: %d ns on the flag, %d moves (%d across); want %d ns, %d moves, all across",
				tt.order, s.flagNs, s.handoffs, s.remoteHandoffs, tt.flag, tt.handoffs)
		}
		if r := s.row(tt.order); r.Handoffs != float64(tt.handoffs)/0.2 || r.RemoteHandoffs != r.Handoffs {
			t.Errorf("%s: %g moves/s, %g across; want %g, all", tt.order, r.Handoffs, r.RemoteHandoffs, float64(tt.handoffs)/0.2)
		}
	}
}

// Any order of the same accesses keeps the line busy for the sum of their
// handoffs, each between the socket's price and the other socket's: the
// flag's time with the two prices lies between the runs that charge every
// handoff the one or the other. Aligned, ties go by cpu number, one
// socket's burst then the other's, so few moves cross; jittered, the two
// sockets' accesses interleave and about half do.
func TestSimCrossSocketBounds(t *testing.T) {
	base := SimConfig{CPUs: 64, Duration: 100 * time.Millisecond, Newidle: 2, Orders: []string{"cmpxchg-first"}}
	var crossShare [2]float64
	for k, jitter := range []time.Duration{0, 20 * time.Microsecond} {
		flag := func(cas, remote time.Duration) (float64, *sim) {
			c := base
			c.CAS, c.CASRemote, c.Jitter = cas, remote, jitter
			s := simFor(t, c, "cmpxchg-first")
			return float64(s.flagNs), s
		}
		lo, _ := flag(100*time.Nanosecond, 0)
		mixed, s := flag(100*time.Nanosecond, 250*time.Nanosecond)
		hi, _ := flag(250*time.Nanosecond, 0)
		if !(lo <= mixed && mixed <= hi) {
			t.Errorf("jitter %v: flag %g ns with 100/250 ns handoffs, want within [%g, %g] (all at 100, all at 250)", jitter, mixed, lo, hi)
		}
		if s.remoteHandoffs == 0 || s.remoteHandoffs > s.handoffs {
			t.Errorf("jitter %v: %d of %d moves across sockets", jitter, s.remoteHandoffs, s.handoffs)
		}
		crossShare[k] = float64(s.remoteHandoffs) / float64(s.handoffs)
	}
	if crossShare[0] > 0.1 || crossShare[1] < 0.3 {
		t.Errorf("moves across sockets: %.2f aligned, %.2f jittered; want under a tenth, then over 0.3", crossShare[0], crossShare[1])
	}
}

func TestSimFlagsCrossSocket(t *testing.T) {
	out, err := benchtest.Simulate(SimFlags, "-cpus", "64", "-cas", "100ns", "-cas-remote", "250ns", "-duration", "20ms", "-orders", "cmpxchg-first")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"= 100ns from a cpu of the same socket, 250ns from the other socket", "across sockets",
		"what cross-socket handoff 250ns moves"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	benchtest.CheckBadArgs(t, SimFlags, []benchtest.BadArgs{
		{Args: []string{"-cas", "100ns", "-cas-remote", "-1ns"}, Want: "cas-remote -1ns: want a positive duration"},
	})
}
