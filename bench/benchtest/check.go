package benchtest

import (
	"math"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
)

// CheckVariants parses each case, a variant as written and its canonical
// form, or "!" and a piece of the error it must give, with the registered
// scenario: good variants must come back canonical, bad ones fail with one
// line that names the scenario and says what is wrong.
func CheckVariants(t *testing.T, scenario string, cases [][2]string) {
	t.Helper()
	spec, err := bench.Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		variant, want := c[0], c[1]
		s, err := spec.New(variant)
		if piece, isErr := strings.CutPrefix(want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), piece) {
				t.Errorf("%s variant %q: error = %v, want one containing %q", scenario, variant, err, piece)
				continue
			}
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), scenario+": ") {
				t.Errorf("%s variant %q: error = %q, want one line starting with the scenario", scenario, variant, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s variant %q: %v", scenario, variant, err)
			continue
		}
		if got := s.Variant(); got != want {
			t.Errorf("%s variant %q: Variant() = %q, want %q", scenario, variant, got, want)
		}
	}
}

// StartUnpinned builds a scenario and its workers without the runner: no
// pinning, no threads and no topology, so a test can drive each worker's hot
// loop itself and know exactly what it should have done.
func StartUnpinned[S bench.Scenario](t testing.TB, name, variant string, workers int) S {
	t.Helper()
	s := New(t, name, variant).(S)
	if err := s.Start(&bench.Env{CPUs: make([]int, workers), Nodes: make([]int, workers)}); err != nil {
		t.Fatal(err)
	}
	for i := range workers {
		if _, err := s.Worker(bench.WorkerInfo{Index: i, Workers: workers}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// Metric returns the value res reports for unit u, failing the test if the
// run did not report it.
func Metric(tb testing.TB, res *bench.Result, u bench.Unit) float64 {
	tb.Helper()
	v, ok := res.Metric(u.Name)
	if !ok {
		tb.Errorf("the run reported no %s", u.Name)
		return math.NaN()
	}
	return v
}
