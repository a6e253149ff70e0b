package bench

import (
	"fmt"
	"testing"
)

// BenchmarkC2C is the handoff floor of this machine: the one-way latency of a
// cache line between two pinned CPUs, per mode and per topology class, on the
// first pair of each class among the allowed CPUs. An operation is one
// handoff; ns/op is the median over samples of 1000 round trips (sample time
// over 2×1000) and min-ns/op the fastest sample. Compare machines with
//
//	go test -run '^$' -bench C2C -count 10 ./bench | tee c2c.txt
//	benchstat -col /class c2c.txt
//
// and contend c2c -bench output with `benchstat -ignore cpu_a,cpu_b`.
func BenchmarkC2C(b *testing.B) {
	t, err := testTopology()
	if err != nil {
		b.Fatal(err)
	}
	// The first pair of each class: a sample of one per class.
	first := map[C2CClass]C2CPair{}
	if plan, err := PlanC2C(t, t.AllowedCPUs.Bits(), C2CSample, 1); err == nil {
		for _, p := range plan.Pairs {
			first[p.Class] = p
		}
	}
	for _, mode := range C2CModes {
		for _, class := range C2CClasses {
			if class == ClassUnknown {
				continue
			}
			b.Run(fmt.Sprintf("mode=%s/class=%s", mode, class), func(b *testing.B) {
				p, ok := first[class]
				if !ok {
					b.Skipf("no pair of allowed cpus %s is of class %s on this machine (topology %s)", t.AllowedCPUs, class, t.Label())
				}
				benchC2C(b, p, mode)
			})
		}
	}
}

// benchC2C measures p for about b.N handoffs: samples of up to 1000 round
// trips, at least one.
func benchC2C(b *testing.B, p C2CPair, mode C2CMode) {
	t, err := testTopology()
	if err != nil {
		b.Fatal(err)
	}
	rounds := min(1000, max(1, b.N/2))
	samples := max(1, b.N/(2*rounds))
	b.ResetTimer()
	r, err := MeasureC2C(t, p.A, p.B, C2CConfig{Mode: mode, Samples: samples, Rounds: rounds, Warmup: min(10, samples)})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(r.MedianNS, "ns/op")
	b.ReportMetric(r.MinNS, "min-ns/op")
}
