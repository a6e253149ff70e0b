package bench

import (
	"fmt"
	"sync/atomic"
)

// The atomicadd scenario is the smallest contended structure there is: every
// operation is one atomic add, either to one word all workers share
// (line=shared: the line bounces between CPUs on every add) or to a word of the
// worker's own (line=private: the same instruction with no coherence traffic).
// Its ratio is the price of one contended line on this machine, and its
// private variant is what the runner-overhead benchmark measures.
func init() {
	Register(&Spec{
		Name:      "atomicadd",
		BenchName: "AtomicAdd",
		Summary:   "one atomic add per operation, to a shared or a private line",
		Keys: []string{
			"line=shared|private   all workers add to one word, or each to its own line",
			"work=N                local work (dependent arithmetic steps) between adds, 0..100000",
		},
		Quick: []string{"line=shared/work=0", "line=private/work=0"},
		Full:  []string{"line=shared/work=0", "line=private/work=0", "line=shared/work=100", "line=private/work=100"},
		Units: map[string]string{"shared-writes/op": "lower"},
		New:   newAtomicAdd,
	})
}

type atomicAdd struct {
	params  *Params
	shared  bool
	work    int
	slots   []*atomic.Int64
	workers []*atomicAddWorker
}

func newAtomicAdd(variant string) (Scenario, error) {
	p, err := ParseParams("atomicadd", variant, "line=shared", "work=0")
	if err != nil {
		return nil, err
	}
	line, err := p.Choice("line", "shared", "private")
	if err != nil {
		return nil, err
	}
	work, err := p.Int("work", 0, 100000)
	if err != nil {
		return nil, err
	}
	return &atomicAdd{params: p, shared: line == "shared", work: work}, nil
}

func (s *atomicAdd) Variant() string { return s.params.String() }

func (s *atomicAdd) Start(env *Env) error {
	s.slots = alignedWords(len(env.CPUs)+1, 128)
	s.workers = make([]*atomicAddWorker, len(env.CPUs))
	return nil
}

func (s *atomicAdd) Worker(w WorkerInfo) (Worker, error) {
	wk := &atomicAddWorker{word: s.slots[0], work: s.work}
	if !s.shared {
		wk.word = s.slots[w.Index+1]
	}
	s.workers[w.Index] = wk
	return wk, nil
}

func (s *atomicAdd) Finish(res *Result) error {
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
	res.AddMetric("shared-writes/op", shared, "lower")
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
		x = localWork(x, work)
	}
	return x
}

// localWork stands for the rest of what a real event does: dependent
// xorshift steps the compiler cannot remove or vectorize.
func localWork(x uint64, steps int) uint64 {
	for range steps {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}
