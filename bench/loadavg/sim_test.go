package loadavg

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestSimulateGolden replays a small group at a fixed seed and compares the
// table with testdata/simulate-8cpus.golden: PELT's integer arithmetic and
// the model's draws are deterministic, so any change in what the model
// does shows here. go test -run Golden -update rewrites it.
func TestSimulateGolden(t *testing.T) {
	tab, err := Simulate(SimConfig{CPUs: 8, Duration: 100 * time.Millisecond, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "simulate-8cpus.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("Simulate table differs from %s (go test -run Golden -update rewrites it):\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestSimulateDeterministic: one config and seed, one table; another seed,
// other draws.
func TestSimulateDeterministic(t *testing.T) {
	cfg := SimConfig{CPUs: 6, Duration: 30 * time.Millisecond, Variants: []string{"rate", "delay"}}
	a, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Simulate(cfg)
	cfg.Seed = 2
	c, _ := Simulate(cfg)
	for i := range a.Rows {
		if a.Rows[i] != b.Rows[i] {
			t.Errorf("row %d differs between two runs of one seed:\n%+v\n%+v", i, a.Rows[i], b.Rows[i])
		}
	}
	if a.Rows[0] == c.Rows[0] {
		t.Error("seeds 1 and 2 gave the same row")
	}
}

// TestSimulateSeedScale pins the model at the seed's size, 224 cfs_rqs, on
// the seed's workload. Before the rate limit the group takes ~10 million
// tg->load_avg updates in 5 s, about 8.9k per cfs_rq per second: the model
// must land in that order of magnitude. After it, the seed reports ~25k,
// 22 per cfs_rq per second. The model cannot get there, and should not:
// the rate limit caps a cfs_rq at one write per millisecond, and a cfs_rq
// that sees an attach, a removal or a period crossing in every millisecond
// (at the seed's 12.5k wakeups, 9.8k migrations per CPU per second, it sees
// about 20) writes at that cap, ~1000 per second, 1.1M per 5 s on 224 CPUs.
// 25k would need every cfs_rq to go ~45 ms between writes, which the
// seed's own wakeup rate rules out; and since the cap is one write per 25
// events at 40us per event, the cut is at most ~25× the writes per event
// before. The test pins what the kernel's code gives: the cap.
func TestSimulateSeedScale(t *testing.T) {
	d := 250 * time.Millisecond
	if testing.Short() {
		d = 100 * time.Millisecond
	}
	tab, err := Simulate(SimConfig{CPUs: 224, Duration: d, Variants: []string{"base", "rate"}})
	if err != nil {
		t.Fatal(err)
	}
	base, rate := tab.Rows[0], tab.Rows[1]
	t.Logf("224 cfs_rqs: base %.3g updates/5s (%.0f per cfs_rq per s), rate %.3g (%.0f), %.1f× fewer; tg_weight err %.3f%% → %.2f%%",
		base.WritesPer5s, base.WritesPerCPUSec, rate.WritesPer5s, rate.WritesPerCPUSec, rate.Cut, base.TGWeightErr, rate.TGWeightErr)
	if base.WritesPer5s < 10e6/3 || base.WritesPer5s > 10e6*3 {
		t.Errorf("base: %.3g updates per 5 s on 224 cpus, want the seed's ~10M within 3×", base.WritesPer5s)
	}
	if rate.WritesPerCPUSec > 1000 || rate.WritesPerCPUSec < 800 {
		t.Errorf("rate: %.0f writes per cfs_rq per second, want just under the 1 ms cap", rate.WritesPerCPUSec)
	}
	if rate.Cut < 5 || rate.Cut > 25 {
		t.Errorf("rate cuts writes %.1f×, want between 5 and the ~25 events per ms that bound it", rate.Cut)
	}
	perCPU := float64(rate.Wakeups) / (224 * d.Seconds())
	if perCPU < 10_000 || perCPU > 12_500 {
		t.Errorf("%.0f wakeups per cpu per second, want near the seed's 12.5k (less the idle slots)", perCPU)
	}
	if m := float64(rate.Migrations) / float64(rate.Wakeups); m < 0.7 || m > 0.85 {
		t.Errorf("%.2f of wakeups migrate, want about the seed's 0.79", m)
	}
	if base.TGWeightErr > 0.5 || rate.TGWeightErr > 10 {
		t.Errorf("tg_weight err base %.3f%%, rate %.2f%%: want under 0.5%% and 10%%", base.TGWeightErr, rate.TGWeightErr)
	}
}

// TestSimulateErrFallsWithCPUs: the rate limit's error is made by the peers
// whose pushes are held back; with two cfs_rqs every move of load involves
// the reader's one peer, with many the held-back halves of moves between
// other cfs_rqs largely cancel in the sum.
func TestSimulateErrFallsWithCPUs(t *testing.T) {
	errAt := func(n int) float64 {
		tab, err := Simulate(SimConfig{CPUs: n, Duration: 100 * time.Millisecond, Variants: []string{"rate"}})
		if err != nil {
			t.Fatal(err)
		}
		return tab.Rows[0].TGWeightErr
	}
	e2, e64 := errAt(2), errAt(64)
	t.Logf("write=ratelimit: tg_weight err %.1f%% with 2 cfs_rqs, %.1f%% with 64", e2, e64)
	if e64 > e2/2 {
		t.Errorf("err with 64 cfs_rqs = %.1f%%, with 2 = %.1f%%; want the larger group at most half as wrong", e64, e2)
	}
}

func TestSimulateBadConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg  SimConfig
		want string
	}{
		{SimConfig{CPUs: -1}, "cpus -1 out of range"},
		{SimConfig{CPUs: 100000}, "cpus 100000 out of range"},
		{SimConfig{CPUs: 4, Nodes: 5}, "nodes 5 out of range [1, 4]"},
		{SimConfig{Gap: -time.Microsecond}, "gap -1us out of range"},
		{SimConfig{Gap: time.Second}, "gap 1s out of range"},
		{SimConfig{Duration: time.Hour}, "duration 3600s out of range"},
		{SimConfig{Duration: -time.Second}, "duration -1s out of range"},
		{SimConfig{Mig: 101}, "mig 101 out of range"},
		{SimConfig{Mig: -5}, "mig -5 out of range"}, // only NoMig stands for 0
		{SimConfig{Tasks: 65}, "tasks 65 out of range"},
		{SimConfig{HZ: 100}, "hz 100: want 1000 or 250"},
		{SimConfig{CPUs: 8192, Duration: time.Minute, Gap: time.Microsecond}, "over the limit"},
		{SimConfig{CPUs: 2, Variants: []string{"rate+node"}}, `preset "rate+node": unknown`},
		{SimConfig{CPUs: 2, Variants: []string{"store=percpu/read=skip=2"}}, "onein=K"},
	} {
		_, err := Simulate(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") ||
			!strings.HasPrefix(err.Error(), "simulate loadavg: ") {
			t.Errorf("Simulate(%+v) = %v, want one line starting \"simulate loadavg: \" containing %q", tt.cfg, err, tt.want)
		}
	}
	// Non-preset variants are rows too, named as given.
	tab, err := Simulate(SimConfig{CPUs: 4, Duration: 10 * time.Millisecond, Variants: []string{"store=percpu/write=ratelimit", "base"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := tab.Rows[0]; r.Name != "store=percpu/write=ratelimit" || r.Series != "" || r.Cut == 0 {
		t.Errorf("a non-preset row: %+v", r)
	}
	// The zero SimMig is the default (79); NoMig asks for none.
	for _, tt := range []struct {
		in   SimMig
		want int
	}{{DefaultMig, laDefaultMig}, {NoMig, 0}} {
		tab, err := Simulate(SimConfig{CPUs: 4, Duration: 10 * time.Millisecond, Mig: tt.in, Variants: []string{"base"}})
		if err != nil {
			t.Fatal(err)
		}
		if r := tab.Rows[0]; tab.Config.Mig.Percent() != tt.want || (r.Migrations == 0) != (tt.want == 0) {
			t.Errorf("SimConfig{Mig: %d}: mig %d, %d migrations in %d wakeups; want mig %d", tt.in, tab.Config.Mig, r.Migrations, r.Wakeups, tt.want)
		}
	}
}
