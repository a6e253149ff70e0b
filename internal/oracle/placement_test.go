package oracle

import (
	"strings"
	"testing"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/loadavg"
)

// TestPlacementRows: the parted and joined rows, each where the count's
// wake trace and the model both have it.
func TestPlacementRows(t *testing.T) {
	kc := CountResult{V: map[string]float64{"stacked-part-%": 1.5, "split-join-%": 4.75}}
	p := ksim.Placements{Wakes: 100, Stacked: 40, Parted: 12, Joined: 3}
	rows := placementRows(kc, p, 0)
	if len(rows) != 2 || rows[0].kernel != 1.5 || rows[0].model != 30 || rows[1].kernel != 4.75 || rows[1].model != 5 {
		t.Errorf("placementRows = %+v", rows)
	}
	if rows := placementRows(CountResult{V: map[string]float64{}}, p, 100); rows != nil {
		t.Errorf("a count without the wake trace: %+v", rows)
	}
	if rows := placementRows(kc, ksim.Placements{Wakes: 10, Stacked: 10}, 0); len(rows) != 1 {
		t.Errorf("no split wakeup in the model: %+v, want the parted row alone", rows)
	}
	kc.V["stacked-mate-work-%"] = 60
	if rows := placementRows(kc, ksim.Placements{Wakes: 10, Stacked: 10, BusyMate: 3}, 0); len(rows) != 2 || rows[1].kernel != 60 || rows[1].model != 30 {
		t.Errorf("the workload beside: %+v", rows)
	}
}

// TestPlacementWhy: each row outside names what the wake trace shows.
func TestPlacementWhy(t *testing.T) {
	v := map[string]float64{"stacked-part-%": 1.5, "stacked-scan-idle-%": 1.4, "stacked-no-scan-%": 78, "stacked-idle-mate-%": 20,
		"split-join-%": 4.75, "join-prev-idle-%": 10, "join-prev-far-%": 4, "wakeup-migrations/wakeup": 0.023}
	for _, c := range []struct {
		row   string
		place ksim.Placements
		want  string
	}{
		{partedRow, ksim.Placements{Wakes: 100, Stacked: 100, Parted: 30, NoScan: 68, IdleMate: 69}, "the pairs' gathering is not modelled"},
		{partedRow, ksim.Placements{Wakes: 100, Stacked: 100, Parted: 30, NoScan: 20, IdleMate: 25}, "budget is 0 less often"},
		{partedRow, ksim.Placements{Wakes: 100, Stacked: 100, Parted: 30, NoScan: 78, IdleMate: 20}, "not named"},
		{joinedRow, ksim.Placements{Wakes: 100, Stacked: 50, Joined: 1}, "prev_cpu is busy (90 %"},
		{placedRow, ksim.Placements{Wakes: 80}, "placed none of 79 % of its wakeups"},
		{mateRow, ksim.Placements{Wakes: 80}, "adjust_numa_imbalance()"},
	} {
		run := modelRun{kc: CountResult{V: v}, cfg: loadavg.SimConfig{Pairs: 2}, row: loadavg.SimRow{Place: c.place}}
		if got := loadavgWhy(run, modelRow{name: "    " + c.row, kernel: 21.4, model: 80}); !strings.Contains(got, c.want) {
			t.Errorf("%s with %+v: %q, want %q", c.row, c.place, got, c.want)
		}
	}
}

// TestHostPending: a parted row over whose guest found the cpus beside
// its stacked pairs pending a wakeup more often than idle names the
// emulator's host, with the pending spells; with the cpus beside idle
// more often, or without those figures, it does not.
func TestHostPending(t *testing.T) {
	v := map[string]float64{"stacked-part-%": 7.6, "stacked-scan-idle-%": 8, "stacked-no-scan-%": 0, "stacked-idle-mate-%": 15,
		"stacked-mate-pending-%": 86, "pending-median-us": 131, "pending-p95-us": 480}
	place := ksim.Placements{Wakes: 100, Stacked: 100, Parted: 75, IdleMate: 79}
	why := func(v map[string]float64) string {
		run := modelRun{kc: CountResult{V: v}, cfg: loadavg.SimConfig{Pairs: 4}, row: loadavg.SimRow{Place: place}}
		return loadavgWhy(run, modelRow{name: "    " + partedRow, kernel: 7.6, model: 75})
	}
	if got := why(v); !strings.Contains(got, "the emulator's host, not modelled") || !strings.Contains(got, "at 86 % of them, where its pending spells last a median 131 µs, a twentieth of them past 480 µs") {
		t.Errorf("pending beside: %q", got)
	}
	v["stacked-mate-pending-%"] = 5
	if got := why(v); strings.Contains(got, "emulator's host") {
		t.Errorf("idle beside more often than pending: %q", got)
	}
	delete(v, "stacked-mate-pending-%")
	if got := why(v); strings.Contains(got, "emulator's host") {
		t.Errorf("no pending figures: %q", got)
	}
}

// TestPlacementReach: a parted row over whose guest had budgets and idle
// cpus its scans passed names the budget's reach, with the trace's
// figure where the count has it.
func TestPlacementReach(t *testing.T) {
	v := map[string]float64{"stacked-part-%": 10.9, "stacked-scan-idle-%": 19.1, "stacked-no-scan-%": 0, "stacked-idle-mate-%": 19, "stacked-scan-finds-%": 10.4}
	run := modelRun{kc: CountResult{V: v}, cfg: loadavg.SimConfig{Pairs: 4}, row: loadavg.SimRow{Place: ksim.Placements{Wakes: 100, Stacked: 100, Parted: 30, IdleMate: 25, ScanFinds: 24}}}
	if got := loadavgWhy(run, modelRow{name: "    " + partedRow, kernel: 10.9, model: 30}); !strings.Contains(got, "within the guest's budget's reach at 10.4 % of its stacked wakeups (the model's at 24.0 %)") {
		t.Errorf("reach: %q", got)
	}
	delete(v, "stacked-scan-finds-%")
	if got := loadavgWhy(run, modelRow{name: "    " + partedRow, kernel: 10.9, model: 30}); !strings.Contains(got, "does not sum") {
		t.Errorf("no reach figure: %q", got)
	}
}

// TestPlacementCauses: the stacked row named by its causes where the
// wake trace is there, nothing without it.
func TestPlacementCauses(t *testing.T) {
	run := modelRun{kc: CountResult{V: map[string]float64{"stacked-part-%": 1.5, "split-join-%": 4.75}}, row: loadavg.SimRow{Place: ksim.Placements{Wakes: 100, Stacked: 40, Parted: 12, Joined: 3}}}
	if got := placementCauses(run); !strings.Contains(got, "parted at 1.50 % of their wakeups (the model's 30.00 %)") || !strings.Contains(got, "joined at 4.75 % (the model's 5.00 %)") {
		t.Errorf("placementCauses = %q", got)
	}
	run.kc.V = map[string]float64{}
	if got := placementCauses(run); got != "" {
		t.Errorf("without the wake trace: %q", got)
	}
}

// TestCarriers: a count with move records says its own; an older one
// points at the 6.1 count that had them.
func TestCarriers(t *testing.T) {
	kc := CountResult{V: map[string]float64{"balance-moves/wakeup": 0.0015, "balance-moves-cold-%": 100, "balance-moves-off-partner-%": 92.9}}
	if got := carriers(kc); !strings.Contains(got, "0.0015 balancer moves per wakeup, 100 % of them cold") || !strings.Contains(got, "93 % off a cpu running the partner") {
		t.Errorf("with move records: %q", got)
	}
	if got := carriers(CountResult{V: map[string]float64{}}); !strings.Contains(got, "a 6.1 count's move records") {
		t.Errorf("without: %q", got)
	}
}
