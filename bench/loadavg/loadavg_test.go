package loadavg

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/counter"
)

// laCPUs returns the test topology and n compact CPUs on it, or skips.
func laCPUs(t testing.TB, topo *affinity.Topology, n int) []int {
	t.Helper()
	cpus, err := affinity.Placement{Policy: affinity.Compact}.Assign(topo, n, false)
	if err != nil {
		t.Skipf("need %d usable cpus: %v", n, err)
	}
	return cpus
}

func laTopo(t testing.TB) *affinity.Topology {
	t.Helper()
	topo, err := benchtest.Topology()
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// laRun runs s for ops operations on cpus and fails the test on error.
func laRun(t testing.TB, s bench.Scenario, topo *affinity.Topology, cpus []int, ops int64) *bench.Result {
	t.Helper()
	res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: ops})
	if err != nil {
		t.Fatalf("Run(%s) on cpus %v: %v", s.Variant(), cpus, err)
	}
	return res
}

func TestLoadAvgVariant(t *testing.T) {
	const tail = "/mig=79/work=0/stride=line/scan=bounded"
	tests := []struct{ in, want string }{
		{"", "preset=base/store=atomic/write=every/read=every" + tail},
		{"preset=base", "preset=base/store=atomic/write=every/read=every" + tail},
		{"preset=rate+node", "preset=rate+node/store=pernode/write=ratelimit/read=every" + tail},
		{"store=pernode/write=ratelimit", "preset=rate+node/store=pernode/write=ratelimit/read=every" + tail},
		{"preset=rate/store=pernode", "preset=rate+node/store=pernode/write=ratelimit/read=every" + tail},
		{"preset=skip/read=every", "preset=delay/store=pernode/write=delay/read=every" + tail},
		{"preset=rate/read=skip=2", "preset=rate+skip/store=atomic/write=ratelimit/read=skip" + tail},
		{"preset=none/store=percpu", "preset=none/store=percpu/write=every/read=every" + tail},
		{"write=threshold=16", "preset=none/store=atomic/write=threshold=16/read=every" + tail},
		{"write=ratelimit=1ms", "preset=rate/store=atomic/write=ratelimit/read=every" + tail},
		{"store=pernode/scan=full", "preset=node/store=pernode/write=every/read=every/mig=79/work=0/stride=line/scan=full"},
		{"write=ratelimit=2ms/read=skip=4/mig=0/work=100/stride=128",
			"preset=none/store=atomic/write=ratelimit=2ms/read=skip=4/mig=0/work=100/stride=128/scan=bounded"},
	}
	for _, tt := range tests {
		s, err := newLoadAvg(tt.in, nil)
		if err != nil {
			t.Errorf("newLoadAvg(%q): %v", tt.in, err)
			continue
		}
		if got := s.Variant(); got != tt.want {
			t.Errorf("newLoadAvg(%q).Variant() = %q, want %q", tt.in, got, tt.want)
		}
		// The canonical name reads back as itself.
		s2, err := newLoadAvg(s.Variant(), nil)
		if err != nil || s2.Variant() != s.Variant() {
			t.Errorf("newLoadAvg(%q) = %v, %v; want the same variant back", s.Variant(), s2, err)
		}
	}
	for _, p := range counter.Presets() {
		s, err := newLoadAvg("preset="+p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s.Variant(), "preset="+p+"/") {
			t.Errorf("preset=%s is named %q", p, s.Variant())
		}
	}
	s, err := newLoadAvg("store=xsync/read=skip=1024", laBenchStores)
	if err != nil {
		t.Fatal(err)
	}
	if want := "preset=none/store=xsync/write=every/read=skip=1024" + tail; s.Variant() != want {
		t.Errorf("xsync variant = %q, want %q", s.Variant(), want)
	}
}

func TestLoadAvgBadVariant(t *testing.T) {
	tests := []struct {
		in   string
		want []string // substrings of the error
	}{
		{"store=xsync", []string{`store "xsync"`, "atomic, falseshare, pernode, percpu"}},
		{"write=often", []string{`write "often"`, "every, threshold=N, ratelimit=D, delay"}},
		{"read=never", []string{`read "never"`, "every, skip=K"}},
		{"write=ratelimit=0", []string{`"ratelimit=0"`, "out of range"}},
		{"write=ratelimit=-1ms", []string{`"ratelimit=-1ms"`, "out of range"}},
		{"write=ratelimit=2s", []string{`"ratelimit=2s"`, "out of range"}},
		{"write=ratelimit=soon", []string{`"ratelimit=soon"`, "syntax"}},
		{"write=threshold=0", []string{`"threshold=0"`, "out of range"}},
		{"write=threshold=-4", []string{`"threshold=-4"`, "out of range"}},
		{"read=skip=0", []string{`"skip=0"`, "out of range"}},
		{"work=-1", []string{"work=-1", "out of range"}},
		{"work=lots", []string{`work="lots"`}},
		{"mig=101", []string{"mig=101", "out of range"}},
		{"preset=fast", []string{`preset "fast"`, "none, base, node, delay, skip, rate, rate+node, rate+skip"}},
		{"scan=full", []string{"scan=full", "store=atomic", "pernode"}},
		{"scan=sideways", []string{`"sideways"`, "bounded, full"}},
		{"stride=96", []string{`stride "96"`}},
		{"stride=32", []string{`stride "32"`, "below the cache line"}},
		{"colour=red", []string{`"colour"`, "preset, store, write, read, mig, work, stride, scan"}},
		{"store", []string{`"store"`, "key=value"}},
		{"store=atomic/store=percpu", []string{"given twice"}},
	}
	for _, tt := range tests {
		_, err := newLoadAvg(tt.in, nil)
		if err == nil {
			t.Errorf("newLoadAvg(%q) succeeded, want an error", tt.in)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "loadavg: ") {
			t.Errorf("newLoadAvg(%q) error %q: want one line starting with \"loadavg: \"", tt.in, msg)
		}
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("newLoadAvg(%q) error %q does not say %q", tt.in, msg, w)
			}
		}
	}
	// The benchmark's extra stores are listed when one is misspelt, and keep
	// their own layout.
	for in, want := range map[string]string{
		"store=xsnyc":            "atomic, falseshare, pernode, percpu, xsync",
		"store=xsync/stride=128": "lays out its own lines",
		"store=xsync/scan=full":  "only store=pernode",
	} {
		if _, err := newLoadAvg(in, laBenchStores); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("newLoadAvg(%q, extras) = %v, want an error saying %q", in, err, want)
		}
	}
	// The registered scenario has no xsync.
	if _, err := mustSpec(t).New("store=xsync"); err == nil {
		t.Error(`registered loadavg accepted store=xsync; it must only exist in benchmarks`)
	}
}

func mustSpec(t testing.TB) *bench.Spec {
	t.Helper()
	spec, err := bench.Lookup("loadavg")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// laVariants are the configurations every correctness test runs: the
// thread's presets, every storage, every write and read policy.
func laVariants() []string {
	var vs []string
	for _, p := range counter.Presets() {
		vs = append(vs, "preset="+p)
	}
	return append(vs,
		"store=falseshare", "store=percpu", "store=pernode/scan=full", "store=atomic/stride=128",
		"write=threshold=16", "write=ratelimit=10us", "store=percpu/write=delay/read=skip=3",
		"mig=0", "mig=100/work=10", "store=xsync", "store=xsync/write=ratelimit/read=skip=5",
	)
}

// TestLoadAvgRun runs every variant through the real runner on two workers.
// Finish checks conservation itself (after every cfs_rq flushes, the store
// holds exactly the sum of their loads) and fails the run otherwise.
func TestLoadAvgRun(t *testing.T) {
	topo := laTopo(t)
	cpus := laCPUs(t, topo, 2)
	ops := int64(6000)
	if testing.Short() {
		ops = 2000
	}
	for _, v := range laVariants() {
		s, err := newLoadAvg(v, laBenchStores)
		if err != nil {
			t.Fatal(err)
		}
		res := laRun(t, s, topo, cpus, ops)
		if res.Ops == 0 {
			t.Errorf("%s: no operations ran", v)
		}
		want := []string{"writes/op", "read-lines/op", "cfsrq-writes/s"}
		if s.cfg.extra == nil {
			want = append(want, "shared-writes/op")
		}
		if s.cfg.v.Store == counter.StorePerNode && s.cfg.extra == nil {
			want = append(want, "local-slots-%")
		}
		for _, u := range want {
			if val, ok := res.Metric(u); !ok || val < 0 || math.IsNaN(val) {
				t.Errorf("%s: metric %s = %v, %v; want a number ≥ 0", v, u, val, ok)
			}
		}
		if s.store != nil {
			t.Errorf("%s: store still open after the run", v)
		}
	}
}

// lossyStore drops every other write: conservation must catch it.
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
	topo := laTopo(t)
	extras := map[string]laExtraStore{"lossy": func(env *bench.Env) (counter.Store, int, error) {
		a, err := counter.NewAtomic(counter.Options{})
		return &lossyStore{Store: a}, 1, err
	}}
	s, err := newLoadAvg("store=lossy", extras)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bench.Run(s, bench.Config{Topology: topo, CPUs: laCPUs(t, topo, 1), Ops: 1000})
	if err == nil || !strings.Contains(err.Error(), "after every cfs_rq flushed") {
		t.Fatalf("Run with a store that loses writes = %v, want a conservation error", err)
	}
	if s.store != nil {
		t.Error("store left open after a failed Finish")
	}
}

// TestLoadAvgSharedWrites checks which writes count as shared: all of them
// for one counter, those of workers sharing a node for pernode, none for
// percpu, and none at all with one worker.
func TestLoadAvgSharedWrites(t *testing.T) {
	topo := laTopo(t)
	two := laCPUs(t, topo, 2)
	fake2, err := topo.Fake(2)
	if err != nil {
		t.Skipf("cannot split this machine into two fake nodes: %v", err)
	}
	tests := []struct {
		variant string
		topo    *affinity.Topology
		cpus    []int
		shared  bool // shared-writes/op == writes/op, else 0
	}{
		{"store=atomic", topo, two, true},
		{"store=falseshare", topo, two, true},
		{"store=percpu", topo, two, false},
		{"store=pernode", fake2, []int{fake2.Nodes[0].CPUs.First(), fake2.Nodes[1].CPUs.First()}, false},
		{"store=atomic", topo, two[:1], false},
		{"store=pernode", topo, two[:1], false},
	}
	if len(topo.Nodes) == 1 {
		tests = append(tests, struct {
			variant string
			topo    *affinity.Topology
			cpus    []int
			shared  bool
		}{"store=pernode", topo, two, true})
	}
	for _, tt := range tests {
		res := laRun(t, benchtest.New(t, "loadavg", tt.variant+"/mig=100"), tt.topo, tt.cpus, 4000)
		shared, _ := res.Metric("shared-writes/op")
		writes, _ := res.Metric("writes/op")
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
	res := laRun(t, s, fake2, laCPUs(t, fake2, 2), 1000)
	if v, ok := res.Metric("local-slots-%"); !ok || v != 0 {
		t.Errorf("pernode on fake nodes: local-slots-%% = %v, %v; want 0", v, ok)
	}
	if n := s.Notes(); len(n) != 1 || !strings.Contains(n[0], "0/2 slots node-local") || !strings.Contains(n[0], "fake") {
		t.Errorf("pernode on fake nodes: Notes() = %q, want the placement saying 0/2 slots are node-local on fake nodes", n)
	}
}

// TestLoadAvgErr checks what is provable about err-% with one worker, where
// the sampler sees the store at rest: a store that takes every change is
// exact, and write=every is off by at most 1/63 (|delta| ≤ contrib/64, so
// |contrib - load| ≤ load/63).
func TestLoadAvgErr(t *testing.T) {
	topo := laTopo(t)
	one := laCPUs(t, topo, 1)
	for _, store := range []string{"atomic", "falseshare", "pernode", "percpu", "xsync"} {
		for _, tt := range []struct {
			write string
			max   float64
		}{
			{"threshold=1048576", 0},
			{"every", 100.0 / 63},
		} {
			v := fmt.Sprintf("store=%s/write=%s/read=every", store, tt.write)
			s, err := newLoadAvg(v, laBenchStores)
			if err != nil {
				t.Fatal(err)
			}
			res := laRun(t, s, topo, one, 20000)
			got, ok := res.Metric("err-%")
			if !ok || got > tt.max {
				t.Errorf("%s on one worker: err-%% = %v, %v; want at most %v", v, got, ok, tt.max)
			}
			if w := s.workers[0]; w.samples < 2 || w.rejected != 0 {
				t.Errorf("%s on one worker: %d samples, %d rejected; want several, none rejected", v, w.samples, w.rejected)
			}
		}
	}
}

// TestLoadAvgModel checks the load model on its own, with a made-up clock.
func TestLoadAvgModel(t *testing.T) {
	for _, mig := range []int{0, 79, 100} {
		var m laModel
		rng := laSeed(3)
		m.init(&rng, mig, 0)
		const steps = 200_000
		var removals, attaches, now int64
		for range steps {
			prev := m.state
			now += 100
			load, weight, removed := m.step(now, laNext(&rng))
			var run, att int64
			for i, st := range m.state {
				switch st {
				case laQueued:
					run += laWeights[i]
					att += laWeights[i]
				case laBlocked:
					att += laWeights[i]
				}
				if prev[i] == laQueued && st == laAway && !removed {
					t.Fatalf("mig=%d: task %d left without removed load", mig, i)
				}
				if prev[i] == laAway && st == laQueued {
					attaches++
				}
			}
			if removed {
				removals++
			}
			if run != m.run || att != m.att || weight != counter.ScaleLoad(run) {
				t.Fatalf("mig=%d: run %d att %d weight %d, tasks say run %d att %d", mig, m.run, m.att, weight, run, att)
			}
			if load < 0 || (att == 0 && load != 0) || float64(load) > float64(att)+1 {
				t.Fatalf("mig=%d: load %d with attached weight %d", mig, load, att)
			}
		}
		// One event in mig% moves a task between CPUs (a removal or an
		// attach, in the steady state half each).
		frac := float64(removals+attaches) / steps
		if math.Abs(frac-float64(mig)/100) > 0.01 {
			t.Errorf("mig=%d: %.3f of events migrate a task, want %.2f", mig, frac, float64(mig)/100)
		}
	}

	// PELT: after 32 periods of 1024us the load has closed half of its
	// distance to the runnable weight (mig=0: no task ever leaves, so the
	// step's task change does not move the load).
	var m laModel
	rng := laSeed(0)
	m.init(&rng, 0, 0)
	m.load = 0
	run := float64(m.run)
	load, _, _ := m.step(32*1024*1000, laNext(&rng))
	if want := run / 2; math.Abs(float64(load)-want) > 1 {
		t.Errorf("after 32 PELT periods from 0 towards %v: load %d, want %v", run, load, want)
	}

	// The same seed draws the same events.
	var a, b laModel
	ra, rb := laSeed(7), laSeed(7)
	a.init(&ra, 79, 0)
	b.init(&rb, 79, 0)
	for i := range int64(1000) {
		la, wa, xa := a.step(i*50, laNext(&ra))
		lb, wb, xb := b.step(i*50, laNext(&rb))
		if la != lb || wa != wb || xa != xb {
			t.Fatalf("event %d: seeds agree but models differ: (%d %d %v) vs (%d %d %v)", i, la, wa, xa, lb, wb, xb)
		}
	}
	if laSeed(0) == laSeed(1) || laSeed(0) == 0 {
		t.Error("workers 0 and 1 share a seed, or a seed is zero")
	}
}

// TestLoadAvgRateLimitAverages replays the model with a made-up clock and no
// concurrency: W cfs_rqs, events 40us apart on each (the thread's rate on
// SPR, about 25k en/dequeues per CPU per second), write=ratelimit on one
// atomic counter, the error measured exactly between events. Each cfs_rq's
// held-back load is as large as on two CPUs, but the group's relative error
// shrinks as cfs_rqs are added (about as 1/sqrt(W)), which is why the
// thread's 224-CPU machines could afford a 1ms limit while two workers here
// cannot.
func TestLoadAvgRateLimitAverages(t *testing.T) {
	errAt := func(w int) float64 {
		st, err := counter.NewAtomic(counter.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		rqs := make([]*counter.CfsRq, w)
		ms := make([]laModel, w)
		rngs := make([]uint64, w)
		for i := range w {
			if rqs[i], err = counter.NewCfsRq(st, counter.WritePolicy{Kind: counter.WriteRateLimit}, counter.ReadPolicy{}, i, 0); err != nil {
				t.Fatal(err)
			}
			rngs[i] = laSeed(i)
			ms[i].init(&rngs[i], 79, 0)
		}
		const gap, rounds = 40_000, 4000 // 160ms of events
		var sum float64
		var n int
		for r := range int64(rounds) {
			for i := range w {
				now := r*gap + int64(i)*gap/int64(w)
				load, weight, removed := ms[i].step(now, laNext(&rngs[i]))
				rqs[i].SetLoad(load, weight)
				rqs[i].UpdateTGLoadAvg(now, removed)
			}
			if r >= rounds/4 { // after the first writes have settled
				var truth int64
				for _, rq := range rqs {
					truth += rq.Load()
				}
				if truth > 0 {
					sum += math.Abs(float64(st.Sum()-truth)) / float64(truth)
					n++
				}
			}
		}
		return 100 * sum / float64(n)
	}
	e2, e32 := errAt(2), errAt(32)
	t.Logf("write=ratelimit, events 40us apart: err-%% %.1f with 2 cfs_rqs, %.1f with 32", e2, e32)
	if e32 > e2/2 {
		t.Errorf("err-%% with 32 cfs_rqs = %.1f, with 2 = %.1f; want the larger group at most half as wrong", e32, e2)
	}
}

// TestLoadAvgNoAllocs checks that the hot loop allocates nothing, sampling
// included.
func TestLoadAvgNoAllocs(t *testing.T) {
	topo := laTopo(t)
	for _, v := range []string{"preset=base", "preset=skip", "store=percpu/write=ratelimit"} {
		s := benchtest.New(t, "loadavg", v).(*loadAvg)
		env := &bench.Env{Topology: topo, CPUs: []int{0}, Nodes: []int{topo.NodeOf(0)}}
		if err := s.Start(env); err != nil {
			t.Fatal(err)
		}
		wk, err := s.Worker(bench.WorkerInfo{Index: 0, Workers: 1, CPU: 0, Node: env.Nodes[0]})
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(20, func() { wk.Run(5000) }); a != 0 {
			t.Errorf("%s: %v allocations per 5000 events, want 0", v, a)
		}
		if s.workers[0].samples == 0 {
			t.Errorf("%s: no error samples taken in the allocation test", v)
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
		"", "preset=rate+node", "store=pernode/write=ratelimit=500us/read=skip=3/mig=50/work=7/stride=128/scan=full",
		"write=threshold=16", "store=xsync", "preset=skip/read=every", "write=ratelimit=0", "mig=-1", "a=b=c", "//",
		"preset=\n", // once echoed raw into the error, which then spanned two lines
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := newLoadAvg(in, laBenchStores)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("newLoadAvg(%q): error on more than one line: %q", in, err)
			}
			return
		}
		s2, err := newLoadAvg(s.Variant(), laBenchStores)
		if err != nil || s2.Variant() != s.Variant() {
			t.Errorf("newLoadAvg(%q) named %q, which reads back as %v, %v", in, s.Variant(), s2, err)
		}
	})
}
