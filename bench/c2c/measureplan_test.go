package c2c

import (
	"testing"

	"github.com/contend/contend/bench/benchtest"
)

// TestMeasurePlan: one result per pair and mode, modes outermost, each
// named by its own pair and mode; a bad pair ends it with an error.
func TestMeasurePlan(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	p, err := NewPlan(topo, cpus[:2], All, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Config{Samples: 4, Rounds: 20, Warmup: 1}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := MeasurePlan(topo, p, []Mode{CAS, ReadWrite}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2*len(p.Pairs) {
		t.Fatalf("%d results, want %d (2 modes × %d pairs)", len(rs), 2*len(p.Pairs), len(p.Pairs))
	}
	for i, r := range rs {
		want, pair := CAS, p.Pairs[i%len(p.Pairs)]
		if i >= len(p.Pairs) {
			want = ReadWrite
		}
		if r.Mode != want || r.CPUA != pair.A || r.CPUB != pair.B {
			t.Errorf("result %d: %s %d,%d, want %s %d,%d", i, r.Mode, r.CPUA, r.CPUB, want, pair.A, pair.B)
		}
	}
	bad := &Plan{Pairs: []Pair{{A: cpus[0], B: cpus[0]}}}
	if _, err := MeasurePlan(topo, bad, []Mode{ReadWrite}, cfg); err == nil {
		t.Error("MeasurePlan of a pair of one cpu with itself: no error")
	}
}
