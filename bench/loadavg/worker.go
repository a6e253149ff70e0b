package loadavg

import (
	"github.com/contend/contend/bench/loadavg/cfsmodel"
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
)

// A cpuWorker is one CPU of the group: its part of the model (cfs_rq, clock,
// tasks), its pacing and path timing, and its error sampling, padded so
// that no other worker's line and no shared word sits next to them.
type cpuWorker struct {
	_ [bench.LinePad]byte

	cpu    cfsmodel.CPU
	pacer  ktime.Pacer
	share  ktime.Share // picks the timed events (only its Due is used)
	shareW ktime.Share // update_tg_load_avg's share of them
	shareR ktime.Share // calc_group_shares's share
	pathNs int64       // both paths, summed over the timed events
	work   int
	sink   uint64

	// Error sampling. Only worker 0 samples; the others' sampleIn never
	// reaches zero. The tg_weight error is kept per level (the leaf's
	// first), the group entity's weight error for the leaf's.
	index      int
	sampleIn   int64
	sampleBase int64
	sampleRng  uint64
	pubs       [][]*atomic.Int64 // every worker's pub, by worker
	samples    [maxLevels]int64
	rejected   int64
	tgwErr     [maxLevels]float64
	sharesErr  float64
	sharesN    int64 // samples with the group entity queued

	// pub is packPair(avg.load_avg, contrib) of each level's cfs_rq, the
	// leaf's first, each on a 128-byte block of its own, for the sampler
	// to read; nil on the sampler itself, whose own pairs nobody reads.
	pub []*atomic.Int64

	_ [bench.LinePad]byte
}

// packPair packs a cfs_rq's load and contribution into one word, so that a
// reader gets both from one instant. Both stay below 2^31: the group's
// tasks weigh 1024 each and there are at most 64 per worker, and a parent
// level's load is its child's group entity's, at most tg->shares.
func packPair(load, contrib int64) int64 { return load<<32 | contrib }

func (w *cpuWorker) Run(n int) { loadAvgEvents(w, n) }

// loadAvgEvents is the hot loop: n events, each on kernel time (the
// model clock advances by the gap, whatever this machine takes), with the
// event's real shared-line traffic at full speed; then a worker other than
// the sampler publishes its (load, contrib) pair for the error sampler if
// it changed, for each level (an atomic store: a locked XCHG on amd64), the sampler takes
// its sample when one is due and the event was not idle (an idle slot read
// nothing), extra local work runs, and, paced, real work fills the event
// up to its gap of wall time. One event in share.Every is timed: its two
// paths and the whole. perf annotate finds this loop by name; the
// counter's updateTGLoadAvg and calcGroupShares show under theirs.
//
//go:noinline
func loadAvgEvents(w *cpuWorker, n int) {
	rq := w.cpu.RQ
	for range n {
		timed := w.share.Due()
		var start int64
		if timed || w.pacer.On {
			start = ktime.Wall()
		}
		if timed {
			rq.Time(ktime.Wall)
		}
		ran := w.cpu.Event()
		if w.pub != nil {
			l := rq
			for _, pub := range w.pub {
				if p := packPair(l.Load(), l.Contrib()); p != pub.Load() {
					pub.Store(p)
				}
				l = l.Parent()
			}
		} else if w.sampleIn--; w.sampleIn <= 0 && ran {
			w.sample()
		}
		w.sink = bench.LocalWork(w.sink, w.work)
		w.pacer.Wait(start, w.cpu.Gap)
		if timed {
			wr, rd := rq.PathTime()
			whole := ktime.Wall() - start
			w.shareW.Add(wr, whole)
			w.shareR.Add(rd, whole)
			w.pathNs += wr + rd
		}
	}
}

// sample takes one error sample after an event of worker 0, at every
// level: the other cfs_rqs' published (load, contrib) pairs give their
// true load and what the level's tg->load_avg holds for them (the store's
// value less writes in flight), tgWeightErr the errors. With one peer each pair
// is one instant; with more, the pairs are read twice and the sample is
// dropped, and counted, if any moved in between.
//
//go:noinline
func (w *cpuWorker) sample() {
	w.sampleIn = w.sampleBase/2 + int64(cfsmodel.NextRand(&w.sampleRng)%uint64(w.sampleBase))
	var load, contrib [maxLevels]int64
	words := w.others(&load, &contrib)
	if len(w.pubs) > 2 {
		var l, c [maxLevels]int64
		if ws := w.others(&l, &c); l != load || c != contrib || ws != words {
			w.rejected++
			return
		}
	}
	rq := w.cpu.RQ
	for lv := 0; rq != nil; lv++ {
		te, se, ok, queued := tgWeightErr(rq, load[lv], contrib[lv])
		if ok {
			w.tgwErr[lv] += te
			w.samples[lv]++
		}
		if queued && lv == 0 {
			w.sharesErr += se
			w.sharesN++
		}
		rq = rq.Parent()
	}
}

// others sums the other workers' published loads and contributions by
// level, and returns the sum of their raw words, which changes if any one
// pair does.
func (w *cpuWorker) others(load, contrib *[maxLevels]int64) (words int64) {
	for j, ps := range w.pubs {
		if j == w.index {
			continue
		}
		for lv, p := range ps {
			v := p.Load()
			load[lv] += v >> 32
			contrib[lv] += v & (1<<32 - 1)
			words += v
		}
	}
	return words
}
