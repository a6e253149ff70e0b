package bench_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
)

// probeScenario records, from inside the hot loop, which CPU each worker ran
// on, and can be told to fail or to make one worker slow.
type probeScenario struct {
	failWorker int                  // worker index whose Worker call fails; -1 for none
	slowWorker int                  // worker index that spins between operations; -1 for none
	seen       map[int]map[int]bool // worker -> CPUs seen in Run
	workers    []*probeWorker
	finished   bool
	procs      int   // GOMAXPROCS while the workers run
	tids       []int // each worker's thread id
}

type probeWorker struct {
	s     *probeScenario
	index int
	ops   int64
	slow  bool
	cpus  map[int]bool
}

func newProbe() *probeScenario { return &probeScenario{failWorker: -1, slowWorker: -1} }

func (s *probeScenario) Variant() string { return "probe=yes" }
func (s *probeScenario) Start(env *bench.Env) error {
	s.seen = map[int]map[int]bool{}
	s.workers = make([]*probeWorker, len(env.CPUs))
	s.tids = make([]int, len(env.CPUs))
	s.procs = runtime.GOMAXPROCS(0)
	return nil
}
func (s *probeScenario) Worker(w bench.WorkerInfo) (bench.Worker, error) {
	if w.Index == s.failWorker {
		return nil, errors.New("refusing on purpose")
	}
	pw := &probeWorker{s: s, index: w.Index, slow: w.Index == s.slowWorker, cpus: map[int]bool{}}
	s.tids[w.Index] = unix.Gettid()
	s.workers[w.Index] = pw
	return pw, nil
}
func (s *probeScenario) Finish(res *bench.Result) error {
	s.finished = true
	for i, w := range s.workers {
		s.seen[i] = w.cpus
	}
	return nil
}
func (w *probeWorker) Run(n int) {
	c, _, _ := affinity.GetCPU()
	w.cpus[c] = true
	for range n {
		w.ops++
		if w.slow {
			time.Sleep(time.Microsecond)
		}
	}
}

func TestRunPinsAndCountsEveryWorker(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, min(2, runtime.NumCPU()))
	s := newProbe()
	res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: 100000})
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for i, w := range s.workers {
		if w.ops != res.PerWorker[i] {
			t.Errorf("worker %d did %d ops, runner says %d", i, w.ops, res.PerWorker[i])
		}
		sum += w.ops
		// Even a worker released after the other finished its whole
		// share runs its first batch (see TestRunTooShortStillMeasures).
		if w.ops == 0 {
			t.Errorf("worker %d did no operations", i)
		}
		if len(s.seen[i]) != 1 || !s.seen[i][cpus[i]] {
			t.Errorf("worker %d ran on cpus %v, want only %d", i, s.seen[i], cpus[i])
		}
	}
	if sum != res.Ops {
		t.Errorf("sum of worker ops %d != result ops %d", sum, res.Ops)
	}
	// One operation per batch is timed: one sample per on-cpu check, and
	// one for each worker's last batch, which stops before its check.
	if n := res.Latency.Count(); n < res.Checks || n > res.Checks+int64(len(cpus)) {
		t.Errorf("%d latency samples for %d on-cpu checks of %d workers", n, res.Checks, len(cpus))
	}
	if len(res.Workers) != len(cpus) || len(res.Nodes) != len(cpus) {
		t.Fatalf("%d worker stats and %d nodes for %d workers", len(res.Workers), len(res.Nodes), len(cpus))
	}
	for i, w := range res.Workers {
		if w.Index != i || w.CPU != cpus[i] || w.Ops != res.PerWorker[i] {
			t.Errorf("worker stats %d: index %d, cpu %d, ops %d; want %d, %d, %d", i, w.Index, w.CPU, w.Ops, i, cpus[i], res.PerWorker[i])
		}
		if w.Wall <= 0 || w.Wall > res.Elapsed+time.Second || w.Accounted && w.Run > w.Wall+10*time.Microsecond {
			t.Errorf("worker %d: ran %v in an interval of %v (run %v)", i, w.Run, w.Wall, res.Elapsed)
		}
	}
	if res.Elapsed <= 0 {
		t.Errorf("elapsed %v, want > 0", res.Elapsed)
	}
	if !s.finished {
		t.Error("Finish was not called")
	}
	// Spinning workers must not share a P: the runner raises GOMAXPROCS
	// to workers+1 for the run.
	if s.procs < len(cpus)+1 {
		t.Errorf("GOMAXPROCS was %d during a run of %d workers, want at least %d", s.procs, len(cpus), len(cpus)+1)
	}
	// The test binary locks its main goroutine to the main thread in init,
	// so no worker may ever be handed the main thread (tid == pid).
	for i, tid := range s.tids {
		if tid == os.Getpid() {
			t.Errorf("worker %d ran on the main thread", i)
		}
	}
}

// A slow worker must not be left running alone: once the fast worker has done
// its share, everyone stops, so the total stays near the fast worker's share
// rather than reaching the full count.
func TestRunStopsAllAtFirstFinisher(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	s := newProbe()
	s.slowWorker = 1
	const ops = 2_000_000
	res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	if res.PerWorker[0] != ops/2 {
		t.Errorf("fast worker did %d ops, want its share %d", res.PerWorker[0], ops/2)
	}
	if res.PerWorker[1] >= ops/2 {
		t.Errorf("slow worker did %d ops: it finished its share instead of being stopped", res.PerWorker[1])
	}
	lo, hi, cv := res.Fairness()
	if lo != res.PerWorker[1] || hi != res.PerWorker[0] || cv <= 0 {
		t.Errorf("Fairness() = %d, %d, %v; want %d, %d, > 0", lo, hi, cv, res.PerWorker[1], res.PerWorker[0])
	}
}

func TestRunDurationAndCancel(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 1)
	res, err := bench.Run(newProbe(), bench.Config{Topology: topo, CPUs: cpus, Duration: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops == 0 || res.Elapsed < 20*time.Millisecond {
		t.Errorf("duration run: %d ops in %v, want > 0 ops in ≥ 20ms", res.Ops, res.Elapsed)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	res, err = bench.Run(newProbe(), bench.Config{Topology: topo, CPUs: cpus, Duration: time.Hour, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if res.Elapsed > time.Minute {
		t.Errorf("cancelled run took %v", res.Elapsed)
	}
}

func TestRunErrors(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 1)
	tests := []struct {
		name string
		s    func() bench.Scenario
		cfg  bench.Config
		want string
	}{
		{"no cpus", func() bench.Scenario { return newProbe() }, bench.Config{Topology: topo, Ops: 1}, "no cpus"},
		{"no work", func() bench.Scenario { return newProbe() }, bench.Config{Topology: topo, CPUs: cpus}, "need an operation count"},
		{"negative ops", func() bench.Scenario { return newProbe() }, bench.Config{Topology: topo, CPUs: cpus, Ops: -1}, "negative"},
		{"cpu beyond machine", func() bench.Scenario { return newProbe() }, bench.Config{Topology: topo, CPUs: []int{4095}, Ops: 1}, "4095"},
		{"worker fails", func() bench.Scenario { s := newProbe(); s.failWorker = 0; return s }, bench.Config{Topology: topo, CPUs: cpus, Ops: 1000}, "refusing on purpose"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bench.Run(tt.s(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run() error = %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// After a run no thread of the process may be left pinned (a leaked pinned
// thread silently confines whatever goroutine lands on it next), and
// GOMAXPROCS must be back where it was.
func TestRunRestoresThreadsAndProcs(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, min(2, runtime.NumCPU()))
	procs := runtime.GOMAXPROCS(0)
	before := threadMasks(t)
	for range 3 {
		if _, err := bench.Run(newProbe(), bench.Config{Topology: topo, CPUs: cpus, Ops: 10000}); err != nil {
			t.Fatal(err)
		}
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS = %d after runs, want %d", got, procs)
	}
	want := before["0"]
	for tid, mask := range threadMasks(t) {
		if mask != want {
			t.Errorf("thread %s left with Cpus_allowed_list %s, want %s", tid, mask, want)
		}
	}
}

// threadMasks reads Cpus_allowed_list of every thread of this process.
func threadMasks(t *testing.T) map[string]string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(dirs) == 0 {
		t.Skip("no /proc/self/task to inspect")
	}
	masks := map[string]string{}
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // thread exited
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				masks[filepath.Base(filepath.Dir(p))] = strings.TrimSpace(v)
			}
		}
	}
	// Key 0 holds the main thread's mask: the process's.
	main, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(main), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				masks["0"] = strings.TrimSpace(v)
			}
		}
	}
	return masks
}

func TestAlignedWords(t *testing.T) {
	for _, stride := range []int{64, 128} {
		words := bench.AlignedWords(5, stride)
		for i, w := range words {
			addr := uintptr(unsafePointer(w))
			if addr%uintptr(stride) != 0 {
				t.Errorf("stride %d: word %d at %#x is not aligned", stride, i, addr)
			}
			if i > 0 && addr-uintptr(unsafePointer(words[i-1])) != uintptr(stride) {
				t.Errorf("stride %d: word %d not one stride after the previous", stride, i)
			}
		}
	}
}

func unsafePointer(w *atomic.Int64) unsafe.Pointer { return unsafe.Pointer(w) }

// A run whose clock runs out before its workers get going still measures
// every worker's first batch: never zero operations and a NaN ns/op, which
// a results file could not hold.
func TestRunTooShortStillMeasures(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, min(2, runtime.NumCPU()))
	res, err := bench.Run(newProbe(), bench.Config{Topology: topo, CPUs: cpus, Duration: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range res.PerWorker {
		if n == 0 {
			t.Errorf("worker %d completed no operations", i)
		}
	}
	if ns := res.NsPerOp(); math.IsNaN(ns) || math.IsInf(ns, 0) || ns <= 0 {
		t.Errorf("NsPerOp() = %v, want a positive figure", ns)
	}
}
