package bench

import (
	"slices"
	"strings"
	"testing"
)

// Every registered scenario must name itself consistently: its preset
// variants are canonical (so a sweep file and go test output name one
// configuration the same way), and every metric a run reports has its
// direction declared for the Unit lines benchstat reads.
func TestEverySpec(t *testing.T) {
	topo, cpus := hostCPUs(t, 2)
	for _, name := range Names() {
		spec, _ := Lookup(name)
		t.Run(name, func(t *testing.T) {
			if spec.BenchName == "" || spec.Summary == "" || len(spec.Keys) == 0 || len(spec.Quick) == 0 {
				t.Fatalf("spec %s lacks a benchmark name, summary, keys or quick variants", name)
			}
			for _, v := range slices.Concat(spec.Quick, spec.Full) {
				s, err := spec.New(v)
				if err != nil {
					t.Errorf("sweep variant %q: %v", v, err)
					continue
				}
				if strings.HasSuffix(s.Variant(), "-") || s.Variant() == "" {
					t.Errorf("variant %q has a bad canonical name %q", v, s.Variant())
				}
				again, err := spec.New(s.Variant())
				if err != nil || again.Variant() != s.Variant() {
					t.Errorf("canonical variant %q does not read back as itself: %v", s.Variant(), err)
				}
			}
			seen := map[string]bool{}
			for _, v := range slices.Concat(spec.Quick, spec.Full) {
				res, err := Run(mustNew(t, name, v), Config{Topology: topo, CPUs: cpus[:max(spec.MinWorkers, 2)], Ops: 2000})
				if err != nil {
					t.Fatalf("%s %s: %v", name, v, err)
				}
				for _, m := range res.Metrics {
					seen[m.Unit] = true
					if b, ok := spec.Units[m.Unit]; !ok || b != m.Better {
						t.Errorf("%s reports %s (better=%s) but Spec.Units says %q", v, m.Unit, m.Better, b)
					}
				}
			}
			for u := range spec.Units {
				if !seen[u] {
					t.Errorf("Spec.Units declares %s, which no preset variant reports", u)
				}
			}
		})
	}
}

// A variantCase is a variant as written and its canonical form, or "!" and a
// piece of the error it must give.
type variantCase struct {
	variant string
	want    string
}

// checkVariants parses each case with the registered scenario: good variants
// must come back canonical, bad ones fail with one line that names the
// scenario and says what is wrong.
func checkVariants(t *testing.T, scenario string, cases []variantCase) {
	t.Helper()
	spec, err := Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range cases {
		s, err := spec.New(tt.variant)
		if want, isErr := strings.CutPrefix(tt.want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s variant %q: error = %v, want one containing %q", scenario, tt.variant, err, want)
				continue
			}
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), scenario+": ") {
				t.Errorf("%s variant %q: error = %q, want one line starting with the scenario", scenario, tt.variant, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s variant %q: %v", scenario, tt.variant, err)
			continue
		}
		if got := s.Variant(); got != tt.want {
			t.Errorf("%s variant %q: Variant() = %q, want %q", scenario, tt.variant, got, tt.want)
		}
	}
}

// startUnpinned builds a scenario and its workers without the runner: no
// pinning, no threads and no topology, so a test can drive each worker's hot
// loop itself and know exactly what it should have done.
func startUnpinned[S Scenario](t testing.TB, name, variant string, workers int) S {
	t.Helper()
	s := mustNew(t, name, variant).(S)
	if err := s.Start(&Env{CPUs: make([]int, workers), Nodes: make([]int, workers)}); err != nil {
		t.Fatal(err)
	}
	for i := range workers {
		if _, err := s.Worker(WorkerInfo{Index: i, Workers: workers}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}
