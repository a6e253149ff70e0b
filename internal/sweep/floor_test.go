package sweep

import (
	"context"
	"fmt"
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
		o.Disturbed = append(o.Disturbed, Disturbed{Name: "AtomicAdd/x", Round: i + 1, Lost: float64(10 + i%2*20),
			Warnings: []string{fmt.Sprintf("worker 1 on cpu 1 lost %d.0%% of its 100ms: another task ran on cpu 1", 10+i%2*20)}})
	}
	o.Disturbed = append(o.Disturbed, Disturbed{Name: "LoadAvg/y", Round: 1, Lost: 5, Warnings: []string{"worker 0 on cpu 0 lost 5.0%"}})
	o.Unmeasured = [][]int{{4, 5}}
	var b strings.Builder
	o.WriteNotes(&b, 2)
	out := b.String()
	for _, want := range []string{
		"sweep: 4 of 12 runs were disturbed (a worker lost over 2% of its time)",
		// One line per scenario: how many, and the worst.
		"  AtomicAdd: 3 runs; the worst, x (round 2): worker 1 on cpu 1 lost 30.0%",
		"  LoadAvg: 1 run; the worst, y (round 1): worker 0 on cpu 0 lost 5.0%",
		"handoff floor after the sweep: cpus [2 3] 31.0 ns (before: 30.0), within 50%",
		"WARNING: cpus [0 1]: handoff floor 32.0 ns before the sweep, 150.0 ns after",
		"WARNING: cpus [4 5]: handoff floor not measured again within",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("notes lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "round 3") || strings.Contains(out, "round 1): worker 1") {
		t.Errorf("notes list more disturbed runs than the worst of each scenario:\n%s", out)
	}
	if strings.Count(out, "cpus [0 1]") != 1 || strings.Count(out, "cpus [2 3]") != 1 {
		t.Errorf("notes do not name each floor once, as steady or as changed:\n%s", out)
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
		name    string
		floors  []float64 // before, after; 0: the cpus stay busy
		notes   string    // in the sweep's notes
		changes int       // floors measured before and after
		skipped string    // in FloorNote
	}{
		{"steady", []float64{30, 33}, "handoff floor after the sweep: cpus [0 1] 33.0 ns (before: 30.0), within 50%", 1, ""},
		{"vCPUs moved", []float64{32, 150}, "WARNING: cpus [0 1]: handoff floor 32.0 ns before the sweep, 150.0 ns after, 369% apart", 1, ""},
		{"busy after", []float64{30, 0}, "WARNING: cpus [0 1]: handoff floor not measured again within 50ms after the sweep", 0, ""},
		{"busy before", []float64{0}, "", 0, "cpus [0 1]: not measured within 50ms (are the cpus busy?), no handoffs/op"},
	}
	for _, tt := range tests {
		var measured [][]int
		floorOf = func(_ *affinity.Topology, cpus []int, cfg c2c.Config) (*c2c.Floor, error) {
			if cfg.Preheat <= 0 {
				t.Errorf("%s: floor measured without a preheat", tt.name)
			}
			ns := tt.floors[len(measured)]
			measured = append(measured, cpus)
			if ns == 0 {
				<-cfg.Context.Done()
				return nil, cfg.Context.Err()
			}
			return &c2c.Floor{CPUs: cpus, NS: ns, MinNS: ns}, nil
		}
		p := &Plan{Floor: true}
		// One set, whatever the workers' order or how many share a cpu:
		// one measurement before, of the set.
		for _, cpus := range [][]int{{1, 0}, {0, 1}, {0, 1, 0, 1}, {1, 1}, {0}} {
			if err := p.measureFloor(context.Background(), cpus); err != nil {
				t.Fatal(err)
			}
		}
		if fmt.Sprint(measured) != "[[0 1]]" {
			t.Errorf("%s: floors measured before the sweep on %v, want once on [0 1]", tt.name, measured)
		}
		o := &Outcome{}
		if err := p.remeasureFloors(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if want := len(tt.floors); len(measured) != want {
			t.Errorf("%s: %d floor measurements, want %d", tt.name, len(measured), want)
		}
		var b strings.Builder
		o.WriteNotes(&b, 20)
		if got := b.String(); (tt.notes == "") != (got == "") || !strings.Contains(got, tt.notes) {
			t.Errorf("%s: notes %q, want %q", tt.name, got, tt.notes)
		}
		if len(o.Floors) != tt.changes {
			t.Errorf("%s: floor changes %+v, want %d", tt.name, o.Floors, tt.changes)
		}
		if note := p.FloorNote(); tt.skipped != "" && note != tt.skipped || tt.skipped == "" && !strings.HasPrefix(note, "cpus [0 1]: ") {
			t.Errorf("%s: FloorNote() = %q", tt.name, note)
		}
	}
}

// Interrupting a sweep during a floor is an interruption, not a busy cpu.
func TestFloorInterrupted(t *testing.T) {
	defer func(f func(*affinity.Topology, []int, c2c.Config) (*c2c.Floor, error)) { floorOf = f }(floorOf)
	ctx, cancel := context.WithCancel(context.Background())
	floorOf = func(_ *affinity.Topology, cpus []int, cfg c2c.Config) (*c2c.Floor, error) {
		cancel()
		<-cfg.Context.Done()
		return nil, cfg.Context.Err()
	}
	p := &Plan{Floor: true}
	if err := p.measureFloor(ctx, []int{0, 1}); err != context.Canceled {
		t.Errorf("measureFloor interrupted = %v, want %v", err, context.Canceled)
	}
	if len(p.floorSkipped) != 0 {
		t.Errorf("an interrupted floor is reported skipped: %q", p.floorSkipped)
	}
}
