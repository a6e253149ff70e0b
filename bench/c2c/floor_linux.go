package c2c

import (
	"math"

	"github.com/contend/contend/affinity"
)

// MeasureFloor measures the handoff floor of cpus for a sweep: one pair per
// class present in the set, with lighter defaults than the c2c command (100
// samples of 500 round trips, a few milliseconds per pair), in cfg.Mode. A set
// of one CPU has no floor and is an error.
func MeasureFloor(t *affinity.Topology, cpus []int, cfg Config) (*Floor, error) {
	if cfg.Samples == 0 {
		cfg.Samples = 100
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = 500
	}
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	plan, err := NewPlan(t, cpus, Sample, 1)
	if err != nil {
		return nil, err
	}
	f := &Floor{CPUs: plan.CPUs, Mode: cfg.Mode, MinNS: math.Inf(1)}
	for _, p := range plan.Pairs {
		r, err := Measure(t, p.A, p.B, cfg)
		if err != nil {
			return nil, err
		}
		f.Pairs = append(f.Pairs, *r)
	}
	f.Classes = Summarize(f.Pairs, plan.Total)
	var sum float64
	var n int
	for _, c := range f.Classes {
		sum += c.NS * float64(c.Total)
		n += c.Total
		f.MinNS = min(f.MinNS, c.NS)
	}
	f.NS = sum / float64(n)
	return f, nil
}
