package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/contend/contend/internal/results"
)

// abFile writes an interleaved session: rounds × metrics, each round's old
// and new samples side by side under one session key, the order of the
// sides alternating by round as contend ab runs them. value gives a
// sample of metric m in round r on side new (or not).
func abFile(rounds, metrics int, value func(m, r int, new bool) float64) string {
	var b strings.Builder
	b.WriteString("Unit ns/op better=lower\nUnit hits/op better=higher\nsession: 20261204T230000Z-1a2b\n\n")
	for r := range rounds {
		sides := []bool{false, true}
		if r%2 == 1 {
			sides = []bool{true, false}
		}
		for m := range metrics {
			for _, new := range sides {
				side := "old"
				if new {
					side = "new"
				}
				v := value(m, r, new)
				// hits/op: higher is better, the inverse of ns/op.
				fmt.Fprintf(&b, "side: %s\nBenchmarkX/m=%d/threads=1-2 1000 %.4f ns/op %.6f hits/op\n", side, m, v, 1000/v)
			}
		}
	}
	return b.String()
}

func gateReport(t *testing.T, text string, paired bool) *Report {
	t.Helper()
	rs, err := results.Parse(strings.NewReader(text), "ab.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{Row: ".fullname", Col: "side@(old new)", Filter: "*", Ignore: "date",
		Alpha: 0.05, Confidence: 0.95, Compare: true, Paired: paired})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// An A/A run never fails the gate, whatever the drift: the host triples
// every figure across the session (the LoadAvg base read 261.7, 76.7, 96.3
// ns in three sweeps), rounds are noisy (±8%), and whichever side runs
// second is 7% slower; 200 sessions of 16 metrics × 2 units, 10 rounds.
func TestGateAANeverFails(t *testing.T) {
	const rounds, metrics = 10, 16
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 41))
		drift := make([]float64, rounds)
		for r := range drift {
			drift[r] = 100 * (1 + 2*float64(r)/rounds) * (1 + 0.3*rng.Float64())
		}
		text := abFile(rounds, metrics, func(m, r int, new bool) float64 {
			v := drift[r] * (1 + 0.08*rng.NormFloat64())
			if second := new == (r%2 == 0); second {
				v *= 1.07
			}
			return v
		})
		g := gateReport(t, text, true).Gate(5, 0.05)
		if !g.Paired || g.Metrics != 2*metrics || g.Pairs != rounds {
			t.Fatalf("seed %d: gate %+v, want paired, %d metrics of %d rounds", seed, g, 2*metrics, rounds)
		}
		if len(g.Regressions) > 0 {
			t.Fatalf("seed %d: an A/A session fails the gate: %v", seed, g.Regressions[0])
		}
	}
}

// A real 10% regression on one metric, under the same drift and a quieter
// round (±2%), fails the gate, in both of its units (ns/op higher, hits/op
// lower), and nothing else does.
func TestGateCatchesRegression(t *testing.T) {
	const rounds, metrics = 12, 16
	rng := rand.New(rand.NewPCG(7, 41))
	text := abFile(rounds, metrics, func(m, r int, new bool) float64 {
		v := 100 * (1 + 2*float64(r)/rounds) * (1 + 0.02*rng.NormFloat64())
		if new && m == 3 {
			v *= 1.10
		}
		return v
	})
	g := gateReport(t, text, true).Gate(5, 0.05)
	if len(g.Regressions) != 2 {
		t.Fatalf("%d regressions, want m=3's ns/op and hits/op: %v", len(g.Regressions), g.Regressions)
	}
	for _, r := range g.Regressions {
		if !strings.Contains(r.Metric, "m=3") || !r.Paired || r.Worse != rounds || math.Abs(math.Abs(r.PairedPct)-9.5) > 2 {
			t.Errorf("%v: want m=3, every round worse, about 10%%", r)
		}
		if s := r.String(); strings.Contains(s, "\n") || !strings.Contains(s, "rounds worse") {
			t.Errorf("%q: want one line with the rounds", s)
		}
	}
	// At 15% it is within the threshold.
	if g := gateReport(t, text, true).Gate(15, 0.05); len(g.Regressions) != 0 {
		t.Errorf("gate at 15%%: %v, want none", g.Regressions)
	}
	// Unpaired (two sessions), nothing is gated.
	if g := gateReport(t, text, false).Gate(5, 0.05); g.Paired || len(g.Regressions) != 0 {
		t.Errorf("unpaired gate %+v, want nothing gated", g)
	}
}

// Too few rounds for the number of metrics: the sign test cannot reach
// α/metrics, and the gate says how many rounds it needs.
func TestGateNeedsRounds(t *testing.T) {
	text := abFile(6, 16, func(m, r int, new bool) float64 {
		if new {
			return 120
		}
		return 100
	})
	g := gateReport(t, text, true).Gate(5, 0.05)
	if g.Pairs != 6 || g.NeedPairs != 10 || len(g.Regressions) != 0 {
		t.Errorf("gate %+v: want 6 pairs, 10 needed (α/32 = 0.0016 > 2⁻¹⁰), and no verdict", g)
	}
}

func TestBinomTail(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		want float64
	}{{10, 0, 1}, {10, 10, 1.0 / 1024}, {10, 9, 11.0 / 1024}, {6, 6, 1.0 / 64}, {4, 2, 11.0 / 16}} {
		if got := binomTail(tc.n, tc.k); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("binomTail(%d, %d) = %v, want %v", tc.n, tc.k, got, tc.want)
		}
	}
}

// Pairs are rounds, not ranks: each round's new is set against the same
// round's old. Old alternates 100, 200; new 210, 95: paired, half the
// rounds are 110% worse (median +28.75%); ranked (sorted, as the
// statistics keep the samples) they would be ±5%.
func TestGatePairsRounds(t *testing.T) {
	text := abFile(8, 1, func(m, r int, new bool) float64 {
		switch {
		case !new && r%2 == 0:
			return 100
		case !new:
			return 200
		case r%2 == 0:
			return 210
		}
		return 95
	})
	rep := gateReport(t, text, true)
	tb := rep.tables[0] // sec/op
	var c *cell
	for _, cl := range tb.cells {
		if cl.base != nil {
			c = cl
		}
	}
	pc := paired(c, -1, 50)
	if pc.n != 8 || pc.worse != 4 || math.Abs(pc.medianPct-28.75) > 1e-9 {
		t.Errorf("paired = %+v, want 8 pairs, 4 worse by over 50%%, median +28.75%%", pc)
	}
}

// WritePaired lists each gated metric's median per-round change and its
// rounds worse and better; an unpaired report writes nothing.
func TestWritePaired(t *testing.T) {
	text := abFile(8, 2, func(m, r int, new bool) float64 {
		v := 100 * (1 + float64(r))
		if new && m == 1 {
			v *= 1.10
		}
		return v
	})
	var b strings.Builder
	if err := gateReport(t, text, true).WritePaired(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"paired by round", "X/m=1 ns/op", "+10.0%"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("WritePaired lacks %q:\n%s", want, b.String())
		}
	}
	if l := lineWith(b.String(), "X/m=1 ns/op"); !strings.HasSuffix(strings.Join(strings.Fields(l), " "), "+10.0% 8 0 8") {
		t.Errorf("line %q: want +10.0%%, 8 rounds worse, 0 better, of 8", l)
	}
	if l := lineWith(b.String(), "X/m=0 ns/op"); !strings.HasSuffix(strings.Join(strings.Fields(l), " "), "+0.0% 0 0 8") {
		t.Errorf("line %q: want no change, of 8", l)
	}
	b.Reset()
	if err := gateReport(t, text, false).WritePaired(&b); err != nil || b.Len() != 0 {
		t.Errorf("unpaired WritePaired: %v, %q", err, b.String())
	}
}
