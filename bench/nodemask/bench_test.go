package nodemask

import (
	"fmt"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/nodemask"
)

// BenchmarkNodemask is tg_load_avg() with each node walk of seed 000 (the
// MAX_NUMNODES scan, PeterZ's loop bound as posted, the searches bounded by
// nr_node_ids too, Yury's one-word path, and the bound with the one-word
// search) on each possible-node layout, on the pinned runner: one reader
// (the measurement) and two (readers on other CPUs share the slots' lines
// clean, so this should cost nothing extra). iter=word cannot walk
// nodes=sparse and is left out there, as in the full sweep. Compare the walks
// with
//
//	go test -run '^$' -bench '^BenchmarkNodemask$/iter=/nodes=/threads=1/' -count 10 ./bench/nodemask | tee nm.txt
//	benchstat -col /iter nm.txt
//
// bits-scanned/op is the thread's measure (1024 against nr_node_ids),
// words-scanned/op the loads a word-at-a-time search really does.
func BenchmarkNodemask(b *testing.B) {
	spec, err := bench.Lookup("nodemask")
	if err != nil {
		b.Fatal(err)
	}
	benchtest.Ladder(b, "nodemask", spec.Full)
}

// nmSink keeps the searches below from being discarded.
var nmSink int

// BenchmarkNodemaskParts takes a for_each_node walk apart, on one unpinned
// goroutine: what one search costs when it finds a node in the word it
// starts in (search=hit: a call to the out-of-line word loop), the same
// search inlined (search=small: NextSmall), and what each further empty word
// costs (search=empty/words=K: a search over K words that finds nothing, as
// the last search of an iter=max walk does over 16). With BenchmarkNodemask's
// slopes over nodes= these say where the walk's time goes.
func BenchmarkNodemaskParts(b *testing.B) {
	two := nodemask.MaskOf(0, 1)
	b.Run("search=hit/words=1", func(b *testing.B) {
		start := 0
		for b.Loop() {
			r := two.NextBelow(start, 64) // finds node 1 in word 0
			start = r - 1
		}
		nmSink = start
	})
	b.Run("search=small/words=1", func(b *testing.B) {
		start := 0
		for b.Loop() {
			r := two.NextSmall(start)
			start = r - 1
		}
		nmSink = start
	})
	one := nodemask.MaskOf(0)
	for _, k := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("search=empty/words=%d", k), func(b *testing.B) {
			bound := k * nodemask.WordBits
			start := 0
			for b.Loop() {
				r := one.NextBelow(start, bound) // reads k words, finds nothing
				start = r - bound
			}
			nmSink = start
		})
	}
}

// BenchmarkNodemaskFirstWord is the tg_load_avg() walk bounded by
// nr_node_ids, the scenario's hot loop of iter=nr_node_ids
// (nodeSumNrNodeIDs), beside the same bound with the one-word search chosen
// once per walk when nr_node_ids fits a word, iter=nr_node_ids+word
// (nodeSumNrWord, named firstword here), both on one unpinned goroutine
// without the runner: PeterZ's bound without losing Yury's fast path, and
// what the out-of-line search costs it.
func BenchmarkNodemaskFirstWord(b *testing.B) {
	for _, nodes := range nodemaskLayouts {
		s, ws := nmSetup(b, "iter=nr_node_ids/nodes="+nodes, 1)
		m, nr, info := s.mask, s.nr, ws[0].nodeInfo
		b.Run("iter=nr_node_ids/nodes="+nodes, func(b *testing.B) {
			nmSink = int(nodeSumNrNodeIDs(m, info, nr, b.N))
		})
		b.Run("iter=firstword/nodes="+nodes, func(b *testing.B) {
			nmSink = int(nodeSumNrWord(m, info, nr, b.N))
		})
	}
}
