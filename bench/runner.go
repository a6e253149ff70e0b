package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contend/contend/affinity"
)

// Config says where and how long to run.
type Config struct {
	Topology *affinity.Topology
	// CPUs holds one CPU per worker, as affinity.Placement.Assign returns.
	CPUs []int
	// Ops is the total number of operations, shared equally among the
	// workers. Zero means run for Duration.
	Ops int64
	// Duration bounds a run with Ops == 0.
	Duration time.Duration
	// Context, if set, stops a run early (the CLI cancels it on Ctrl-C).
	Context context.Context
}

const (
	// Batches grow from firstBatch operations until one takes targetBatch,
	// so that the per-batch costs (two indirect calls, two clock reads, a
	// latency sample, an on-CPU check, a look at the stop flag) vanish
	// against the batch while a stop is still noticed within tens of
	// microseconds.
	firstBatch  = 16
	targetBatch = 50 * time.Microsecond
	maxBatch    = 1 << 20
)

// A line-padded flag. The stop flag is read by every worker after every batch;
// keeping it off the lines the workers write keeps those reads hits.
type paddedFlag struct {
	_ [LinePad]byte
	v atomic.Bool
	_ [LinePad]byte
}

type runState struct {
	release paddedFlag // workers spin on it after pinning
	stop    paddedFlag // first finisher (or the clock) raises it
	abort   paddedFlag // a worker failed before the release
}

// ErrNoCPUs is returned when a config lists no CPUs.
var ErrNoCPUs = errors.New("bench: no cpus to run on")

// Run runs s on one pinned worker per CPU in cfg.CPUs.
//
// Workers are pinned and verified, each builds its state on its own thread,
// then all are released together by a spin barrier. Each runs batches of its
// share of cfg.Ops until the first worker completes its share (or the duration
// passes), and then all stop: fixed work per worker would let early finishers
// leave the rest running uncontended and flatter the result. Garbage is
// collected before the first worker starts and the collector stays off until
// the last has stopped (see quiesce), and GOMAXPROCS is raised to workers+1
// so no two spinning workers share a P.
func Run(s Scenario, cfg Config) (*Result, error) {
	env, err := newEnv(cfg)
	if err != nil {
		return nil, err
	}
	probe := affinity.Probe() // calibrates once, before any worker is pinned
	defer affinity.EnsureProcs(len(env.CPUs) + 1)()

	if err := s.Start(env); err != nil {
		return nil, err
	}
	finished := false
	defer func() {
		// A scenario holding resources outside the Go heap (mapped
		// pages) releases them in Finish; a run that fails before
		// Finish releases them here.
		if c, ok := s.(io.Closer); ok && !finished {
			c.Close()
		}
	}()

	// Collect now, while no worker spins: a stop-the-world during the run
	// would wait for every worker to reach a safe point (see safePoint).
	defer quiesce()()
	r := &run{s: s, env: env, probe: probe, share: share(cfg.Ops, len(env.CPUs))}
	if err := r.launch(); err != nil {
		return nil, err
	}
	start := r.measure(cfg)
	res, err := r.result(start)
	if err != nil {
		return nil, err
	}
	finished = true
	if err := s.Finish(res); err != nil {
		return nil, err
	}
	return res, nil
}

// newEnv checks a config and describes it to the scenario.
func newEnv(cfg Config) (*Env, error) {
	w := len(cfg.CPUs)
	switch {
	case w == 0:
		return nil, ErrNoCPUs
	case cfg.Ops < 0:
		return nil, fmt.Errorf("bench: negative operation count %d", cfg.Ops)
	case cfg.Ops == 0 && cfg.Duration <= 0:
		return nil, fmt.Errorf("bench: need an operation count or a positive duration")
	case cfg.Topology == nil:
		return nil, fmt.Errorf("bench: no topology")
	case affinity.LineSize() > LinePad:
		return nil, fmt.Errorf("bench: this machine's %d-byte cache line is wider than the %d bytes hot words are padded by on %s (LinePad): they would share lines",
			affinity.LineSize(), LinePad, runtime.GOARCH)
	}
	env := &Env{Topology: cfg.Topology, CPUs: cfg.CPUs, Nodes: make([]int, w)}
	for i, cpu := range cfg.CPUs {
		if err := cfg.Topology.CheckCPU(cpu); err != nil {
			return nil, err
		}
		env.Nodes[i] = cfg.Topology.NodeOf(cpu)
	}
	return env, nil
}

// share is each of w workers' part of ops operations, rounded up; a run for
// a duration has no fixed share.
func share(ops int64, w int) int64 {
	if ops == 0 {
		return math.MaxInt64
	}
	return (ops + int64(w) - 1) / int64(w)
}

// run is one Run in progress: the workers' goroutines and what each of them
// reports when it stops.
type run struct {
	s     Scenario
	env   *Env
	probe *affinity.CPUProbe
	share int64

	st    runState
	done  sync.WaitGroup
	outs  []workerOut
	ticks [2]map[int]cpuTicks // /proc/stat before the release and after the run
}

// workerOut is what one worker reports when it stops.
type workerOut struct {
	info        WorkerInfo
	ops, checks int64
	end         int64 // Now() when it stopped
	err         error
	from, to    threadTimes // its thread's accounting at the start and end of its interval
	lat         *Latency
	clockCost   int64
	probe       string // how its on-CPU checks read the CPU (ThreadProbe.Method)
}

// launch starts one goroutine per worker and waits until every one is pinned
// and has built its state, or one has failed; then no worker has started
// its hot loop yet.
func (r *run) launch() error {
	w := len(r.env.CPUs)
	r.outs = make([]workerOut, w)
	var ready sync.WaitGroup
	ready.Add(w)
	r.done.Add(w)
	for i := range w {
		go func() {
			defer r.done.Done()
			out := &r.outs[i]
			out.info = WorkerInfo{Index: i, Workers: w, CPU: r.env.CPUs[i], Node: r.env.Nodes[i]}
			work(r.s, r.probe, r.share, &r.st, &ready, out)
		}()
	}
	ready.Wait()
	if r.st.abort.v.Load() {
		r.st.stop.v.Store(true)
		r.st.release.v.Store(true)
		r.done.Wait()
		return r.errs()
	}
	return nil
}

func (r *run) errs() error {
	var errs []error
	for i := range r.outs {
		errs = append(errs, r.outs[i].err)
	}
	return errors.Join(errs...)
}

// measure releases the workers and waits until they have all stopped: the
// first to finish its share stops them, or the duration, or the context. It
// returns the instant of the release, in Now() time.
func (r *run) measure(cfg Config) int64 {
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	r.ticks[0] = readCPUTicks()
	start := Now()
	r.st.release.v.Store(true)

	finished := make(chan struct{})
	go func() { r.done.Wait(); close(finished) }()
	var timer <-chan time.Time
	if cfg.Ops == 0 {
		tm := time.NewTimer(cfg.Duration)
		defer tm.Stop()
		timer = tm.C
	}
	select {
	case <-finished:
	case <-timer:
		r.st.stop.v.Store(true)
		<-finished
	case <-ctx.Done():
		r.st.stop.v.Store(true)
		<-finished
	}
	r.ticks[1] = readCPUTicks()
	return start
}

// result gathers what the stopped workers reported.
func (r *run) result(start int64) (*Result, error) {
	if err := r.errs(); err != nil {
		return nil, err
	}
	w := len(r.outs)
	res := &Result{
		Variant:   r.s.Variant(),
		CPUs:      append([]int(nil), r.env.CPUs...),
		Nodes:     append([]int(nil), r.env.Nodes...),
		PerWorker: make([]int64, w),
		Workers:   make([]WorkerStats, w),
		Latency:   new(Latency),
	}
	last := start
	var probes []string
	for i := range r.outs {
		o := &r.outs[i]
		if !slices.Contains(probes, o.probe) {
			probes = append(probes, o.probe)
		}
		res.PerWorker[i] = o.ops
		res.Ops += o.ops
		res.Checks += o.checks
		last = max(last, o.end)
		ws := workerStats(o.info, o.ops, o.from, o.to, r.ticks[0], r.ticks[1])
		ws.Latency, ws.ClockCost = o.lat, time.Duration(o.clockCost)
		res.Workers[i] = ws
		res.Latency.Merge(o.lat)
	}
	res.Elapsed = time.Duration(last - start)
	res.Probe = strings.Join(probes, " + ")
	res.FastProbe = !slices.Contains(probes, "getcpu")
	return res, nil
}

// work is one worker's life: pin, verify, build state, wait for the release,
// run batches, stop, unpin. It reports into out.
func work(s Scenario, probe *affinity.CPUProbe, share int64, st *runState, ready *sync.WaitGroup, out *workerOut) {
	info := out.info
	undo, err := affinity.Pin(info.CPU)
	if err != nil {
		st.abort.v.Store(true)
		ready.Done()
		out.err = fmt.Errorf("worker %d: %w", info.Index, err)
		return
	}
	defer func() {
		if uerr := undo(); uerr != nil && out.err == nil {
			out.err = uerr
		}
	}()
	// The per-batch on-CPU check, registered on this thread (an rseq area
	// where there is no trusted TSC_AUX), released before undo unlocks it.
	onCPU, release := probe.Thread()
	defer release()
	out.probe = onCPU.Method()
	wk, err := s.Worker(info)
	if err != nil {
		st.abort.v.Store(true)
		ready.Done()
		out.err = fmt.Errorf("worker %d on cpu %d: %w", info.Index, info.CPU, err)
		return
	}
	// Everything the measurement needs is made before the release, on
	// this thread: the accounting probe, the histogram, the clock's cost.
	acct := openThreadProbe()
	defer acct.close()
	lat := new(Latency)
	out.lat = lat
	clockCost := calibrateClock()
	out.clockCost = clockCost
	ready.Done()
	// Spin: a sleeping worker would wake up late and start the run
	// uncontended. GOMAXPROCS ≥ workers+1 keeps this from starving the
	// coordinator.
	awaitRelease(&st.release.v)
	if st.abort.v.Load() {
		return
	}
	out.from = acct.start()
	out.ops, out.checks, out.end, out.err = batches(wk, info, onCPU, share, st, lat, clockCost)
	out.to = acct.end()
}

// batches is the measured loop of one worker: batches of its share until
// it completes the share or the stop flag rises. A batch of k operations is
// Run(k-1), then Run(1) between two clock reads, the second of which is the
// batch's end: one operation per batch is timed into lat (see Latency) for
// the price of one indirect call and one clock read. Each batch ends at a
// safePoint, so that nothing the runtime must stop the world for waits on a
// worker for longer than a batch. The stop flag is looked
// at after each batch, never before the first: a worker released late (a
// busy machine, a short duration) still measures something, so a run never
// completes zero operations (a NaN ns/op). end is when it stopped: the end
// of its last batch, or when it saw the flag.
func batches(wk Worker, info WorkerInfo, probe cpuProbe, share int64, st *runState, lat *Latency, clockCost int64) (n, checks, end int64, err error) {
	batch := int64(firstBatch)
	last := Now()
	for {
		k := min(batch, share-n)
		if k > 1 {
			wk.Run(int(k - 1))
		}
		t0 := Now()
		wk.Run(1)
		t1 := Now()
		lat.Record(t1 - t0 - clockCost)
		n += k
		if n >= share {
			st.stop.v.Store(true)
			return n, checks, t1, nil
		}
		if cpu := probe.CPU(); cpu != info.CPU {
			st.stop.v.Store(true)
			return n, checks, t1, fmt.Errorf("worker %d: %w", info.Index, affinity.OffCPU(info.CPU, cpu))
		}
		checks++
		safePoint() // a stop-the-world waits at most one batch
		if t1-last < int64(targetBatch) && batch < maxBatch {
			batch *= 2
		}
		last = t1
		if st.stop.v.Load() {
			return n, checks, Now(), nil
		}
	}
}

// cpuProbe says which CPU the calling thread runs on: an
// affinity.ThreadProbe in a run, an affinity.CPUProbe in tests.
type cpuProbe interface{ CPU() int }

// epoch is the origin of Now.
var epoch = time.Now()

// Now is the monotonic clock in nanoseconds since the process started: one
// vDSO read (time.Since of a time with a monotonic reading reads only the
// monotonic clock), where time.Now reads the wall clock too. It is the
// runner's clock for batches and latency samples, and ktime.Wall, the
// clock of pacing and timed samples in the scenarios.
func Now() int64 { return int64(time.Since(epoch)) }

// noopWorker is the empty operation clock calibration times.
type noopWorker struct{ n int }

//go:noinline
func (w *noopWorker) Run(n int) {
	for range n {
		w.n++
	}
}

// calibrateClock returns what a timed Run(1) costs besides the operation:
// two clock reads and an indirect call, timed around a Worker that does
// nothing, the median of 255 tries.
func calibrateClock() int64 {
	var wk Worker = &noopWorker{}
	var xs [255]int64
	for i := range xs {
		t0 := Now()
		wk.Run(1)
		xs[i] = Now() - t0
	}
	slices.Sort(xs[:])
	return xs[len(xs)/2]
}
