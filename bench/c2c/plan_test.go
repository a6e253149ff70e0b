package c2c

import (
	"testing"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/internal/fixture"
)

// Sampling keeps c2c at scale a matter of seconds: a few pairs per class
// whatever the CPU count, where all pairs of a 224-CPU machine would take
// hours.
func TestPlanAtScale(t *testing.T) {
	for _, tt := range []struct {
		name string
		topo *affinity.Topology
	}{
		{fixture.AMD4Sockets, fixture.Topology(t, fixture.AMD4Sockets)},
		{fixture.Intel2Pkg, fixture.Topology(t, fixture.Intel2Pkg)},
		{fixture.AMD8Nodes, fixture.Topology(t, fixture.AMD8Nodes)},
		{"sapphire-rapids-224", fixture.Synthetic(t, fixture.SapphireRapids224)},
		{"fake-1024", fixture.Synthetic(t, fixture.Fake1024)},
	} {
		cpus := tt.topo.AllowedCPUs.Bits()
		p, err := NewPlan(tt.topo, cpus, Sample, 3)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		total := 0
		for _, n := range p.Total {
			total += n
		}
		if want := len(cpus) * (len(cpus) - 1) / 2; total != want {
			t.Errorf("%s: plan counts %d pairs in all, want %d", tt.name, total, want)
		}
		if len(p.Pairs) > 3*len(Classes) {
			t.Errorf("%s: sample chose %d pairs, want at most 3 per class", tt.name, len(p.Pairs))
		}
		for c, n := range p.Total {
			chosen := 0
			for _, pr := range p.Pairs {
				if pr.Class == c {
					chosen++
				}
			}
			if chosen != min(3, n) {
				t.Errorf("%s: class %s: chose %d of %d pairs, want %d", tt.name, c, chosen, n, min(3, n))
			}
		}
		est := p.Estimate(Config{}, len(Modes))
		if est <= 0 || est > 2*time.Minute {
			t.Errorf("%s: sample of %d pairs estimated at %v, want a few seconds", tt.name, len(p.Pairs), est)
		}
		if len(cpus) >= 224 {
			// All pairs would be total/len(p.Pairs) times the sample.
			allEst := time.Duration(float64(est) * float64(total) / float64(len(p.Pairs)))
			if allEst < time.Hour {
				t.Errorf("%s: all %d pairs estimated at %v; the sample's bound would not matter", tt.name, total, allEst)
			}
			t.Logf("%s: sample %d pairs ≈ %v; all %d pairs ≈ %v", tt.name, len(p.Pairs), est.Round(time.Second), total, allEst.Round(time.Minute))
		}
	}
}

// Estimate adds, per pair and mode, its warm-up and measured samples at the
// class's typical handoff, the preheat and the set-up; a configuration
// WithDefaults refuses estimates nothing.
func TestEstimate(t *testing.T) {
	p := &Plan{Pairs: []Pair{{A: 0, B: 2, Class: ClassLLC}, {A: 0, B: 16, Class: ClassCross}}}
	for _, tt := range []struct {
		cfg   Config
		modes int
		want  time.Duration
	}{
		// 10 samples × 100 round trips × 2 handoffs: 100 µs at 50 ns, 600 µs at 300 ns.
		{Config{Samples: 10, Rounds: 100, Warmup: -1}, 1, 100*time.Microsecond + 600*time.Microsecond + 2*perPairSetup},
		{Config{Samples: 10, Rounds: 100, Warmup: -1}, 2, 2 * (700*time.Microsecond + 2*perPairSetup)},
		// The default warm-up, a tenth of the samples, and a preheat per pair.
		{Config{Samples: 10, Rounds: 100, Preheat: time.Millisecond}, 1, 770*time.Microsecond + 2*(time.Millisecond+perPairSetup)},
		{Config{Stat: "mean"}, 1, 0},
	} {
		if got := p.Estimate(tt.cfg, tt.modes); got != tt.want {
			t.Errorf("Estimate(%+v, %d modes) = %v, want %v", tt.cfg, tt.modes, got, tt.want)
		}
	}
}

// BenchmarkNewPlan is the planner at scale: a sample of pairs from every CPU
// of a machine, which classifies all N²/2 pairs but keeps only the chosen.
func BenchmarkNewPlan(b *testing.B) {
	for _, tt := range []struct {
		name  string
		shape fixture.Shape
	}{
		{"cpus=224", fixture.SapphireRapids224},
		{"cpus=1024", fixture.Fake1024},
	} {
		topo := fixture.Synthetic(b, tt.shape)
		cpus := topo.AllowedCPUs.Bits()
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewPlan(topo, cpus, Sample, 3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
