package loadavg

import (
	"fmt"
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
	"github.com/contend/contend/counter"
)

// A cpuWorker is one CPU of the group: its part of the model (cfs_rq, clock,
// tasks), its pacing and path timing, and its error sampling, padded so
// that no other worker's line and no shared word sits next to them.
type cpuWorker struct {
	_ [bench.LinePad]byte

	cpu    modelCPU
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
	rq := w.cpu.rq
	for range n {
		timed := w.share.Due()
		var start int64
		if timed || w.pacer.On {
			start = ktime.Wall()
		}
		if timed {
			rq.Time(ktime.Wall)
		}
		ran := w.cpu.event()
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
		w.pacer.Wait(start, w.cpu.gap)
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
	w.sampleIn = w.sampleBase/2 + int64(nextRand(&w.sampleRng)%uint64(w.sampleBase))
	var load, contrib [maxLevels]int64
	words := w.others(&load, &contrib)
	if len(w.pubs) > 2 {
		var l, c [maxLevels]int64
		if ws := w.others(&l, &c); l != load || c != contrib || ws != words {
			w.rejected++
			return
		}
	}
	rq := w.cpu.rq
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

// storesConserved checks a stopped group, exactly:
//
//   - every level's store holds the sum of that level's cfs_rqs'
//     tg_load_avg_contrib: no write was lost or doubled;
//   - every level above the leaf holds its child group's entity on each
//     CPU, queued exactly when the child's cfs_rq has something queued;
//   - every task is in one place (queued on one CPU, or asleep on one,
//     to wake there or elsewhere) and attached to that CPU's cfs_rq;
//   - every unit of load a wakeup took from a cfs_rq (what
//     remove_entity_load_avg() put in cfs_rq->removed) is either drained
//     by that cfs_rq's owner or still waiting in cfs_rq->removed, and was
//     attached, whole, to the waking CPU's cfs_rq.
//
// The cfs_rq's PELT sum itself is not compared with its tasks' here: the
// kernel keeps the two apart, and a task that migrates within a PELT
// period leaves what it accrued since the last period boundary behind on
// the cfs_rq it left (its load_avg is only recomputed at a boundary, and
// attach rebuilds its sum from load_avg), where it decays with PELT's
// half-life. TestLoadAvgConservation shows it decaying away.
func storesConserved(cpus []*modelCPU, stores []counter.Store) error {
	for i, store := range stores {
		var contrib int64
		for _, c := range cpus {
			rq := c.rq
			for range i {
				rq = rq.Parent()
			}
			if rq == nil || (rq.Parent() == nil) != (i == len(stores)-1) {
				return fmt.Errorf("cpu %d has not %d levels of cfs_rqs", c.self, len(stores))
			}
			contrib += rq.Contrib()
			if p := rq.Parent(); p != nil {
				_, queued := rq.GroupLoad()
				if want := rq.NrRunning() > 0; queued != want || (p.NrRunning() == 1) != want || p.NrRunning() > 1 {
					return fmt.Errorf("cpu %d, level %d: the group entity is queued %v on a parent with %d queued, its cfs_rq has %d queued",
						c.self, i+1, queued, p.NrRunning(), rq.NrRunning())
				}
			}
		}
		if got := store.Sum(); got != contrib {
			return fmt.Errorf("level %d: the store holds %d, the cfs_rqs' contributions sum to %d: writes were lost", i+1, got, contrib)
		}
	}
	return tasksConserved(cpus)
}

// tasksConserved is storesConserved's check of the tasks and the load their
// wakeups moved.
func tasksConserved(cpus []*modelCPU) error {
	var moved, drained, pending, attached uint64
	seen := map[*modelTask]bool{}
	tasks := 0
	for _, c := range cpus {
		tasks += c.tasks
		st := c.rq.Stats()
		moved += uint64(c.moved)
		drained += st.RemovedLoad
		pending += c.rq.RemovedLoad()
		attached += st.AttachedLoad
		for _, ts := range [][]*modelTask{c.queued, c.local, c.away.tasks} {
			for _, t := range ts {
				if seen[t] {
					return fmt.Errorf("task %#x is in two places", t.id)
				}
				seen[t] = true
				if t.se.CfsRq() != c.rq {
					return fmt.Errorf("task %#x, on cpu %d, is attached to another cfs_rq", t.id, c.self)
				}
			}
		}
	}
	if len(seen) != tasks {
		return fmt.Errorf("%d tasks found, %d were started", len(seen), tasks)
	}
	if moved != drained+pending || moved != attached {
		return fmt.Errorf("wakeups moved load %d; the sources drained %d and hold %d in cfs_rq->removed; the destinations attached %d: load was not conserved",
			moved, drained, pending, attached)
	}
	return nil
}
