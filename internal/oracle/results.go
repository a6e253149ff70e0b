package oracle

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/resultfmt"
	"github.com/contend/contend/internal/kernel"
)

// cpuidleRoot is where cpuidle's sysfs directory is read (a test's tree
// replaces it).
var cpuidleRoot = "/sys/devices/system/cpu/cpuidle"

// cpuidle names the counted machine's cpuidle driver and governor
// (current_driver; current_governor_ro, or current_governor where the
// kernel lets it be written): they decide when an idle cpu stops its tick
// (menu's prediction against the driver's states), which the models'
// tick-stop rows and inputs depend on. "none" where sysfs has no cpuidle
// (CONFIG_CPU_IDLE off, or no driver registered).
func cpuidle(root string) (driver, governor string) {
	read := func(names ...string) string {
		for _, n := range names {
			if b, err := os.ReadFile(root + "/" + n); err == nil {
				if v := strings.TrimSpace(string(b)); v != "" {
					return v
				}
			}
		}
		return "none"
	}
	return read("current_driver"), read("current_governor_ro", "current_governor")
}

// WriteResults writes one benchmark-format result per count to path
// (through a temporary file beside it, renamed into place, so a failed
// write leaves no half-written file): the config names the kernel (from
// the host topology's provenance) and args are the command line after
// "contend kernel count", so two files from two kernels compare as before
// and after. ReadCounts reads it back.
func WriteResults(path string, c *kernel.Counted, args []string) error {
	t, err := affinity.Host()
	if err != nil {
		return err
	}
	cfg := resultfmt.FileConfig(t, append([]string{"kernel", "count"}, args...))
	limit := "no"
	if c.RateLimit {
		limit = "yes"
	}
	driver, governor := cpuidle(cpuidleRoot)
	kv := [][2]string{{"kernel-cpus", strconv.Itoa(c.CPUs)}, {"kernel-hz", strconv.Itoa(c.HZ)}, {"kernel-rate-limit", limit},
		{"cpuidle-driver", driver}, {"cpuidle-governor", governor}}
	if form := nohzForm(c); form != "" {
		kv = append(kv, [2]string{"kernel-nohz-counter", form})
	}
	if len(c.Domains) > 0 {
		kv = append(kv, [2]string{"kernel-domains", kernel.DomainsString(c.Domains)})
		if costs := kernel.NewidleCostsString(c.Domains); costs != "" {
			kv = append(kv, [2]string{"kernel-newidle-cost", costs})
		}
	}
	// The idle loop's driver-less form, where the text was read: what
	// the models' idle-loop tick rule takes without a sites file.
	if c.Idle.Tick != "" {
		kv = append(kv, [2]string{"kernel-idle-tick", c.Idle.Tick})
	}
	for _, c := range kv {
		cfg = append(cfg, benchfmt.Config{Key: c[0], Value: []byte(c[1]), File: true})
	}
	name := fmt.Sprintf("KernelCount/shape=%s/pairs=%d/levels=%d", c.Shape, c.Pairs, c.Levels)
	tg := float64(tgWrites(c))
	enq := float64(max(c.Enqueues, 1))
	bare := float64(c.Bare.Transactions) / c.Bare.Seconds
	counted := float64(c.Counted.Transactions) / c.Counted.Seconds
	r := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(name), Iters: 1}
	for _, v := range []struct {
		unit string
		v    float64
	}{
		{"tx/s", bare},
		{"enqueue/s", rate(float64(c.Enqueues), c)},
		{"tg-writes/enqueue", tg / enq},
		{"tg-writes/s", rate(tg, c)},
		{"migrations/tx", float64(c.Threads.Migrations) / math.Max(float64(c.Counted.Transactions), 1)},
		{"migrations/wakeup", float64(c.Threads.Migrations) / math.Max(float64(c.Threads.Wakeups), 1)},
		{"ula-writes/enqueue", float64(ulaHits(c, "tg-load-avg")) / enq},
		{"ula-tests/enqueue", float64(ulaHits(c, "tg-load-avg-limit")) / enq},
		{"count-cost-%", 100 * (1 - counted/bare)},
		// The workload's own events: enqueue_task_fair counts every
		// task's enqueue, the machine's others' too (in a guest, 2-4× the
		// workload's), and only the hierarchy's tasks write tg->load_avg.
		{"wakeups/s", float64(c.Threads.Wakeups) / c.Counted.Seconds},
		{"tg-writes/wakeup", tg / math.Max(float64(c.Threads.Wakeups), 1)},
		{"run-%", runPct(c)},
		{"runnable-%", runPct(c) + waitPct(c)},
	} {
		r.Values = append(r.Values, benchfmt.Value{Value: v.v, Unit: v.unit})
	}
	r.Values = append(r.Values, threadValues(c.Threads)...)
	if c.BalanceProbe != "" {
		ops, _ := flagOps(c)
		r.Values = append(r.Values,
			benchfmt.Value{Value: rate(float64(c.Balances), c), Unit: "balances/s"},
			benchfmt.Value{Value: rate(float64(ops), c), Unit: "flag-ops/s"},
			benchfmt.Value{Value: float64(ops) / math.Max(float64(c.Balances), 1), Unit: "flag-ops/balance"},
			benchfmt.Value{Value: c.BusyPct, Unit: "busy-%"})
		r.Values = append(r.Values, causeValues(c)...)
	}
	r.Values = append(r.Values, nohzValues(c)...)
	r.Values = append(r.Values, lbValues(c)...)
	r.Values = append(r.Values, tickValues(c)...)
	r.Values = append(r.Values, wakeValues(c)...)
	// The writes by path (the models' split), where a site's callers
	// were sampled.
	if by := pathWrites(c); by != nil {
		for _, p := range kernel.Paths {
			r.Values = append(r.Values, benchfmt.Value{Value: by[p] / math.Max(float64(c.Threads.Wakeups), 1), Unit: p + "-tg-writes/wakeup"})
		}
	}
	// The checking run, where there was one: the watchpoints' sum
	// against the sites' in that run (the two methods), and each level's
	// writes per enqueue and per cfs_rq per s there.
	if k := c.Check; k != nil && len(k.Watched) > 0 {
		sites, _ := sitesHits(k.Sites, "tg-load-avg")
		kenq := float64(max(k.Enqueues, 1))
		r.Values = append(r.Values,
			benchfmt.Value{Value: float64(k.Enqueues) / k.Load.Seconds, Unit: "check-enqueue/s"},
			benchfmt.Value{Value: float64(k.Threads.Wakeups) / k.Load.Seconds, Unit: "check-wakeups/s"},
			// The checking run's own duty: its watchpoints slow the
			// guest, so its shares are not the counted run's.
			benchfmt.Value{Value: 100 * k.Threads.RunMs / (1000 * k.Load.Seconds * float64(pingers(c))), Unit: "check-run-%"},
			benchfmt.Value{Value: 100 * (k.Threads.RunMs + k.Threads.WaitMs) / (1000 * k.Load.Seconds * float64(pingers(c))), Unit: "check-runnable-%"},
			benchfmt.Value{Value: float64(watchedSum(k)) / kenq, Unit: "check-wp-writes/enqueue"},
			benchfmt.Value{Value: float64(watchedSum(k)) / math.Max(float64(sites), 1), Unit: "check-wp/sites"})
		for _, wc := range k.Watched {
			if wc.Level == 0 {
				continue // another task group: in the sum, not a level
			}
			r.Values = append(r.Values,
				benchfmt.Value{Value: float64(wc.Writes) / kenq, Unit: fmt.Sprintf("check-l%d-writes/enqueue", wc.Level)},
				benchfmt.Value{Value: float64(wc.Writes) / math.Max(float64(k.Threads.Wakeups), 1), Unit: fmt.Sprintf("check-l%d-writes/wakeup", wc.Level)},
				benchfmt.Value{Value: float64(wc.Writes) / k.Load.Seconds / float64(max(c.CPUs, 1)), Unit: fmt.Sprintf("check-l%d-writes/cfs_rq/s", wc.Level)})
		}
	}
	f, err := os.CreateTemp(dirOf(path), ".kernel-count-*")
	if err != nil {
		return err
	}
	bw := benchfmt.NewWriter(f)
	var werr error
	// Which way is better, for compare's verdicts: fewer shared writes per
	// event is the seed's aim; more transactions, less counting cost.
	for _, u := range [][2]string{{"tx/s", "higher"}, {"tg-writes/enqueue", "lower"}, {"tg-writes/s", "lower"},
		{"ula-writes/enqueue", "lower"}, {"count-cost-%", "lower"}, {"nohz-locked/mask-entry", "lower"}} {
		if werr == nil {
			werr = bw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u[0], Key: "better"}, OrigUnit: u[0], Value: u[1]})
		}
	}
	if werr == nil {
		werr = bw.Write(r)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return werr
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i+1]
	}
	return "."
}

// threadValues are the pingers' sleeps, preemptions and waits per wakeup,
// where the count read them (kernel count from 2026-12-05 12:00): a
// wakeup without a sleep found its task still queued or running. And the
// migrations split: those select_task_rq_fair() made at a wakeup
// (nr_wakeups_migrate) against every move (nr_migrations: the balancer's
// and the stopper's too); the affine wakeups; and the wakeups onto the
// waking cpu (nr_wakeups_local: for a pipe's pingers, stacked).
func threadValues(t kernel.ThreadStats) []benchfmt.Value {
	if t.Sleeps == 0 || t.Wakeups == 0 {
		return nil
	}
	w := float64(t.Wakeups)
	return []benchfmt.Value{{Value: float64(t.Sleeps) / w, Unit: "sleeps/wakeup"},
		{Value: float64(t.Preempted) / w, Unit: "preemptions/wakeup"},
		{Value: float64(t.Waits) / w, Unit: "waits/wakeup"},
		{Value: float64(t.WakeupsMigrated) / w, Unit: "wakeup-migrations/wakeup"},
		{Value: float64(t.Affine) / w, Unit: "affine-wakeups/wakeup"},
		{Value: float64(t.Local) / w, Unit: "local-wakeups/wakeup"}}
}

// nohzForm says whether the counted kernel keeps nohz.nr_cpus beside the
// idle mask ("yes", before 5d86d542f68f) or takes the mask's weight
// ("no"), from the sites kernel sites found in its text; "" where the
// count has no nohz-idle-mask site.
func nohzForm(c *kernel.Counted) string {
	mask, counter := false, false
	for _, s := range c.Sites {
		mask = mask || s.Kind == "nohz-idle-mask"
		counter = counter || s.Kind == "nohz-nr-cpus"
	}
	switch {
	case !mask:
		return ""
	case counter:
		return "yes"
	}
	return "no"
}

// nohzValues are the locked writes to nohz's line (kernel.NohzKinds)
// where their kprobes counted: the cpus entering nohz.idle_cpus_mask
// (nohz_balance_enter_idle()'s bts: a tick stop that finds
// rq->nohz_tick_stopped clear; a cpu stays in the mask until a busy
// tick's nohz_balance_exit_idle(), however often it stops its tick
// before one), and the locked writes per entry, the exits' and
// nohz.nr_cpus's included: 4 with the counter (bts, inc; btr, dec), 2
// with the mask's weight, where every entry is left again.
func nohzValues(c *kernel.Counted) []benchfmt.Value {
	var locked uint64
	for k := range kernel.NohzKinds {
		n, missed := kindHits(c, k)
		if missed > 0 {
			return nil // a site neither method reached: no sum
		}
		locked += n
	}
	sets := hostHits(c, "nohz-idle-mask", "nohz_balance_enter_idle")
	if sets == 0 {
		return nil
	}
	return []benchfmt.Value{
		{Value: rate(float64(sets), c), Unit: "nohz-mask-entries/s"},
		{Value: rate(float64(locked), c), Unit: "nohz-locked/s"},
		{Value: float64(locked) / float64(sets), Unit: "nohz-locked/mask-entry"},
	}
}
