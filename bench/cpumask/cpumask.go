package cpumask

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/contend/contend/bench"
)

// The scenario's units; see the package comment for how each is computed.
var (
	LineWriters = bench.Unit{Name: "line-writers", Better: bench.Lower,
		Doc: "workers writing each worker's mask line, averaged over workers (by construction)"}
	CrossNode = bench.Unit{Name: "cross-node-%", Better: bench.Lower,
		Doc: "share of workers whose mask line a worker on another node also writes (by construction)"}
	FindLines = bench.Unit{Name: "find-lines/op", Better: bench.Lower,
		Doc: "mask lines __cpupri_find() searched, per operation (0 with vec=off)"}
)

// keys are the variant's keys, in canonical order.
var keys = []bench.Key{
	{Name: "split", Default: "global", Domain: bench.OneOf("global", "node", "llc"),
		Doc: "one mask for all workers, one per node, or one per last-level cache"},
	{Name: "store", Default: "lock", Domain: bench.OneOf("lock", "byte"),
		Doc: "a locked bit operation (set_bit/clear_bit), or a plain store to the cpu's own byte of the line"},
	{Name: "vec", Default: "off", Domain: bench.OneOf("off", "shared", "padded"),
		Doc: "the bare mask, or cpupri_vec: its count on the mask's line (before Pan Deng's series) or padded to its own, with __cpupri_find() after each write"},
	{Name: "work", Default: "0", Domain: bench.IntRange(0, 100000),
		Doc: "local work (dependent arithmetic steps) between writes"},
}

// The values of split, store and vec, in their keys' order.
const (
	splitGlobal = iota
	splitNode
	splitLLC
)

const (
	vecOff = iota
	vecShared
	vecPadded
)

func init() {
	bench.Register(&bench.Spec{
		Name:      "cpumask",
		BenchName: "Cpumask",
		Summary:   "root_domain's cpupri mask: every cpu sets and clears its bit, one mask, per node or per LLC (K Prateek Nayak's test)",
		Keys:      keys,
		Quick:     quick,
		// Full is Quick: on a 224-cpu box each variant is 17 more
		// configurations of the full sweep, whose -budget 30m must still
		// fit by dropping rungs and rounds.
		Full:  quick,
		Units: []bench.Unit{LineWriters, CrossNode, FindLines},
		HotSymbols: []string{
			"maskLockLoop", "maskByteLoop", "cpupriLoop",
		},
		New:        newCpumask,
		NoSimulate: "nothing on kernel time: K Prateek Nayak's test is the writes themselves, on real lines as fast as they go",
		Lab:        &bench.LabTest{Variant: "split=global/store=lock/vec=off/work=0"},
		Findings:   []int{11},
	})
}

// quick is K Prateek Nayak's four masks, then cpupri_vec as merged, as the
// one-patch version pads it, and as v1 4/4 splits it.
var quick = []string{
	"split=global/store=lock/vec=off/work=0",
	"split=node/store=lock/vec=off/work=0",
	"split=llc/store=lock/vec=off/work=0",
	"split=llc/store=byte/vec=off/work=0",
	"split=global/store=lock/vec=shared/work=0",
	"split=global/store=lock/vec=padded/work=0",
	"split=node/store=lock/vec=padded/work=0",
}

type cpumask struct {
	params *bench.Params
	split  int
	plain  bool
	vec    int
	work   int

	// Set by Start.
	buf     []byte
	count   *atomic.Int64 // cpupri_vec's count; nil with vec=off
	masks   [][]uint64    // each group's mask words (store=lock)
	bytes   [][]byte      // each group's bytes (store=byte)
	group   []int         // each worker's group
	rank    []int         // each worker's rank in its group
	writers float64       // line-writers
	cross   float64       // cross-node-%
	workers []*worker
}

func newCpumask(variant string) (bench.Scenario, error) {
	p, err := bench.ParseParams("cpumask", variant, keys)
	if err != nil {
		return nil, err
	}
	s := &cpumask{params: p, split: p.Index("split"), plain: p.Get("store") == "byte", vec: p.Index("vec"), work: p.Int("work")}
	if s.vec != vecOff && s.plain {
		return nil, fmt.Errorf("cpumask: vec=%s needs store=lock: cpupri_set() writes the mask with locked bit operations", p.Get("vec"))
	}
	if s.vec == vecShared && s.split != splitGlobal {
		return nil, fmt.Errorf("cpumask: vec=shared needs split=global: the count shares a line with the only mask there is")
	}
	return s, nil
}

func (s *cpumask) Variant() string { return s.params.String() }

// groupOf returns the key of worker i's group: 0 for the global mask, its
// node, or its LLC (0 where the topology does not say).
func (s *cpumask) groupOf(env *bench.Env, i int) int {
	switch s.split {
	case splitNode:
		return env.Nodes[i]
	case splitLLC:
		if t := env.Topology; t != nil && env.CPUs[i] < len(t.CPUs) && t.CPUs[env.CPUs[i]].LLC >= 0 {
			return t.CPUs[env.CPUs[i]].LLC
		}
	}
	return 0
}

// Start groups the workers and lays out the masks: the count (with a vec)
// and each group's mask at the start of a bench.LinePad block of its own,
// except with vec=shared, where the count is the first word of the mask's
// block.
func (s *cpumask) Start(env *bench.Env) error {
	n := len(env.CPUs)
	s.group, s.rank = make([]int, n), make([]int, n)
	index := map[int]int{}
	var size []int
	for i := range n {
		k := s.groupOf(env, i)
		g, ok := index[k]
		if !ok {
			g = len(size)
			index[k] = g
			size = append(size, 0)
		}
		s.group[i], s.rank[i] = g, size[g]
		size[g]++
	}
	block := func(bytes int) int { return (bytes + bench.LinePad - 1) / bench.LinePad * bench.LinePad }
	maskBytes := func(members int) int {
		if s.plain {
			return members
		}
		return (members + 63) / 64 * 8
	}
	total := 0
	if s.vec == vecPadded {
		total += bench.LinePad
	}
	for g, m := range size {
		b := maskBytes(m)
		if g == 0 && s.vec == vecShared {
			b += 8
		}
		total += block(b)
	}
	s.buf = bench.AlignedBytes(total, bench.LinePad)
	off := 0
	if s.vec != vecOff {
		s.count = (*atomic.Int64)(unsafe.Pointer(&s.buf[off]))
		if s.vec == vecPadded {
			off += bench.LinePad
		}
	}
	s.masks, s.bytes = make([][]uint64, len(size)), make([][]byte, len(size))
	for g, m := range size {
		start := off
		if g == 0 && s.vec == vecShared {
			start += 8
		}
		if s.plain {
			s.bytes[g] = s.buf[start : start+m : start+m]
		} else {
			w := (m + 63) / 64
			s.masks[g] = unsafe.Slice((*uint64)(unsafe.Pointer(&s.buf[start])), w)
		}
		off += block(start - off + maskBytes(m))
	}
	s.writers, s.cross = lineSharing(s.group, s.rank, env.Nodes, s.plain)
	s.workers = make([]*worker, n)
	return nil
}

// lineSharing returns line-writers and cross-node-% for workers in groups
// at ranks, on nodes: the writers of a worker's line are its group's
// members whose bit (or byte) falls in the same 64-byte line.
func lineSharing(group, rank, nodes []int, bytes bool) (writers, cross float64) {
	perLine := 512
	if bytes {
		perLine = 64
	}
	type line struct{ group, index int }
	count := map[line]int{}
	nodeOf := map[line]map[int]bool{}
	for i := range group {
		l := line{group[i], rank[i] / perLine}
		count[l]++
		if nodeOf[l] == nil {
			nodeOf[l] = map[int]bool{}
		}
		nodeOf[l][nodes[i]] = true
	}
	if len(group) == 0 {
		return 0, 0
	}
	for i := range group {
		l := line{group[i], rank[i] / perLine}
		writers += float64(count[l])
		if len(nodeOf[l]) > 1 {
			cross++
		}
	}
	n := float64(len(group))
	return writers / n, 100 * cross / n
}

func (s *cpumask) Worker(w bench.WorkerInfo) (bench.Worker, error) {
	g, r := s.group[w.Index], s.rank[w.Index]
	wk := &worker{vec: s.vec != vecOff, count: s.count, work: s.work, sink: uint64(w.Index)*0x9e3779b97f4a7c15 + 1}
	if s.plain {
		wk.byteAt = &s.bytes[g][r]
	} else {
		wk.word, wk.bit = &s.masks[g][r/64], uint64(1)<<(r%64)
		// The search order: the worker's own group first, then the
		// others in turn, as v1 4/4 searches the local node first.
		for i := range s.masks {
			wk.search = append(wk.search, s.masks[(g+i)%len(s.masks)])
		}
	}
	s.workers[w.Index] = wk
	return wk, nil
}

func (s *cpumask) Finish(res *bench.Result) error {
	var ops int64
	set := int64(0)
	for i, w := range s.workers {
		ops += w.ops
		var on bool
		if s.plain {
			on = *w.byteAt != 0
		} else {
			on = atomic.LoadUint64(w.word)&w.bit != 0
		}
		if want := w.ops%2 == 1; on != want {
			return fmt.Errorf("cpumask: worker %d made %d writes but its bit reads %v: a write was lost", i, w.ops, on)
		}
		if on {
			set++
		}
	}
	if ops != res.Ops {
		return fmt.Errorf("cpumask: workers made %d writes, runner counted %d operations", ops, res.Ops)
	}
	if s.count != nil && s.count.Load() != set {
		return fmt.Errorf("cpumask: cpupri_vec count is %d with %d bits set", s.count.Load(), set)
	}
	var lines int64
	for _, w := range s.workers {
		lines += w.lines
	}
	res.AddMetric(LineWriters, s.writers)
	res.AddMetric(CrossNode, s.cross)
	res.AddMetric(FindLines, float64(lines)/float64(max(res.Ops, 1)))
	return nil
}

// A worker is one cpu's pair of threads: its writes alternate set and
// clear, starting with a set.
type worker struct {
	word   *uint64 // the mask word holding its bit (store=lock)
	bit    uint64
	byteAt *byte // its byte (store=byte)
	search [][]uint64
	vec    bool
	count  *atomic.Int64
	work   int

	on    bool
	ops   int64
	lines int64
	sink  uint64
	_     [bench.LinePad]byte
}

func (w *worker) Run(n int) {
	switch {
	case w.byteAt != nil:
		w.on, w.sink = maskByteLoop(w.byteAt, w.on, n, w.work, w.sink)
	case w.vec:
		var lines int64
		w.on, lines, w.sink = cpupriLoop(w, n)
		w.lines += lines
	default:
		w.on, w.sink = maskLockLoop(w.word, w.bit, w.on, n, w.work, w.sink)
	}
	w.ops += int64(n)
}

// maskLockLoop is the hot loop of store=lock with vec=off: n writes of the
// worker's bit, a locked OR to set it and a locked AND to clear it, in
// turn, with work steps of local arithmetic between them.
//
//go:noinline
func maskLockLoop(word *uint64, bit uint64, on bool, n, work int, x uint64) (bool, uint64) {
	for range n {
		if on {
			atomic.AndUint64(word, ^bit)
		} else {
			atomic.OrUint64(word, bit)
		}
		on = !on
		x = bench.LocalWork(x, work)
	}
	return on, x
}

// maskByteLoop is the hot loop of store=byte: n plain stores of 1 and 0 in
// turn to the worker's own byte of its mask's line. No other worker writes
// or reads the byte during the run, so the plain store is no race; Finish
// reads it after the runner has stopped every worker.
//
//go:noinline
func maskByteLoop(b *byte, on bool, n, work int, x uint64) (bool, uint64) {
	for range n {
		if on {
			*b = 0
		} else {
			*b = 1
		}
		on = !on
		x = bench.LocalWork(x, work)
	}
	return on, x
}

// cpupriLoop is the hot loop with a vec: cpupri_set() (set the bit and
// increment the count, or decrement it and clear the bit), then
// __cpupri_find(): read the count and, when it is not zero, search the
// masks for another worker's bit. It returns the mask lines searched.
//
//go:noinline
func cpupriLoop(w *worker, n int) (bool, int64, uint64) {
	on, x := w.on, w.sink
	var lines int64
	for range n {
		if on {
			w.count.Add(-1)
			atomic.AndUint64(w.word, ^w.bit)
		} else {
			atomic.OrUint64(w.word, w.bit)
			w.count.Add(1)
		}
		on = !on
		if w.count.Load() != 0 {
		search:
			for _, m := range w.search {
				for i := range m {
					if i%8 == 0 {
						lines++
					}
					v := atomic.LoadUint64(&m[i])
					if &m[i] == w.word {
						v &^= w.bit
					}
					if v != 0 {
						break search
					}
				}
			}
		}
		x = bench.LocalWork(x, w.work)
	}
	return on, lines, x
}
