package idlemask

import (
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkIdleMask is the per-LLC idle cpumask of seed 003 over the variants
// of a full sweep, on one worker (owning all 48 simulated CPUs: no line moves
// between cores, so ns/op is the work itself) and on two (each owning 24, the
// mask word and the runqueue lines bouncing between two cores).
// mask-writes/op is what each update policy costs the shared line,
// cpus-scanned/op what a wakeup search costs, found-idle-% and wrong-% what a
// search gets for it within the SIS_PROP budget, budget-out-% how often the
// budget ended it. Compare the policies and the scans with
//
//	go test -run '^$' -bench 'IdleMask/update=/scan=/sis=/busy=/wake=10/llc=/tick=/hz=/threads=2/' -count 10 ./bench/idlemask | tee im.txt
//	benchstat -filter '/scan:mask' -col /update im.txt
//	benchstat -filter '/update:always' -col /scan im.txt
//
// and the search with and without the budget at a heavier wakeup rate with
// the wake=50 variants.
func BenchmarkIdleMask(b *testing.B) {
	spec, err := bench.Lookup("idlemask")
	if err != nil {
		b.Fatal(err)
	}
	benchtest.Ladder(b, "idlemask", spec.Full)
}
