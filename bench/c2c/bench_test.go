package c2c

import (
	"fmt"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkC2C is the handoff floor of this machine: the one-way latency of a
// cache line between two pinned CPUs, per mode and per topology class, on the
// first pair of each class among the allowed CPUs. An operation is one
// handoff; ns/op is the median over samples of 1000 round trips (sample time
// over 2×1000) and min-sec/op the fastest sample (printed as min-ns/op). Compare machines with
//
//	go test -run '^$' -bench C2C -count 10 ./bench/c2c | tee c2c.txt
//	benchstat -col /class c2c.txt
//
// and contend c2c -bench output with `benchstat -ignore cpu_a,cpu_b`.
func BenchmarkC2C(b *testing.B) {
	t, err := benchtest.Topology()
	if err != nil {
		b.Fatal(err)
	}
	// The first pair of each class: a sample of one per class.
	first := map[Class]Pair{}
	if plan, err := NewPlan(t, t.AllowedCPUs.Bits(), Sample, 1); err == nil {
		for _, p := range plan.Pairs {
			first[p.Class] = p
		}
	}
	for _, mode := range Modes {
		for _, class := range Classes {
			if class == ClassUnknown {
				continue
			}
			b.Run(fmt.Sprintf("mode=%s/class=%s", mode, class), func(b *testing.B) {
				p, ok := first[class]
				if !ok {
					b.Skipf("no pair of allowed cpus %s is of class %s on this machine (topology %s)", t.AllowedCPUs, class, t.Label())
				}
				benchPair(b, p, mode)
			})
		}
	}
}

// benchPair measures p for about b.N handoffs: samples of up to 1000 round
// trips, at least one.
func benchPair(b *testing.B, p Pair, mode Mode) {
	t, err := benchtest.Topology()
	if err != nil {
		b.Fatal(err)
	}
	rounds := min(1000, max(1, b.N/2))
	samples := max(1, b.N/(2*rounds))
	b.ResetTimer()
	r, err := Measure(t, p.A, p.B, Config{Mode: mode, Samples: samples, Rounds: rounds, Warmup: Warmup(min(10, samples))})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(r.MedianNS, "ns/op")
	b.ReportMetric(benchtest.GoTestValue(bench.Metric{Unit: MinHandoff, Value: r.MinNS / 1e9}))
}
