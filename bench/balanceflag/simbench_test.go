package balanceflag

import (
	"testing"
	"time"
)

// BenchmarkSimulate is contend simulate balanceflag at the seed's class of
// machine (512 cpus, 2 sockets of SNC-2, SMT 2, busy 90, newidle 2), 100ms
// of kernel time for each order, with a fixed handoff (-cas 56ns) so that
// nothing is measured first: what the shared model and its event driver
// cost on this machine, to compare before and after a change with
// benchstat. ns/op is the simulation's wall time; walks/s the model's
// count of balancing walks.
func BenchmarkSimulate(b *testing.B) {
	for _, o := range orderNames {
		cfg := SimConfig{CPUs: 512, Sockets: 2, SNC: 2, SMT: 2, Busy: 90, Newidle: 2,
			Duration: 100 * time.Millisecond, CAS: 56 * time.Nanosecond, Orders: []string{o}}
		b.Run("cpus=512/order="+o, func(b *testing.B) {
			var walks float64
			for b.Loop() {
				tab, err := Simulate(cfg)
				if err != nil {
					b.Fatal(err)
				}
				walks = tab.Rows[0].Softirqs + tab.Rows[0].Newidles
			}
			b.ReportMetric(walks, "walks/s")
		})
	}
}
