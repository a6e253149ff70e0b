package sweep

import (
	"strings"
	"testing"
)

// A floor that moved by more than FloorDrift either way is a machine that
// changed under the sweep: the 2-vCPU guest's two states are 25-40 ns and
// 120-200 ns.
func TestFloorDrift(t *testing.T) {
	for _, tt := range []struct {
		before, after float64
		drifted       bool
	}{
		{30, 30, false},
		{30, 36, false},
		{30, 37.6, true},
		{36, 30, false},
		{37.6, 30, true},
		{32, 150, true},
		{150, 32, true},
	} {
		c := FloorChange{CPUs: []int{0, 1}, Before: tt.before, After: tt.after}
		if c.Drifted() != tt.drifted {
			t.Errorf("floor %v ns before, %v after: Drifted() = %v, want %v", tt.before, tt.after, c.Drifted(), tt.drifted)
		}
	}
	c := FloorChange{CPUs: []int{0, 1}, Before: 32, After: 150}
	if s := c.String(); !strings.Contains(s, "cpus [0 1]") || !strings.Contains(s, "32.0 ns before") || !strings.Contains(s, "150.0 ns after (+369%)") {
		t.Errorf("String() = %q, want the cpus, both floors and the change", s)
	}
}

func TestOutcomeNotes(t *testing.T) {
	o := &Outcome{Ran: 12,
		Floors: []FloorChange{{CPUs: []int{0, 1}, Before: 32, After: 150}, {CPUs: []int{2, 3}, Before: 30, After: 31}},
	}
	for i := range 3 {
		o.Disturbed = append(o.Disturbed, Disturbed{Name: "AtomicAdd/x", Round: i + 1, Warnings: []string{"worker 1 on cpu 1 lost 12.0% of its 100ms: another task ran on cpu 1"}})
	}
	o.Drift = []string{o.Floors[0].String()}
	var b strings.Builder
	o.WriteNotes(&b, 2)
	out := b.String()
	for _, want := range []string{
		"sweep: 3 of 12 runs were disturbed (a worker lost over 2% of its time)",
		"  AtomicAdd/x (round 1): worker 1 on cpu 1 lost 12.0%",
		"... and 1 more",
		"handoff floor after the sweep: cpus [2 3] 31.0 ns (+3%)",
		"WARNING: cpus [0 1]: handoff floor 32.0 ns before the sweep, 150.0 ns after",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("notes lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "round 3") {
		t.Errorf("notes list more disturbed runs than asked:\n%s", out)
	}
	b.Reset()
	(&Outcome{Ran: 4}).WriteNotes(&b, 20)
	if b.Len() != 0 {
		t.Errorf("an undisturbed sweep without floors wrote notes: %q", b.String())
	}
}
