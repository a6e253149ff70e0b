package loadavg

import (
	"errors"
	"github.com/contend/contend/bench/loadavg/cfsmodel"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/counter"
	"github.com/contend/contend/nodemask"
)

// testCPUs returns n compact CPUs of the test topology, or skips.
func testCPUs(t testing.TB, topo *affinity.Topology, n int) []int {
	t.Helper()
	cpus, err := affinity.Placement{Policy: affinity.Compact}.Assign(topo, n, false)
	if err != nil {
		t.Skipf("need %d usable cpus: %v", n, err)
	}
	return cpus
}

func testTopo(t testing.TB) *affinity.Topology {
	t.Helper()
	topo, err := benchtest.Topology()
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// runScenario runs s for ops operations on cpus and fails the test on error.
func runScenario(t testing.TB, s bench.Scenario, topo *affinity.Topology, cpus []int, ops int64) *bench.Result {
	t.Helper()
	res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: ops})
	if err != nil {
		t.Fatalf("Run(%s) on cpus %v: %v", s.Variant(), cpus, err)
	}
	return res
}

const defaultTail = "/gap=40us/pace=none/mig=79/tasks=2/hz=1000/work=0/stride=line/levels=2"

func TestLoadAvgVariant(t *testing.T) {
	benchtest.CheckVariants(t, "loadavg", [][2]string{
		{"", "preset=base/store=atomic/write=every/read=every/scan=bounded" + defaultTail},
		{"preset=base", "preset=base/store=atomic/write=every/read=every/scan=bounded" + defaultTail},
		{"preset=node", "preset=node/store=pernode/write=every/read=every/scan=full" + defaultTail},
		{"preset=delay", "preset=delay/store=pernode/write=delay/read=every/scan=full" + defaultTail},
		{"preset=skip", "preset=skip/store=pernode/write=delay/read=skip/scan=full" + defaultTail},
		{"preset=rate", "preset=rate/store=atomic/write=ratelimit/read=every/scan=bounded" + defaultTail},
		{"preset=rate+skip", "preset=rate+skip/store=atomic/write=ratelimit/read=skip/scan=bounded" + defaultTail},
		{"preset=rate+skip+node", "preset=rate+skip+node/store=pernode/write=ratelimit/read=skip/scan=bounded" + defaultTail},
		// Parts beside a preset override it; the name follows the result.
		{"preset=rate/read=skip", "preset=rate+skip/store=atomic/write=ratelimit/read=skip/scan=bounded" + defaultTail},
		{"preset=rate/clock=rq_clock", "preset=rate/store=atomic/write=ratelimit/read=every/scan=bounded" + defaultTail + "/clock=rq_clock"},
		{"clock=sched_clock/preset=rate", "preset=rate/store=atomic/write=ratelimit/read=every/scan=bounded" + defaultTail + "/clock=sched_clock"},
		{"preset=rate/clock=none", "preset=rate/store=atomic/write=ratelimit/read=every/scan=bounded" + defaultTail},
		{"preset=rate+skip/store=pernode", "preset=rate+skip+node/store=pernode/write=ratelimit/read=skip/scan=bounded" + defaultTail},
		{"preset=skip/read=every", "preset=delay/store=pernode/write=delay/read=every/scan=full" + defaultTail},
		{"preset=node/scan=bounded", "preset=none/store=pernode/write=every/read=every/scan=bounded" + defaultTail},
		{"preset=node/store=atomic", "preset=base/store=atomic/write=every/read=every/scan=bounded" + defaultTail},
		{"store=pernode/write=ratelimit/read=skip", "preset=rate+skip+node/store=pernode/write=ratelimit/read=skip/scan=bounded" + defaultTail},
		{"write=ratelimit=1ms", "preset=rate/store=atomic/write=ratelimit/read=every/scan=bounded" + defaultTail},
		{"preset=base/store=falseshare", "preset=none/store=falseshare/write=every/read=every/scan=bounded" + defaultTail},
		{"write=threshold=16/read=onein=1024", "preset=none/store=atomic/write=threshold=16/read=onein=1024/scan=bounded" + defaultTail},
		{"preset=rate/pace=kernel/gap=25us/hz=250", "preset=rate/store=atomic/write=ratelimit/read=every/scan=bounded/gap=25us/pace=kernel/mig=79/tasks=2/hz=250/work=0/stride=line/levels=2"},
		{"gap=1ms/mig=0/tasks=8/work=100/stride=128", "preset=base/store=atomic/write=every/read=every/scan=bounded/gap=1ms/pace=none/mig=0/tasks=8/hz=1000/work=100/stride=128/levels=2"},
		{"levels=1", "preset=base/store=atomic/write=every/read=every/scan=bounded/gap=40us/pace=none/mig=79/tasks=2/hz=1000/work=0/stride=line/levels=1"},
		{"preset=rate/levels=3", "preset=rate/store=atomic/write=ratelimit/read=every/scan=bounded/gap=40us/pace=none/mig=79/tasks=2/hz=1000/work=0/stride=line/levels=3"},
		{"gap=40000ns", "preset=base/store=atomic/write=every/read=every/scan=bounded" + defaultTail},
	})
}

func TestLoadAvgBadVariant(t *testing.T) {
	benchtest.CheckVariants(t, "loadavg", [][2]string{
		{"gap=0", "!gap=\"0\": out of range (want 1us..100ms)"},
		{"clock=rq_clock", "!clock=rq_clock with write=every: only the rate limit reads a clock"},
		{"preset=rate/clock=tsc", `!clock="tsc": unknown value`},
		{"gap=-40us", "!gap=\"-40us\": out of range"},
		{"gap=999ns", "!out of range (want 1us..100ms)"},
		{"gap=1s", "!gap=\"1s\": out of range"},
		{"gap=soon", `!gap="soon": not a duration`},
		{"gap=40", `!gap="40": not a duration`},
		{"mig=101", "!mig=\"101\": out of range (want 0..100)"},
		{"mig=-1", "!out of range"},
		{"tasks=0", "!tasks=\"0\": out of range (want 1..64)"},
		{"levels=0", "!levels=\"0\": out of range (want 1..3)"},
		{"levels=4", "!levels=\"4\": out of range (want 1..3)"},
		{"tasks=1000000", "!tasks=\"1000000\": out of range"},
		{"hz=100", `!hz="100": unknown value (want 1000|250)`},
		{"pace=fast", `!pace="fast": unknown value (want none|kernel)`},
		{"work=-1", "!work=\"-1\": out of range"},
		{"work=lots", `!work="lots": not an integer`},
		{"preset=rate+node", `!preset="rate+node": unknown value`}, // meant rate without skip; gone, not aliased
		{"preset=fast", "!(want none|base|node|delay|skip|rate|rate+skip|rate+skip+node)"},
		{"read=skip=2", "!onein=K"},
		{"read=onein=0", "!K 0 out of range"},
		{"write=ratelimit=0", "!out of range"},
		{"write=ratelimit=2s", "!out of range"},
		{"write=threshold=0", "!out of range"},
		{"write=often", "!write=\"often\": unknown value (want every|threshold=N|ratelimit[=D]|delay; N 1..1048576, D 1us..1s, 1ms if omitted)"},
		{"scan=full", "!only store=pernode walks a node mask"},
		{"preset=node/store=percpu/scan=full", "!only store=pernode"},
		{"scan=sideways", `!"sideways"`},
		{"store=xsync", "!(want atomic|falseshare|pernode|percpu)"},
		{"stride=96", `!stride="96": stride 96 is not a power of two`},
		{"colour=red", `!unknown variant key "colour"`},
		{"store", "!key=value"},
		{"store=atomic/store=percpu", "!given twice"},
		{"preset=\n", "!preset"},
	})
	// The benchmark's extra stores are listed when one is misspelt, and keep
	// their own layout.
	for in, want := range map[string]string{
		"store=xsnyc":            "(want atomic|falseshare|pernode|percpu|xsync)",
		"store=xsync/stride=128": "lays out its own lines",
		"store=xsync/scan=full":  "only store=pernode",
	} {
		if _, err := newLoadAvg(in, benchStores); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("newLoadAvg(%q, extras) = %v, want an error saying %q", in, err, want)
		}
	}
	// The registered scenario has no xsync.
	spec, _ := bench.Lookup("loadavg")
	if _, err := spec.New("store=xsync"); err == nil {
		t.Error(`registered loadavg accepted store=xsync; it must only exist in benchmarks`)
	}
}

// TestLoadAvgSpec: contend list shows the gap's default and where it comes
// from, and every preset.
func TestLoadAvgSpec(t *testing.T) {
	spec, err := bench.Lookup("loadavg")
	if err != nil {
		t.Fatal(err)
	}
	var keys string
	for _, k := range spec.Keys {
		keys += k.String() + " default " + k.Default + " " + k.Doc + "\n"
	}
	for _, want := range []string{"gap=1us..100ms default 40us", "14M wakeups in 5 s on 224 cpus", "pace=none|kernel", "rate+skip+node", "mig=0..100", "tasks=1..64", "hz=1000|250"} {
		if !strings.Contains(keys, want) {
			t.Errorf("Spec.Keys does not say %q", want)
		}
	}
	for _, u := range spec.Units {
		if strings.Contains(u.Name, "ns") || strings.Contains(u.Name, "MB") {
			t.Errorf("unit %q would be rescaled by benchfmt", u.Name)
		}
	}
}

// testVariants are the configurations every correctness test runs: the
// thread's presets, every storage, every write and read policy, paced.
func testVariants() []string {
	var vs []string
	for _, p := range counter.Presets() {
		vs = append(vs, "preset="+p)
	}
	return append(vs,
		"store=falseshare", "store=percpu", "store=pernode/scan=full", "store=atomic/stride=128",
		"write=threshold=16", "write=ratelimit=10us", "store=percpu/write=delay/read=onein=3",
		"mig=0", "mig=100/work=10", "tasks=8/hz=250", "store=xsync", "store=xsync/write=ratelimit/read=skip",
		"preset=rate/pace=kernel/gap=2us",
	)
}

// TestLoadAvgRun runs every variant through the real runner on two workers.
// Finish checks the group itself (no write lost, every task in one place,
// every handed-over unit of load drained or pending and attached) and fails
// the run otherwise.
func TestLoadAvgRun(t *testing.T) {
	topo := testTopo(t)
	cpus := testCPUs(t, topo, 2)
	ops := int64(6000)
	if testing.Short() {
		ops = 2000
	}
	for _, v := range testVariants() {
		s, err := newLoadAvg(v, benchStores)
		if err != nil {
			t.Fatal(err)
		}
		res := runScenario(t, s, topo, cpus, ops)
		if res.Ops == 0 {
			t.Errorf("%s: no operations ran", v)
		}
		want := []bench.Unit{Writes, ReadLines, CfsRqWritesPerSec, ErrSamples, ErrRejected, LoadMoves, IdlePct}
		if s.cfg.extra == nil {
			want = append(want, SharedWrites)
		}
		if s.cfg.v.Store == counter.StorePerNode && s.cfg.extra == nil {
			want = append(want, LocalSlots)
		}
		for _, u := range want {
			if val := benchtest.Metric(t, res, u); val < 0 || math.IsNaN(val) {
				t.Errorf("%s: metric %s = %v, want a number ≥ 0", v, u.Name, val)
			}
		}
		if s.stores != nil {
			t.Errorf("%s: store still open after the run", v)
		}
	}
}

// TestLoadAvgBenchtime1x: one operation is a run too (go test -benchtime=1x).
func TestLoadAvgBenchtime1x(t *testing.T) {
	topo := testTopo(t)
	for _, n := range []int{1, 2} {
		res := runScenario(t, benchtest.New(t, "loadavg", "preset=rate"), topo, testCPUs(t, topo, n), 1)
		if res.Ops < 1 {
			t.Errorf("%d workers: %d ops", n, res.Ops)
		}
	}
}

// lossyStore drops every other write: the group check must catch it.
type lossyStore struct {
	counter.Store
	mu sync.Mutex
	n  int
}

func (l *lossyStore) AddAt(cpu, node int, d int64) {
	l.mu.Lock()
	l.n++
	drop := l.n%2 == 0
	l.mu.Unlock()
	if !drop {
		l.Store.AddAt(cpu, node, d)
	}
}

func TestLoadAvgConservationCatchesLoss(t *testing.T) {
	topo := testTopo(t)
	extras := map[string]extraStore{"lossy": func(env *bench.Env) (counter.Store, int, error) {
		a, err := counter.NewAtomic(counter.Options{})
		return &lossyStore{Store: a}, 1, err
	}}
	s, err := newLoadAvg("store=lossy", extras)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bench.Run(s, bench.Config{Topology: topo, CPUs: testCPUs(t, topo, 1), Ops: 3000})
	if err == nil || !strings.Contains(err.Error(), "writes were lost") {
		t.Fatalf("Run with a store that loses writes = %v, want the group check to fail", err)
	}
	if s.stores != nil {
		t.Error("store left open after a failed Finish")
	}
}

// TestLoadAvgConservation runs four unpinned workers at once, tasks
// migrating between them through the real handoff (another CPU's sleeper
// list, cfs_rq->removed), under -race in CI. After the run the group check
// holds exactly. Then the tasks stop migrating, and after 12 PELT
// half-lives each cfs_rq's load is its tasks' load within rounding: the
// remnants migrations leave behind (see cfsmodel.StoresConserved) have decayed, and
// nothing else was lost or doubled.
func TestLoadAvgConservation(t *testing.T) {
	const workers = 4
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	s := benchtest.StartUnpinned[*loadAvg](t, "loadavg", "preset=rate", workers)
	t.Cleanup(func() { s.Close() })
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Go(func() {
			for range rounds {
				w.Run(1000)
			}
		})
	}
	wg.Wait()
	if err := cfsmodel.StoresConserved(s.cpus(), s.stores); err != nil {
		t.Fatal(err)
	}
	var moved int64
	for _, w := range s.workers {
		moved += w.cpu.RQ.Stats().Attaches
	}
	if moved == 0 {
		t.Fatal("no task migrated")
	}
	for _, w := range s.workers {
		w.cpu.MigAt = 0
	}
	for _, w := range s.workers { // 400ms of kernel time each, one at a time
		w.Run(10_000)
	}
	if err := cfsmodel.StoresConserved(s.cpus(), s.stores); err != nil {
		t.Fatal(err)
	}
	for _, w := range s.workers {
		c := &w.cpu
		now := int64(c.RQ.Avg().LastUpdateTime)
		var want int64
		n := 0
		for _, ts := range [][]*cfsmodel.Task{c.Queued, c.Local, c.Away.Tasks} {
			for _, tk := range ts {
				want += int64(tk.SE.LoadAt(now))
				n++
			}
		}
		got := c.RQ.Load() - int64(c.RQ.RemovedLoad())
		if d := got - want; d > int64(8*n+8) || -d > int64(8*n+8) {
			t.Errorf("cpu %d: cfs_rq load %d, its %d tasks %d, 400ms after migrations stopped", c.Self, got, n, want)
		}
	}
}

// TestLoadAvgSharedWrites checks which writes count as shared: all of them
// for one counter, those of workers sharing a node for pernode, none for
// percpu, and none at all with one worker.
func TestLoadAvgSharedWrites(t *testing.T) {
	topo := testTopo(t)
	two := testCPUs(t, topo, 2)
	fake2, err := topo.Fake(2)
	if err != nil {
		t.Skipf("cannot split this machine into two fake nodes: %v", err)
	}
	type tc struct {
		variant string
		topo    *affinity.Topology
		cpus    []int
		shared  bool // shared-writes/op == writes/op, else 0
	}
	tests := []tc{
		{"store=atomic", topo, two, true},
		{"store=falseshare", topo, two, true},
		{"store=percpu", topo, two, false},
		{"store=pernode", fake2, []int{fake2.Nodes[0].CPUs.First(), fake2.Nodes[1].CPUs.First()}, false},
		{"store=atomic", topo, two[:1], false},
		{"store=pernode", topo, two[:1], false},
	}
	if len(topo.Nodes) == 1 {
		tests = append(tests, tc{"store=pernode", topo, two, true})
	}
	for _, tt := range tests {
		res := runScenario(t, benchtest.New(t, "loadavg", tt.variant+"/mig=100"), tt.topo, tt.cpus, 4000)
		shared := benchtest.Metric(t, res, SharedWrites)
		writes := benchtest.Metric(t, res, Writes)
		want := 0.0
		if tt.shared {
			want = writes
		}
		if writes == 0 || shared != want {
			t.Errorf("%s on %s cpus %v: shared-writes/op = %v, writes/op = %v; want shared %v", tt.variant, tt.topo.Label(), tt.cpus, shared, writes, want)
		}
	}
	// On fake nodes nothing is node-local, and the placement says so.
	s := benchtest.New(t, "loadavg", "preset=node").(*loadAvg)
	res := runScenario(t, s, fake2, testCPUs(t, fake2, 2), 1000)
	if v := benchtest.Metric(t, res, LocalSlots); v != 0 {
		t.Errorf("pernode on fake nodes: local-slots-%% = %v; want 0", v)
	}
	if n := s.Notes(); len(n) != defaultLevels || !strings.Contains(n[0], "0/2 slots node-local") || !strings.Contains(n[0], "fake") || !strings.Contains(n[1], "level 2") {
		t.Errorf("pernode on fake nodes: Notes() = %q, want each level's placement saying 0/2 slots are node-local on fake nodes", n)
	}
}

// newUnpinned builds a scenario that knows the benchmark's stores and its
// workers without the runner, as benchtest.StartUnpinned does for the
// registered ones.
func newUnpinned(t testing.TB, variant string, workers int) *loadAvg {
	t.Helper()
	s := newBenchLoadAvg(t, variant)
	if err := s.Start(&bench.Env{CPUs: make([]int, workers), Nodes: make([]int, workers)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for i := range workers {
		if _, err := s.Worker(bench.WorkerInfo{Index: i, Workers: workers}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// driveWorkers runs every worker of s for events events at once, each on its
// own goroutine, and finishes the run.
func driveWorkers(t testing.TB, s *loadAvg, events int) *bench.Result {
	t.Helper()
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Go(func() { w.Run(events) })
	}
	wg.Wait()
	res := &bench.Result{Ops: int64(events * len(s.workers))}
	if err := s.Finish(res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLoadAvgErr checks what is provable about the error figures on two
// workers. A store that takes every change (write=threshold=1048576:
// contrib/2^20 is 0 for any load here) is exact: 0. write=every is off by
// at most 1/63 of the peer's load (|delta| ≤ contrib/64 after every call,
// and the kernel calls update_tg_load_avg whenever the load moves). The
// samples are reported, none rejected with one peer: 40000 events give
// about 20 (one per 2048 events on two workers), so "several" holds where
// a starved peer leaves a few without load to weigh (20000 gave 3 in a
// .ci/run beside a cpu hog).
func TestLoadAvgErr(t *testing.T) {
	for _, store := range []string{"atomic", "pernode", "percpu", "xsync"} {
		for _, tt := range []struct {
			write string
			max   float64
		}{
			{"threshold=1048576", 0},
			{"every", 100.0 / 63},
		} {
			v := "store=" + store + "/write=" + tt.write + "/read=every"
			res := driveWorkers(t, newUnpinned(t, v, 2), 40000)
			got := benchtest.Metric(t, res, TGWeightErr)
			if got > tt.max {
				t.Errorf("%s: tgweight-err-%% = %v, want at most %v", v, got, tt.max)
			}
			if n, rej := benchtest.Metric(t, res, ErrSamples), benchtest.Metric(t, res, ErrRejected); n < 5 || rej != 0 {
				t.Errorf("%s: %v samples, %v rejected; want several, none rejected", v, n, rej)
			}
		}
	}
	// With more peers, moving pairs reject samples, and the count says so.
	// Worker 0 samples about once per 4096 of its events here, and a
	// sample whose peers hold no load to weigh is neither: beside a cpu
	// hog (.ci/run's), 40000 events gave 2 taken and 1 rejected of some
	// ten, so the run is four times as long.
	res := driveWorkers(t, newUnpinned(t, "preset=base", 4), 160000)
	t.Logf("4 workers: %v samples, %v rejected", benchtest.Metric(t, res, ErrSamples), benchtest.Metric(t, res, ErrRejected))
	if n, rej := benchtest.Metric(t, res, ErrSamples), benchtest.Metric(t, res, ErrRejected); n+rej < 5 {
		t.Errorf("4 workers: %v samples, %v rejected; want several taken or counted", n, rej)
	}
}

// TestLoadAvgNoAllocs checks that the hot loop allocates nothing once its
// slices have grown, sampling and timing included.
func TestLoadAvgNoAllocs(t *testing.T) {
	for _, v := range []string{"preset=base", "preset=skip", "store=percpu/write=ratelimit"} {
		s := benchtest.StartUnpinned[*loadAvg](t, "loadavg", v, 2)
		w0, w1 := s.workers[0], s.workers[1]
		w0.Run(20000) // grow the task lists to their size
		w1.Run(20000)
		if a := testing.AllocsPerRun(20, func() { w0.Run(2000); w1.Run(2000) }); a != 0 {
			t.Errorf("%s: %v allocations per 4000 events, want 0", v, a)
		}
		if _, timed := w0.shareW.Percent(); w0.samples[0] == 0 || timed == 0 {
			t.Errorf("%s: %d error samples, %d timed events in the allocation test", v, w0.samples[0], timed)
		}
		if err := errors.Join(s.Close(), s.Close()); err != nil {
			t.Errorf("%s: Close twice: %v", v, err)
		}
	}
}

// FuzzLoadAvgVariant checks that no variant string panics the parser, that
// errors are one line, and that a canonical name reads back as itself.
func FuzzLoadAvgVariant(f *testing.F) {
	for _, s := range []string{
		"", "preset=rate+skip+node", "store=pernode/write=ratelimit=500us/read=onein=3/scan=full/gap=25us/pace=kernel/mig=50/tasks=7/hz=250/work=7/stride=128",
		"write=threshold=16", "store=xsync", "preset=skip/read=every", "gap=0", "mig=-1", "a=b=c", "//",
		"preset=rate/clock=rq_clock", "clock=sched_clock", "preset=\n", // once echoed raw into the error, which then spanned two lines
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := newLoadAvg(in, benchStores)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("newLoadAvg(%q): error on more than one line: %q", in, err)
			}
			return
		}
		s2, err := newLoadAvg(s.Variant(), benchStores)
		if err != nil || s2.Variant() != s.Variant() {
			t.Errorf("newLoadAvg(%q) named %q, which reads back as %v, %v", in, s.Variant(), s2, err)
		}
	})
}

// closeErrStore is an atomic store whose Close fails after closing it.
type closeErrStore struct{ counter.Store }

func (c closeErrStore) Close() error {
	return errors.Join(c.Store.Close(), errors.New("munmap refused"))
}

// TestLoadAvgStoreErrors: a store that cannot be made fails the run,
// naming it; a store that cannot be closed fails Finish, naming it, and is
// not closed twice; a Finish whose operation count is not the cfs_rqs'
// refuses the run.
func TestLoadAvgStoreErrors(t *testing.T) {
	topo := testTopo(t)
	cpus := testCPUs(t, topo, 1)
	extras := map[string]extraStore{
		"broken": func(*bench.Env) (counter.Store, int, error) { return nil, 0, errors.New("no such store") },
		"sticky": func(*bench.Env) (counter.Store, int, error) {
			a, err := counter.NewAtomic(counter.Options{})
			return closeErrStore{a}, 1, err
		},
	}
	for _, tt := range []struct{ variant, want string }{
		{"store=broken", "loadavg: store=broken: no such store"},
		{"store=sticky", "loadavg: closing store=sticky: munmap refused"},
	} {
		s, err := newLoadAvg(tt.variant, extras)
		if err != nil {
			t.Fatal(err)
		}
		_, err = bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: 100})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%s) = %v, want an error saying %q", tt.variant, err, tt.want)
		}
		if s.stores != nil {
			t.Errorf("%s: store left open", tt.variant)
		}
		if err := s.Close(); err != nil {
			t.Errorf("%s: Close after the failed run = %v, want nil (closed once)", tt.variant, err)
		}
	}

	s := newUnpinned(t, "preset=base", 2)
	for _, w := range s.workers {
		w.Run(100)
	}
	err := s.Finish(&bench.Result{Ops: 201})
	if err == nil || !strings.Contains(err.Error(), "runner counted 201 operations") {
		t.Errorf("Finish after 200 events told 201 = %v, want the count refused", err)
	}
	if s.stores != nil {
		t.Error("store left open after a refused Finish")
	}
}

// TestTouchOnNode: the first-touch fallback runs the touch on a cpu of the
// node, and says so when the node is offline or has no cpu this process
// may use.
func TestTouchOnNode(t *testing.T) {
	topo := testTopo(t)
	node := topo.Nodes[0].ID
	ran := false
	if err := touchOnNode(topo)(node, func() { ran = true }); err != nil || !ran {
		t.Errorf("touch on node %d: %v, ran %v; want it run", node, err, ran)
	}
	if err := touchOnNode(topo)(999, func() { t.Error("touch ran for an offline node") }); err == nil || !strings.Contains(err.Error(), "node 999 is not online") {
		t.Errorf("touch on node 999 = %v, want it refused as offline", err)
	}
	none := *topo
	none.AllowedCPUs = nodemask.Bitmap{}
	if err := touchOnNode(&none)(node, func() { t.Error("touch ran with no usable cpu") }); err == nil || !strings.Contains(err.Error(), "has no cpu this process may use") {
		t.Errorf("touch with no allowed cpu = %v, want it refused", err)
	}
}
