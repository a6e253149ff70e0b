package sweep

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/c2c"
)

// Floors more than FloorDrift apart, either way round, are a machine that
// changed under the sweep: the 2-vCPU guest's two states are 25-40 ns and
// 120-200 ns, while back-to-back floors differ by up to 30%.
func TestFloorDrift(t *testing.T) {
	for _, tt := range []struct {
		before, after float64
		drifted       bool
	}{
		{30, 30, false},
		{41.2, 53.1, false}, // back to back on the guest: noise
		{42, 62.9, false},
		{42, 63.1, true},
		{63.1, 42, true},
		{32, 150, true},
		{150, 32, true},
	} {
		c := FloorChange{CPUs: []int{0, 1}, Before: tt.before, After: tt.after}
		if c.Drifted() != tt.drifted {
			t.Errorf("floor %v ns before, %v after: Drifted() = %v, want %v", tt.before, tt.after, c.Drifted(), tt.drifted)
		}
	}
	c := FloorChange{CPUs: []int{0, 1}, Before: 32, After: 150}
	if s := c.String(); !strings.Contains(s, "cpus [0 1]") || !strings.Contains(s, "32.0 ns before") || !strings.Contains(s, "150.0 ns after, 369% apart") {
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
		"handoff floor after the sweep: cpus [2 3] 31.0 ns (before: 30.0), within 50%",
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

// A sweep measures each CPU set's floor before its first run and again at
// the end; the measurement is faked here so the comparison is exact.
func TestFloorsBeforeAndAfter(t *testing.T) {
	defer func(f func(*affinity.Topology, []int, c2c.Config) (*c2c.Floor, error), d time.Duration) {
		floorOf, floorTimeout = f, d
	}(floorOf, floorTimeout)
	floorTimeout = 50 * time.Millisecond
	tests := []struct {
		name   string
		floors []float64 // before, after; 0 after: the cpus stay busy
		drift  string
		change bool
	}{
		{"steady", []float64{30, 33}, "", true},
		{"vCPUs moved", []float64{32, 150}, "handoff floor 32.0 ns before the sweep, 150.0 ns after, 369% apart", true},
		{"busy after", []float64{30, 0}, "not measured again within 50ms after the sweep", false},
	}
	for _, tt := range tests {
		calls := 0
		floorOf = func(_ *affinity.Topology, cpus []int, cfg c2c.Config) (*c2c.Floor, error) {
			if cfg.Preheat <= 0 {
				t.Errorf("%s: floor measured without a preheat", tt.name)
			}
			ns := tt.floors[calls]
			calls++
			if ns == 0 {
				<-cfg.Context.Done()
				return nil, cfg.Context.Err()
			}
			return &c2c.Floor{CPUs: cpus, NS: ns, MinNS: ns}, nil
		}
		p := &Plan{Floor: true}
		if err := p.measureFloor(context.Background(), []int{0, 1}); err != nil {
			t.Fatal(err)
		}
		if err := p.measureFloor(context.Background(), []int{0, 1}); err != nil || calls != 1 {
			t.Fatalf("%s: a second job on the same cpus measured again (%d calls, %v)", tt.name, calls, err)
		}
		o := &Outcome{}
		if err := p.remeasureFloors(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if calls != 2 {
			t.Errorf("%s: %d floor measurements, want one before and one after", tt.name, calls)
		}
		if got := strings.Join(o.Drift, "\n"); (tt.drift == "") != (got == "") || !strings.Contains(got, tt.drift) {
			t.Errorf("%s: drift %q, want %q", tt.name, got, tt.drift)
		}
		if (len(o.Floors) == 1) != tt.change {
			t.Errorf("%s: floor changes %+v", tt.name, o.Floors)
		}
	}
}
