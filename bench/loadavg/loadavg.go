package loadavg

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/counter"
)

// The units the scenario reports beside ns/op.
var (
	SharedWrites = bench.Unit{Name: "shared-writes/op", Better: bench.Lower,
		Doc: "read-modify-writes of a counter line another worker also writes, per event"}
	Writes = bench.Unit{Name: "writes/op", Better: bench.Lower,
		Doc: "writes to tg->load_avg's storage, shared or not, per event"}
	ReadLines = bench.Unit{Name: "read-lines/op", Better: bench.Lower,
		Doc: "counter lines the read path touches, per event"}
	ErrPct = bench.Unit{Name: "err-%", Better: bench.Lower,
		Doc: "mean relative error of the tg->load_avg a reader used, per cent"}
	CfsRqWritesPerSec = bench.Unit{Name: "cfsrq-writes/s", Better: bench.Lower,
		Doc: "tg->load_avg writes per cfs_rq per second"}
	LocalSlots = bench.Unit{Name: "local-slots-%", Better: bench.Higher,
		Doc: "per-node slots whose page landed on their node, per cent"}
)

func init() {
	var full []string
	for _, p := range counter.Presets() {
		full = append(full, "preset="+p)
	}
	full = append(full, "store=falseshare", "store=percpu", "store=percpu/write=ratelimit")
	bench.Register(&bench.Spec{
		Name:      "loadavg",
		BenchName: "LoadAvg",
		Summary:   "tg->load_avg: every en/dequeue writes the group load (update_tg_load_avg) and reads it (calc_group_shares)",
		Keys: []string{
			"preset=none|" + strings.Join(counter.Presets(), "|") + "   the thread's labels; store/write/read given beside one override its parts",
			"store=atomic|falseshare|pernode|percpu   where tg->load_avg lives",
			"write=every|threshold=N|ratelimit[=D]|delay   update_tg_load_avg's policy, N in 1..1048576, D in 1us..1s (default 1ms)",
			"read=every|skip[=K]   calc_group_shares on every event or one in K, K in 1..1048576 (default 2)",
			"mig=N      percent of dequeues whose task next wakes on another CPU, 0..100 (79: the seed's 11M migrations per 14M wakeups)",
			"work=N     local work (dependent arithmetic steps) per event, 0..100000",
			"stride=line|128   distance between hot words: a cache line, or a line pair against the adjacent-line prefetcher",
			"scan=bounded|full   pernode's reader walks the node mask to nr_node_ids, or all MAX_NUMNODES bits (before PeterZ's fix)",
		},
		Quick: []string{"preset=base", "preset=rate"},
		Full:  full,
		Units: []bench.Unit{SharedWrites, Writes, ReadLines, ErrPct, CfsRqWritesPerSec, LocalSlots},
		New:   func(variant string) (bench.Scenario, error) { return newLoadAvg(variant, nil) },
	})
}

// A laExtraStore makes a store from outside package counter for one run, such
// as the xsync.Counter reference the benchmarks add. lines is the number of
// lines one Sum reads. Such stores go through the counter.Store interface.
type laExtraStore func(env *bench.Env) (store counter.Store, lines int, err error)

// laConfig is a parsed variant.
type laConfig struct {
	preset string // the preset the store/write/read triple matches, or "none"
	store  string // storage name, counter's or an extra's
	v      counter.Variant
	extra  laExtraStore // non-nil for a store from outside package counter
	mig    int
	work   int
	stride counter.Stride
	full   bool // scan=full
}

func (c *laConfig) String() string {
	scan := "bounded"
	if c.full {
		scan = "full"
	}
	return fmt.Sprintf("preset=%s/store=%s/write=%s/read=%s/mig=%d/work=%d/stride=%s/scan=%s",
		c.preset, c.store, c.v.Write, c.v.Read, c.mig, c.work, c.stride, scan)
}

// parseLoadAvg reads a variant. A preset sets store, write and read; any of
// the three given beside it overrides that part, and the canonical name then
// carries whichever preset the result matches, so one configuration has one
// name however it was spelt.
func parseLoadAvg(variant string, extras map[string]laExtraStore) (*laConfig, error) {
	p, err := bench.ParseParams("loadavg", variant,
		"preset=none", "store=", "write=", "read=", "mig=79", "work=0", "stride=line", "scan=bounded")
	if err != nil {
		return nil, err
	}
	c := &laConfig{}
	base, _ := counter.Preset("base")
	c.v = base
	if name := p.Get("preset"); name != "none" {
		if c.v, err = counter.Preset(name); err != nil {
			return nil, fmt.Errorf("loadavg: preset %q: %w (valid: none, %s)", name, counter.ErrUnknown, strings.Join(counter.Presets(), ", "))
		}
	}
	c.store = c.v.Store.String()
	if s := p.Get("store"); s != "" {
		if mk, ok := extras[s]; ok {
			c.store, c.extra = s, mk
		} else if c.v.Store, err = counter.ParseStore(s); err != nil {
			return nil, fmt.Errorf("loadavg: store %q: %w (valid: %s)", s, counter.ErrUnknown, strings.Join(laStoreNames(extras), ", "))
		} else {
			c.store = s
		}
	}
	if w := p.Get("write"); w != "" {
		if c.v.Write, err = counter.ParseWrite(w); err != nil {
			return nil, fmt.Errorf("loadavg: %w", err)
		}
	}
	if r := p.Get("read"); r != "" {
		if c.v.Read, err = counter.ParseRead(r); err != nil {
			return nil, fmt.Errorf("loadavg: %w", err)
		}
	}
	if c.mig, err = p.Int("mig", 0, 100); err != nil {
		return nil, err
	}
	if c.work, err = p.Int("work", 0, 100_000); err != nil {
		return nil, err
	}
	if c.stride, err = counter.ParseStride(p.Get("stride")); err != nil {
		return nil, fmt.Errorf("loadavg: %w", err)
	}
	scan, err := p.Choice("scan", "bounded", "full")
	if err != nil {
		return nil, err
	}
	c.full = scan == "full"
	if c.full && (c.extra != nil || c.v.Store != counter.StorePerNode) {
		return nil, fmt.Errorf("loadavg: scan=full with store=%s: only store=pernode walks a node mask", c.store)
	}
	if c.extra != nil && c.stride != 0 {
		return nil, fmt.Errorf("loadavg: stride=%s with store=%s: that store lays out its own lines", c.stride, c.store)
	}
	c.preset = "none"
	if c.extra == nil {
		for _, name := range counter.Presets() {
			if pv, _ := counter.Preset(name); pv == c.v {
				c.preset = name
			}
		}
	}
	return c, nil
}

// newLoadAvg builds the scenario; extras adds stores from outside package
// counter (benchmarks only).
func newLoadAvg(variant string, extras map[string]laExtraStore) (*loadAvg, error) {
	c, err := parseLoadAvg(variant, extras)
	if err != nil {
		return nil, err
	}
	return &loadAvg{cfg: c, name: c.String()}, nil
}

type loadAvg struct {
	cfg  *laConfig
	name string

	// Per run, set by Start.
	store     counter.Store
	lines     int             // counter lines one Sum reads
	shared    []bool          // whether worker i's writes land on a line another worker writes
	pubs      []*atomic.Int64 // each worker's published (load, contrib)
	workers   []*laWorker
	placement string // pernode: where the slots landed
	local     float64
}

func (s *loadAvg) Variant() string { return s.name }

// Notes says, in words, what a reader of the results should know about this
// run beyond the metrics: where a per-node store's pages landed.
func (s *loadAvg) Notes() []string {
	if s.placement == "" {
		return nil
	}
	return []string{"pernode placement: " + s.placement}
}

func (s *loadAvg) Start(env *bench.Env) error {
	// A run that failed after Start never reached Finish; its store goes now.
	if err := s.Close(); err != nil {
		return err
	}
	n := len(env.CPUs)
	store, lines, err := s.newStore(env)
	if err != nil {
		return err
	}
	if s.cfg.extra == nil {
		if err := store.Layout().Check(); err != nil {
			store.Close()
			return fmt.Errorf("loadavg: %s layout: %w", s.cfg.store, err)
		}
	}
	s.store, s.lines = store, lines
	s.shared = make([]bool, n)
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			switch {
			case s.cfg.extra != nil:
			case s.cfg.v.Store == counter.StorePerNode:
				s.shared[i] = s.shared[i] || env.Nodes[i] == env.Nodes[j]
			case s.cfg.v.Store == counter.StorePerCPU:
				s.shared[i] = s.shared[i] || env.CPUs[i] == env.CPUs[j]
			default:
				s.shared[i] = true
			}
		}
	}
	s.pubs = make([]*atomic.Int64, n)
	s.workers = make([]*laWorker, n)
	return nil
}

// newStore makes the run's store. Per-node slots go on their nodes by mbind,
// or by a first touch from a thread pinned to the node where mbind is refused;
// on a fake topology the nodes do not exist and the store says so.
func (s *loadAvg) newStore(env *bench.Env) (counter.Store, int, error) {
	c := s.cfg
	s.placement, s.local = "", 0
	if c.extra != nil {
		st, lines, err := c.extra(env)
		if err != nil {
			return nil, 0, fmt.Errorf("loadavg: store=%s: %w", c.store, err)
		}
		return st, lines, nil
	}
	t := env.Topology
	o := counter.Options{Stride: c.stride}
	switch c.v.Store {
	case counter.StorePerCPU:
		o.CPUs = len(t.CPUs) // nr_cpu_ids: percpu_counter_sum reads them all
		for _, cpu := range env.CPUs {
			o.CPUs = max(o.CPUs, cpu+1)
		}
	case counter.StorePerNode:
		for _, n := range t.Nodes {
			o.Nodes = append(o.Nodes, n.ID)
		}
		o.NrNodeIDs, o.FullScan, o.Fake = t.NrNodeIDs, c.full, t.IsFake()
		pn, err := counter.NewPerNodeTouch(o, touchOnNode(t))
		if err != nil {
			return nil, 0, fmt.Errorf("loadavg: %w", err)
		}
		s.placement = pn.PlacementSummary()
		pl := pn.Placement()
		for _, sp := range pl {
			if sp.Local {
				s.local++
			}
		}
		s.local = 100 * s.local / float64(len(pl))
		return pn, pn.Layout().Lines, nil
	}
	st, err := counter.New(c.v.Store, o)
	if err != nil {
		return nil, 0, fmt.Errorf("loadavg: %w", err)
	}
	return st, st.Layout().Lines, nil
}

// touchOnNode runs a first touch on a thread pinned to a CPU of the node, for
// PerNode's fallback when mbind is refused.
func touchOnNode(t *affinity.Topology) counter.TouchFunc {
	return func(node int, touch func()) error {
		n := t.NodeByID(node)
		if n == nil {
			return fmt.Errorf("node %d is not online", node)
		}
		cpu := -1
		for c := range n.CPUs.All() {
			if t.AllowedCPUs.Test(c) {
				cpu = c
				break
			}
		}
		if cpu < 0 {
			return fmt.Errorf("node %d has no cpu this process may use", node)
		}
		return affinity.RunOn(cpu, touch)
	}
}

func (s *loadAvg) Worker(info bench.WorkerInfo) (bench.Worker, error) {
	rq, err := counter.NewCfsRq(s.store, s.cfg.v.Write, s.cfg.v.Read, info.CPU, info.Node)
	if err != nil {
		return nil, fmt.Errorf("loadavg: %w", err)
	}
	w := &laWorker{
		rq:       rq,
		work:     s.cfg.work,
		index:    info.Index,
		store:    s.store,
		pubs:     s.pubs,
		sampleIn: math.MaxInt64,
		// Allocated here, on the worker's pinned thread, so that the
		// line it writes is its node's memory.
		pub: bench.AlignedWords(1, 128)[0],
	}
	w.rng = laSeed(info.Index)
	w.m.init(&w.rng, s.cfg.mig, int64(time.Since(laEpoch)))
	if info.Index == 0 {
		w.sampleIn = laFirstSample
		w.sampleBase = laSampleEvery * int64(info.Workers)
	}
	s.pubs[info.Index] = w.pub
	s.workers[info.Index] = w
	return w, nil
}

func (s *loadAvg) Finish(res *bench.Result) (err error) {
	defer func() { err = errors.Join(err, s.Close()) }()
	var st counter.Stats
	var sharedWrites, samples int64
	var errSum float64
	for i, w := range s.workers {
		ws := w.rq.Stats()
		st.Updates += ws.Updates
		st.Writes += ws.Writes
		st.Reads += ws.Reads
		if s.shared[i] {
			sharedWrites += ws.Writes
		}
		samples += w.samples
		errSum += w.errSum
	}
	if st.Updates != res.Ops {
		return fmt.Errorf("loadavg: cfs_rqs counted %d events, runner counted %d operations", st.Updates, res.Ops)
	}
	// Conservation: once every cfs_rq has pushed what its policy held back,
	// the group's load is exactly the sum of the cfs_rqs' loads.
	var want int64
	for _, w := range s.workers {
		w.rq.Flush()
		want += w.rq.Load()
	}
	if got := s.store.Sum(); got != want {
		return fmt.Errorf("loadavg: store=%s holds %d after every cfs_rq flushed, their loads sum to %d", s.cfg.store, got, want)
	}
	ops := float64(res.Ops)
	if s.cfg.extra == nil {
		res.AddMetric(SharedWrites, float64(sharedWrites)/ops)
	}
	res.AddMetric(Writes, float64(st.Writes)/ops)
	res.AddMetric(ReadLines, float64(st.Reads)*float64(s.lines)/ops)
	if samples > 0 {
		res.AddMetric(ErrPct, 100*errSum/float64(samples))
	}
	if secs := res.Elapsed.Seconds(); secs > 0 {
		res.AddMetric(CfsRqWritesPerSec, float64(st.Writes)/float64(len(s.workers))/secs)
	}
	if s.placement != "" {
		res.AddMetric(LocalSlots, s.local)
	}
	return nil
}

// Close releases the run's store. Finish calls it; a caller whose run failed
// after Start may call it too (the next Start also does). It is idempotent.
func (s *loadAvg) Close() error {
	if s.store == nil {
		return nil
	}
	err := s.store.Close()
	s.store = nil
	if err != nil {
		return fmt.Errorf("loadavg: closing store=%s: %w", s.cfg.store, err)
	}
	return nil
}

// A laWorker is one cfs_rq of the group: the counter's private half, the
// load model and the worker's counts, padded so that no other worker's line
// and no shared word sits next to them.
type laWorker struct {
	_ [128]byte

	rq        *counter.CfsRq
	m         laModel
	rng       uint64
	published int64 // the pair last stored in pub
	work      int
	sink      uint64

	// Error sampling. Only worker 0 samples; the others' sampleIn never
	// reaches zero.
	index      int
	sampleIn   int64
	sampleBase int64
	store      counter.Store
	pubs       []*atomic.Int64
	samples    int64
	rejected   int64
	errSum     float64

	pub *atomic.Int64 // laPair(avg.load_avg, contrib), on a 128-byte block of its own

	_ [128]byte
}

// laPair packs a cfs_rq's load and contribution into one word, so that a
// reader gets both from one instant. Both stay far below 2^31 here (eight
// tasks of at most 1586 each).
func laPair(load, contrib int64) int64 { return load<<32 | contrib }

func (w *laWorker) Run(n int) { loadAvgEvents(w, n) }

// loadAvgEvents is the hot loop: n en/dequeue events, each reading the clock
// once, then local work. perf annotate finds it by name; the counter's own
// updateTGLoadAvg and calcGroupShares show under theirs.
//
//go:noinline
func loadAvgEvents(w *laWorker, n int) {
	for range n {
		now := int64(time.Since(laEpoch))
		w.event(now)
		if w.sampleIn--; w.sampleIn == 0 {
			w.sample()
		}
		w.sink = bench.LocalWork(w.sink, w.work)
	}
}

// event is enqueue_entity/dequeue_entity for the group: the local load
// change, the group's read-mostly fields, update_tg_load_avg, then
// update_cfs_group. The (load, contrib) pair is published right after the
// write path.
func (w *laWorker) event(now int64) {
	load, weight, removed := w.m.step(now, laNext(&w.rng))
	rq := w.rq
	rq.SetLoad(load, weight)
	rq.ReadMostly()
	rq.UpdateTGLoadAvg(now, removed)
	if p := laPair(load, rq.Contrib()); p != w.published {
		w.pub.Store(p)
		w.published = p
	}
	rq.UpdateCfsGroup()
}

// sample takes one error sample after an event: a cut of the other cfs_rqs'
// published pairs, validated against the store (see the err-% note at the
// top of the file).
//
//go:noinline
func (w *laWorker) sample() {
	w.sampleIn = w.sampleBase/2 + int64(laNext(&w.rng)%uint64(w.sampleBase))
	load1, contrib1, sum1 := w.others()
	held := w.store.Sum()
	load2, contrib2, sum2 := w.others()
	if load1 != load2 || contrib1 != contrib2 || sum1 != sum2 || held != contrib1+w.rq.Contrib() {
		w.rejected++
		return
	}
	truth := load1 + w.rq.Load()
	if truth <= 0 {
		return // an empty group: no relative error to speak of
	}
	d := w.rq.TGLoadSeen() - truth
	if d < 0 {
		d = -d
	}
	w.errSum += float64(d) / float64(truth)
	w.samples++
}

// others sums the other workers' published loads and contributions, and their
// raw words, which change if any one pair does.
func (w *laWorker) others() (load, contrib, words int64) {
	for j, p := range w.pubs {
		if j == w.index {
			continue
		}
		v := p.Load()
		load += v >> 32
		contrib += v & (1<<32 - 1)
		words += v
	}
	return load, contrib, words
}

// laStoreNames lists the storages a variant may name, extras included, for
// error messages.
func laStoreNames(extras map[string]laExtraStore) []string {
	names := []string{"atomic", "falseshare", "pernode", "percpu"}
	for n := range extras {
		names = append(names, n)
	}
	slices.Sort(names[4:])
	return names
}
