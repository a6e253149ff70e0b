package loadavg

import (
	"errors"
	"fmt"
	"github.com/contend/contend/bench/loadavg/cfsmodel"
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/bench/ktime"
	"github.com/contend/contend/counter"
)

type loadAvg struct {
	cfg  *variantConfig
	name string

	// Per run, set by Start.
	stores    []counter.Store          // each level's tg->load_avg, the tasks' group's first
	lines     []int                    // counter lines one Sum reads, by level
	shared    []bool                   // whether worker i's writes land on a line another worker writes
	pubs      [][]*atomic.Int64        // each worker's published (load, contrib), by level
	sleepers  []*cfsmodel.SleeperQueue // each worker's sleeping tasks
	workers   []*cpuWorker
	placement []string // pernode: where each level's slots landed
	local     float64  // pernode: per cent of the slots on their node, every level's
	slots     int      // pernode: slots counted in local
}

func (s *loadAvg) Variant() string { return s.name }

// Notes says, in words, what a reader of the results should know about this
// run beyond the metrics: where a per-node store's pages landed.
func (s *loadAvg) Notes() []string {
	var notes []string
	for i, p := range s.placement {
		if len(s.placement) == 1 {
			notes = append(notes, "pernode placement: "+p)
		} else {
			notes = append(notes, fmt.Sprintf("pernode placement, level %d: %s", i+1, p))
		}
	}
	return notes
}

func (s *loadAvg) Start(env *bench.Env) error {
	// A run that failed after Start never reached Finish; its store goes now.
	if err := s.Close(); err != nil {
		return err
	}
	n := len(env.CPUs)
	s.placement, s.local, s.slots = nil, 0, 0
	for range s.cfg.levels {
		store, lines, err := s.newStore(env)
		if err != nil {
			return errors.Join(err, s.Close())
		}
		s.stores, s.lines = append(s.stores, store), append(s.lines, lines)
		if s.cfg.extra == nil {
			if err := store.Layout().Check(); err != nil {
				return errors.Join(fmt.Errorf("loadavg: %s layout: %w", s.cfg.store, err), s.Close())
			}
		}
	}
	if s.slots > 0 {
		s.local = 100 * s.local / float64(s.slots)
	}
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
	s.pubs = make([][]*atomic.Int64, n)
	s.sleepers = make([]*cfsmodel.SleeperQueue, n)
	s.workers = make([]*cpuWorker, n)
	return nil
}

// newStore makes one level's store. Per-node slots go on their nodes by
// mbind, or by a first touch from a thread pinned to the node where mbind is
// refused; on a fake topology the nodes do not exist and the store says so.
func (s *loadAvg) newStore(env *bench.Env) (counter.Store, int, error) {
	c := s.cfg
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
		o.CPUs = 1
		if t != nil {
			o.CPUs = len(t.CPUs) // nr_cpu_ids: percpu_counter_sum reads them all
		}
		for _, cpu := range env.CPUs {
			o.CPUs = max(o.CPUs, cpu+1)
		}
	case counter.StorePerNode:
		if t == nil { // an unpinned test run: one node
			o.Fake, o.FullScan = true, c.v.FullScan
			break
		}
		for _, n := range t.Nodes {
			o.Nodes = append(o.Nodes, n.ID)
		}
		o.NrNodeIDs, o.FullScan, o.Fake = t.NrNodeIDs, c.v.FullScan, t.IsFake()
		pn, err := counter.NewPerNodeTouch(o, touchOnNode(t))
		if err != nil {
			return nil, 0, fmt.Errorf("loadavg: %w", err)
		}
		s.placement = append(s.placement, pn.PlacementSummary())
		pl := pn.Placement()
		for _, sp := range pl {
			if sp.Local {
				s.local++
			}
		}
		s.slots += len(pl)
		return pn, pn.Layout().Lines, nil
	}
	st, err := counter.New(c.v.Store, o)
	if err != nil {
		return nil, 0, fmt.Errorf("loadavg: %w", err)
	}
	return st, st.Layout().Lines, nil
}

func (s *loadAvg) Worker(info bench.WorkerInfo) (bench.Worker, error) {
	c := s.cfg
	rq, err := counter.NewCfsRqPath(s.stores, c.v.Write, c.v.Read, info.CPU, info.Node)
	if err != nil {
		return nil, fmt.Errorf("loadavg: %w", err)
	}
	rq.SetClock(c.clock)
	// Allocated here, on the worker's pinned thread, so that the worker's
	// lines, its tasks and sleeper list included, are its node's memory.
	s.sleepers[info.Index] = &cfsmodel.SleeperQueue{}
	w := &cpuWorker{work: c.work, index: info.Index, pubs: s.pubs}
	w.pacer.On = c.paced
	w.share.Every = timeEvery
	if c.paced {
		w.share.Every = timeEveryPaced
	}
	if err := w.cpu.Init(rq, info.Index, s.sleepers, c.tasks, c.mig, cfsmodel.Nice0Load, int64(c.gap), ksim.HZ(c.hz), cfsmodel.CPUSeed(info.Index, 0)); err != nil {
		return nil, fmt.Errorf("loadavg: %w", err)
	}
	if info.Index == 0 { // the sampler
		w.sampleRng = cfsmodel.CPUSeed(-1, 0)
		w.sampleIn = firstSample
		w.sampleBase = sampleEvery * int64(info.Workers)
		if c.paced {
			w.sampleBase = sampleEveryPaced * int64(info.Workers)
		}
	} else {
		w.pub = bench.AlignedWords(c.levels, bench.LinePad)
		for i, pub := range w.pub {
			l := cfsmodel.Level(rq, i)
			pub.Store(packPair(l.Load(), l.Contrib()))
		}
		s.pubs[info.Index] = w.pub
	}
	s.workers[info.Index] = w
	return w, nil
}

const (
	// Worker 0 takes its first error sample early, so that short runs
	// have one, then about every sampleEvery×workers events, or
	// sampleEveryPaced×workers paced, where an event takes tens of
	// microseconds and a sample well under one.
	firstSample      = 16
	sampleEvery      = 1024
	sampleEveryPaced = 16
	// Events timed for the path shares: one in 1024 unpaced, where the
	// clock reads would otherwise show in ns/op, one in 64 paced, where
	// an event takes tens of microseconds anyway.
	timeEvery      = 1024
	timeEveryPaced = 64
)

// Finish reports the run. Counts are summed over the levels (shared-writes/op,
// writes/op, reads/op, read-lines/op, and cfsrq-writes/kernel-sec, which is
// then all of a CPU's cfs_rqs' writes per kernel second), the errors are the
// tasks' own group's; with two levels or more each level's counts and
// tg_weight error follow as l1-…, l2-… units.
func (s *loadAvg) Finish(res *bench.Result) (err error) {
	defer func() { err = errors.Join(err, s.Close()) }()
	levels := s.cfg.levels
	var st counter.Stats
	var lv [maxLevels]struct{ writes, shared, reads, samples int64 }
	var sharesN, rejected, idle, migrations int64
	var tgwErr [maxLevels]float64
	var sharesErr float64
	var shareW, shareR ktime.Share
	var pathNs int64
	for i, w := range s.workers {
		ws := w.cpu.RQ.Stats()
		st.Events += ws.Events
		for l := range levels {
			ls := cfsmodel.Level(w.cpu.RQ, l).Stats()
			lv[l].writes += ls.Writes
			lv[l].reads += ls.Reads
			if s.shared[i] {
				lv[l].shared += ls.Writes
			}
			lv[l].samples += w.samples[l]
			tgwErr[l] += w.tgwErr[l]
		}
		idle += w.cpu.Idle
		migrations += ws.Attaches
		sharesN += w.sharesN
		rejected += w.rejected
		sharesErr += w.sharesErr
		shareW.Merge(&w.shareW)
		shareR.Merge(&w.shareR)
		pathNs += w.pathNs
	}
	if st.Events+idle != res.Ops {
		return fmt.Errorf("loadavg: cfs_rqs counted %d events and %d idle slots, runner counted %d operations", st.Events, idle, res.Ops)
	}
	if err := cfsmodel.StoresConserved(s.cpus(), s.stores); err != nil {
		return fmt.Errorf("loadavg: store=%s: %w", s.cfg.store, err)
	}
	ops := float64(res.Ops)
	var sharedWrites, writes, reads int64
	var readLines float64
	for l := range levels {
		sharedWrites += lv[l].shared
		writes += lv[l].writes
		reads += lv[l].reads
		readLines += float64(lv[l].reads) * float64(s.lines[l])
	}
	kernelNs := res.Ops * int64(s.cfg.gap)
	if s.cfg.extra == nil {
		res.AddMetric(SharedWrites, float64(sharedWrites)/ops)
	}
	res.AddMetric(Writes, float64(writes)/ops)
	res.AddMetric(ReadLines, readLines/ops)
	res.AddMetric(CfsRqWritesPerSec, ktime.PerSecond(writes, kernelNs))
	res.AddMetric(ErrSamples, float64(lv[0].samples))
	res.AddMetric(ErrRejected, float64(rejected))
	if lv[0].samples > 0 {
		res.AddMetric(TGWeightErr, 100*tgwErr[0]/float64(lv[0].samples))
	}
	if sharesN > 0 {
		res.AddMetric(SharesErr, 100*sharesErr/float64(sharesN))
	}
	if w, timed := shareW.Percent(); timed > 0 {
		r, _ := shareR.Percent()
		res.AddMetric(WritePath, w)
		res.AddMetric(ReadPath, r)
		res.AddMetric(PathTime, float64(pathNs)/float64(timed)/1e9)
	}
	res.AddMetric(LoadMoves, float64(migrations)/ops)
	res.AddMetric(IdlePct, 100*float64(idle)/ops)
	if len(s.placement) > 0 {
		res.AddMetric(LocalSlots, s.local)
	}
	if levels > 1 {
		res.AddMetric(Reads, float64(reads)/ops)
		for l := range levels {
			if s.cfg.extra == nil {
				res.AddMetric(LevelSharedWrites[l], float64(lv[l].shared)/ops)
			}
			res.AddMetric(LevelReads[l], float64(lv[l].reads)/ops)
			res.AddMetric(LevelCfsRqWritesPerSec[l], ktime.PerSecond(lv[l].writes, kernelNs))
			if lv[l].samples > 0 {
				res.AddMetric(LevelTGWeightErr[l], 100*tgwErr[l]/float64(lv[l].samples))
			}
		}
	}
	return nil
}

func (s *loadAvg) cpus() []*cfsmodel.CPU {
	cpus := make([]*cfsmodel.CPU, len(s.workers))
	for i, w := range s.workers {
		cpus[i] = &w.cpu
	}
	return cpus
}

// Close releases the run's stores. Finish calls it; a caller whose run failed
// after Start may call it too (the next Start also does). It is idempotent.
func (s *loadAvg) Close() error {
	var first error
	for _, st := range s.stores {
		if err := st.Close(); err != nil && first == nil {
			first = fmt.Errorf("loadavg: closing store=%s: %w", s.cfg.store, err)
		}
	}
	s.stores, s.lines = nil, nil
	return first // one line, whichever levels' stores refused
}
