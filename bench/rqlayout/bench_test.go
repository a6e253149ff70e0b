package rqlayout

import (
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkRqLayout is struct rq before and after the reorder, at every
// worker count and placement of the machine.
func BenchmarkRqLayout(b *testing.B) {
	spec, err := bench.Lookup("rqlayout")
	if err != nil {
		b.Fatal(err)
	}
	benchtest.Ladder(b, "rqlayout", spec.Full)
}

// BenchmarkRunner is atomicadd's check of the runner's overhead on this
// scenario's hot loop: one pinned worker scheduling on its own rq (and
// waking onto it) through the runner, against a bare testing.B loop
// running the same loop.
//
//	go test -run '^$' -bench Runner -count 10 ./bench/rqlayout | tee r.txt
//	benchstat -col /harness r.txt
func BenchmarkRunner(b *testing.B) {
	const variant = "layout=after/picks=16/work=0"
	b.Run("harness=bare", func(b *testing.B) {
		benchtest.Bare(b, func() func(int) {
			s := benchtest.New(b, "rqlayout", variant).(*rqLayout)
			if err := s.Start(&bench.Env{CPUs: []int{0}, Nodes: []int{0}}); err != nil {
				b.Fatal(err)
			}
			wk, err := s.Worker(bench.WorkerInfo{Workers: 1})
			if err != nil {
				b.Fatal(err)
			}
			w := wk.(*worker)
			w.next = w.own
			return func(n int) { scheduleLoop(w, n) }
		})
	})
	b.Run("harness=runner", func(b *testing.B) {
		benchtest.Run(b, benchtest.New(b, "rqlayout", variant), 1, "compact")
	})
}
