package figures

import (
	"errors"
	"strings"
	"testing"
)

// row is a made-up simulation row.
type row struct{ mig, tps float64 }

func (r row) MigrationsPer5s() float64 { return r.mig }
func (r row) Throughput() float64      { return r.tps }

// The figures' rules, on made-up rows: figure 1 wants both migration
// counts within 3× of the seed's and tps up; figure 2 a gain within a
// factor 2 of the seed's 16%.
func TestFigureRules(t *testing.T) {
	for _, tt := range []struct {
		fig           int
		before, after row
		want          bool
	}{
		{1, row{27000, 5000}, row{2000, 9000}, true},
		{1, row{233000, 5000}, row{30, 9000}, false},
		{1, row{27000, 9000}, row{2000, 9000}, false},
		{2, row{0, 100}, row{0, 116}, true},
		{2, row{0, 100}, row{0, 143}, false},
		{2, row{0, 100}, row{0, 100}, false},
	} {
		r := figOLTP("x", tt.before, tt.after)
		if tt.fig == 2 {
			r = figThreads("x", tt.before, tt.after)
		}
		if r.Reproduced != tt.want || r.Why == "" {
			t.Errorf("figure %d, %v → %v: reproduced %v (%s); want %v", tt.fig, tt.before, tt.after, r.Reproduced, r.Why, tt.want)
		}
	}
}

// Figures asks its Sim for each figure's runs and judges them: here a
// model whose throughput is the threads count (so ivb-ex's collapse does
// not appear) and whose migrations are the seed's on s390 only.
func TestFigures(t *testing.T) {
	var runs []Run
	sim := func(r Run) (row, row, error) {
		runs = append(runs, r)
		if r.Topology == "s390" {
			return row{27000, 100}, row{2000, 116}, nil
		}
		return row{0, float64(r.Threads)}, row{0, float64(r.Threads)}, nil
	}
	tab, err := Figures(Config{GuestCPUs: []int{8}}, sim)
	if err != nil {
		t.Fatal(err)
	}
	// s390 and s390llc8: oltp and threads; ivb-ex: six thread counts.
	if len(runs) != 4+len(ivbTable) || runs[1].Test != "threads" || runs[4].CPUs != 120 || len(tab.Rows) != 6 {
		t.Fatalf("%d runs (%+v), %d rows", len(runs), runs, len(tab.Rows))
	}
	if yes, no := tab.Reproduced("s390"); len(yes) != 2 || len(no) != 0 {
		t.Errorf("s390: reproduced %v, not %v; want figures 1 and 2", yes, no)
	}
	if yes, no := tab.Reproduced("ivb-ex"); len(yes) != 0 || len(no) != 1 {
		t.Errorf("ivb-ex: reproduced %v, not %v; want figure 3 not", yes, no)
	}
	var b strings.Builder
	if err := tab.WriteText(&b); err != nil || !strings.Contains(b.String(), "figure 4: the model has no OpenMP") {
		t.Errorf("WriteText: %v\n%s", err, b.String())
	}
	boom := errors.New("simulate wakeup: boom")
	if _, err := Figures(Config{}, func(Run) (row, row, error) { return row{}, row{}, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing run: %v, want its error", err)
	}
	if _, err := Figures(Config{Chip: 1}, sim); err == nil || !strings.Contains(err.Error(), "chip 1 out of range") {
		t.Errorf("chip 1: %v", err)
	}
}
