package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclements/go-moremath/stats"

	"github.com/contend/contend/affinity"
)

// A Scenario is one contended data structure and the event loop that hammers
// it. The runner owns threads, pinning, timing and stopping; the scenario owns
// the hot loop, so the only indirect call the runner makes is one per batch.
type Scenario interface {
	// Variant returns the scenario's configuration as key=value parts joined
	// by "/", e.g. "store=pernode/write=ratelimit/read=every".
	Variant() string
	// Start prepares the shared state for the workers described by env.
	// It runs once, on an unpinned thread, before any worker starts.
	Start(env *Env) error
	// Worker returns the state of one worker. It runs on the worker's own
	// pinned thread, so memory it allocates and touches first lands on the
	// worker's node.
	Worker(w WorkerInfo) (Worker, error)
	// Finish runs after every worker has stopped. It adds the scenario's own
	// metrics to res (per operation, see Result.AddMetric).
	Finish(res *Result) error
}

// A Noter is a scenario with facts about a run that are not metrics, such as
// where its memory landed; the command line prints them beside the results.
type Noter interface {
	Notes() []string
}

// A Worker runs a scenario's hot loop.
type Worker interface {
	// Run performs exactly n operations.
	Run(n int)
}

// Env describes a run to the scenario.
type Env struct {
	Topology *affinity.Topology
	CPUs     []int // CPU of each worker
	Nodes    []int // node of each worker (fake nodes on a fake topology)
}

// WorkerInfo identifies one worker to the scenario.
type WorkerInfo struct {
	Index   int // 0 ≤ Index < Workers
	Workers int
	CPU     int
	Node    int
}

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

// A Metric is a scenario-specific figure reported beside ns/op.
type Metric struct {
	Unit   string  // benchmark unit, e.g. "shared-writes/op"
	Value  float64 // already divided per operation where the unit says so
	Better string  // "lower" or "higher"
}

// Result is what a run measured.
type Result struct {
	Variant   string
	CPUs      []int
	Elapsed   time.Duration // from the release of the workers to the last one stopping
	Ops       int64         // operations completed by all workers together
	PerWorker []int64       // operations completed by each worker
	Metrics   []Metric
	// FastProbe says whether on-CPU checks used RDTSCP's TSC_AUX (true) or
	// getcpu.
	FastProbe bool
	// Checks counts the on-CPU checks that passed during the run.
	Checks int64
}

// AddMetric appends a scenario metric.
func (r *Result) AddMetric(unit string, value float64, better string) {
	r.Metrics = append(r.Metrics, Metric{Unit: unit, Value: value, Better: better})
}

// NsPerOp is elapsed time over completed operations: the cost of one
// operation of the whole machine, the inverse of throughput.
func (r *Result) NsPerOp() float64 {
	if r.Ops == 0 {
		return math.NaN()
	}
	return float64(r.Elapsed.Nanoseconds()) / float64(r.Ops)
}

// OpsPerSec is the aggregate throughput.
func (r *Result) OpsPerSec() float64 {
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// Fairness summarizes how evenly the workers progressed: the fewest and most
// operations of any worker, and the coefficient of variation (sample standard
// deviation over mean). A lock or line that one CPU keeps winning shows up
// here before it shows in ns/op.
func (r *Result) Fairness() (min, max int64, cv float64) {
	if len(r.PerWorker) == 0 {
		return 0, 0, 0
	}
	min, max = r.PerWorker[0], r.PerWorker[0]
	xs := make([]float64, len(r.PerWorker))
	for i, n := range r.PerWorker {
		min, max = minInt(min, n), maxInt(max, n)
		xs[i] = float64(n)
	}
	s := stats.Sample{Xs: xs}
	if len(xs) < 2 || s.Mean() == 0 {
		return min, max, 0
	}
	return min, max, s.StdDev() / s.Mean()
}

func minInt(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

const (
	// Batches grow until one takes this long, so that the per-batch costs
	// (an indirect call, a clock read, an on-CPU check, a look at the stop
	// flag) vanish against the batch while a stop is still noticed within
	// tens of microseconds.
	targetBatch = 50 * time.Microsecond
	maxBatch    = 1 << 20
)

// A line-padded flag. The stop flag is read by every worker after every batch;
// keeping it off the lines the workers write keeps those reads hits.
type paddedFlag struct {
	_ [128]byte
	v atomic.Bool
	_ [128]byte
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
// leave the rest running uncontended and flatter the result. GC is switched
// off for the measured interval and GOMAXPROCS is raised to workers+1 so no two
// spinning workers share a P.
func Run(s Scenario, cfg Config) (*Result, error) {
	w := len(cfg.CPUs)
	if w == 0 {
		return nil, ErrNoCPUs
	}
	if cfg.Ops < 0 {
		return nil, fmt.Errorf("bench: negative operation count %d", cfg.Ops)
	}
	if cfg.Ops == 0 && cfg.Duration <= 0 {
		return nil, fmt.Errorf("bench: need an operation count or a positive duration")
	}
	t := cfg.Topology
	if t == nil {
		return nil, fmt.Errorf("bench: no topology")
	}
	env := &Env{Topology: t, CPUs: cfg.CPUs, Nodes: make([]int, w)}
	for i, cpu := range cfg.CPUs {
		if err := t.CheckCPU(cpu); err != nil {
			return nil, err
		}
		env.Nodes[i] = t.NodeOf(cpu)
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}

	probe := affinity.Probe() // calibrates once, before any worker is pinned
	defer ensureProcs(w + 1)()

	if err := s.Start(env); err != nil {
		return nil, err
	}
	finishCalled := false
	defer func() {
		// A scenario holding resources outside the Go heap (mapped
		// pages) releases them in Finish; a run that fails before
		// Finish releases them here.
		if c, ok := s.(io.Closer); ok && !finishCalled {
			c.Close()
		}
	}()

	share := int64(math.MaxInt64)
	if cfg.Ops > 0 {
		share = (cfg.Ops + int64(w) - 1) / int64(w)
	}
	var (
		st     runState
		ready  sync.WaitGroup
		done   sync.WaitGroup
		ops    = make([]int64, w)
		checks = make([]int64, w)
		ends   = make([]time.Time, w)
		errs   = make([]error, w)
		start  time.Time
	)
	ready.Add(w)
	done.Add(w)
	for i := range w {
		go func() {
			defer done.Done()
			info := WorkerInfo{Index: i, Workers: w, CPU: cfg.CPUs[i], Node: env.Nodes[i]}
			ops[i], checks[i], ends[i], errs[i] = work(s, info, probe, share, &st, &ready)
		}()
	}
	ready.Wait()
	if st.abort.v.Load() {
		st.stop.v.Store(true)
		st.release.v.Store(true)
		done.Wait()
		return nil, errors.Join(errs...)
	}

	// Collect garbage now, not during the measurement.
	runtime.GC()
	gc := debug.SetGCPercent(-1)
	start = time.Now()
	st.release.v.Store(true)

	finished := make(chan struct{})
	go func() { done.Wait(); close(finished) }()
	var timer <-chan time.Time
	if cfg.Ops == 0 {
		tm := time.NewTimer(cfg.Duration)
		defer tm.Stop()
		timer = tm.C
	}
	select {
	case <-finished:
	case <-timer:
		st.stop.v.Store(true)
		<-finished
	case <-ctx.Done():
		st.stop.v.Store(true)
		<-finished
	}
	debug.SetGCPercent(gc)

	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	res := &Result{
		Variant:   s.Variant(),
		CPUs:      append([]int(nil), cfg.CPUs...),
		PerWorker: ops,
		FastProbe: probe.FastPath(),
	}
	var last time.Time
	for i := range w {
		res.Ops += ops[i]
		res.Checks += checks[i]
		if ends[i].After(last) {
			last = ends[i]
		}
	}
	res.Elapsed = last.Sub(start)
	finishCalled = true
	if err := s.Finish(res); err != nil {
		return nil, err
	}
	return res, nil
}

// work is one worker's life: pin, verify, build state, wait for the release,
// run batches, stop, unpin.
func work(s Scenario, info WorkerInfo, probe *affinity.CPUProbe, share int64, st *runState, ready *sync.WaitGroup) (n, checks int64, end time.Time, err error) {
	undo, err := affinity.Pin(info.CPU)
	if err != nil {
		st.abort.v.Store(true)
		ready.Done()
		return 0, 0, time.Time{}, fmt.Errorf("worker %d: %w", info.Index, err)
	}
	defer func() {
		if uerr := undo(); uerr != nil && err == nil {
			err = uerr
		}
	}()
	wk, err := s.Worker(info)
	if err != nil {
		st.abort.v.Store(true)
		ready.Done()
		return 0, 0, time.Time{}, fmt.Errorf("worker %d on cpu %d: %w", info.Index, info.CPU, err)
	}
	ready.Done()
	for !st.release.v.Load() {
		// Spin: a sleeping worker would wake up late and start the run
		// uncontended. GOMAXPROCS ≥ workers+1 keeps this from starving
		// the coordinator.
	}
	if st.abort.v.Load() {
		return 0, 0, time.Time{}, nil
	}
	batch := int64(16)
	last := time.Now()
	for !st.stop.v.Load() {
		k := batch
		if rem := share - n; rem < k {
			k = rem
		}
		wk.Run(int(k))
		n += k
		now := time.Now()
		if n >= share {
			st.stop.v.Store(true)
			return n, checks, now, nil
		}
		if cpu := probe.CPU(); cpu != info.CPU {
			st.stop.v.Store(true)
			return n, checks, now, fmt.Errorf("worker %d: found on cpu %d, pinned to cpu %d", info.Index, cpu, info.CPU)
		}
		checks++
		if now.Sub(last) < targetBatch && batch < maxBatch {
			batch *= 2
		}
		last = now
	}
	return n, checks, time.Now(), nil
}

// procsAtStart is GOMAXPROCS as the runtime chose it, before anyone set it.
var procsAtStart = runtime.GOMAXPROCS(0)

// ensureProcs sets GOMAXPROCS to at least n, explicitly, and returns a func
// that undoes it. Setting it explicitly also matters when it is already large
// enough: since Go 1.25 the runtime re-reads the CPU affinity mask about once a
// second and lowers a default GOMAXPROCS to fit it, and the thread it asks may
// be one of our pinned workers. After the run every worker thread is unpinned
// again, so handing control back to the runtime's default is safe.
func ensureProcs(n int) (restore func()) {
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(max(prev, n))
	return func() {
		if os.Getenv("GOMAXPROCS") == "" && prev == procsAtStart {
			runtime.SetDefaultGOMAXPROCS()
			return
		}
		runtime.GOMAXPROCS(prev)
	}
}
