package wakeup

import (
	"math"
	"strings"
	"testing"
	"time"
)

// The simulation runs every policy on one workload: wake=affine at the
// seed's rate and mig=1.2 is the seed's ~27K before (2p(1-p) + p²(N-2)/(N-1)
// of 1.13M wakeups), wake=prev none, and the kernel policies report their
// decisions; the text puts the seed's figures beside them.
func TestSimulate(t *testing.T) {
	tab, err := Simulate(SimConfig{CPUs: 4, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]SimRow{}
	for _, r := range tab.Rows {
		rows[r.Policy] = r
	}
	if len(rows) != len(policyNames)+1 || rows[llcLive].Variant != "wake=llcstats/lines=1/mig=1.2/tasks=4/rate=226000/sync=100/llc=1/stats=live" {
		t.Fatalf("%d rows (live row %q), want one per policy (%d) and llcstats on live figures", len(rows), rows[llcLive].Variant, len(policyNames))
	}
	p := 0.012
	want := (2*p*(1-p) + p*p*2/3) * seedRate * 5
	if got := rows["affine"].PerFiveSec; math.Abs(got-want) > 0.1*want {
		t.Errorf("affine: %.0f migrations per 5 s, want about %.0f", got, want)
	}
	if got := rows["prev"].PerFiveSec; got != 0 {
		t.Errorf("prev: %.0f migrations per 5 s, want 0", got)
	}
	for _, pol := range []string{"llcstats", "basic"} {
		k := rows[pol].Counts
		if k.SISCalls != k.Wakeups || k.Sync != k.Wakeups || k.AffineTries == 0 {
			t.Errorf("%s: %d select_idle_sibling calls, %d sync, %d wake_affine calls for %d wakeups; want every wakeup sync through both",
				pol, k.SISCalls, k.Sync, k.AffineTries, k.Wakeups)
		}
	}
	var b strings.Builder
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if k := rows["llcstats"].Counts; k.Affine != 0 {
		t.Errorf("llcstats on LLCs of one cpu: wake_affine() said yes %d times, want never (no sd_llc_shared)", k.Affine)
	}
	for _, want := range []string{"4 virtual cpus, 1 per LLC", "~27K", "~2K", "90001d67be2f", "sync=100% WF_SYNC", "has no sd_llc_shared"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	// On LLCs of 2 the snapshot's schedule is in the text.
	two, err := Simulate(SimConfig{CPUs: 4, LLC: 2, Duration: 200 * time.Millisecond, Policies: []string{"llcstats", llcLive}})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := two.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "first at 64ms, then every 128ms of kernel time"; !strings.Contains(b.String(), want) {
		t.Errorf("table on LLCs of 2 lacks %q:\n%s", want, b.String())
	}
	again, err := Simulate(SimConfig{CPUs: 4, Duration: time.Second})
	if err != nil || again.Rows[4].Counts != tab.Rows[4].Counts {
		t.Errorf("a second run of the same config differs: %+v, %v", again.Rows[4].Counts, err)
	}
}

func TestSimulateBadConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg  SimConfig
		want string
	}{
		{SimConfig{CPUs: 1}, "cpus 1 out of range [2, 8192]"},
		{SimConfig{CPUs: 4, LLC: 5}, "llc 5 out of range [1, cpus 4]"},
		{SimConfig{Duration: time.Hour}, "duration 1h0m0s out of range"},
		{SimConfig{Rate: 1_000_000_000}, "over the limit"},
		{SimConfig{Mig: "x"}, `mig="x": not a per cent from 0 to 100 with at most two decimals (want 0..100; at most two decimals)`},
		{SimConfig{Sync: 101}, "sync=\"101\": out of range"},
		{SimConfig{Tasks: 65}, "tasks=\"65\": out of range"},
		{SimConfig{Policies: []string{"sync"}}, `wake="sync": unknown value`},
	} {
		_, err := Simulate(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "simulate wakeup: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Simulate(%+v) error = %v, want one line containing %q", tt.cfg, err, tt.want)
		}
	}
}
