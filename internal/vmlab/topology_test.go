package vmlab

import (
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/internal/vmlab/topology"
)

func TestMatrixValid(t *testing.T) {
	if len(topology.Matrix) < 4 {
		t.Fatalf("the matrix has %d topologies, want at least 4", len(topology.Matrix))
	}
	seen := map[string]bool{}
	for _, topo := range topology.Matrix {
		if err := topo.Validate(); err != nil {
			t.Error(err)
		}
		if seen[topo.Name] {
			t.Errorf("topology %s declared twice", topo.Name)
		}
		seen[topo.Name] = true
		if topo.CPUs() > 8 {
			t.Errorf("topology %s: %d vcpus; spinning steps need small guests (≤ 8)", topo.Name, topo.CPUs())
		}
		for _, s := range topo.Steps {
			if _, err := LookupStep(s); err != nil {
				t.Errorf("topology %s: %v", topo.Name, err)
			}
		}
		for _, n := range topo.Tests {
			if !slices.ContainsFunc(scenarioTests, func(s struct{ name, bench, variant string }) bool { return s.name == n }) {
				t.Errorf("topology %s: tests %s: no such scenario test", topo.Name, n)
			}
		}
		if topo.Steps[0] != "topo" {
			t.Errorf("topology %s: first step %s, want topo (the oracle check)", topo.Name, topo.Steps[0])
		}
	}
}

// TestBigNoSpinning: a big guest runs no step that spins a worker per cpu.
func TestBigNoSpinning(t *testing.T) {
	for _, topo := range topology.Big {
		if err := topo.Validate(); err != nil {
			t.Error(err)
		}
		for _, s := range topo.Steps {
			if !slices.Contains([]string{"topo", "sysfs", "plan"}, s) {
				t.Errorf("topology %s: step %s spins workers; big guests run topo, sysfs and plan only", topo.Name, s)
			}
		}
		if _, err := Lookup(topo.Name); err != nil {
			t.Error(err)
		}
	}
}

// TestTestsCovered: between them, the matrix's guests run every scenario's
// test binary.
func TestTestsCovered(t *testing.T) {
	for _, s := range scenarioTests {
		covered := false
		for _, topo := range topology.Matrix {
			covered = covered || (slices.Contains(topo.Steps, "tests") && testedHere(topo, s.name))
		}
		if !covered {
			t.Errorf("no guest of the matrix runs %s's benchmarks", s.name)
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "skx-2s") {
		t.Errorf("Lookup(nope) = %v, want an error listing the topologies", err)
	}
}
