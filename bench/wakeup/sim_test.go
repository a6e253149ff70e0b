package wakeup

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// simRun simulates one policy on one guest size and returns the kernel.
func simRun(t *testing.T, cfg SimConfig) *ksys {
	t.Helper()
	ps, err := cfg.withDefaults().runs()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("config makes %d runs, want 1", len(ps))
	}
	k, err := simulate(ps[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The domains of each preset: the s390x guest keeps DIE (ksim's PKG) alone,
// its groups single cpus, with no sd_llc; an x86 guest of LLCs of 4 has MC
// over each and the package level over all, its groups the LLCs.
func TestBuildDomains(t *testing.T) {
	for _, tt := range []struct {
		topo           string
		cpus           int
		levels         []string
		groups         []int // per level, cpu 5's
		llcSize, llcID int
		shared         bool
	}{
		{"s390", 8, []string{"PKG"}, []int{8}, 1, 5, false},
		{"llc4", 8, []string{"MC", "PKG"}, []int{4, 2}, 4, 4, true},
		{"llc8", 8, []string{"MC"}, []int{8}, 8, 0, true},
		// The host LPAR's s390: MC over a chip of 4 (SD_SHARE_PKG_RESOURCES,
		// the chip's L3), the level above over the chips.
		{"s390llc4", 8, []string{"MC", "PKG"}, []int{4, 2}, 4, 4, true},
	} {
		tp, err := parseTopo(tt.topo)
		if err != nil {
			t.Fatal(err)
		}
		sds, id, size, err := buildDomains(v413, tp, tt.cpus)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		var groups []int
		shared := false
		for _, d := range sds[5] {
			names = append(names, d.Name)
			groups = append(groups, len(d.Groups))
			shared = shared || d.shared != nil
		}
		if strings.Join(names, ",") != strings.Join(tt.levels, ",") || !slices.Equal(groups, tt.groups) ||
			size[5] != tt.llcSize || int(id[5]) != tt.llcID || shared != tt.shared {
			t.Errorf("%s on %d cpus: cpu 5 has levels %v, groups %v, sd_llc_size %d, sd_llc_id %d, sd_llc_shared %v; want %v, %v, %d, %d, %v",
				tt.topo, tt.cpus, names, groups, size[5], id[5], shared, tt.levels, tt.groups, tt.llcSize, tt.llcID, tt.shared)
		}
		if !sds[5][len(sds[5])-1].top {
			t.Errorf("%s: the last level is not the top", tt.topo)
		}
	}
}

// The seed's guest before the patch: no sd_llc_shared, so wake_affine_llc()
// refuses every wakeup and select_idle_sibling() has no LLC to search: not
// one wakeup migration, whatever the load. The patch moves some.
func TestS390PrePatchWakeupsStay(t *testing.T) {
	for _, threads := range []int{2, 8, 40} {
		k := simRun(t, SimConfig{CPUs: []int{8}, Policies: []string{"llcstats"}, Threads: threads, Duration: 200 * time.Millisecond, Warmup: -1})
		if n := k.c.migrations[causeWakeAffine] + k.c.migrations[causeSIS]; n != 0 || k.c.affine != 0 {
			t.Errorf("llcstats, s390, %d threads: %d wakeup migrations, %d affine; want none", threads, n, k.c.affine)
		}
		if k.c.wakeups == 0 || k.c.affineAttempts == 0 {
			t.Errorf("llcstats, s390, %d threads: %d wakeups, %d wake_affine() calls; want some", threads, k.c.wakeups, k.c.affineAttempts)
		}
	}
}

// PeterZ's patch on the seed's guest: a client alone on its cpu pulls its
// server there with a sync wakeup, the reply finds the client's prev cpu
// is the waker's (cpu == prev_cpu: no wake_affine()), and the pair stays.
// Before the patch each pair stays apart as placed.
func TestPairsStayTogether(t *testing.T) {
	for _, tt := range []struct {
		policy   string
		together bool
	}{
		{"llcstats", false},
		{"basic", true},
		{"v6.1", true},
	} {
		k := simRun(t, SimConfig{CPUs: []int{8}, Policies: []string{tt.policy}, Threads: 2, Duration: 100 * time.Millisecond, Warmup: 2 * time.Second})
		for i := 0; i < len(k.tasks); i += 2 {
			if same := k.tasks[i].CPU == k.tasks[i+1].CPU; same != tt.together {
				t.Errorf("%s: pair %d on cpus %d and %d, want together %v", tt.policy, i/2, k.tasks[i].CPU, k.tasks[i+1].CPU, tt.together)
			}
		}
		if tt.together && (k.c.totalMigrations() != 0 || k.c.ipiWakes != 0) {
			t.Errorf("%s: pairs together made %d migrations and %d IPI wakeups after the warm-up; want none", tt.policy, k.c.totalMigrations(), k.c.ipiWakes)
		}
	}
}

// 6.1's wake_affine_idle() pulls to an idle waking cpu only within the
// LLC: an interrupt on an idle vCPU of the s390x guest does not move the
// task; the patched 4.13 does.
func TestIdleWaker(t *testing.T) {
	for _, tt := range []struct {
		policy, topo string
		moves        bool
	}{
		{"basic", "s390", true},
		{"v6.1", "s390", false},
		{"v6.1", "llc8", true},
	} {
		k := newTestKernel(t, tt.policy, tt.topo, 8)
		p, cur := k.addTask(3), k.cpus[5].idleTask
		k.cpus[3].Enqueue(&k.addTask(3).Task) // prev busy, so that select_idle_sibling() does not keep it for being idle
		cpu, why := k.selectTaskRq(p, cur, k.cpus[5], 3, false)
		if moved := cpu == 5; moved != tt.moves || (moved && why != causeWakeAffine) {
			t.Errorf("%s on %s: an interrupt on idle cpu 5 wakes a task of busy cpu 3 onto %d (%s), want moved %v", tt.policy, tt.topo, cpu, causeNames[why], tt.moves)
		}
	}
}

func newTestKernel(t *testing.T, policy, topo string, cpus int) *ksys {
	t.Helper()
	ps, err := SimConfig{CPUs: []int{cpus}, Topology: topo, Policies: []string{policy}}.withDefaults().runs()
	if err != nil {
		t.Fatal(err)
	}
	k, err := newKsys(ps[0])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The bookkeeping holds: every migration is one task's, the per-cpu PELT
// sets count the tasks on them, and the same seed replays the same run.
func TestBookkeeping(t *testing.T) {
	for _, cfg := range []SimConfig{
		{CPUs: []int{8}, Policies: []string{"llcstats"}, Topology: "llc4", Threads: 16},
		{CPUs: []int{8}, Policies: []string{"basic"}, Threads: 12, IO: 200 * time.Microsecond},
		{CPUs: []int{6}, Policies: []string{"v6.1"}, Topology: "llc2", Threads: 9, IO: time.Millisecond, IRQ: "local"},
	} {
		cfg.Duration, cfg.Warmup = 300*time.Millisecond, -1
		k := simRun(t, cfg)
		var sum int64
		for _, tk := range k.tasks {
			sum += tk.nrMigrations
		}
		if sum != k.c.totalMigrations() {
			t.Errorf("%+v: tasks' nr_migrations add to %d, the causes to %d", cfg, sum, k.c.totalMigrations())
		}
		for _, c := range k.cpus {
			runnable, blocked := 0, 0
			for _, tk := range k.tasks {
				if tk.CPU == c.CPU {
					if tk.State == ksim.TaskSleeping {
						blocked++
					} else {
						runnable++
					}
				}
			}
			if runnable != c.runnable.N || blocked != c.blocked.N || runnable != c.NrRunning {
				t.Errorf("%+v: cpu %d has %d runnable and %d blocked tasks, PELT sets %d and %d, nr_running %d",
					cfg, c.CPU, runnable, blocked, c.runnable.N, c.blocked.N, c.NrRunning)
			}
		}
		again := simRun(t, cfg)
		if again.c != k.c {
			t.Errorf("%+v: the same seed gave %+v, then %+v", cfg, k.c, again.c)
		}
	}
}

// Bad knobs get one-line errors naming the knob.
func TestSimConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		cfg  SimConfig
		want string
	}{
		{SimConfig{CPUs: []int{1}}, "cpus 1 out of range"},
		{SimConfig{CPUs: []int{4096}}, "cpus 4096 out of range"},
		{SimConfig{CPUs: []int{6}, Topology: "llc4"}, "do not nest"},
		{SimConfig{Topology: "numa"}, `topology "numa"`},
		{SimConfig{Policies: []string{"affine"}}, `policy "affine"`},
		{SimConfig{HZ: 200}, "hz 200"},
		{SimConfig{Threads: -1}, "threads -1"},
		{SimConfig{Statements: 5000}, "statements 5000"},
		{SimConfig{IRQ: "msi"}, `irq "msi"`},
		{SimConfig{Think: -time.Microsecond}, "think -1µs"},
		{SimConfig{Service: 2 * time.Second}, "service 2s"},
		{SimConfig{IO: -time.Second}, "io -1s"},
		{SimConfig{Duration: time.Hour}, "duration 1h0m0s"},
		{SimConfig{Warmup: time.Hour}, "warmup 1h0m0s"},
		{SimConfig{Others: -1}, "others -1"},
		{SimConfig{Others: 1, OthersPeriod: time.Nanosecond}, "others-period 1ns"},
		{SimConfig{OthersBurst: 2 * time.Second}, "others-burst 2s"},
		{SimConfig{Tail: 9 * time.Microsecond}, "tail 9µs out of range"},
		{SimConfig{Tail: -time.Microsecond}, "tail -1µs"},
		{SimConfig{Topology: "s390llc1"}, `topology "s390llc1"`},
		{SimConfig{Test: "cpu"}, `test "cpu"`},
		{SimConfig{Locks: -1}, "locks -1"},
		{SimConfig{Yields: 2_000_000}, "yields 2000000"},
		{SimConfig{Yield: -time.Microsecond}, "yield -1µs"},
	} {
		_, err := Simulate(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "simulate wakeup: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Simulate(%+v) error = %v, want one line with %q", tt.cfg, err, tt.want)
		}
	}
}

// One server answering every client (the kernel oracle's UDP shape): each
// statement is served once, in arrival order, whoever sent it, and the
// server runs on without sleeping while statements wait.
func TestOneServer(t *testing.T) {
	for _, policy := range policyNames {
		k := simRun(t, SimConfig{CPUs: []int{4}, Policies: []string{policy}, Threads: 6, Servers: 1, Statements: 3,
			Duration: 50 * time.Millisecond, Warmup: -1})
		var done int
		sv, _ := k.w.Client(k.w.Clients()[0])
		for _, cl := range k.w.Clients() {
			server, stmt := k.w.Client(cl)
			done += stmt
			if server != sv {
				t.Fatalf("%s: client %d served by %d, client 0 by %d: want one server", policy, cl, server, sv)
			}
		}
		if got := int64(done) + 3*k.c.transactions; got != k.c.statements || k.c.transactions == 0 {
			t.Errorf("%s: %d statements served, but clients stand at %d in their transactions and %d transactions done", policy, k.c.statements, done, k.c.transactions)
		}
		if n := k.w.Pending(sv); n > 6 {
			t.Errorf("%s: %d statements pending for 6 clients", policy, n)
		}
	}
}

// The seed's direction in throughput on its guest's topology, where vCPUs
// idle: before the patch each round trip wakes an idle vCPU, after it the
// pairs share one and pay none. Kernel-time counts, so exact.
func TestS390Throughput(t *testing.T) {
	tab, err := Simulate(SimConfig{CPUs: []int{8}, Threads: 4, Policies: []string{"llcstats", "basic"}, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	before, after := tab.Rows[0], tab.Rows[1]
	if after.TPS < 1.5*before.TPS || before.IPIPct < 50 || after.IPIPct > 1 {
		t.Errorf("8 vCPUs, 4 threads: tps %.0f → %.0f, idle-vCPU wakeups %.0f%% → %.0f%%; want the patch 1.5× faster, paying almost none",
			before.TPS, after.TPS, before.IPIPct, after.IPIPct)
	}
}

// The guest's other threads are uncounted, but their timer interrupts
// charge record_wakee() to the task they interrupt: on one-cpu LLCs
// (wake_wide()'s factor 1) that alone makes wakeups wide, which the
// workload by itself is not once its first flips have decayed (the
// default warm-up).
func TestOthersMakePairsWide(t *testing.T) {
	cfg := SimConfig{CPUs: []int{4}, Topology: "s390", Policies: []string{"v6.1"}, HZ: 250, Threads: 2,
		Think: 300 * time.Microsecond, Service: 300 * time.Microsecond, Duration: 500 * time.Millisecond}
	bare, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Others, cfg.OthersPeriod, cfg.OthersBurst = 8, 10*time.Millisecond, 100*time.Microsecond
	noisy, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, n := bare.Rows[0], noisy.Rows[0]
	if b.WakeWide != 0 || n.WakeWide == 0 {
		t.Errorf("wide wakeups per 5 s: %.0f without others, %.0f with 8; want 0 and some", b.WakeWide, n.WakeWide)
	}
	// Counted wakeups are the workload's only: about the same rate.
	if n.Wakeups > 1.5*b.Wakeups || n.Wakeups < b.Wakeups/1.5 {
		t.Errorf("wakeups per 5 s %.0f with others, %.0f without: the others' own were counted?", n.Wakeups, b.Wakeups)
	}
}

// A waker's tail after the send keeps a partner woken onto its cpu
// queued behind it, so a pair sharing a cpu shows two runnable tasks to
// the balancer; without a tail it never does. Both runs keep the same
// cpu per statement, and the pairs go on: on 4 cpus, where each task had
// a cpu of its own, this test passed on a run whose pairs had stalled
// (a reply to a client still in its tail was lost: 8 transactions a
// second against 164 without a tail), so 2 cpus share the 4 tasks here,
// and the tailed run must keep the bare run's pace.
func TestTailQueuesThePartner(t *testing.T) {
	cfg := SimConfig{CPUs: []int{2}, Topology: "s390", Policies: []string{"v6.1"}, HZ: 250, Threads: 2,
		Think: 300 * time.Microsecond, Service: 300 * time.Microsecond, Duration: 500 * time.Millisecond, Warmup: -1}
	bare, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tail = 150 * time.Microsecond
	tailed, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b, tl := bare.Rows[0].WaitUs, tailed.Rows[0].WaitUs; !(tl > b+50) {
		t.Errorf("mean wait %.1f µs with a 150 µs tail, %.1f µs without: want the partner queued behind the tail", tl, b)
	}
	if b, tl := bare.Rows[0].TPS, tailed.Rows[0].TPS; tl < b/2 {
		t.Errorf("%.0f transactions a second with a 150 µs tail, %.0f without: the pairs stalled", tl, b)
	}
}

// s390 with the topology facility keeps s390's HZ and floating interrupts.
func TestS390LLCDefaults(t *testing.T) {
	c := SimConfig{Topology: "s390llc8"}.withDefaults()
	if c.HZ != 100 || c.IRQ != "idle" {
		t.Errorf("s390llc8 defaults: HZ %d, irq %s; want 100, idle", c.HZ, c.IRQ)
	}
}

// sysbench --test=threads: every event is Yields rounds on one mutex, so
// events × Yields never exceed the rounds the threads ran, and with fewer
// threads than mutexes (each event a mutex of its own in turn) nobody
// waits long. On the s390 guest without LLCs the unlock's futex wakeup
// (no WF_SYNC, the waker running) gets the same answer before and after
// the patch: wake_affine_llc() finds no sd_llc_shared, and the patch's
// idle_cpu(this_cpu) and sync tests both fail; so the two kernels run the
// same schedule.
func TestThreadsTest(t *testing.T) {
	run := func(topo, pol string) *ksys {
		return simRun(t, SimConfig{CPUs: []int{4}, Topology: topo, Policies: []string{pol}, Test: "threads", Threads: 8, Locks: 2, Yields: 10,
			Duration: 20 * time.Millisecond, Warmup: -1})
	}
	b, a := run("s390", "llcstats"), run("s390", "basic")
	if b.c.transactions == 0 || b.c.wakeups == 0 {
		t.Fatalf("threads test, s390: %d events, %d wakeups; want some of each", b.c.transactions, b.c.wakeups)
	}
	if b.c.syncWakeups != 0 {
		t.Errorf("threads test: %d sync wakeups; futex_wake() has no WF_SYNC", b.c.syncWakeups)
	}
	if b.c.transactions != a.c.transactions || b.c.totalMigrations() != a.c.totalMigrations() || a.c.affine != 0 {
		t.Errorf("threads test, s390: llcstats %d events %d migrations, basic %d events %d migrations %d affine; want the same schedule, none affine",
			b.c.transactions, b.c.totalMigrations(), a.c.transactions, a.c.totalMigrations(), a.c.affine)
	}
	// (The mutexes' own invariants: sysbench's TestThreads.)
	// With LLCs, 4.13 may pull a futex wakee across them; the patch
	// never does (the waker runs, and the wakeup is not sync).
	if l := run("s390llc2", "basic"); l.c.migrations[causeWakeAffine] != 0 {
		t.Errorf("threads test, s390llc2, basic: %d wake_affine migrations; want none", l.c.migrations[causeWakeAffine])
	}
}

// IdleWakeShape spreads the IPI's delay by factors over their mean:
// [1, 3] costs half or one and a half IdleWake; bad factors are refused.
func TestIdleWakeShape(t *testing.T) {
	got, err := spreadShape([]float64{1, 3})
	if err != nil || len(got) != 2 || got[0] != 0.5 || got[1] != 1.5 {
		t.Errorf("spreadShape([1 3]) = %v, %v; want [0.5 1.5]", got, err)
	}
	// The run's factors keep IdleWake's mean.
	ps, err := SimConfig{CPUs: []int{4}, IdleWakeShape: []float64{1, 1, 4, 10}}.withDefaults().runs()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range ps[0].wakeShape {
		sum += f
	}
	if len(ps[0].wakeShape) != 4 || math.Abs(sum/4-1) > 1e-12 || ps[0].wakeShape[3] != 2.5 {
		t.Errorf("the run's shape %v: want the factors over their mean (mean 1)", ps[0].wakeShape)
	}
	if got, err := spreadShape(nil); got != nil || err != nil {
		t.Errorf("spreadShape(nil) = %v, %v", got, err)
	}
	for _, bad := range [][]float64{{0, 0}, {1, -1}, {1, math.NaN()}, {math.Inf(1)}} {
		if _, err := spreadShape(bad); err == nil {
			t.Errorf("spreadShape(%v): no error", bad)
		}
		if _, err := Simulate(SimConfig{CPUs: []int{4}, IdleWakeShape: bad}); err == nil || !strings.Contains(err.Error(), "idlewake shape") {
			t.Errorf("Simulate with shape %v: %v", bad, err)
		}
	}
	cfg := SimConfig{CPUs: []int{8}, Topology: "llc4", Policies: []string{"v6.1"}, HZ: 250, Threads: 4,
		Think: 200 * time.Microsecond, Service: 300 * time.Microsecond, IdleWake: 150 * time.Microsecond, Duration: 200 * time.Millisecond, Warmup: -1}
	flat, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.IdleWakeShape = []float64{0.2, 0.2, 0.2, 3.4}
	spread, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if f, s := flat.Rows[0], spread.Rows[0]; f.Wakeups == 0 || s.Wakeups == 0 || f.WaitUs == s.WaitUs {
		t.Errorf("flat %.0f wakeups (wait %.1f µs), spread %.0f (wait %.1f µs): want both running, and differently", f.Wakeups, f.WaitUs, s.Wakeups, s.WaitUs)
	}
}

// The model counts its placements as the wake trace does: every counted
// wakeup once, the parted among the stacked, and what a stacked wakee's
// scan met no more often than it was stacked.
func TestPlacementCounts(t *testing.T) {
	k := simRun(t, SimConfig{CPUs: []int{4}, Topology: "llc4", Policies: []string{"v6.1"}, HZ: 250, Threads: 4, ScanFigures: true,
		Think: 200 * time.Microsecond, Service: 300 * time.Microsecond, Tail: 50 * time.Microsecond, IdleWake: 150 * time.Microsecond, Duration: 200 * time.Millisecond, Warmup: -1})
	p := k.c.place
	if p.Wakes != k.c.wakeups || p.Stacked == 0 || p.Parted > p.Stacked || p.Joined > p.Wakes-p.Stacked ||
		p.ScanFinds > p.IdleMate || p.IdleMate > p.Stacked || p.PendingMate > p.Stacked || p.NoScan > p.Stacked {
		t.Errorf("placements %+v of %d wakeups", p, k.c.wakeups)
	}
}

// A server asleep on its commit's log flush is not woken by a client's
// send (its socket waits): with fewer servers than clients and I/O, a
// send that woke it had it finish the statement early, and the flush's
// interrupt then ran it with nothing pending (a panic, index out of
// range, in sysbench's oltp).
func TestFlushIsNotTheSocket(t *testing.T) {
	tab, err := Simulate(SimConfig{CPUs: []int{8}, Topology: "llc4", Policies: []string{"v6.1"}, Threads: 4, Servers: 2,
		IO: 500 * time.Microsecond, IRQ: "local", Duration: 5 * time.Second, Warmup: time.Second, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := tab.Rows[0]; r.TPS == 0 || r.Wakeups == 0 {
		t.Errorf("%.0f transactions a second, %.0f wakeups: want the pairs going", r.TPS, r.Wakeups)
	}
}
