package atomicadd

import (
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkRunner proves the runner's own cost is too small to see: one pinned
// worker doing uncontended atomic adds through the runner (batches, a timed
// latency sample and an on-CPU check per batch, the stop flag, the thread's
// accounting read once after the release, about 5 µs) against a bare
// testing.B loop running the very same hot loop on the CPU the runner's
// compact placement picks. Compare ns/op with
//
//	go test -run '^$' -bench Runner -count 10 ./bench/atomicadd | tee r.txt
//	benchstat -col /harness r.txt
func BenchmarkRunner(b *testing.B) {
	b.Run("harness=bare", func(b *testing.B) {
		benchtest.Bare(b, func() func(int) {
			word := bench.AlignedWords(1, 128)[0]
			return func(n int) { atomicAddLoop(word, n, 0, 0) }
		})
	})
	b.Run("harness=runner", func(b *testing.B) {
		benchtest.Run(b, benchtest.New(b, "atomicadd", "line=private/work=0"), 1, "compact")
	})
}

// BenchmarkAtomicAdd is the price of one contended line: the same add to one
// shared word or to a word per worker.
func BenchmarkAtomicAdd(b *testing.B) {
	benchtest.Ladder(b, "atomicadd", []string{"line=shared/work=0", "line=private/work=0", "line=shared/work=100", "line=private/work=100"})
}
