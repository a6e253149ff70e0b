package atomicadd

import (
	"fmt"
	"sync/atomic"

	"github.com/contend/contend/bench"
)

// SharedWrites is the share of adds that land on a line another worker
// also writes: 1 for line=shared with two or more workers, else 0.
var SharedWrites = bench.Unit{Name: "shared-writes/op", Better: bench.Lower,
	Doc: "adds to a line another worker also writes, per operation"}

// keys are the variant's keys, in canonical order.
var keys = []bench.Key{
	{Name: "line", Default: "shared", Domain: bench.OneOf("shared", "private"),
		Doc: "all workers add to one word, or each to its own line"},
	{Name: "work", Default: "0", Domain: bench.IntRange(0, 100000),
		Doc: "local work (dependent arithmetic steps) between adds"},
}

func init() {
	bench.Register(&bench.Spec{
		Name:       "atomicadd",
		BenchName:  "AtomicAdd",
		Summary:    "one atomic add per operation, to a shared or a private line",
		Keys:       keys,
		Quick:      []string{"line=shared/work=0", "line=private/work=0"},
		Full:       []string{"line=shared/work=0", "line=private/work=0", "line=shared/work=100", "line=private/work=100"},
		Units:      []bench.Unit{SharedWrites},
		HotSymbols: []string{"atomicAddLoop"},
		New:        newAtomicAdd,
		NoSimulate: "nothing on kernel time: one atomic add on a shared or a private line, the runner's reference",
		Lab:        &bench.LabTest{Variant: "line=shared/work=0"},
		NoFindings: "no seed makes a claim about it: it is the runner's reference for what one contended line costs here",
	})
}

type atomicAdd struct {
	params  *bench.Params
	shared  bool
	work    int
	slots   []*atomic.Int64
	workers []*atomicAddWorker
}

func newAtomicAdd(variant string) (bench.Scenario, error) {
	p, err := bench.ParseParams("atomicadd", variant, keys)
	if err != nil {
		return nil, err
	}
	return &atomicAdd{params: p, shared: p.Get("line") == "shared", work: p.Int("work")}, nil
}

func (s *atomicAdd) Variant() string { return s.params.String() }

func (s *atomicAdd) Start(env *bench.Env) error {
	s.slots = bench.AlignedWords(len(env.CPUs)+1, bench.LinePad)
	s.workers = make([]*atomicAddWorker, len(env.CPUs))
	return nil
}

func (s *atomicAdd) Worker(w bench.WorkerInfo) (bench.Worker, error) {
	wk := &atomicAddWorker{word: s.slots[0], work: s.work}
	if !s.shared {
		wk.word = s.slots[w.Index+1]
	}
	s.workers[w.Index] = wk
	return wk, nil
}

func (s *atomicAdd) Finish(res *bench.Result) error {
	var sum int64
	for _, w := range s.workers {
		if w.word == s.slots[0] {
			continue
		}
		sum += w.word.Load()
	}
	sum += s.slots[0].Load()
	if sum != res.Ops {
		return fmt.Errorf("atomicadd: counted %d adds, runner counted %d operations", sum, res.Ops)
	}
	shared := 0.0
	if s.shared && len(s.workers) > 1 {
		shared = 1
	}
	res.AddMetric(SharedWrites, shared)
	return nil
}

type atomicAddWorker struct {
	word *atomic.Int64
	work int
	sink uint64
}

func (w *atomicAddWorker) Run(n int) {
	w.sink = atomicAddLoop(w.word, n, w.work, w.sink)
}

// atomicAddLoop is the hot loop: n atomic adds with work steps of local
// arithmetic between them. It stays a named symbol for perf annotate.
//
//go:noinline
func atomicAddLoop(word *atomic.Int64, n, work int, x uint64) uint64 {
	for range n {
		word.Add(1)
		x = bench.LocalWork(x, work)
	}
	return x
}
