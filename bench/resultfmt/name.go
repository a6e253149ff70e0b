package resultfmt

import (
	"fmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
)

// Name returns the full benchmark name of a run: the scenario's benchmark
// name, its variant, the worker count and placement, and the -GOMAXPROCS
// suffix that go test adds, so that sweep files and go test files name the
// same configuration the same way.
func Name(spec *bench.Spec, variant string, threads int, place string) string {
	return WithProcs(spec.BenchName + "/" + bench.ConfigName(variant, threads, place))
}

// WithProcs returns a benchmark name with the -GOMAXPROCS suffix go test
// appends to every benchmark it reports: the runtime's default at start
// (affinity.ProcsAtStart), not what a run set GOMAXPROCS to, since go test
// names its benchmarks before any run changes it. Every name contend writes
// gets its suffix here, so a file written by a command and go test's
// output of the same benchmark carry the same one.
func WithProcs(name string) string {
	return fmt.Sprintf("%s-%d", name, affinity.ProcsAtStart())
}
