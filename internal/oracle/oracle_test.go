package oracle

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/internal/kernel"
)

// countFixture is a count as a 6.12 guest reported it, cut down.
// testdata/count-6.12.txt is WriteResults' file of it, as written on a
// 2-cpu KVM host, with its kernel line set to the counted kernel's (a
// count runs on the kernel it counts, so its provenance names that one).
func countFixture() *kernel.Counted {
	return &kernel.Counted{
		Kernel: "6.12.117+deb12-amd64", CPUs: 4, HZ: 250, RateLimit: true, Shape: "pipe", Pairs: 2, Levels: 2,
		Bare:    &kernel.Load{Transactions: 2000, Seconds: 2},
		Counted: &kernel.Load{Transactions: 1000, Seconds: 2},
		Sites: []kernel.SiteCount{
			{Site: kernel.Site{Kind: "tg-load-avg", Func: "update_load_avg", Off: 0x3fc}, Breakpoint: 300, Kprobe: -1},
			{Site: kernel.Site{Kind: "tg-load-avg-limit", Func: "update_load_avg", Off: 0x3c0}, Breakpoint: 600, Kprobe: -1},
			{Site: kernel.Site{Kind: "tg-load-avg", Func: "attach_entity_cfs_rq", Off: 0xb0}, Breakpoint: -1, Kprobe: 4},
			{Site: kernel.Site{Kind: "tg-load-avg", Func: "switched_from_fair", Off: 0xbe}, Breakpoint: -1, Kprobe: -1},
		},
		Enqueues: 1000, Undone: true,
	}
}

// TestWriteTextWatched: the watchpoints' count beside the sites', with the
// verdict on the two methods; it says yes within 2 % and no outside, and
// names what only one side counts.
func TestWriteTextWatched(t *testing.T) {
	for _, c := range []struct {
		l1, l2 int64
		groups int
		want   []string
	}{
		{200, 104, 2, []string{
			"checking run (watchpoints: 250 tx/s, cost 75.0 %): level 1 (contend-system.slice) 200, 0.200 per enqueue, 25.0 per cfs_rq per s; level 2 (docker-x.scope) 104",
			"two methods: 304 writes by the sites' breakpoints and kprobes, 304 by the watchpoints: watchpoints/sites 1.0000, within 2 %: yes (1 sites counted by neither",
		}},
		{200, 110, 3, []string{"watchpoints/sites 1.0197, within 2 %: yes", "(1 other task groups: their writes count in the sites' sum only)"}},
		{200, 110, -1, []string{"outside the hierarchy (autogroup 0x1) 4", "314 by the watchpoints"}},
		{200, 111, 2, []string{"watchpoints/sites 1.0230, within 2 %: NO"}},
		{190, 100, 2, []string{"watchpoints/sites 0.9539, within 2 %: NO"}},
	} {
		k := countFixture()
		k.Check = &kernel.Check{Load: &kernel.Load{Transactions: 500, Seconds: 2}, Sites: k.Sites, Enqueues: 1000, TaskGroups: c.groups,
			Watched: []kernel.WatchCount{{Cgroup: "/sys/fs/cgroup/contend-system.slice", Level: 1, Writes: c.l1}, {Cgroup: "/sys/fs/cgroup/contend-system.slice/docker-x.scope", Level: 2, Writes: c.l2}}}
		if c.groups < 0 { // the third group watched too
			k.Check.TaskGroups = 3
			k.Check.Watched = append(k.Check.Watched, kernel.WatchCount{Cgroup: "autogroup 0x1", Level: 0, Writes: 4})
		}
		var b strings.Builder
		if err := WriteText(&b, k); err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(b.String(), want) {
				t.Errorf("count text lacks %q:\n%s", want, b.String())
			}
		}
	}
	var b strings.Builder
	if err := WriteText(&b, countFixture()); err != nil || strings.Contains(b.String(), "two methods") {
		t.Errorf("a count without watchpoints shows a two-methods line: %v\n%s", err, b.String())
	}
}

// TestWriteTextBalancer: the balancer's passes and its flag's attempts,
// per second and per pass, 6.12's cmpxchg or 6.1's trylock.
func TestWriteTextBalancer(t *testing.T) {
	for _, c := range []struct{ kind, probe, want string }{
		{"balance-running", "sched_balance_domains", "balancer: 400 passes of sched_balance_domains (200/s); sched_balance_running cmpxchg 100 (50/s, 0.250 per pass); cpus busy 0.0 % of the run"},
		{"balancing-trylock", "rebalance_domains", "balancer: 400 passes of rebalance_domains (200/s); balancing trylock 100 (50/s, 0.250 per pass); cpus busy 0.0 % of the run"},
	} {
		k := countFixture()
		k.Balances, k.BalanceProbe = 400, c.probe
		k.Sites = append(k.Sites, kernel.SiteCount{Site: kernel.Site{Kind: c.kind, Func: c.probe, Off: 0x1c0}, Breakpoint: -1, Kprobe: 100})
		var b strings.Builder
		if err := WriteText(&b, k); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("count text lacks %q:\n%s", c.want, b.String())
		}
		path := t.TempDir() + "/k.txt"
		if err := WriteResults(path, k, nil); err != nil {
			t.Fatal(err)
		}
		if f, _ := os.ReadFile(path); !strings.Contains(string(f), " 200 balances/s 50 flag-ops/s 0.25 flag-ops/balance 0 busy-%") {
			t.Errorf("results lack the balancer's units:\n%s", f)
		}
	}
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	if err := WriteText(&b, countFixture()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"counting cost 50.0 % of throughput",
		"tg->load_avg writes: 304, 0.304 per enqueue_task_fair, 152/s, 19.0 per cfs_rq per s (4 cpus × 2 levels); 1 sites not counted",
		"rate limit: 600 1 ms tests",
		"undone: every kprobe",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("count text lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteResults(t *testing.T) {
	path := t.TempDir() + "/k.txt"
	if err := WriteResults(path, countFixture(), []string{"-shape", "pipe"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nkernel: ", "Unit tg-writes/enqueue better=lower", "BenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1000 tx/s", "0.304 tg-writes/enqueue", "50 count-cost-%"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("results file lacks %q:\n%s", want, b)
		}
	}
	// What WriteResults writes, ReadCounts reads back.
	got, err := ReadCounts(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].CPUs != 4 || got[0].HZ != 250 || !got[0].RateLimit || got[0].Pairs != 2 || got[0].Levels != 2 ||
		got[0].Shape != "pipe" || got[0].Workload != "shape=pipe/pairs=2/levels=2" || got[0].V["tg-writes/enqueue"] != 0.304 {
		t.Errorf("ReadCounts(WriteResults(fixture)) = %+v", got)
	}
	// A count with watchpoints adds the second method's units.
	k := countFixture()
	k.Check = &kernel.Check{Load: &kernel.Load{Transactions: 500, Seconds: 2}, Sites: k.Sites, Enqueues: 1000,
		Watched: []kernel.WatchCount{{Level: 1, Writes: 160}, {Level: 2, Writes: 150}},
		Threads: kernel.ThreadStats{RunMs: 800, WaitMs: 400}}
	if err := WriteResults(path, k, nil); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	for _, want := range []string{" 0.31 check-wp-writes/enqueue", " 1.019736842105263 check-wp/sites", " 0.16 check-l1-writes/enqueue", " 20 check-l1-writes/cfs_rq/s", " 18.75 check-l2-writes/cfs_rq/s",
		" 10 check-run-%", " 15 check-runnable-%"} { // 800 ms of 4 pingers' 2 s; 1200 ms runnable
		if !strings.Contains(string(b), want) {
			t.Errorf("results file lacks %q:\n%s", want, b)
		}
	}
	if err := WriteResults(t.TempDir()+"/none/k.txt", countFixture(), nil); err == nil {
		t.Error("WriteResults into a missing directory succeeded")
	}
}

func TestReadCountsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"nopairs", "kernel-cpus: 4\n\nBenchmarkKernelCount/shape=pipe/levels=2 1 1 tx/s\n", "lacks kernel-cpus, levels or pairs"},
		{"nocpus", "BenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1 tx/s\n", "lacks kernel-cpus, levels or pairs"},
		{"baddomains", "kernel-cpus: 4\nkernel-domains: MC:x\n\nBenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1 tx/s\n", "kernel-domains"},
		{"badcost", "kernel-cpus: 4\nkernel-newidle-cost: 12 x\n\nBenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1 tx/s\n", "kernel-newidle-cost"},
	} {
		path := dir + "/" + tc.name
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCounts(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadCounts(%s) = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadCounts(dir + "/missing"); err == nil {
		t.Error("ReadCounts of a missing file succeeded")
	}
	// Read well, the guest's domains and newidle costs come back.
	path := dir + "/good"
	body := "kernel-cpus: 4\nkernel-domains: MC:2 NUMA:4+serialize\nkernel-newidle-cost: 2100 37319030\n\nBenchmarkKernelCount/shape=pipe/pairs=2/levels=2 1 1 tx/s\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCounts(path)
	if err != nil || len(got) != 1 || len(got[0].Domains) != 2 || !got[0].Domains[1].Serialize ||
		!slices.Equal(got[0].NewidleCost, []time.Duration{2100, 37319030}) {
		t.Errorf("ReadCounts(good) = %+v, %v", got, err)
	}
}

// TestWriteModelTable checks the table has the fixture's rows; the figures
// are the model's, not checked here.
func TestWriteModelTable(t *testing.T) {
	var b strings.Builder
	if err := WriteModelTable(&b, []string{"testdata/count-6.12.txt"}, ModelOptions{Duration: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"within ×1.5", "6.12.117+deb12-amd64", "tg writes per enqueue (update_load_avg)", "writes per 1 ms test", "shape=pipe/pairs=2/levels=2",
		// A row outside names what the model lacks for it.
		"outside: 6.12.117+deb12-amd64 shape=pipe/pairs=2/levels=2 tg writes per enqueue (all sites) (", "the count has no wakeups/s, run-%, runnable-%", "oracle_test.go's cut-down fixture"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("model table lacks %q:\n%s", want, b.String())
		}
	}
	// The lab's counts carry the workload's wakeups: the table splits the
	// writes by site, with the 1 ms test's count as the calls on 6.12,
	// and after it the model's inputs and its writes by caller.
	b.Reset()
	if err := WriteModelTable(&b, []string{"../reproduce/testdata/kernel-6.1-6.12.txt"}, ModelOptions{Duration: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"of which update_load_avg's site", "of which the other sites (blocked, attach)", "update_load_avg's update_tg_load_avg calls",
		"model inputs: 6.1.0-57-amd64 shape=pipe/pairs=2/levels=2: 189 wakeups per cpu per s", "2 pairs pinging, run 35.4 % and runnable 53.0 % of their time", "the model realised ",
		"model paths: 6.12.117+deb12-amd64 shape=migrate/pairs=2/levels=2: writes per wakeup by caller: enqueue ", "; tick ", "; blocked-entity ", "; blocked "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("model table lacks %q:\n%s", want, b.String())
		}
	}
	empty := t.TempDir() + "/empty.txt"
	if err := os.WriteFile(empty, []byte("BenchmarkOther 1 1 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteModelTable(&b, []string{empty}, ModelOptions{Duration: time.Millisecond}); err == nil || !strings.Contains(err.Error(), "no KernelCount results") {
		t.Errorf("WriteModelTable on a file without counts = %v, want no KernelCount results", err)
	}
}

// TestBalanceRowsHZ: a count that could not read CONFIG_HZ (kernel-hz: 0,
// as the lab's guests write) is modelled at Debian's 250, not at the
// simulation's default 1000; each cpu walks at most once a tick, so the
// model's passes stay within HZ per cpu per second. At 1000 the oracle-2n
// count's rows were 1.31-1.32 thousand passes a second (330 per cpu).
func TestBalanceRowsHZ(t *testing.T) {
	for _, tc := range []struct{ hz, want int }{{0, 250}, {100, 250}, {250, 250}, {1000, 1000}} {
		kc := CountResult{CPUs: 4, Nodes: 2, HZ: tc.hz, V: map[string]float64{"balances/s": 723, "flag-ops/s": 723, "flag-ops/balance": 1, "busy-%": 61.4}}
		if got := countHZ(kc); got != tc.want {
			t.Errorf("countHZ(kernel-hz %d) = %d, want %d", tc.hz, got, tc.want)
		}
		rows := balanceRows(kc, ModelOptions{Duration: 200 * time.Millisecond})
		if len(rows) != 3 {
			t.Fatalf("kernel-hz %d: %d balanceflag rows, want 3", tc.hz, len(rows))
		}
		if m := rows[0].model; m <= 0 || m > float64(kc.CPUs*tc.want) {
			t.Errorf("kernel-hz %d: model %g passes/s on %d cpus, want some and at most %d (one a tick at HZ %d)", tc.hz, m, kc.CPUs, kc.CPUs*tc.want, tc.want)
		}
		if tc.want == 250 && rows[0].model > 250*float64(kc.CPUs)*0.8 {
			t.Errorf("kernel-hz %d: model %g passes/s, as if ticking faster than 250", tc.hz, rows[0].model)
		}
	}
}

// TestWriteModelTableBalancer holds the balanceflag rows against the lab's
// oracle-2n counts (testdata/count-oracle-2n-balancer.txt: 6.1 then 6.12,
// pipe, 2 pairs, 2 s, each kernel's one attempt per pass; kernel-hz 0, as
// the guests write it). Modelled at HZ 250 the passes are within the
// table's tolerance; at the simulation's default 1000 they were 1.8×.
// The newidle period comes from the files' wakeups (1: every tick).
func TestWriteModelTableBalancer(t *testing.T) {
	var b strings.Builder
	if err := WriteModelTable(&b, []string{"testdata/count-oracle-2n-balancer.txt"}, ModelOptions{Duration: time.Second}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(b.String(), "\n") {
		if !strings.Contains(l, "balancer passes per s") && !strings.Contains(l, "flag attempts per") {
			continue
		}
		n++
		if !strings.HasSuffix(strings.TrimSpace(l), "yes") {
			t.Errorf("balanceflag row outside the tolerance: %s", l)
		}
	}
	if n != 6 {
		t.Errorf("%d balanceflag rows, want 3 per kernel:\n%s", n, b.String())
	}
}

// TestBfNewidle: the newidle period follows the count's wakeups per cpu,
// every tick at one a tick or more, none without a rate.
func TestBfNewidle(t *testing.T) {
	for _, tc := range []struct {
		wakeups float64
		hz      int
		want    int
	}{{0, 250, 0}, {5503, 250, 1}, {1000, 250, 1}, {500, 250, 2}, {100, 250, 10}, {100, 1000, 40}} {
		kc := CountResult{CPUs: 4, V: map[string]float64{"wakeups/s": tc.wakeups}}
		if got := bfNewidle(kc, tc.hz); got != tc.want {
			t.Errorf("bfNewidle(%g wakeups/s on 4 cpus, HZ %d) = %d, want %d", tc.wakeups, tc.hz, got, tc.want)
		}
	}
}

// The counts of scripts/vmlab.sh history, one per Debian kernel 6.1 … 7.3,
// kept with each kernel's sites beside them: the model runs on each (counts
// it was not developed against), and the balancer's order is read from the
// kernel's own text: check-first+newidle from 6.18.15's backport of
// 3324b2180c17 and 522fb20fbdbe on (no CPU_NEWLY_IDLE test guards the
// cmpxchg in sched_balance_rq), cmpxchg-first (a spinlock on 6.1) before.
func TestHistoryCounts(t *testing.T) {
	files, err := filepath.Glob("testdata/count-history-*.txt")
	if err != nil || len(files) < 8 {
		t.Fatalf("history counts: %v, %v", files, err)
	}
	for _, f := range files {
		kcs, err := ReadCounts(f)
		if err != nil || len(kcs) != 1 {
			t.Fatalf("%s: %d counts, %v", f, len(kcs), err)
		}
		kc := kcs[0]
		want := "cmpxchg-first"
		if kernelAtLeast(kc.Kernel, 6, 18) {
			want = "check-first+newidle"
		}
		if kc.BalanceOrder != want || !strings.HasPrefix(kc.BalanceOrderFrom, "sites-") {
			t.Errorf("%s: balancer order %q from %q, want %q from its sites file", kc.Kernel, kc.BalanceOrder, kc.BalanceOrderFrom, want)
		}
		var b strings.Builder
		if err := WriteModelTable(&b, []string{f}, ModelOptions{Duration: time.Second}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.Contains(b.String(), "flag attempts per pass") || !strings.Contains(b.String(), "balancer order: "+kc.Kernel) {
			t.Errorf("%s: no balancer rows or order line:\n%s", f, b.String())
		}
	}
	// Without a sites file the release decides, and says so.
	if o, from := balanceOrder(t.TempDir(), "6.19.14+deb13-amd64"); o != "check-first+newidle" || !strings.Contains(from, "release") {
		t.Errorf("6.19 without sites: %q from %q", o, from)
	}
	if o, from := balanceOrder(t.TempDir(), "6.18.15+deb13-amd64"); o != "cmpxchg-first" || !strings.Contains(from, "6.18.y") {
		t.Errorf("6.18 without sites: %q from %q", o, from)
	}
}

// balanceOrder maps each balance-running form kernel sites writes to
// balanceflag's order; a test-first form that does not say which passes
// (a sites file from before kernel sites read the guard) takes the
// release's, and says so.
func TestBalanceOrderForms(t *testing.T) {
	const testFirst = "  form: interval test and should_we_balance() before the cmpxchg: in sched_balance_rq, taken only by the domain's balancing cpu when due"
	for _, tc := range []struct {
		name, release, form string
		want, from          string // from: part of where it was read
	}{
		{"spinlock", "6.1.0-57-amd64", "  form: spinlock: spin_trylock(&balancing) in rebalance_domains", "cmpxchg-first", "sites-"},
		{"cmpxchg first", "6.12.118+deb12-amd64", "  form: cmpxchg before the interval test: sched_balance_domains takes the flag", "cmpxchg-first", "sites-"},
		{"periodic passes", "6.18.15+deb13-amd64", testFirst + ", by periodic passes only: idle != CPU_NEWLY_IDLE guards it (sched_balance_rq+0x271; 3324b2180c17 before 522fb20fbdbe)", "check-first", "sites-"},
		{"newidle passes", "6.18.15+deb13-amd64", testFirst + ", by newidle passes too: no test of idle against CPU_NEWLY_IDLE guards it", "check-first+newidle", "sites-"},
		{"which passes unsaid", "6.18.15+deb13-amd64", testFirst + " (3324b2180c17, v6.19; 6.18.y)", "check-first+newidle", "does not say which passes"},
		{"no form", "6.18.15+deb13-amd64", "balance-running: lock cmpxchg of sched_balance_running", "cmpxchg-first", "6.18.y"},
		{"no form, v7.3", "7.3.4+deb13-amd64", "balance-running: lock cmpxchg of sched_balance_running", "check-first+newidle", "the release"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "sites-"+tc.release+".txt"), []byte(tc.form+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if o, from := balanceOrder(dir, tc.release); o != tc.want || !strings.Contains(from, tc.from) {
			t.Errorf("%s: %q from %q, want %q from %q", tc.name, o, from, tc.want, tc.from)
		}
	}
}

// The counted machine's cpuidle driver and governor come from sysfs:
// current_governor_ro first, current_governor where only it exists, and
// "none" without a cpuidle directory.
func TestCpuidle(t *testing.T) {
	dir := t.TempDir()
	write := func(name, v string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if d, g := cpuidle(filepath.Join(dir, "absent")); d != "none" || g != "none" {
		t.Errorf("no cpuidle: %q, %q; want none, none", d, g)
	}
	write("current_driver", "acpi_idle\n")
	write("current_governor", "teo\n")
	if d, g := cpuidle(dir); d != "acpi_idle" || g != "teo" {
		t.Errorf("driver and writable governor: %q, %q", d, g)
	}
	write("current_governor_ro", "menu\n")
	if d, g := cpuidle(dir); d != "acpi_idle" || g != "menu" {
		t.Errorf("read-only governor first: %q, %q", d, g)
	}
}

// TestWriteResultsNohz: the locked writes to nohz's line per tick stop,
// the counter's kernel and the mask weight's, and nothing where a site
// went uncounted (an older count, or a kprobe tracefs refused).
func TestWriteResultsNohz(t *testing.T) {
	site := func(kind, fn string, hits int64) kernel.SiteCount {
		return kernel.SiteCount{Site: kernel.Site{Kind: kind, Func: fn}, Breakpoint: -1, Kprobe: hits}
	}
	for _, tc := range []struct {
		name  string
		sites []kernel.SiteCount
		want  []string
		lacks []string
	}{
		{"counter", []kernel.SiteCount{
			site("nohz-idle-mask", "nohz_balance_enter_idle", 100), site("nohz-idle-mask", "nohz_balance_exit_idle", 98),
			site("nohz-nr-cpus", "nohz_balance_enter_idle", 100), site("nohz-nr-cpus", "nohz_balance_exit_idle", 98),
			site("nr-busy-cpus", "nohz_balance_enter_idle", -1)},
			[]string{"kernel-nohz-counter: yes", " 50 nohz-mask-entries/s", " 198 nohz-locked/s", " 3.96 nohz-locked/mask-entry", "Unit nohz-locked/mask-entry better=lower"}, nil},
		{"weight", []kernel.SiteCount{
			site("nohz-idle-mask", "nohz_balance_enter_idle", 100), site("nohz-idle-mask", "nohz_balance_exit_idle", 100)},
			[]string{"kernel-nohz-counter: no", " 2 nohz-locked/mask-entry"}, nil},
		{"uncounted", []kernel.SiteCount{
			site("nohz-idle-mask", "nohz_balance_enter_idle", -1), site("nohz-idle-mask", "nohz_balance_exit_idle", -1),
			site("nohz-nr-cpus", "nohz_balance_enter_idle", -1)},
			[]string{"kernel-nohz-counter: yes"}, []string{"nohz-locked/s", "nohz-mask-entries/s"}},
		{"no tick stopped", []kernel.SiteCount{
			site("nohz-idle-mask", "nohz_balance_enter_idle", 0), site("nohz-idle-mask", "nohz_balance_exit_idle", 0)},
			[]string{"kernel-nohz-counter: no"}, []string{"nohz-locked/s", "nohz-mask-entries"}},
		{"no nohz site", nil, nil, []string{"kernel-nohz-counter", "nohz-locked/s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := countFixture()
			k.Sites = append(k.Sites, tc.sites...)
			path := t.TempDir() + "/k.txt"
			if err := WriteResults(path, k, nil); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			for _, want := range tc.want {
				if !strings.Contains(string(b), want) {
					t.Errorf("results file lacks %q:\n%s", want, b)
				}
			}
			for _, no := range tc.lacks {
				if strings.Contains(string(b), " "+no) || strings.Contains(string(b), no+":") {
					t.Errorf("results file has %q:\n%s", no, b)
				}
			}
		})
	}
}

// TestLabCounts: the counts of other shapes, pair counts, levels and sizes
// (testdata/count-lab-*.txt, made for #40 after the models were written:
// scripts/vmlab.sh run … contend kernel count, see
// benchdata/2026-12-05-lab-counts.md) each give the model's table, an
// outside: line per row outside, and nohz's line counted (nohz.nr_cpus
// beside the mask to 6.19: four locked writes per entry; two on 7.x).
func TestLabCounts(t *testing.T) {
	files, err := filepath.Glob("testdata/count-lab-*.txt")
	if err != nil || len(files) < 10 {
		t.Fatalf("lab counts: %v, %v", files, err)
	}
	shapes := map[string]bool{}
	for _, f := range files {
		kcs, err := ReadCounts(f)
		if err != nil || len(kcs) != 1 {
			t.Fatalf("%s: %d counts, %v", f, len(kcs), err)
		}
		kc := kcs[0]
		shapes[kc.Shape] = true
		// Four per entry and exit where nohz.nr_cpus sits beside the
		// mask (6.1 to 6.19), two where readers take the mask's weight
		// (7.x, 5d86d542f68f: kernel-nohz-counter no); a cpu in the
		// mask when the count starts exits without entering in the
		// window (2 s), so up to two more writes per cpu over the run's
		// entries.
		per := 4.0
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "kernel-nohz-counter: no") {
			per = 2
		}
		entries := kc.V["nohz-mask-entries/s"] * 2
		if v := kc.V["nohz-locked/mask-entry"]; entries <= 0 || v < per-0.5 || v > per+2*float64(kc.CPUs)/entries {
			t.Errorf("%s: %.3f locked writes to nohz's line per mask entry (%.0f entries), want about %.0f", f, v, entries, per)
		}
		var b strings.Builder
		if err := WriteModelTable(&b, []string{f}, ModelOptions{Duration: time.Second}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		no := strings.Count(b.String(), " NO\n")
		if out := strings.Count(b.String(), "\noutside: "); out != no {
			t.Errorf("%s: %d rows outside, %d outside: lines\n%s", f, no, out, b.String())
		}
	}
	for _, s := range []string{"pipe", "udp", "server", "migrate"} {
		if !shapes[s] {
			t.Errorf("no lab count of shape %s", s)
		}
	}
}

// TestWriteResultsIdleTick: the count records the idle loop's form as
// kernel sites reads it (kernel-idle-tick), which ReadCounts gives the
// models where the guest has no cpuidle driver and no sites file lies
// beside the count; no key where the text was not read. kernel sites'
// form lines are the ones the oracle matches a sites file on.
func TestWriteResultsIdleTick(t *testing.T) {
	if kernel.IdleFormStop != idleFormStop || kernel.IdleFormAfterTick != idleFormAfterTick {
		t.Fatalf("kernel sites' idle forms %q, %q differ from the oracle's %q, %q", kernel.IdleFormStop, kernel.IdleFormAfterTick, idleFormStop, idleFormAfterTick)
	}
	defer func(root string) { cpuidleRoot = root }(cpuidleRoot)
	cpuidleRoot = filepath.Join(t.TempDir(), "absent") // no driver: the form decides
	for _, tc := range []struct {
		idle kernel.IdleLoop
		want string // the key's line, "" none
		rule ksim.IdleTickRule
		from string
	}{
		{kernel.IdleLoop{Tick: "after-tick", At: "do_idle+0xd6"}, "kernel-idle-tick: after-tick", ksim.IdleTickAfterTick, "the count's kernel-idle-tick"},
		{kernel.IdleLoop{Tick: "stop", At: "do_idle+0xb5"}, "kernel-idle-tick: stop", ksim.IdleTickStop, "the count's kernel-idle-tick"},
		{kernel.IdleLoop{Why: "none of cpuidle_idle_call, do_idle is in kallsyms"}, "", ksim.IdleTickStop, "neither"},
	} {
		t.Run(tc.idle.Tick, func(t *testing.T) {
			k := countFixture()
			k.Idle = tc.idle
			path := t.TempDir() + "/k.txt"
			if err := WriteResults(path, k, nil); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if has := strings.Contains(string(b), "kernel-idle-tick:"); has != (tc.want != "") || !strings.Contains(string(b), tc.want) {
				t.Errorf("results file, want %q:\n%s", tc.want, b)
			}
			kcs, err := ReadCounts(path)
			if err != nil || len(kcs) != 1 {
				t.Fatalf("ReadCounts: %d, %v", len(kcs), err)
			}
			if kcs[0].IdleTick != tc.rule || !strings.Contains(kcs[0].IdleTickFrom, tc.from) {
				t.Errorf("ReadCounts: %v from %q, want %v from %q", kcs[0].IdleTick, kcs[0].IdleTickFrom, tc.rule, tc.from)
			}
			var w strings.Builder
			WriteText(&w, k)
			if f := tc.idle.Form(); f != "" && !strings.Contains(w.String(), "idle loop: "+f) {
				t.Errorf("count's text lacks the form %q:\n%s", f, w.String())
			}
		})
	}
}

// TestULAHits: update_load_avg()'s writes and tests are those in its own
// code (a clone's too) and in its copies inlined into callers (Site.Via),
// not the direct update_tg_load_avg() calls of the blocked walk, attach
// or detach.
func TestULAHits(t *testing.T) {
	site := func(kind, fn, via string, hits int64) kernel.SiteCount {
		return kernel.SiteCount{Site: kernel.Site{Kind: kind, Func: fn, Via: via}, Breakpoint: -1, Kprobe: hits}
	}
	c := &kernel.Counted{Sites: []kernel.SiteCount{
		site("tg-load-avg", "update_load_avg", "", 100),
		site("tg-load-avg", "update_load_avg.constprop.0", "", 7),
		site("tg-load-avg", "enqueue_task_fair", "update_load_avg", 50),
		site("tg-load-avg", "__sched_balance_update_blocked_averages", "update_load_avg", 20),
		site("tg-load-avg", "__sched_balance_update_blocked_averages", "", 30),
		site("tg-load-avg", "attach_entity_cfs_rq", "", 5),
		site("tg-load-avg-limit", "task_tick_fair", "update_load_avg", 40),
		site("tg-load-avg-limit", "update_load_avg", "", 60),
		site("tg-load-avg", "task_tick_fair", "update_load_avg", -1), // uncounted
	}}
	if got := ulaHits(c, "tg-load-avg"); got != 177 {
		t.Errorf("ulaHits(writes) = %d, want 177", got)
	}
	if got := ulaHits(c, "tg-load-avg-limit"); got != 100 {
		t.Errorf("ulaHits(tests) = %d, want 100", got)
	}
}
