package loadavg

import (
	"testing"
	"time"

	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkSimulate is contend simulate loadavg at the seed's size (224
// cpus on 2 nodes, two levels) for one row of each preset that the
// simulation's cost differs by (base writes every update, rate limits
// them), 200ms of kernel time a row: what the shared model and the driver
// cost on this machine, to compare before and after a change with
// benchstat. ns/op is the simulation's wall time, nothing the model
// reports; sim-events/op is the model's count, the same on every machine.
// Under the race detector (the test command's smoke run, where a row took
// 18-31 s) a row is 20ms: the same machine, twenty PELT periods.
func BenchmarkSimulate(b *testing.B) {
	d := 200 * time.Millisecond
	if benchtest.Race {
		d = 20 * time.Millisecond
	}
	for _, v := range []string{"base", "rate"} {
		cfg := SimConfig{CPUs: 224, Nodes: 2, Levels: 2, Duration: d, Variants: []string{v}, Seed: 1}
		b.Run("cpus=224/variant="+v, func(b *testing.B) {
			var events int64
			for b.Loop() {
				tab, err := Simulate(cfg)
				if err != nil {
					b.Fatal(err)
				}
				events = tab.Rows[0].Events
			}
			b.ReportMetric(float64(events), "sim-events/op")
		})
	}
}
