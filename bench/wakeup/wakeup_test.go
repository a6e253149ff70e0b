package wakeup

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/internal/fixture"
)

func TestVariants(t *testing.T) {
	benchtest.CheckVariants(t, "wakeup", [][2]string{
		{"", "wake=affine/lines=16/mig=10/tasks=4/rate=226000"},
		{"mig=2.40/wake=prev", "wake=prev/lines=16/mig=2.4/tasks=4/rate=226000"},
		{"mig=0.18/lines=1024/tasks=1/rate=1", "wake=affine/lines=1024/mig=0.18/tasks=1/rate=1"},
		{"mig=007.0/wake=idle", "wake=idle/lines=16/mig=7/tasks=4/rate=226000"},
		{"mig=100", "wake=affine/lines=16/mig=100/tasks=4/rate=226000"},
		{"wake=sync", `!wake="sync": unknown value (want affine|prev|idle|llcstats|basic)`},
		{"wake=basic/sync=100/llc=1", "wake=basic/lines=16/mig=10/tasks=4/rate=226000/sync=100/llc=1"},
		{"wake=llcstats/sync=0/llc=host", "wake=llcstats/lines=16/mig=10/tasks=4/rate=226000"},
		{"llc=4096/sync=37", "wake=affine/lines=16/mig=10/tasks=4/rate=226000/sync=37/llc=4096"},
		{"wake=llcstats/stats=live/llc=2", "wake=llcstats/lines=16/mig=10/tasks=4/rate=226000/llc=2/stats=live"},
		{"wake=llcstats/stats=balance", "wake=llcstats/lines=16/mig=10/tasks=4/rate=226000"},
		{"wake=basic/stats=balance", "wake=basic/lines=16/mig=10/tasks=4/rate=226000"},
		{"wake=basic/stats=live", "!stats=live is read only by wake=llcstats, not wake=basic"},
		{"stats=live", "!stats=live is read only by wake=llcstats, not wake=affine"},
		{"wake=llcstats/stats=stale", `!stats="stale": unknown value (want balance|live)`},
		{"sync=101", "!sync=\"101\": out of range (want 0..100)"},
		{"sync=50%", `!sync="50%": not an integer`},
		{"llc=0", "!llc=\"0\": out of range (want host|1..4096)"},
		{"llc=auto", `!llc="auto": unknown value (want host|1..4096)`},
		{"lines=0", "!lines=\"0\": out of range (want 1..16384)"},
		{"lines=16385", "!out of range"},
		{"lines=1e3", "!: not an integer"},
		{"tasks=0", "!tasks=\"0\": out of range (want 1..64)"},
		{"tasks=64/lines=2048", "!want tasks×lines ≤ 65536"},
		{"rate=0", "!rate=\"0\": out of range"},
		{"mig=100.01", "!mig=\"100.01\": not a per cent"},
		{"mig=-1", `!mig="-1": not a per cent from 0 to 100 with at most two decimals (want 0..100; at most two decimals)`},
		{"mig=2.345", "!: not a per cent"},
		{"mig=1e1", "!: not a per cent"},
		{"mig=.5", "!: not a per cent"},
		{"mig=5.", "!: not a per cent"},
		{"mig=NaN", "!: not a per cent"},
		{"mig=1000", "!: not a per cent"},
		{"speed=fast", `!unknown variant key "speed" (want wake, lines, mig, tasks, rate, sync, llc, stats)`},
		{"wake=prev/wake=idle", "!given twice"},
		{"wake", "!malformed variant part"},
	})
}

func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		in   string
		bp   int
		want string
	}{
		{"0", 0, "0"}, {"0.0", 0, "0"}, {"00", 0, "0"}, {"0.05", 5, "0.05"}, {"0.18", 18, "0.18"},
		{"0.5", 50, "0.5"}, {"0.50", 50, "0.5"}, {"2.4", 240, "2.4"}, {"10", 1000, "10"},
		{"99.99", 9999, "99.99"}, {"100", 10000, "100"}, {"100.00", 10000, "100"},
	} {
		bp, err := parsePercent(tt.in)
		if err != nil || bp != tt.bp || formatPercent(bp) != tt.want {
			t.Errorf("parsePercent(%q) = %d, %v (formats as %q); want %d, %q", tt.in, bp, err, formatPercent(bp), tt.bp, tt.want)
		}
	}
	for bp := range 10001 {
		if got, err := parsePercent(formatPercent(bp)); err != nil || got != bp {
			t.Fatalf("parsePercent(formatPercent(%d) = %q) = %d, %v", bp, formatPercent(bp), got, err)
		}
	}
}

// The variant parser never panics, errors in one line, and what it accepts
// reads back as itself. Seed corpus in testdata/fuzz/FuzzWakeupVariant.
func FuzzWakeupVariant(f *testing.F) {
	f.Fuzz(func(t *testing.T, variant string) {
		s, err := newWakeup(variant)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "wakeup: ") {
				t.Errorf("newWakeup(%q) error = %q, want one line starting wakeup: ", variant, err)
			}
			return
		}
		again, err := newWakeup(s.Variant())
		if err != nil || again.Variant() != s.Variant() || again.cfg != s.cfg {
			t.Errorf("newWakeup(%q).Variant() = %q, which reads back as %+v, %v", variant, s.Variant(), again, err)
		}
	})
}

// A migration needs somewhere to go: the spec asks for two workers, and a run
// on one is refused with a one-line reason rather than measuring nothing.
func TestMinWorkers(t *testing.T) {
	spec, err := bench.Lookup("wakeup")
	if err != nil {
		t.Fatal(err)
	}
	if spec.MinWorkers != 2 {
		t.Errorf("MinWorkers = %d, want 2", spec.MinWorkers)
	}
	s := benchtest.New(t, "wakeup", "")
	err = s.Start(&bench.Env{CPUs: []int{0}, Nodes: []int{0}})
	if err == nil || !strings.Contains(err.Error(), "at least 2 cpus") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Start with 1 worker: error = %v, want one line saying it needs at least 2 cpus", err)
	}
	if err := s.Start(&bench.Env{CPUs: []int{0, 0}, Nodes: []int{0, 0}}); err != nil {
		t.Errorf("Start with 2 workers: %v", err)
	}
}

// setup builds the scenario unpinned on n model cpus with the given LLC and
// node of each, every run timed.
func setup(t *testing.T, variant string, llc, node []int32) (*wakeup, []*worker) {
	t.Helper()
	s := benchtest.StartUnpinned[*wakeup](t, "wakeup", variant, len(llc))
	s.setClasses(llc, node)
	for _, w := range s.workers {
		w.stayT, w.movedT = newSamples(1), newSamples(1)
	}
	return s, s.workers
}

// wake is one operation's wakeup of task k on w, without the random choice.
func wake(w *worker, k int32) bool {
	w.attempts++
	return w.wakeTask(k)
}

func total(s *wakeup) counts {
	var c counts
	for _, w := range s.workers {
		c.add(&w.counts)
	}
	return c
}

// tally is the part of counts the hand-worked cases state.
type tally struct {
	wakeups, noops, migrations, crossLLC, crossNode, remoteWakes, runs, moved int64
}

func tallyOf(c counts) tally {
	return tally{c.wakeups, c.noops, c.migrations, c.crossLLC, c.crossNode, c.remoteWakes, c.runs, c.moved}
}

// The machine of the hand-worked cases: cpus 0 and 1 share LLC 0 on node 0,
// cpu 2 has LLC 1 on node 0, cpu 3 LLC 2 on node 1. With tasks=1, task k
// starts on cpu k.
var (
	handLLC  = []int32{0, 0, 1, 2}
	handNode = []int32{0, 0, 0, 1}
)

func TestAccountingAffine(t *testing.T) {
	s, w := setup(t, "wake=affine/lines=4/mig=0/tasks=1", handLLC, handNode)
	steps := []struct {
		w      int
		k      int32
		target int32
	}{
		{0, 1, 0}, // same LLC: a migration, 4 lines pulled
		{0, 2, 0}, // from LLC 1, same node
		{0, 3, 0}, // from LLC 2 on node 1
		{1, 1, 1}, // task 1 back to cpu 1 from cpu 0: same LLC
		{0, 0, 0}, // task 0 at home: no migration, nothing pulled
		{2, 2, 2}, // task 2 back from cpu 0 across LLCs
	}
	for _, st := range steps {
		if !wake(w[st.w], st.k) {
			t.Fatalf("cpu %d waking task %d: found it awake", st.w, st.k)
		}
		if got := s.tasks[st.k].cpu.Load(); got != st.target {
			t.Errorf("cpu %d woke task %d onto cpu %d, want %d", st.w, st.k, got, st.target)
		}
	}
	want := tally{wakeups: 6, migrations: 5, crossLLC: 3, crossNode: 1, runs: 6, moved: 5}
	if got := tallyOf(total(s)); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	res := finish(t, s, 6)
	for _, m := range []struct {
		u    bench.Unit
		want float64
	}{
		{Migrations, 5.0 / 6}, {LinesPulled, 20.0 / 6}, {RemoteWakes, 0},
		{CrossLLC, 100 * 3.0 / 6}, {CrossNode, 100 * 1.0 / 6}, {Noops, 0},
	} {
		if got := benchtest.Metric(t, res, m.u); math.Abs(got-m.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", m.u, got, m.want)
		}
	}
	if _, ok := res.Metric(MigrationCost.Name); !ok {
		t.Errorf("no %s with every run timed", MigrationCost)
	}
}

func TestAccountingPrev(t *testing.T) {
	s, w := setup(t, "wake=prev/lines=8/mig=0/tasks=1", handLLC, handNode)
	if !wake(w[0], 3) {
		t.Fatal("task 3 was not asleep")
	}
	// Queued on cpu 3, not yet run: a second wakeup finds it awake.
	if wake(w[1], 3) {
		t.Error("waking a task queued on another cpu's wake list claimed it again")
	}
	if n := s.rqs[3].nr.Load(); n != 1 {
		t.Errorf("cpu 3 has %d queued, want 1", n)
	}
	// Stopped here, Finish must count task 3 as pending, not lost.
	c := total(s)
	if err := s.check(&c); err != nil {
		t.Fatalf("check with a task queued: %v", err)
	}
	w[3].drain()
	if n := s.rqs[3].nr.Load(); n != 0 || s.rqs[3].head.Load() != 0 {
		t.Errorf("after the drain cpu 3 has %d queued, head %d; want an empty list", n, s.rqs[3].head.Load())
	}
	wake(w[2], 3)
	wake(w[0], 0) // its own task: run here
	w[3].drain()
	want := tally{wakeups: 3, noops: 1, remoteWakes: 2, runs: 3}
	if got := tallyOf(total(s)); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	res := finish(t, s, 4)
	if got := benchtest.Metric(t, res, Noops); got != 25 {
		t.Errorf("%s = %v, want 25", Noops, got)
	}
	if got := benchtest.Metric(t, res, RemoteWakes); got != 0.5 {
		t.Errorf("%s = %v, want 0.5", RemoteWakes, got)
	}
	if _, ok := res.Metric(MigrationCost.Name); ok {
		t.Errorf("%s reported without a single moved run", MigrationCost)
	}
}

func TestAccountingIdle(t *testing.T) {
	// cpus 0, 1 and 2 share LLC 0; cpu 3 is alone on LLC 1, node 1.
	s, w := setup(t, "wake=idle/lines=2/mig=0/tasks=1", []int32{0, 0, 0, 1}, []int32{0, 0, 0, 1})
	steps := []struct {
		w      int
		k      int32
		target int32
		why    string
	}{
		{0, 0, 1, "its own cpu is busy waking: the next idle cpu of the LLC"},
		{0, 3, 2, "prev is on another LLC; cpu 1 has task 0 queued, so cpu 2"},
		{2, 1, 0, "prev (cpu 1) shares the LLC but has task 0 queued: cpu 0 comes after 2 in wrap order"},
	}
	for _, st := range steps {
		wake(w[st.w], st.k)
		if got := s.tasks[st.k].cpu.Load(); got != st.target {
			t.Errorf("cpu %d woke task %d onto %d, want %d: %s", st.w, st.k, got, st.target, st.why)
		}
	}
	// Three tasks queued, each moved by its wakeup and not yet run: check
	// counts them as the migrations not yet run.
	c := total(s)
	if err := s.check(&c); err != nil {
		t.Fatalf("check with three moved tasks queued: %v", err)
	}
	w[1].drain() // runs task 0
	w[2].drain() // runs task 3
	w[0].drain() // runs task 1
	// Now cpu 1 is idle and shares cpu 2's LLC: task 0 stays on it.
	wake(w[2], 0)
	if got := s.tasks[0].cpu.Load(); got != 1 {
		t.Errorf("task 0 woken from cpu 2 with its prev cpu 1 idle: placed on %d, want 1", got)
	}
	w[1].drain()
	want := tally{wakeups: 4, migrations: 3, crossLLC: 1, crossNode: 1, remoteWakes: 4, runs: 4, moved: 3}
	if got := tallyOf(total(s)); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	res := finish(t, s, 4)
	// 3 moved runs of 2 lines in 4 wakeups.
	if got := benchtest.Metric(t, res, LinesPulled); got != 1.5 {
		t.Errorf("%s = %v, want 1.5", LinesPulled, got)
	}
}

// finish runs Finish as the runner would after ops operations.
func finish(t *testing.T, s *wakeup, ops int64) *bench.Result {
	t.Helper()
	res := &bench.Result{Ops: ops}
	if err := s.Finish(res); err != nil {
		t.Fatal(err)
	}
	return res
}

// drive runs the workers round-robin from one goroutine, as many operations
// each.
func drive(ws []*worker, rounds, each int) {
	for range rounds {
		for _, w := range ws {
			w.Run(each)
		}
	}
}

// What mig= sets: the share of wakeups made away from the task's home. Under
// wake=prev those are exactly the remote wakes, nothing moving; under
// wake=affine each takes the task away and the home's next wakeup brings it
// back, so migrations are 2p(1-p) + p²(N-2)/(N-1) of wakeups for independent
// wakers (the one-thread drive's fixed order favours alternation a little, so
// within 5%).
func TestMigSetsTheRate(t *testing.T) {
	const n = 3
	for _, mig := range []string{"0", "2.4", "10"} {
		bp, _ := parsePercent(mig)
		p := float64(bp) / 10000
		for _, wake := range []string{"affine", "prev"} {
			s, ws := setup(t, "wake="+wake+"/lines=1/tasks=4/mig="+mig, make([]int32, n), make([]int32, n))
			drive(ws, 20000, 1)
			c := total(s)
			switch wake {
			case "affine":
				// The waker runs the task at once: nothing is ever
				// queued, so no wakeup finds its task awake.
				want := 2*p*(1-p) + p*p*(n-2)/(n-1)
				got := float64(c.migrations) / float64(c.wakeups)
				if math.Abs(got-want) > 0.05*want || c.remoteWakes != 0 || c.noops != 0 {
					t.Errorf("wake=affine mig=%s: %.4f migrations a wakeup (want %.4f), %d remote wakes, %d no-ops; want none",
						mig, got, want, c.remoteWakes, c.noops)
				}
			case "prev":
				if c.migrations != 0 || c.moved != 0 || c.remoteWakes != c.awayWakers {
					t.Errorf("wake=prev mig=%s: %d migrations, %d moved runs, %d remote wakes, %d away; want none moved and remote = away", mig, c.migrations, c.moved, c.remoteWakes, c.awayWakers)
				}
			}
			got := float64(c.awayWakers) / float64(c.wakeups)
			if math.Abs(got-p) > 0.005 {
				t.Errorf("wake=%s mig=%s: %.4f of wakeups made away from the task's home, want %.4f", wake, mig, got, p)
			}
			finish(t, s, c.attempts)
		}
	}
}

// pick spreads a cpu's wakeups evenly: home wakeups over its own tasks, away
// wakeups over the other cpus' tasks, never its own, at mig= of the draws.
func TestPick(t *testing.T) {
	const n, per, draws = 3, 5, 300_000
	for _, mig := range []string{"0", "40", "100"} {
		_, ws := setup(t, "tasks=5/mig="+mig, make([]int32, n), make([]int32, n))
		p, _ := parsePercent(mig)
		for _, w := range ws {
			var hits [n * per]int
			for range draws {
				k, away := w.pick()
				if home := k / per; away == (home == w.me) {
					t.Fatalf("mig=%s cpu %d: picked task %d (home cpu %d) as away=%v", mig, w.me, k, home, away)
				}
				hits[k]++
			}
			for k, got := range hits {
				want := float64(draws) * float64(10000-p) / 10000 / per
				if int32(k/per) != w.me {
					want = float64(draws) * float64(p) / 10000 / ((n - 1) * per)
				}
				if math.Abs(float64(got)-want) > 0.03*want+0.5 {
					t.Errorf("mig=%s cpu %d: task %d picked %d times in %d, want about %.0f", mig, w.me, k, got, draws, want)
				}
			}
		}
	}
}

// Crossings by topology class on a made-up machine of two LLCs of two cpus,
// one LLC a node: an away wakeup comes from any other cpu alike, so under
// wake=affine two migrations in three cross an LLC and a node (the away
// wakeup's and the home wakeup's that brings the task back); under wake=idle a
// task only crosses when an away waker on the other LLC pulls it into its own
// LLC and its home waker pulls it back: at most two crossings an away wakeup.
func TestCrossingShares(t *testing.T) {
	llc, node := []int32{0, 0, 1, 1}, []int32{0, 0, 1, 1}
	for _, wake := range []string{"affine", "idle"} {
		s, ws := setup(t, "wake="+wake+"/lines=1/mig=10/tasks=8", llc, node)
		drive(ws, 20000, 1)
		c := total(s)
		if c.crossLLC != c.crossNode {
			t.Errorf("wake=%s: %d LLC crossings, %d node crossings; one LLC a node, want equal", wake, c.crossLLC, c.crossNode)
		}
		switch wake {
		case "affine":
			if got := float64(c.crossLLC) / float64(c.migrations); math.Abs(got-2.0/3) > 0.03 {
				t.Errorf("wake=affine: %.3f of migrations cross an LLC, want about 2/3", got)
			}
		case "idle":
			if c.crossLLC == 0 || c.crossLLC > 2*c.awayWakers {
				t.Errorf("wake=idle: %d crossings, %d away wakeups; want some, at most two an away wakeup", c.crossLLC, c.awayWakers)
			}
		}
		res := finish(t, s, c.attempts)
		t.Logf("wake=%s: migrations/op %.3f cross-llc-%% %.2f cross-node-%% %.2f", wake,
			benchtest.Metric(t, res, Migrations), benchtest.Metric(t, res, CrossLLC), benchtest.Metric(t, res, CrossNode))
	}
}

// The seed's metric: wake=affine/mig=1.2 at the seed's rate is about its 27K
// migrations per 5 s (2.4% of wakeups), mig=0.09 about its 2K, and
// migrations/5s is migrations per wakeup times rate times 5.
func TestPerFiveSeconds(t *testing.T) {
	for _, tt := range []struct {
		variant string
		want    float64
	}{
		{"wake=affine/lines=1/mig=1.2", 27000},
		{"wake=affine/lines=1/mig=0.09", 2000},
		{"wake=prev/lines=1/mig=1.2", 0},
	} {
		s, ws := setup(t, tt.variant, []int32{0, 0}, []int32{0, 0})
		drive(ws, 50000, 1) // equal attempts per cpu
		c := total(s)
		res := finish(t, s, c.attempts)
		got := benchtest.Metric(t, res, PerFiveSec)
		exact := float64(c.migrations) / float64(c.attempts) * seedRate * 5
		// The kernel clock counts whole nanoseconds: 2 cpus × 1e9/226000
		// is 8849.56 ns a wakeup each, kept as 8849.
		if math.Abs(got-exact) > 1e-4*exact+1e-9 {
			t.Errorf("%s: migrations/5s = %v, want migrations/op × rate × 5 = %v", tt.variant, got, exact)
		}
		if math.Abs(got-tt.want) > 0.15*tt.want+1e-9 {
			t.Errorf("%s: migrations/5s = %.0f, want about %.0f (seed 004)", tt.variant, got, tt.want)
		}
		t.Logf("%s: %.0f migrations per 5 s", tt.variant, got)
	}
}

func TestSeedSaving(t *testing.T) {
	s, ws := setup(t, "lines=1/mig=0", []int32{0, 0}, []int32{0, 0})
	// Moved runs took 1.5us but for one preempted run; stayed runs 0.5us.
	for _, d := range []int64{1500, 1400, 4_000_000} {
		ws[0].movedT.add(d)
	}
	ws[1].movedT.add(1600)
	for _, d := range []int64{500, 500, 3_000_000} {
		ws[0].stayT.add(d)
	}
	ws[1].stayT.add(500)
	ws[1].stayT.add(400)
	res := finish(t, s, 0)
	// Medians 1550 and 500.
	if got := benchtest.Metric(t, res, MigrationCost); math.Abs(got-1.05e-6) > 1e-15 {
		t.Errorf("%s = %v, want 1.05e-6 (1.05 us a migration)", MigrationCost, got)
	}
	// 25K migrations per 5 s at 1.05us each: 5.25 ms a second, 0.525% of a cpu.
	if got := benchtest.Metric(t, res, SeedSaving); math.Abs(got-0.525) > 1e-9 {
		t.Errorf("%s = %v, want 0.525", SeedSaving, got)
	}
}

// The sample ring keeps the last sampleKeep times without allocating, and
// times one run in every, the every-th first.
func TestSamplesRing(t *testing.T) {
	r := samples{ns: make([]int64, 0, 3)}
	for d := range int64(7) {
		r.add(d)
	}
	if want := []int64{6, 4, 5}; !slices.Equal(r.ns, want) || r.n != 7 {
		t.Errorf("after 0..6 into a ring of 3: %v (%d added), want %v (7)", r.ns, r.n, want)
	}
	for _, every := range []int32{1, 3, sampleEvery} {
		s := newSamples(every)
		var due []int
		for i := 1; i <= 4*int(every); i++ {
			if s.due() {
				due = append(due, i)
			}
		}
		e := int(every)
		if want := []int{e, 2 * e, 3 * e, 4 * e}; !slices.Equal(due, want) {
			t.Errorf("one in %d: runs %v timed, want %v", every, due, want)
		}
	}
}

// Finish refuses bookkeeping that the working sets contradict.
func TestFinishChecks(t *testing.T) {
	for _, tt := range []struct {
		spoil func(s *wakeup)
		want  string
	}{
		{func(s *wakeup) { s.tasks[1].words[s.tasks[1].stride]++ }, "task 1 line 1 was written"},
		{func(s *wakeup) { s.workers[0].runs++ }, "runs"},
		{func(s *wakeup) { s.workers[1].moved++ }, "migrations, but"},
		{func(s *wakeup) { s.workers[0].migrations++ }, "migrations, but"},
		{func(s *wakeup) { s.workers[1].noops++ }, "do not add up"},
		{func(s *wakeup) { s.tasks[2].cpu.Store(0) }, "task 2 sleeps placed on cpu 0 but last ran on 1"},
	} {
		s, ws := setup(t, "wake=affine/lines=3/mig=50/tasks=2", []int32{0, 0}, []int32{0, 0})
		drive(ws, 10, 10)
		c := total(s)
		if err := s.check(&c); err != nil {
			t.Fatalf("check before spoiling: %v", err)
		}
		if s.tasks[2].cpu.Load() != 1 {
			s.tasks[2].cpu.Store(1)
			s.tasks[2].ran = 1
		}
		tt.spoil(s)
		c = total(s)
		if err := s.Finish(&bench.Result{Ops: c.attempts}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Finish after spoiling: error = %v, want one containing %q", err, tt.want)
		}
	}
	s, ws := setup(t, "", []int32{0, 0}, []int32{0, 0})
	ws[0].Run(5)
	if err := s.Finish(&bench.Result{Ops: 6}); err == nil || !strings.Contains(err.Error(), "runner counted 6") {
		t.Errorf("Finish with a wrong op count: error = %v", err)
	}
}

func TestHotLoopDoesNotAllocate(t *testing.T) {
	for _, v := range []string{"wake=affine/mig=30", "wake=prev/mig=30", "wake=idle/mig=30/lines=64",
		"wake=llcstats/mig=30/sync=50/llc=1", "wake=llcstats/mig=30/sync=50", "wake=llcstats/mig=30/sync=50/stats=live", "wake=basic/mig=30/sync=50"} {
		_, ws := setup(t, v, []int32{0, 0, 1}, []int32{0, 0, 1})
		if allocs := testing.AllocsPerRun(20, func() { drive(ws, 1, 500) }); allocs != 0 {
			t.Errorf("%s: a round of Run(500) allocates %v times, want 0", v, allocs)
		}
	}
}

// Start reads each worker's LLC and node from the topology, and says when
// the nodes are made up. The wanted classes are read off the fixtures by hand:
// on the 8-node AMD every cpu has an LLC of its own, two to a node; on the
// Intel with sub-NUMA clustering one LLC spans two nodes of 4 cpus.
func TestStartClasses(t *testing.T) {
	for _, tt := range []struct {
		machine     string
		fake        int
		cpus        []int
		llc, node   []int32
		peersOfCPU0 []int32
	}{
		{fixture.AMD8Nodes, 0, []int{0, 1, 2}, []int32{0, 1, 2}, []int32{0, 0, 1}, nil},
		{fixture.Intel2Pkg, 0, []int{0, 1, 4, 8}, []int32{0, 0, 0, 1}, []int32{0, 0, 1, 2}, []int32{1, 2}},
		{fixture.Intel2Pkg, 2, []int{0, 40}, []int32{0, 5}, []int32{0, 1}, nil},
	} {
		topo := fixture.Topology(t, tt.machine)
		if tt.fake > 0 {
			topo = fixture.Fake(t, tt.machine, tt.fake)
		}
		nodes := make([]int, len(tt.cpus))
		for i, c := range tt.cpus {
			nodes[i] = topo.NodeOf(c)
		}
		s := benchtest.New(t, "wakeup", "").(*wakeup)
		if err := s.Start(&bench.Env{Topology: topo, CPUs: tt.cpus, Nodes: nodes}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.lay.llc, tt.llc) || !slices.Equal(s.lay.node, tt.node) || !slices.Equal(s.lay.peers[0], tt.peersOfCPU0) {
			t.Errorf("%s fake=%d cpus %v: llc %v node %v, peers of the first %v; want %v %v %v",
				tt.machine, tt.fake, tt.cpus, s.lay.llc, s.lay.node, s.lay.peers[0], tt.llc, tt.node, tt.peersOfCPU0)
		}
		notes := strings.Join(s.Notes(), "\n")
		if got := strings.Contains(notes, "fake-2"); got != (tt.fake == 2) {
			t.Errorf("%s fake=%d: notes %q mention fake-2: %v", tt.machine, tt.fake, notes, got)
		}
	}
}

// The idle search probes an LLC's cpus from the one after the waker, by cpu
// id, wrapping, and never the waker or another LLC.
func TestLayoutWrapOrder(t *testing.T) {
	l := newLayout([]int32{0, 0, 1, 0, 0}, make([]int32, 5), []int{8, 2, 3, 6, 4})
	// By cpu id: 2 (w1), 3 (w2, other LLC), 4 (w4), 6 (w3), 8 (w0).
	want := [][]int32{{1, 4, 3}, {4, 3, 0}, nil, {0, 1, 4}, {3, 0, 1}}
	for i := range want {
		if !slices.Equal(l.peers[i], want[i]) {
			t.Errorf("peers of worker %d = %v, want %v", i, l.peers[i], want[i])
		}
	}
}

// The lines cpus write in turn sit alone on theirs.
func TestLayoutPadding(t *testing.T) {
	var tk task
	if off := unsafe.Offsetof(tk.state); off < bench.LinePad {
		t.Errorf("task: state at %d, want at least %d bytes before it", off, bench.LinePad)
	}
	if tail := unsafe.Sizeof(tk) - (unsafe.Offsetof(tk.stride) + unsafe.Sizeof(tk.stride)); tail < bench.LinePad {
		t.Errorf("task: %d bytes after the last field, want %d", tail, bench.LinePad)
	}
	var rq runqueue
	if off, size := unsafe.Offsetof(rq.head), unsafe.Sizeof(rq); off < bench.LinePad || size-unsafe.Offsetof(rq.nr)-4 < bench.LinePad-8 {
		t.Errorf("runqueue: head at %d of %d bytes, want padded by %d", off, size, bench.LinePad)
	}
	for _, line := range []int{64, 128} {
		tk := newTask(0, 0, 5, line)
		if a := uintptr(unsafe.Pointer(&tk.words[0])); a%uintptr(line) != 0 || len(tk.words) != 5*line/8 {
			t.Errorf("newTask(lines=5, line=%d): working set at %#x, %d words; want line-aligned, %d words", line, a, len(tk.words), 5*line/8)
		}
	}
}

// Two pinned workers through the runner: under -race this checks the wake
// lists, the claims and the working sets are handed over with the right
// ordering, and Finish checks every line against the runs.
func TestWakeupRun(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	ops := int64(200_000)
	if testing.Short() {
		ops = 40_000
	}
	for _, v := range []string{
		"wake=affine/lines=4/mig=10",
		"wake=prev/lines=4/mig=10",
		"wake=idle/lines=4/mig=10",
		"wake=affine/lines=64/mig=100/tasks=1",
		"wake=llcstats/lines=4/mig=10/sync=50/llc=1",
		"wake=basic/lines=4/mig=10/sync=50/llc=1",
	} {
		t.Run(v, func(t *testing.T) {
			s := benchtest.New(t, "wakeup", v)
			res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus, Ops: ops})
			if err != nil {
				t.Fatal(err)
			}
			mig := benchtest.Metric(t, res, Migrations)
			remote := benchtest.Metric(t, res, RemoteWakes)
			switch {
			case strings.HasPrefix(v, "wake=affine") && remote != 0:
				t.Errorf("%s: %v remote wakes, want none (the waker runs the task)", v, remote)
			case strings.HasPrefix(v, "wake=prev") && (mig != 0 || benchtest.Metric(t, res, LinesPulled) != 0):
				t.Errorf("%s: %v migrations, want none", v, mig)
			}
			t.Logf("%s on cpus %v (%s): %.0f ns/op, %.3f migrations/op, %.2f lines pulled/op, %.3f remote/op, %.2f%% no-ops",
				v, cpus, topo.Label(), res.NsPerOp(), mig, benchtest.Metric(t, res, LinesPulled), remote, benchtest.Metric(t, res, Noops))
		})
	}
}

// On a machine whose kernel reports no shared cache (the arm64 QEMU guest's
// tree: L1s only, so every cpu's LLC is -1) the model's LLCs are the
// scheduler's, as arm64's cpu_coregroup_mask() derives sd_llc: the smaller
// of the node and the package, {0,1} and {2,3} on this 2-socket guest, not
// every cpu as one (which counted no move between LLCs at all); a note
// says so. llc=N gives the model LLCs of its own, and no note.
func TestNoLLCs(t *testing.T) {
	topo := fixture.Topology(t, fixture.Arm64Virt)
	cpus := []int{0, 1, 2, 3}
	nodes := make([]int, len(cpus))
	for i, c := range cpus {
		nodes[i] = topo.NodeOf(c)
		if llc := topo.CPUs[c].LLC; llc != -1 {
			t.Fatalf("fixture %s: cpu %d has LLC %d, want none (-1)", fixture.Arm64Virt, c, llc)
		}
	}
	for _, tt := range []struct {
		variant string
		derived bool
	}{
		{"wake=affine/lines=4/mig=0/tasks=1", true},
		{"wake=affine/lines=4/mig=0/tasks=1/llc=2", false},
	} {
		s := benchtest.New(t, "wakeup", tt.variant).(*wakeup)
		if err := s.Start(&bench.Env{Topology: topo, CPUs: cpus, Nodes: nodes}); err != nil {
			t.Fatal(err)
		}
		for i := range cpus {
			if _, err := s.Worker(bench.WorkerInfo{Index: i, Workers: len(cpus), CPU: cpus[i]}); err != nil {
				t.Fatal(err)
			}
		}
		for k := int32(1); k < 4; k++ {
			if !wake(s.workers[0], k) {
				t.Fatalf("%s: task %d was not asleep", tt.variant, k)
			}
		}
		res := finish(t, s, 3)
		if llc := benchtest.Metric(t, res, CrossLLC); llc != 100*2.0/3 {
			t.Errorf("%s: %s = %v, want %v (tasks 2 and 3 came from the other LLC)", tt.variant, CrossLLC.Name, llc, 100*2.0/3)
		}
		if got := benchtest.Metric(t, res, CrossNode); got != 100*2.0/3 {
			t.Errorf("%s: %s = %v, want %v (cpus 2 and 3 are node 1)", tt.variant, CrossNode.Name, got, 100*2.0/3)
		}
		notes := strings.Join(s.Notes(), "\n")
		if noted := strings.Contains(notes, "the scheduler's sd_llc"); noted != tt.derived || strings.Contains(notes, "left out") {
			t.Errorf("%s: notes %q; want the derived-LLC note %v, and none left out", tt.variant, s.Notes(), tt.derived)
		}
	}
}
