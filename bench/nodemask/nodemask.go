package nodemask

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/nodemask"
)

// The units the scenario reports beside ns/op.
var (
	BitsScanned = bench.Unit{Name: "bits-scanned/op", Better: bench.Lower,
		Doc: "nodemask bits a walk covers, per walk"}
	WordsScanned = bench.Unit{Name: "words-scanned/op", Better: bench.Lower,
		Doc: "nodemask words a walk loads, per walk"}
)

// nmKeys are the variant's keys, in canonical order.
var nmKeys = []bench.Key{
	{Name: "iter", Default: "nr_node_ids", Domain: bench.OneOf(nmIterNames...),
		Doc: "max: for_each_node as it was (searches and loop bounded by MAX_NUMNODES, 1024); " +
			"loopbound: the seed's patch as PeterZ posted it (only the loop's bound is nr_node_ids; first_node/next_node still search to MAX_NUMNODES, so the final 16-word scan stays); " +
			"nr_node_ids: the fuller change (the searches bounded by nr_node_ids too: the factor of 256 the seed claims); " +
			"word: one constant word, small_const_nbits() (ids < 64 only); nr_node_ids+word: nr_node_ids with the one-word search chosen per walk when it fits"},
	{Name: "nodes", Default: "2", Domain: bench.Or(bench.IntRange(1, nodemask.MaxNumNodes), bench.OneOf("sparse")),
		Doc: "possible nodes: N dense ids 0..N-1, or sparse " + nmSparse + " (nr_node_ids 74)"},
}

func init() {
	bench.Register(&bench.Spec{
		Name:       "nodemask",
		BenchName:  "Nodemask",
		Summary:    "for_each_node summing per-node counters: MAX_NUMNODES scan, PeterZ's loop bound, nr_node_ids bound, one-word fast path",
		Keys:       nmKeys,
		HotSymbols: []string{"nodeSumMax", "nodeSumLoopBound", "nodeSumNrNodeIDs", "nodeSumWord", "nodeSumNrWord"},
		Quick:      []string{"iter=max/nodes=2", "iter=loopbound/nodes=2", "iter=nr_node_ids/nodes=2", "iter=word/nodes=2", "iter=nr_node_ids+word/nodes=2"},
		Full:       nodemaskFull(),
		Units:      []bench.Unit{BitsScanned, WordsScanned},
		New:        newNodemaskScan,
		NoSimulate: "nothing on kernel time: the walk's cost is this machine's, and bits scanned follow from the mask",
		Lab:        &bench.LabTest{Variant: "iter=nr_node_ids/nodes=2"},
		Findings:   []int{4},
	})
}

// nodemaskFull is the matrix: every iteration for 1, 2, 4 and 8
// dense nodes and the sparse layout (where the one-word path cannot apply).
func nodemaskFull() []string {
	var vs []string
	for _, nodes := range nodemaskLayouts {
		for _, iter := range nmIterNames {
			if iter == "word" && nodes == "sparse" {
				continue
			}
			vs = append(vs, "iter="+iter+"/nodes="+nodes)
		}
	}
	return vs
}

// nodemaskLayouts are the nodes= values the benchmarks and the full sweep
// use.
var nodemaskLayouts = []string{"1", "2", "4", "8", "sparse"}

// nmSparse is the sparse layout: 8 nodes whose highest id is 73.
const nmSparse = "0-2,33-34,45,72-73"

// The iteration modes, indexing nmIterNames.
type nmIter int

const (
	nmIterMax       nmIter = iota // bounded by MAX_NUMNODES
	nmIterLoopBound               // PeterZ's diff: the loop by nr_node_ids, the searches by MAX_NUMNODES
	nmIterNr                      // loop and searches bounded by nr_node_ids
	nmIterWord                    // one constant word, small_const_nbits()
	nmIterNrWord                  // nr_node_ids, one word chosen per walk when it fits
)

var nmIterNames = []string{"max", "loopbound", "nr_node_ids", "word", "nr_node_ids+word"}

// bound is the bound each mode's searches run to: what decides the words
// they read. For loopbound that is MAX_NUMNODES, whatever the loop's own
// bound.
func (it nmIter) bound(nr int) int {
	switch it {
	case nmIterMax, nmIterLoopBound:
		return nodemask.MaxNumNodes
	case nmIterNr:
		return nr
	case nmIterNrWord:
		if nr <= nodemask.WordBits {
			return nodemask.WordBits
		}
		return nr
	default:
		return nodemask.WordBits
	}
}

type nodemaskScan struct {
	params *bench.Params
	iter   nmIter
	mask   *nodemask.Mask // node_possible_map: read-only, shared by all workers
	nr     int            // nr_node_ids: highest possible id + 1

	// nodeInfo is tg->node_info: a pointer per node id to that node's
	// load_avg, each on its own 128-byte block (the kernel's
	// ____cacheline_aligned_in_smp struct, padded against the adjacent-line
	// prefetcher as the rest of contend is). The seed sizes the array by
	// num_possible_nodes() but indexes it by node id, which with sparse ids
	// (72 and 73 of 8 nodes) would run past its end; it is sized by
	// nr_node_ids here.
	nodeInfo []*atomic.Int64
	want     int64 // the sum of one walk
	workers  []*nmWorker
}

func newNodemaskScan(variant string) (bench.Scenario, error) {
	p, err := bench.ParseParams("nodemask", variant, nmKeys)
	if err != nil {
		return nil, err
	}
	s := &nodemaskScan{params: p, iter: nmIter(p.Index("iter"))}
	nodes := p.Get("nodes")
	list := nmSparse
	if nodes != "sparse" {
		list = "0-" + strconv.Itoa(p.Int("nodes")-1)
	}
	m, err := nodemask.ParseMask(list)
	if err != nil {
		return nil, fmt.Errorf("nodemask: nodes=%s: %w", nodes, err)
	}
	s.mask = &m
	for n := m.First(); n < nodemask.MaxNumNodes; n = m.Next(n) {
		s.nr = n + 1 // nr_node_ids: the highest possible id + 1
	}
	if s.iter == nmIterWord && s.nr > nodemask.WordBits {
		return nil, fmt.Errorf("nodemask: iter=word cannot reach node ids >= %d, and nodes=%s has nr_node_ids %d (use max or nr_node_ids)",
			nodemask.WordBits, nodes, s.nr)
	}
	return s, nil
}

func (s *nodemaskScan) Variant() string { return s.params.String() }

// nmValue is the load_avg of node n: distinct for every node, so a walk that
// skips or repeats a node cannot produce the right sum.
func nmValue(n int) int64 { return int64(n)*int64(n) + 7*int64(n) + 1 }

func (s *nodemaskScan) Start(env *bench.Env) error {
	s.nodeInfo = bench.AlignedWords(s.nr, bench.LinePad)
	s.want = 0
	for n := range s.nr {
		if s.mask.Test(n) {
			s.nodeInfo[n].Store(nmValue(n))
			s.want += nmValue(n)
		}
	}
	s.workers = make([]*nmWorker, len(env.CPUs))
	return nil
}

func (s *nodemaskScan) Worker(w bench.WorkerInfo) (bench.Worker, error) {
	wk := &nmWorker{mask: s.mask, nr: s.nr, nodeInfo: s.nodeInfo, iter: s.iter}
	s.workers[w.Index] = wk
	return wk, nil
}

func (s *nodemaskScan) Finish(res *bench.Result) error {
	var walks, sum int64
	for _, w := range s.workers {
		walks += w.walks
		sum += w.sum
	}
	if walks != res.Ops {
		return fmt.Errorf("nodemask: workers walked %d times, runner counted %d operations", walks, res.Ops)
	}
	if sum != walks*s.want {
		return fmt.Errorf("nodemask: %d walks summed %d, want %d per walk (%d)", walks, sum, s.want, walks*s.want)
	}
	bound := s.iter.bound(s.nr)
	_, words := s.mask.ScanWords(bound)
	res.AddMetric(BitsScanned, float64(bound))
	res.AddMetric(WordsScanned, float64(words))
	return nil
}

// An nmWorker is one reader. Its counters are its own, padded off the lines
// of its neighbours; the mask and the slots it reads are shared.
type nmWorker struct {
	_        [bench.LinePad]byte
	walks    int64
	sum      int64
	mask     *nodemask.Mask
	nodeInfo []*atomic.Int64
	nr       int
	iter     nmIter
	_        [bench.LinePad]byte
}

func (w *nmWorker) Run(n int) {
	var sum int64
	switch w.iter {
	case nmIterMax:
		sum = nodeSumMax(w.mask, w.nodeInfo, n)
	case nmIterLoopBound:
		sum = nodeSumLoopBound(w.mask, w.nodeInfo, w.nr, n)
	case nmIterNr:
		sum = nodeSumNrNodeIDs(w.mask, w.nodeInfo, w.nr, n)
	case nmIterNrWord:
		sum = nodeSumNrWord(w.mask, w.nodeInfo, w.nr, n)
	default:
		sum = nodeSumWord(w.mask, w.nodeInfo, n)
	}
	w.walks += int64(n)
	w.sum += sum
}

// nodeSumMax is n calls of tg_load_avg() with for_each_node() as it was:
// first_node, then next_node until MAX_NUMNODES. Each search is an
// out-of-line find_next_bit (nodemask's findNextBit), and the last one reads
// every word from the last node's to word 15.
//
//go:noinline
func nodeSumMax(m *nodemask.Mask, nodeInfo []*atomic.Int64, n int) int64 {
	var sum int64
	for range n {
		var loadAvg int64
		for node := m.First(); node < nodemask.MaxNumNodes; node = m.Next(node) {
			loadAvg += nodeInfo[node].Load()
		}
		sum += loadAvg
	}
	return sum
}

// nodeSumLoopBound is n calls of tg_load_avg() with for_each_node() as
// PeterZ's diff in the seed leaves it: the diff changes the loop's condition
// of for_each_node_mask(),
//
//	for ((node) = first_node(mask);
//	     (node) < nr_node_ids;
//	     (node) = next_node((node), (mask)))
//
// but not __first_node() or __next_node(), which still call
// find_first_bit(srcp->bits, MAX_NUMNODES) and find_next_bit(srcp->bits,
// MAX_NUMNODES, n+1). On a possible-node mask, which has no bit at or past
// nr_node_ids, the search after the last node therefore still reads every
// word up to word 15 and returns MAX_NUMNODES; only then does the loop's
// new bound end the walk. The searches are nodeSumMax's; what differs is one
// compare against a variable instead of a constant.
//
//go:noinline
func nodeSumLoopBound(m *nodemask.Mask, nodeInfo []*atomic.Int64, nr, n int) int64 {
	var sum int64
	for range n {
		var loadAvg int64
		for node := m.First(); node < nr; node = m.Next(node) {
			loadAvg += nodeInfo[node].Load()
		}
		sum += loadAvg
	}
	return sum
}

// nodeSumNrNodeIDs is n calls of tg_load_avg() with for_each_node() bounded
// by nr_node_ids all the way down: the loop "(node) < nr_node_ids" and the
// searches find_next_bit(..., nr_node_ids, ...), which is the change the
// seed's "factor of 256" needs (PeterZ's diff alone does not bound the
// searches; see nodeSumLoopBound). The same out-of-line search as nodeSumMax
// with the bound nr_node_ids, a run-time variable, so small_const_nbits() can
// never apply: the search after the last node returns without reading a word
// when that node is nr_node_ids-1, but it is still a call.
//
//go:noinline
func nodeSumNrNodeIDs(m *nodemask.Mask, nodeInfo []*atomic.Int64, nr, n int) int64 {
	var sum int64
	for range n {
		var loadAvg int64
		for node := m.NextBelow(-1, nr); node < nr; node = m.NextBelow(node, nr) {
			loadAvg += nodeInfo[node].Load()
		}
		sum += loadAvg
	}
	return sum
}

// nodeSumWord is n calls of tg_load_avg() on a kernel built with
// MAX_NUMNODES <= BITS_PER_LONG, where find_next_bit() with a constant small
// size is inlined as
//
//	if (small_const_nbits(size)) {
//		unsigned long val = *addr & GENMASK(size - 1, offset);
//		return val ? __ffs(val) : size;
//	}
//
// Mask.NextSmall inlines into this loop: one load, AND and TZCNT per node and
// no call at all.
//
//go:noinline
func nodeSumWord(m *nodemask.Mask, nodeInfo []*atomic.Int64, n int) int64 {
	var sum int64
	for range n {
		var loadAvg int64
		for node := m.NextSmall(-1); node < nodemask.WordBits; node = m.NextSmall(node) {
			loadAvg += nodeInfo[node].Load()
		}
		sum += loadAvg
	}
	return sum
}

// nodeSumNrWord is n calls of tg_load_avg() keeping both sides of the
// argument: the walk is bounded by nr_node_ids, and when nr_node_ids fits one
// word (every machine the thread talks about) the one-word search is chosen
// once per walk, so each node costs what small_const_nbits() costs instead of
// an out-of-line call. Machines with node ids past 63 take the bounded walk.
//
//go:noinline
func nodeSumNrWord(m *nodemask.Mask, nodeInfo []*atomic.Int64, nr, n int) int64 {
	if nr > nodemask.WordBits {
		return nodeSumNrNodeIDs(m, nodeInfo, nr, n)
	}
	var sum int64
	for range n {
		var loadAvg int64
		// The possible mask has no bit at or past nr, so the one-word
		// search returns nodes below nr and then 64.
		for node := m.NextSmall(-1); node < nr; node = m.NextSmall(node) {
			loadAvg += nodeInfo[node].Load()
		}
		sum += loadAvg
	}
	return sum
}
