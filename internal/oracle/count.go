package oracle

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/contend/contend/internal/kernel"
)

// rate is n per second of the counted run.
func rate(n float64, c *kernel.Counted) float64 { return n / c.Counted.Seconds }

// siteHits is a site's count: the breakpoint's where it had one (it
// reaches every site), else the kprobe's, else -1.
func siteHits(s kernel.SiteCount) int64 {
	if s.Breakpoint >= 0 {
		return s.Breakpoint
	}
	return s.Kprobe
}

// kindHits sums the counts of a kind's sites, and says how many of its
// sites neither method reached.
func kindHits(c *kernel.Counted, kind string) (n uint64, missed int) {
	return sitesHits(c.Sites, kind)
}

// sitesHits is kindHits over a run's sites.
func sitesHits(sites []kernel.SiteCount, kind string) (n uint64, missed int) {
	for _, s := range sites {
		if s.Kind != kind {
			continue
		}
		if h := siteHits(s); h >= 0 {
			n += uint64(h)
		} else {
			missed++
		}
	}
	return n, missed
}

// hostHits is the count of a kind's site in one function.
func hostHits(c *kernel.Counted, kind, fn string) uint64 {
	var n uint64
	for _, s := range c.Sites {
		if s.Kind == kind && s.Func == fn && siteHits(s) > 0 {
			n += uint64(siteHits(s))
		}
	}
	return n
}

// ulaHits is the count of a kind's sites in update_load_avg()'s body: its
// own code (a GCC clone's too), and its copies inlined into callers
// (kernel.Site.Via, Debian 7.0 on), which a count by host alone put
// among the other sites.
func ulaHits(c *kernel.Counted, kind string) uint64 {
	var n uint64
	for _, s := range c.Sites {
		name, _, _ := strings.Cut(s.Func, ".")
		if s.Kind == kind && (name == "update_load_avg" || s.Via == "update_load_avg") && siteHits(s) > 0 {
			n += uint64(siteHits(s))
		}
	}
	return n
}

// tgWrites sums the counts of the tg->load_avg writes.
func tgWrites(c *kernel.Counted) uint64 {
	n, _ := kindHits(c, "tg-load-avg")
	return n
}

// pathWrites splits the tg->load_avg writes by the models' paths
// (kernel.Paths): the sampled update_load_avg() site's by its callers'
// shares of its samples, every other site by its host (kernel.SitePath).
// Nil where no site was sampled (a count before callers, or one whose
// sampling failed: a note says why).
func pathWrites(c *kernel.Counted) map[string]float64 {
	cl := c.Callers
	if cl == nil || cl.Sampled == 0 {
		return nil
	}
	by := map[string]float64{}
	for _, s := range c.Sites {
		n := float64(siteHits(s))
		if s.Kind != "tg-load-avg" || n <= 0 {
			continue
		}
		if !kernel.SampledSite(s.Site) {
			by[kernel.SitePath(s.Site)] += n
			continue
		}
		for fn, k := range cl.By {
			by[kernel.WritePath(fn)] += n * float64(k) / float64(cl.Sampled)
		}
	}
	return by
}

// writeCallers prints the sampled site's callers and the writes by path.
func writeCallers(w io.Writer, c *kernel.Counted) {
	cl := c.Callers
	if cl == nil || cl.Sampled == 0 {
		return
	}
	var parts []string
	for _, fn := range cl.Top() {
		parts = append(parts, fmt.Sprintf("%s %.1f %%", fn, 100*float64(cl.By[fn])/float64(cl.Sampled)))
	}
	fmt.Fprintf(w, "callers of %s (%d samples, %d lost): %s\n", cl.Site, cl.Sampled, cl.Lost, strings.Join(parts, ", "))
	by, wk := pathWrites(c), math.Max(float64(c.Threads.Wakeups), 1)
	parts = parts[:0]
	for _, p := range kernel.Paths {
		parts = append(parts, fmt.Sprintf("%s %.3f", p, by[p]/wk))
	}
	fmt.Fprintf(w, "tg->load_avg writes per workload wakeup by path: %s\n", strings.Join(parts, ", "))
}

// WriteText writes a count as contend kernel count prints it: the
// workload's throughput bare and counted, the denominators, one row per
// site either method reached, and the tg->load_avg writes per enqueue, per
// second and per cfs_rq.
func WriteText(w io.Writer, c *kernel.Counted) error {
	bare := float64(c.Bare.Transactions) / c.Bare.Seconds
	counted := float64(c.Counted.Transactions) / c.Counted.Seconds
	fmt.Fprintf(w, "kernel %s: shape=%s pairs=%d levels=%d (%s)\n", c.Kernel, c.Shape, c.Pairs, c.Levels, strings.Join(c.Hierarchy, " > "))
	fmt.Fprintf(w, "workload: %.0f tx/s bare, %.0f tx/s counted: counting cost %.1f %% of throughput\n", bare, counted, 100*(1-counted/bare))
	fmt.Fprintf(w, "events: enqueue_task_fair %d (%.0f/s), select_task_rq_fair %d (%.0f/s); workload threads: %d migrations, %d wakeups, %d affine of %d affine attempts\n",
		c.Enqueues, rate(float64(c.Enqueues), c), c.SelectRQ, rate(float64(c.SelectRQ), c),
		c.Threads.Migrations, c.Threads.Wakeups, c.Threads.Affine, c.Threads.AffineAttempts)
	if c.Threads.Tasks > 0 {
		fmt.Fprintf(w, "duty: the workload's %d threads ran %.1f %% and waited runnable %.1f %% of %d pingers' time (se.sum_exec_runtime, wait_sum over their lives), Σ se.avg.load_avg %d\n",
			c.Threads.Tasks, runPct(c), waitPct(c), pingers(c), c.Threads.LoadAvg)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "site\tbreakpoint\tkprobe\tper enqueue\tper s\tbp/kprobe\t\n")
	for _, s := range c.Sites {
		if s.Breakpoint < 0 && s.Kprobe < 0 {
			continue
		}
		n := float64(siteHits(s))
		site := fmt.Sprintf("%s+%#x", s.Func, s.Off)
		if s.BreakpointAt != "" {
			site += " (bp at the next insn)"
		}
		kp := count(s.Kprobe)
		if s.KprobeMissed > 0 {
			kp += fmt.Sprintf(" (+%d missed)", s.KprobeMissed)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.0f\t%s\t\n", site, count(s.Breakpoint), kp,
			n/float64(max(c.Enqueues, 1)), rate(n, c), ratio(s.Breakpoint, s.Kprobe))
	}
	tw.Flush()
	writes, wmiss := kindHits(c, "tg-load-avg")
	tg := float64(writes)
	fmt.Fprintf(w, "tg->load_avg writes: %.0f, %.3f per enqueue_task_fair, %.0f/s, %.1f per cfs_rq per s (%d cpus × %d levels)",
		tg, tg/float64(max(c.Enqueues, 1)), rate(tg, c), rate(tg, c)/float64(max(c.CPUs*c.Levels, 1)), c.CPUs, c.Levels)
	if wmiss > 0 {
		fmt.Fprintf(w, "; %d sites not counted", wmiss)
	}
	fmt.Fprintln(w)
	writeCallers(w, c)
	writeCheck(w, c)
	if c.BalanceProbe != "" {
		ops, kind := flagOps(c)
		fmt.Fprintf(w, "balancer: %d passes of %s (%.0f/s); %s %d (%.0f/s, %.3f per pass); cpus busy %.1f %% of the run\n",
			c.Balances, c.BalanceProbe, rate(float64(c.Balances), c), kind, ops, rate(float64(ops), c), float64(ops)/float64(max(c.Balances, 1)), c.BusyPct)
		writeCauses(w, c)
	}
	if tests, tmiss := kindHits(c, "tg-load-avg-limit"); c.RateLimit && tests > 0 {
		fmt.Fprintf(w, "rate limit: %d 1 ms tests, %.3f writes per test (the rest blocked by the limit or by the 1/64 threshold)", tests, tg/float64(tests))
		if tmiss > 0 {
			fmt.Fprintf(w, "; %d tests not counted", tmiss)
		}
		fmt.Fprintln(w)
	}
	if f := c.Idle.Form(); f != "" {
		fmt.Fprintf(w, "idle loop: %s\n", f)
	} else if c.Idle.Why != "" {
		fmt.Fprintf(w, "idle loop: form not read: %s\n", c.Idle.Why)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if c.Undone {
		fmt.Fprintf(w, "undone: every kprobe, breakpoint, cgroup and sysctl this count changed\n")
	}
	return nil
}

// flagOps is the count of the balancer's serialisation attempts: 6.12's
// sched_balance_running cmpxchg, or 6.1's spin_trylock(&balancing), by
// kprobe; and which it was.
func flagOps(c *kernel.Counted) (uint64, string) {
	if n, _ := kindHits(c, "balance-running"); n > 0 {
		return n, "sched_balance_running cmpxchg"
	}
	n, _ := kindHits(c, "balancing-trylock")
	return n, "balancing trylock"
}

// pingers is how many of the workload's threads take part in its
// transactions (the rest are the Go runtime's): two a pair, or the
// clients and the server.
func pingers(c *kernel.Counted) int {
	if c.Shape == "server" {
		return c.Pairs + 1
	}
	return 2 * c.Pairs
}

// runPct is the share of the pingers' time the workload's threads spent
// on a cpu, over the counted run: the duty the loadavg model's tasks are
// compared with (theirs is queued about half the time by construction).
func runPct(c *kernel.Counted) float64 {
	return 100 * c.Threads.RunMs / (1000 * c.Counted.Seconds * float64(pingers(c)))
}

// waitPct is runPct for the time spent runnable but waiting for a cpu.
func waitPct(c *kernel.Counted) float64 {
	return 100 * c.Threads.WaitMs / (1000 * c.Counted.Seconds * float64(pingers(c)))
}

// AgreeTolerance is how far the two methods' counts of the same writes may
// differ, as a fraction of the sites' count: the 2 %. Both count
// the same instructions' writes over the same window, so what separates
// them is only the instants at each end of the window where the reads of
// one method's counters run while the other's are already read.
const AgreeTolerance = 0.02

// watchedSum is the writes the watchpoints counted, over every level.
func watchedSum(k *kernel.Check) int64 {
	var n int64
	for _, wc := range k.Watched {
		n += wc.Writes
	}
	return n
}

// writeCheck writes the checking run: each level's load_avg under a write
// watchpoint, and the watchpoints' sum against the sites' in the same run
// (a breakpoint or kprobe on each lock add), with whether they agree
// within AgreeTolerance.
func writeCheck(w io.Writer, c *kernel.Counted) {
	k := c.Check
	if k == nil || len(k.Watched) == 0 {
		return
	}
	secs := k.Load.Seconds
	var parts []string
	for _, wc := range k.Watched {
		if wc.Level == 0 {
			parts = append(parts, fmt.Sprintf("outside the hierarchy (%s) %d", wc.Cgroup, wc.Writes))
			continue
		}
		parts = append(parts, fmt.Sprintf("level %d (%s) %d, %.3f per enqueue, %.1f per cfs_rq per s",
			wc.Level, filepath.Base(wc.Cgroup), wc.Writes, float64(wc.Writes)/float64(max(k.Enqueues, 1)), float64(wc.Writes)/secs/float64(max(c.CPUs, 1))))
	}
	bare := float64(c.Bare.Transactions) / c.Bare.Seconds
	fmt.Fprintf(w, "checking run (watchpoints: %.0f tx/s, cost %.1f %%): %s\n", float64(k.Load.Transactions)/secs, 100*(1-float64(k.Load.Transactions)/secs/bare), strings.Join(parts, "; "))
	sites, missed := sitesHits(k.Sites, "tg-load-avg")
	sum := watchedSum(k)
	verdict := "NO"
	if d := math.Abs(float64(sum)/float64(max(sites, 1)) - 1); sites > 0 && d <= AgreeTolerance {
		verdict = "yes"
	}
	fmt.Fprintf(w, "two methods: %d writes by the sites' breakpoints and kprobes, %d by the watchpoints: watchpoints/sites %s, within %.0f %%: %s",
		sites, sum, ratio(sum, int64(sites)), 100*AgreeTolerance, verdict)
	if missed > 0 {
		fmt.Fprintf(w, " (%d sites counted by neither: the sites' sum lacks them)", missed)
	}
	if others := k.TaskGroups - len(k.Watched); others > 0 {
		fmt.Fprintf(w, " (%d other task groups: their writes count in the sites' sum only)", others)
	}
	fmt.Fprintln(w)
}

func count(n int64) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func ratio(a, b int64) string {
	if a < 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f", float64(a)/float64(b))
}
