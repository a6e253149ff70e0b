package cpumask

import (
	"unsafe"

	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// BenchmarkCpumask is K Prateek Nayak's test and cpupri_vec's layouts, at
// every worker count and placement of the machine.
func BenchmarkCpumask(b *testing.B) {
	spec, err := bench.Lookup("cpumask")
	if err != nil {
		b.Fatal(err)
	}
	benchtest.Ladder(b, "cpumask", spec.Full)
}

// BenchmarkRunner is atomicadd's check of the runner's overhead on this
// scenario's hot loop: one pinned worker setting and clearing its bit of an
// uncontended mask through the runner, against a bare testing.B loop
// running the same loop on the cpu the runner's compact placement picks.
//
//	go test -run '^$' -bench Runner -count 10 ./bench/cpumask | tee r.txt
//	benchstat -col /harness r.txt
func BenchmarkRunner(b *testing.B) {
	b.Run("harness=bare", func(b *testing.B) {
		benchtest.Bare(b, func() func(int) {
			word := (*uint64)(unsafe.Pointer(bench.AlignedWords(1, bench.LinePad)[0]))
			return func(n int) { maskLockLoop(word, 1, false, n, 0, 0) }
		})
	})
	b.Run("harness=runner", func(b *testing.B) {
		benchtest.Run(b, benchtest.New(b, "cpumask", "split=global/store=lock/vec=off/work=0"), 1, "compact")
	})
}
