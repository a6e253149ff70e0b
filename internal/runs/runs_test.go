package runs

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
	_ "github.com/contend/contend/bench/all"
	"github.com/contend/contend/internal/fixture"
)

// TestNewPlan: the default worker count (2, the scenario's least, or the
// cpu list's count), placements resolved on the topology, and each bad
// choice refused in one line naming the flag, the topology loaded only
// once the scenario and variant are good.
func TestNewPlan(t *testing.T) {
	topo := fixture.Topology(t, "16amd64-8n2c")
	for _, tc := range []struct {
		name    string
		c       Choice
		cpus    []int  // want, when no error
		err     string // want in the error
		loadErr bool   // the topology fails to load
		loaded  bool   // load is called
	}{
		{name: "default", c: Choice{Scenario: "atomicadd", Place: "compact"}, cpus: []int{0, 1}, loaded: true},
		{name: "threads", c: Choice{Scenario: "atomicadd", Place: "compact", Threads: 3}, cpus: []int{0, 1, 2}, loaded: true},
		{name: "cpu list", c: Choice{Scenario: "atomicadd", Place: "4,6,9"}, cpus: []int{4, 6, 9}, loaded: true},
		{name: "least", c: Choice{Scenario: "wakeup", Place: "compact", Threads: 1}, err: "run: -threads 1: wakeup needs at least 2 workers", loaded: true},
		{name: "scenario", c: Choice{Scenario: "nope", Place: "compact"}, err: "run: "},
		{name: "variant", c: Choice{Scenario: "atomicadd", Variant: "zz=1", Place: "compact"}, err: "run: -variant: "},
		{name: "topology", c: Choice{Scenario: "atomicadd", Place: "compact"}, err: "no sysfs", loadErr: true, loaded: true},
		{name: "placement", c: Choice{Scenario: "atomicadd", Place: "bogus"}, err: "run: ", loaded: true},
		{name: "too many", c: Choice{Scenario: "atomicadd", Place: "compact", Threads: 17}, err: "run: ", loaded: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loaded := false
			p, err := NewPlan("run", tc.c, func() (*affinity.Topology, error) {
				loaded = true
				if tc.loadErr {
					return nil, errors.New("no sysfs")
				}
				return topo, nil
			})
			if loaded != tc.loaded {
				t.Errorf("topology loaded: %v, want %v", loaded, tc.loaded)
			}
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) && !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Errorf("error %v, want one line with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.CPUs, tc.cpus) || p.Topology != topo || p.Spec.Name != tc.c.Scenario {
				t.Errorf("plan: %s on cpus %v, want %s on %v", p.Spec.Name, p.CPUs, tc.c.Scenario, tc.cpus)
			}
		})
	}
}
