package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench/resultfmt"
	"github.com/contend/contend/internal/kernel"
)

func init() {
	kernelSubs["count"] = kernelCountCmd
	kernelSubs["load"] = kernelLoadCmd
}

const countSynopsis = "count [-shape pipe|udp|migrate|server] [-pairs N] [-levels L] [-duration D] [-o FILE] [-json]"

func kernelCountCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", countSynopsis)
	shape := fs.String("shape", "pipe", "the workload: "+shapeList())
	pairs := fs.Int("pairs", 4, "ping-pong `pairs` (clients, for -shape server)")
	levels := fs.Int("levels", 2, "cgroup `depth` of the workload: 1 system.slice, 2 adds docker-<id>.scope (seed 000's), more nest further")
	dur := fs.Duration("duration", 5*time.Second, "length of each of the two runs, bare and counted")
	out := fs.String("o", "", "write the counts as benchmark-format results to `file` (its config names the kernel, for contend compare)")
	asJSON := fs.Bool("json", false, "print the counts as JSON")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if _, ok := kernel.Shapes[*shape]; !ok {
		return fmt.Errorf("kernel count: -shape %q: want one of %s", *shape, shapeList())
	}
	if *pairs < 1 || *levels < 1 || *dur <= 0 {
		return fmt.Errorf("kernel count: -pairs, -levels and -duration must be positive (got %d, %d, %v)", *pairs, *levels, *dur)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("kernel count: finding contend's own binary for the workload: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := kernel.Count(ctx, kernel.CountConfig{
		Root: "/", Self: self, Shape: *shape, Pairs: *pairs, Levels: *levels, Duration: *dur, Log: stderr,
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("kernel count: interrupted; every probe, cgroup and sysctl it changed is undone")
		}
		return fmt.Errorf("kernel count: %w", err)
	}
	if *out != "" {
		if err := writeCounts(*out, c, args); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, c)
	}
	return writeCountText(stdout, c)
}

func shapeList() string {
	return "pipe, udp, migrate, server"
}

// kernelLoadCmd is the workload's own process, started by count inside
// the cgroup; not for use by hand.
func kernelLoadCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "load (the workload process kernel count starts)")
	shape := fs.String("shape", "pipe", "the workload")
	pairs := fs.Int("pairs", 4, "pairs")
	dur := fs.Duration("duration", time.Second, "how long")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := kernel.ServeLoad(stdout, os.Stdin, *shape, *pairs, *dur); err != nil {
		return fmt.Errorf("kernel load: %w", err)
	}
	return nil
}

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
	for _, s := range c.Sites {
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

// tgWrites sums the counts of the tg->load_avg writes.
func tgWrites(c *kernel.Counted) uint64 {
	n, _ := kindHits(c, "tg-load-avg")
	return n
}

func writeCountText(w io.Writer, c *kernel.Counted) error {
	bare := float64(c.Bare.Transactions) / c.Bare.Seconds
	counted := float64(c.Counted.Transactions) / c.Counted.Seconds
	fmt.Fprintf(w, "kernel %s: shape=%s pairs=%d levels=%d (%s)\n", c.Kernel, c.Shape, c.Pairs, c.Levels, strings.Join(c.Hierarchy, " > "))
	fmt.Fprintf(w, "workload: %.0f tx/s bare, %.0f tx/s counted: counting cost %.1f %% of throughput\n", bare, counted, 100*(1-counted/bare))
	fmt.Fprintf(w, "events: enqueue_task_fair %d (%.0f/s), select_task_rq_fair %d (%.0f/s); workload threads: %d migrations, %d wakeups, %d affine of %d affine attempts\n",
		c.Enqueues, rate(float64(c.Enqueues), c), c.SelectRQ, rate(float64(c.SelectRQ), c),
		c.Threads.Migrations, c.Threads.Wakeups, c.Threads.Affine, c.Threads.AffineAttempts)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.0f\t%s\t\n", site, count(s.Breakpoint), count(s.Kprobe),
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
	if tests, tmiss := kindHits(c, "tg-load-avg-limit"); c.RateLimit && tests > 0 {
		fmt.Fprintf(w, "rate limit: %d 1 ms tests, %.3f writes per test (the rest blocked by the limit or by the 1/64 threshold)", tests, tg/float64(tests))
		if tmiss > 0 {
			fmt.Fprintf(w, "; %d tests not counted", tmiss)
		}
		fmt.Fprintln(w)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if c.Undone {
		fmt.Fprintf(w, "undone: every kprobe, breakpoint, cgroup and sysctl this count changed\n")
	}
	return nil
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

// writeCounts writes one benchmark-format result per count: the config
// names the kernel (from the topology's provenance), so two files from
// two kernels compare as before and after.
func writeCounts(path string, c *kernel.Counted, args []string) error {
	t, err := affinity.Host()
	if err != nil {
		return fmt.Errorf("kernel count: -o: %w", err)
	}
	cfg := resultfmt.FileConfig(t, append([]string{"kernel", "count"}, args...))
	limit := "no"
	if c.RateLimit {
		limit = "yes"
	}
	for _, kv := range [][2]string{{"kernel-cpus", strconv.Itoa(c.CPUs)}, {"kernel-hz", strconv.Itoa(c.HZ)}, {"kernel-rate-limit", limit}} {
		cfg = append(cfg, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
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
		{"ula-writes/enqueue", float64(hostHits(c, "tg-load-avg", "update_load_avg")) / enq},
		{"ula-tests/enqueue", float64(hostHits(c, "tg-load-avg-limit", "update_load_avg")) / enq},
		{"count-cost-%", 100 * (1 - counted/bare)},
	} {
		r.Values = append(r.Values, benchfmt.Value{Value: v.v, Unit: v.unit})
	}
	f, err := os.CreateTemp(dirOf(path), ".kernel-count-*")
	if err != nil {
		return fmt.Errorf("kernel count: -o: %w", err)
	}
	bw := benchfmt.NewWriter(f)
	var werr error
	// Which way is better, for compare's verdicts: fewer shared writes per
	// event is the seed's aim; more transactions, less counting cost.
	for _, u := range [][2]string{{"tx/s", "higher"}, {"tg-writes/enqueue", "lower"}, {"tg-writes/s", "lower"},
		{"ula-writes/enqueue", "lower"}, {"count-cost-%", "lower"}} {
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
		return fmt.Errorf("kernel count: -o: %w", werr)
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i+1]
	}
	return "."
}
