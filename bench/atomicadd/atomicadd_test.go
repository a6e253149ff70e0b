package atomicadd

import (
	"runtime"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

func TestAtomicAddCountsEveryAdd(t *testing.T) {
	for _, variant := range []string{"line=shared/work=0", "line=private/work=3"} {
		t.Run(variant, func(t *testing.T) {
			topo, cpus := benchtest.HostCPUs(t, min(2, runtime.NumCPU()))
			s := benchtest.New(t, "atomicadd", variant)
			// Finish cross-checks the words' sum against the runner's count.
			res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: 50000})
			if err != nil {
				t.Fatal(err)
			}
			if res.Variant != variant {
				t.Errorf("Variant = %q, want %q", res.Variant, variant)
			}
		})
	}
}

func TestVariants(t *testing.T) {
	benchtest.CheckVariants(t, "atomicadd", [][2]string{
		{"", "line=shared/work=0"},
		{"work=5/line=private", "line=private/work=5"},
		{"line=both", "!line=\"both\": unknown value (want shared|private)"},
		{"work=-1", "!work=\"-1\": out of range"},
		{"work=x", "!work=\"x\": not an integer"},
		{"work=1e3", "!: not an integer"},
		{"work=100001", "!out of range"},
	})
}
