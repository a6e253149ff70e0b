package results

import (
	"math"
	"time"

	"github.com/contend/contend/bench"
	"golang.org/x/perf/benchfmt"
)

// Disturbed reports whether a recorded result comes from a disturbed run:
// one whose most disturbed worker lost more than bench.DisturbedPct of its
// time (its lost-% value), by bench.IsDisturbed, the run's length taken as
// sec/op times the operations. Results without lost-% (older files, go test
// output of other benchmarks) are not known to be disturbed.
func Disturbed(r *benchfmt.Result) bool {
	lost, ok := r.Value(bench.Lost.Name)
	if !ok {
		return false
	}
	wall := time.Duration(math.MaxInt64) // without sec/op, the share alone decides
	if sec, ok := r.Value("sec/op"); ok && r.Iters > 0 {
		wall = time.Duration(sec * 1e9 * float64(r.Iters))
	}
	return bench.IsDisturbed(lost, wall)
}
