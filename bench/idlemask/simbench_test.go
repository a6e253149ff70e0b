package idlemask

import (
	"testing"
	"time"
)

// BenchmarkSimulate is contend simulate idlemask at seed 003's size (192
// cpus in LLCs of 48, every row), 10ms of kernel time a row instead of the
// command's 50ms: what the shared model and the driver cost on this
// machine, to compare before and after a change with benchstat. ns/op is
// the simulation's wall time; sim-events/op the model's count.
func BenchmarkSimulate(b *testing.B) {
	cfg := SimConfig{CPUs: 192, LLC: 48, Duration: 10 * time.Millisecond}
	b.Run("cpus=192/llc=48", func(b *testing.B) {
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
