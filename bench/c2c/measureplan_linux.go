package c2c

import "github.com/contend/contend/affinity"

// MeasurePlan measures every pair of p in each of modes (cfg's Mode is
// replaced by each), in modes' order and, within a mode, the plan's: what
// contend c2c runs. The first pair that fails ends it.
func MeasurePlan(t *affinity.Topology, p *Plan, modes []Mode, cfg Config) ([]Result, error) {
	var rs []Result
	for _, m := range modes {
		cfg.Mode = m
		for _, pair := range p.Pairs {
			r, err := Measure(t, pair.A, pair.B, cfg)
			if err != nil {
				return nil, err
			}
			rs = append(rs, *r)
		}
	}
	return rs, nil
}
