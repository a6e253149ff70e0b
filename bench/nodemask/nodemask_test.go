package nodemask

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/nodemask"
)

// nmSetup builds a nodemask scenario and its workers without the runner, so a
// test can drive the hot loops itself.
func nmSetup(t testing.TB, variant string, workers int) (*nodemaskScan, []*nmWorker) {
	t.Helper()
	s := benchtest.StartUnpinned[*nodemaskScan](t, "nodemask", variant, workers)
	return s, s.workers
}

func TestNodemaskVariants(t *testing.T) {
	tests := [][2]string{
		{"", "iter=nr_node_ids/nodes=2"},
		{"iter=max", "iter=max/nodes=2"},
		{"nodes=sparse/iter=max", "iter=max/nodes=sparse"},
		{"iter=word/nodes=64", "iter=word/nodes=64"},
		{"iter=max/nodes=1024", "iter=max/nodes=1024"},
		{"iter=loopbound/nodes=sparse", "iter=loopbound/nodes=sparse"},
		{"iter=all", `!iter="all": unknown value (want max|loopbound|nr_node_ids|word|nr_node_ids+word)`},
		{"iter=loop", `!iter="loop": unknown value (want max|loopbound`},
		{"iter=loopbound/nodes=0", `!nodes="0": out of range (want 1..1024|sparse)`},
		{"iter=MAX", `!iter="MAX": unknown value`},
		{"nodes=0", `!nodes="0": out of range (want 1..1024|sparse)`},
		{"nodes=1025", `!nodes="1025"`},
		{"nodes=-1", `!nodes="-1"`},
		{"nodes=04", `!nodes="04"`},
		{"nodes=0-3", `!nodes="0-3"`},
		{"iter=word/nodes=sparse", "!iter=word cannot reach node ids >= 64, and nodes=sparse has nr_node_ids 74"},
		{"iter=word/nodes=65", "!nodes=65 has nr_node_ids 65"},
		{"threads=2", `!unknown variant key "threads"`},
		{"iter", "!malformed variant part"},
	}
	benchtest.CheckVariants(t, "nodemask", tests)
}

// The loop shapes of the hot loops, visiting instead of summing.
func nmVisitMax(m *nodemask.Mask) (out []int) {
	for n := m.First(); n < nodemask.MaxNumNodes; n = m.Next(n) {
		out = append(out, n)
	}
	return out
}

// nmVisitLoopBound is the seed's for_each_node_mask(): the loop bounded by
// nr, the searches by MAX_NUMNODES. It also returns the value that ended
// the loop: what the last search returned.
func nmVisitLoopBound(m *nodemask.Mask, nr int) (out []int, end int) {
	n := m.First()
	for ; n < nr; n = m.Next(n) {
		out = append(out, n)
	}
	return out, n
}

func nmVisitNr(m *nodemask.Mask, nr int) (out []int) {
	for n := m.NextBelow(-1, nr); n < nr; n = m.NextBelow(n, nr) {
		out = append(out, n)
	}
	return out
}

func nmVisitWord(m *nodemask.Mask) (out []int) {
	for n := m.NextSmall(-1); n < nodemask.WordBits; n = m.NextSmall(n) {
		out = append(out, n)
	}
	return out
}

// Every iteration visits the same nodes in the same order, and every hot loop
// sums exactly the values of those nodes, on each layout including the ones
// at word boundaries (63, 64, 65 nodes: the last id in or just past word 0).
func TestNodemaskWalksAgree(t *testing.T) {
	tests := []struct {
		nodes string
		nr    int
		ids   []int
	}{
		{"1", 1, []int{0}},
		{"2", 2, []int{0, 1}},
		{"4", 4, []int{0, 1, 2, 3}},
		{"8", 8, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"sparse", 74, []int{0, 1, 2, 33, 34, 45, 72, 73}},
		{"63", 63, nmRange(63)},
		{"64", 64, nmRange(64)},
		{"65", 65, nmRange(65)},
		{"1024", 1024, nmRange(1024)},
	}
	for _, tt := range tests {
		t.Run("nodes="+tt.nodes, func(t *testing.T) {
			var want int64
			for _, id := range tt.ids {
				want += nmValue(id)
			}
			for _, iter := range nmIterNames {
				variant := "iter=" + iter + "/nodes=" + tt.nodes
				if iter == "word" && tt.nr > nodemask.WordBits {
					if _, err := newNodemaskScan(variant); err == nil {
						t.Errorf("newNodemaskScan(%q) accepted node ids the one-word path cannot see", variant)
					}
					continue
				}
				s, ws := nmSetup(t, variant, 1)
				if s.nr != tt.nr {
					t.Errorf("%s: nr_node_ids = %d, want %d", variant, s.nr, tt.nr)
				}
				var visited []int
				switch s.iter {
				case nmIterMax:
					visited = nmVisitMax(s.mask)
				case nmIterLoopBound:
					visited, _ = nmVisitLoopBound(s.mask, s.nr)
				case nmIterNr:
					visited = nmVisitNr(s.mask, s.nr)
				case nmIterNrWord:
					if s.nr > nodemask.WordBits {
						visited = nmVisitNr(s.mask, s.nr)
					} else {
						visited = nmVisitWord(s.mask)
					}
				default:
					visited = nmVisitWord(s.mask)
				}
				if !slices.Equal(visited, tt.ids) {
					t.Errorf("%s visits %v, want %v", variant, visited, tt.ids)
				}
				if s.want != want {
					t.Errorf("%s: one walk should sum %d, scenario expects %d", variant, want, s.want)
				}
				ws[0].Run(3)
				if ws[0].sum != 3*want || ws[0].walks != 3 {
					t.Errorf("%s: 3 walks summed %d in %d walks, want %d", variant, ws[0].sum, ws[0].walks, 3*want)
				}
			}
		})
	}
}

func nmRange(n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// The reported scan counts, worked out by hand from find_next_bit's word
// loop: a search reads the word it starts in, then whole words until one is
// non-zero or the bound is passed; a search starting at or past the bound
// reads nothing.
func TestNodemaskScanCounts(t *testing.T) {
	tests := []struct {
		variant string
		bits    float64
		words   float64
	}{
		// max: one word per node found, then the last search reads the
		// rest of word 0 and words 1..15: 16 more.
		{"iter=max/nodes=1", 1024, 1 + 16},
		{"iter=max/nodes=2", 1024, 2 + 16},
		{"iter=max/nodes=4", 1024, 4 + 16},
		{"iter=max/nodes=8", 1024, 8 + 16},
		// sparse: 6 nodes in word 0, the search from 45 reads word 0
		// and word 1 (72), 73 is in word 1, and the last search reads
		// word 1 and words 2..15.
		{"iter=max/nodes=sparse", 1024, 6 + 2 + 1 + 15},
		// loopbound, the seed's patch: max's searches, so max's words.
		{"iter=loopbound/nodes=1", 1024, 1 + 16},
		{"iter=loopbound/nodes=2", 1024, 2 + 16},
		{"iter=loopbound/nodes=4", 1024, 4 + 16},
		{"iter=loopbound/nodes=8", 1024, 8 + 16},
		{"iter=loopbound/nodes=sparse", 1024, 6 + 2 + 1 + 15},
		{"iter=loopbound/nodes=64", 1024, 64 + 15},
		// nr_node_ids: one word per node; the search after node
		// nr_node_ids-1 starts at the bound and reads nothing.
		{"iter=nr_node_ids/nodes=1", 1, 1},
		{"iter=nr_node_ids/nodes=4", 4, 4},
		{"iter=nr_node_ids/nodes=8", 8, 8},
		{"iter=nr_node_ids/nodes=sparse", 74, 6 + 2 + 1},
		{"iter=nr_node_ids/nodes=65", 65, 65},
		// word: one word per search, including the one that finds nothing.
		{"iter=word/nodes=1", 64, 2},
		{"iter=word/nodes=4", 64, 5},
		{"iter=word/nodes=8", 64, 9},
		// ... except after node 63, where the search starts at the bound.
		{"iter=word/nodes=64", 64, 64},
		{"iter=max/nodes=64", 1024, 64 + 15},
		// nr_node_ids+word: the one-word search when nr_node_ids fits,
		// the bounded walk when it does not.
		{"iter=nr_node_ids+word/nodes=4", 64, 5},
		{"iter=nr_node_ids+word/nodes=sparse", 74, 6 + 2 + 1},
	}
	for _, tt := range tests {
		s, ws := nmSetup(t, tt.variant, 1)
		ws[0].Run(5)
		res := &bench.Result{Ops: 5}
		if err := s.Finish(res); err != nil {
			t.Errorf("%s: Finish: %v", tt.variant, err)
			continue
		}
		if got := benchtest.Metric(t, res, BitsScanned); got != tt.bits {
			t.Errorf("%s: bits-scanned/op = %v, want %v", tt.variant, got, tt.bits)
		}
		if got := benchtest.Metric(t, res, WordsScanned); got != tt.words {
			t.Errorf("%s: words-scanned/op = %v, want %v", tt.variant, got, tt.words)
		}
	}
}

// Finish must catch a walk that read the wrong nodes or miscounted.
func TestNodemaskFinishChecks(t *testing.T) {
	s, ws := nmSetup(t, "iter=max/nodes=4", 1)
	s.nodeInfo[2].Add(1) // a node now holds a value the scenario does not expect
	ws[0].Run(10)
	if err := s.Finish(&bench.Result{Ops: 10}); err == nil || !strings.Contains(err.Error(), "summed") {
		t.Errorf("Finish after a slot changed: error = %v, want one about the sum", err)
	}
	s, ws = nmSetup(t, "iter=max/nodes=4", 1)
	ws[0].Run(10)
	if err := s.Finish(&bench.Result{Ops: 11}); err == nil || !strings.Contains(err.Error(), "walked 10 times") {
		t.Errorf("Finish with a wrong op count: error = %v, want one naming the 10 walks", err)
	}
}

func TestNodemaskDoesNotAllocate(t *testing.T) {
	for _, v := range []string{"iter=max/nodes=sparse", "iter=loopbound/nodes=sparse", "iter=nr_node_ids/nodes=sparse", "iter=word/nodes=8",
		"iter=nr_node_ids+word/nodes=8", "iter=nr_node_ids+word/nodes=sparse"} {
		_, ws := nmSetup(t, v, 1)
		if allocs := testing.AllocsPerRun(20, func() { ws[0].Run(100) }); allocs != 0 {
			t.Errorf("%s: Run(100) allocates %v times, want 0", v, allocs)
		}
	}
}

// Through the pinned runner, with as many readers as the test may pin (the
// race detector sees them read the shared slots concurrently).
func TestNodemaskRun(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	for _, v := range []string{"iter=max/nodes=sparse", "iter=loopbound/nodes=4", "iter=nr_node_ids/nodes=4", "iter=word/nodes=4", "iter=nr_node_ids+word/nodes=4"} {
		for _, n := range []int{1, len(cpus)} {
			t.Run(fmt.Sprintf("%s/threads=%d", v, n), func(t *testing.T) {
				s := benchtest.New(t, "nodemask", v)
				res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus[:n], Ops: 20_000})
				if err != nil {
					t.Fatal(err)
				}
				if benchtest.Metric(t, res, WordsScanned) <= 0 {
					t.Errorf("words-scanned/op = %v, want > 0", benchtest.Metric(t, res, WordsScanned))
				}
			})
		}
	}
}

func FuzzNodemaskVariant(f *testing.F) {
	for _, seed := range []string{
		"", "iter=max", "iter=word/nodes=64", "iter=word/nodes=sparse", "nodes=0", "nodes=1024",
		"nodes=+3", "iter=x/iter=y", "a=b/c", "nodes=sparse/iter=nr_node_ids", "iter=loopbound/nodes=1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, variant string) {
		s, err := newNodemaskScan(variant)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "nodemask: ") {
				t.Errorf("newNodemaskScan(%q) error is not one line naming the scenario: %q", variant, err)
			}
			return
		}
		again, err := newNodemaskScan(s.Variant())
		if err != nil || again.Variant() != s.Variant() {
			t.Errorf("newNodemaskScan(%q).Variant() = %q, which parses to %v, %v", variant, s.Variant(), again, err)
		}
	})
}

// The seed's patch bounds the loop, not the searches: the search that ends a
// loopbound walk is next_node() over MAX_NUMNODES, which reads to the end of
// the mask and returns MAX_NUMNODES, where the fuller change's search stops
// at nr_node_ids. A bit planted past nr_node_ids (which a possible-node mask
// never has, so only a test can plant it) shows it: loopbound's final search
// finds it, at word 15; nr_node_ids's never looks there.
func TestNodemaskLoopBoundScansToTheEnd(t *testing.T) {
	for _, nodes := range nodemaskLayouts {
		s, _ := nmSetup(t, "iter=loopbound/nodes="+nodes, 1)
		ids, end := nmVisitLoopBound(s.mask, s.nr)
		if !slices.Equal(ids, s.mask.Nodes()) {
			t.Errorf("nodes=%s: loopbound visits %v, want %v", nodes, ids, s.mask.Nodes())
		}
		if end != nodemask.MaxNumNodes {
			t.Errorf("nodes=%s: loopbound's last search returned %d, want MAX_NUMNODES (%d): it searches to the end", nodes, end, nodemask.MaxNumNodes)
		}
		planted := *s.mask
		planted.Set(nodemask.MaxNumNodes - 1)
		if _, end := nmVisitLoopBound(&planted, s.nr); end != nodemask.MaxNumNodes-1 {
			t.Errorf("nodes=%s: with bit %d planted, loopbound's last search returned %d, want %d: it must read word 15",
				nodes, nodemask.MaxNumNodes-1, end, nodemask.MaxNumNodes-1)
		}
		if got := nmVisitNr(&planted, s.nr); !slices.Equal(got, ids) {
			t.Errorf("nodes=%s: nr_node_ids walk with a bit past nr_node_ids visits %v, want %v", nodes, got, ids)
		}
		last := ids[len(ids)-1]
		if got := planted.NextBelow(last, s.nr); got != s.nr {
			t.Errorf("nodes=%s: the nr_node_ids search after node %d returned %d, want nr_node_ids %d", nodes, last, got, s.nr)
		}
		// The final search starts at nr_node_ids: bounded by MAX_NUMNODES
		// it reads every word from nr_node_ids's to the last, bounded by
		// nr_node_ids none.
		_, fullWords := s.mask.ScanWords(nodemask.MaxNumNodes)
		_, nrWords := s.mask.ScanWords(s.nr)
		if want := nodemask.MaskWords - s.nr/nodemask.WordBits; fullWords-nrWords != want {
			t.Errorf("nodes=%s: words read bounded by MAX_NUMNODES %d, by nr_node_ids %d: want the final scan's %d more",
				nodes, fullWords, nrWords, want)
		}
	}
}
