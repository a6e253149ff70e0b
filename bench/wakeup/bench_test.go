package wakeup

import (
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkWakeup is seed 004's experiment: the cost of a wakeup against the
// working set (lines=) when the woken task follows its waker (wake=affine) or
// stays where it ran (wake=prev), the idle-sibling policy, and the seed's own
// migration rates. Compare the policies at each working set with
//
//	go test -run '^$' -bench 'Wakeup/wake=/lines=/mig=10/' -count 10 ./bench/wakeup | tee wk.txt
//	benchstat -col /wake -row /lines wk.txt
//
// and on made-up nodes with CONTEND_FAKE_NODES=2 (the results say fake-2).
func BenchmarkWakeup(b *testing.B) {
	spec, err := bench.Lookup("wakeup")
	if err != nil {
		b.Fatal(err)
	}
	benchtest.Ladder(b, "wakeup", spec.Full)
}
