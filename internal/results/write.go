package results

import (
	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/resultfmt"
)

// The writers of results moved to bench/resultfmt, below the scenarios that
// need them. These forward to it only for internal/sweep/run.go, which is
// being reworked elsewhere; new code calls resultfmt directly, and these go
// once run.go does.

// FileConfig is resultfmt.FileConfig.
func FileConfig(t *affinity.Topology, args []string) []benchfmt.Config {
	return resultfmt.FileConfig(t, args)
}

// WithPackage is resultfmt.WithPackage.
func WithPackage(cfg []benchfmt.Config, pkg string) []benchfmt.Config {
	return resultfmt.WithPackage(cfg, pkg)
}

// Record is resultfmt.Record.
func Record(name string, res *bench.Result, cfg []benchfmt.Config) *benchfmt.Result {
	return resultfmt.Record(name, res, cfg)
}

// AllUnits is resultfmt.AllUnits.
func AllUnits(extra ...bench.Unit) []*benchfmt.UnitMetadata { return resultfmt.AllUnits(extra...) }
