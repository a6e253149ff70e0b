package kernel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/contend/contend/internal/kernel/schedstat"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/contend/contend/internal/kernel/machine"
	"github.com/contend/contend/internal/results"
)

// CountConfig is one count: the workload and how to count it.
type CountConfig struct {
	Root     string        // "/" (tests: a fake root for the parts that allow it)
	Self     string        // the contend binary, run as the workload's process
	Shape    string        // a key of Shapes
	Pairs    int           // pairs (clients for server)
	Levels   int           // cgroup depth below the root
	Duration time.Duration // each run (bare, counted, checked)
	Check    bool          // a third run, with watchpoints on each level's load_avg
	Log      io.Writer     // what the count does to the machine, line by line
	// TickTrace, where set, is the file the counted run's tick trace is
	// saved to as tracefs recorded it (written atomically).
	TickTrace string
	// WakeTrace, where set, is the file the counted run's wake trace is
	// saved to (written atomically).
	WakeTrace string
	// NoTickTrace takes no tick trace, nor wake trace, at all.
	NoTickTrace bool
}

// Counted is a count's outcome: per site, the hits by each method that
// could reach it, and the workload's denominators.
type Counted struct {
	Kernel    string      `json:"kernel"`
	CPUs      int         `json:"cpus"`       // online
	HZ        int         `json:"hz"`         // CONFIG_HZ, 0 where the config is not exposed
	RateLimit bool        `json:"rate_limit"` // cfs_rq has last_update_tg_load_avg
	Shape     string      `json:"shape"`
	Pairs     int         `json:"pairs"`
	Levels    int         `json:"levels"`
	Bare      *Load       `json:"bare"`    // the workload with nothing counting
	Counted   *Load       `json:"counted"` // the workload while counting
	Sites     []SiteCount `json:"sites"`
	// Check is the checking run, when there was one: the sites counted
	// again beside a write watchpoint on each level's load_avg.
	Check    *Check `json:"check,omitempty"`
	Enqueues uint64 `json:"enqueue_task_fair"`   // kprobe hits
	SelectRQ uint64 `json:"select_task_rq_fair"` // kprobe hits
	// Balances are the balancer's passes (kprobe hits on BalanceProbe,
	// "" where none could be set), the denominator of the flag's sites.
	Balances     uint64      `json:"balances"`
	BalanceProbe string      `json:"balance_probe,omitempty"`
	BusyPct      float64     `json:"busy_pct"` // the machine's non-idle share over the counted run (/proc/stat), -1 unknown
	Threads      ThreadStats `json:"threads"`  // the workload's own schedstats
	Notes        []string    `json:"notes"`
	StaleRemoved []string    `json:"stale_removed,omitempty"`
	Hierarchy    []string    `json:"cgroups"`
	Undone       bool        `json:"undone"`
	Elapsed      [2]float64  `json:"-"`

	// BalanceCauses split the passes by what ran them (balance.go):
	// the softirqs, the nohz balancer's walks and their callers, its
	// kicks, and the passes it ran on an idle cpu's behalf.
	BalanceCauses []Cause `json:"balance_causes,omitempty"`

	// Domains are cpu 0's sched domains (ReadDomains), nil where they
	// could not be read (a note says why).
	Domains []SchedDomain `json:"domains,omitempty"`

	// Idle is the idle loop's form without a cpuidle driver, read from
	// the text as kernel sites reads it (idle.go): whether the tick
	// stops at every iteration or only after one the tick ended.
	Idle IdleLoop `json:"idle_loop"`

	// LB is /proc/schedstat's change over the counted run (nil where it
	// could not be read): the balancer's passes and the tasks they
	// pulled, per domain level and idle type.
	LB *schedstat.Stats `json:"lb,omitempty"`

	// Ticks sums the counted run's tick trace (ticktrace.go): per tick,
	// whether the cpu's own walk was due and as which idle type (nil
	// where it could not be taken: a note says why).
	Ticks *TickTrace `json:"ticks,omitempty"`

	// Wakes sums the counted run's wake trace (waketrace.go): where
	// select_task_rq_fair() put the workload's wakees, and what the
	// cpus were at each (nil where it could not be taken: a note says
	// why).
	Wakes *WakeTrace `json:"wakes,omitempty"`

	// Callers are the counted run's tg->load_avg writes at the
	// out-of-line update_load_avg()'s site, by the function that
	// called update_load_avg (callers.go): its breakpoint samples each
	// hit's kernel call chain. Nil where no breakpoint sampled there.
	Callers *Callers `json:"callers,omitempty"`
}

// SiteCount is one site's hits: by a hardware execute breakpoint, and by
// a tracefs kprobe at the same address where tracefs allows one (-1
// where a method could not reach it).
type SiteCount struct {
	Site
	Breakpoint int64 `json:"breakpoint"`
	Kprobe     int64 `json:"kprobe"`
	// KprobeMissed are the hits kprobe_profile says the kprobe missed.
	KprobeMissed int64 `json:"kprobe_missed,omitempty"`
	// BreakpointAt names the instruction the breakpoint was on when it
	// was not the site's own (the next one, beside a kprobe on the site).
	BreakpointAt string `json:"breakpoint_at,omitempty"`
}

// BalanceKinds are the balancer's serialisation sites, counted by kprobe
// in the counted run: 6.12's sched_balance_running cmpxchg and release,
// 6.1's balancing trylock and unlock.
var BalanceKinds = map[string]bool{"balance-running": true, "balance-running-release": true, "balancing-trylock": true, "balancing-unlock": true}

// NohzKinds are the locked writes to nohz's line, counted by kprobe in
// the counted run: nohz.idle_cpus_mask's bts in nohz_balance_enter_idle()
// and btr in nohz_balance_exit_idle(), and, before 5d86d542f68f, the
// nohz.nr_cpus inc and dec beside them. The bts runs once per cpu
// entering the mask (rq->nohz_tick_stopped going 0 to 1), where the
// function's calls are every tick stop: a cpu still in the mask, its tick
// stopped again before a busy tick, takes the early "goto out".
// nr-busy-cpus is another line's (sd_llc_shared).
var NohzKinds = map[string]bool{"nohz-idle-mask": true, "nohz-nr-cpus": true}

// Check is a count's second counted run: the sites' breakpoints (fewer:
// the watchpoints take debug registers) and kprobes, and the watchpoints,
// over one window, so the sites' writes and the words' can be compared.
type Check struct {
	Load       *Load        `json:"load"`
	Sites      []SiteCount  `json:"sites"`
	Watched    []WatchCount `json:"watched"`
	Enqueues   uint64       `json:"enqueue_task_fair"`
	Threads    ThreadStats  `json:"threads"`
	TaskGroups int          `json:"task_groups"` // below root, down to Levels: the watched and any others
}

// WatchCount is one task group's load_avg under a write watchpoint: how
// many writes reached the word, from whichever instruction.
type WatchCount struct {
	Cgroup string `json:"cgroup"`
	Level  int    `json:"level"` // 0: a task group outside the hierarchy
	Addr   uint64 `json:"addr"`
	Writes int64  `json:"writes"`
}

// ThreadStats sums /proc/PID/task/*/sched over the workload's threads.
type ThreadStats struct {
	Migrations      uint64 `json:"nr_migrations"`
	Wakeups         uint64 `json:"nr_wakeups"`
	Affine          uint64 `json:"nr_wakeups_affine"`
	AffineAttempts  uint64 `json:"nr_wakeups_affine_attempts"`
	WakeupsMigrated uint64 `json:"nr_wakeups_migrate"`
	// Sleeps are the threads' voluntary switches (each a block: the task
	// left the cpu not runnable), Preempted their involuntary ones, and
	// Waits their waits on a runqueue (schedstat's wait_count: each time
	// one was queued and then ran). A wakeup with no sleep before it
	// found its task still on the runqueue (ttwu_runnable()).
	Sleeps uint64 `json:"nr_voluntary_switches,omitempty"`
	// Local are the wakeups onto the waking cpu (nr_wakeups_local:
	// ttwu_stat()'s task_cpu(p) == this_rq()->cpu): for a pipe's pingers,
	// the wakee stacked on its waker's cpu.
	Local     uint64 `json:"nr_wakeups_local,omitempty"`
	Preempted uint64 `json:"nr_involuntary_switches,omitempty"`
	Waits     uint64 `json:"wait_count,omitempty"`
	// What the loadavg model's duty needs: how long the threads ran and
	// waited runnable (ms, over their lives), and their PELT load.
	RunMs   float64 `json:"sum_exec_runtime_ms"`
	WaitMs  float64 `json:"wait_sum_ms"`
	LoadAvg uint64  `json:"load_avg"` // Σ se.avg.load_avg
	Tasks   int     `json:"tasks"`    // threads read
}

// Count finds the sites, prepares the machine (schedstats, tracefs
// kprobes, the cgroup hierarchy), runs the workload bare and then counted,
// and undoes every change before it returns, on success or failure. The
// caller cancels ctx on SIGINT/SIGTERM; undo then still runs.
func Count(ctx context.Context, cfg CountConfig) (c *Counted, err error) {
	if _, ok := Shapes[cfg.Shape]; !ok {
		return nil, fmt.Errorf("unknown shape %q", cfg.Shape)
	}
	if cfg.Shape == "udp" || cfg.Shape == "server" {
		if err := LoopbackUp(cfg.Root); err != nil {
			return nil, fmt.Errorf("-shape %s: %w", cfg.Shape, err)
		}
	}
	// One run at a time, from before the first change to after the last
	// is undone: the lock is what makes "stale" mean "a dead run's". Taken
	// first, so a second run is refused before it reads anything.
	lock, err := machine.TakeLock(cfg.Root, "kernel count")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	src, err := Open(cfg.Root)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	u := machine.NewUndo(cfg.Log)
	defer func() {
		if uerr := u.Run(); uerr != nil {
			err = errors.Join(err, uerr)
		} else if c != nil {
			c.Undone = true
		}
	}()
	tfs, err := machine.MountedTracefs(u, cfg.Root)
	if err != nil {
		return nil, err
	}
	cg, err := machine.FindCgroup2(cfg.Root)
	if err != nil {
		if err = machine.Mount(u, cfg.Root, "cgroup2", "sys/fs/cgroup"); err != nil {
			return nil, err
		}
		if cg, err = machine.FindCgroup2(cfg.Root); err != nil {
			return nil, err
		}
	}
	c = &Counted{Shape: cfg.Shape, Pairs: cfg.Pairs, Levels: cfg.Levels}
	c.Kernel, _ = readTrim(filepath.Join(cfg.Root, "proc/sys/kernel/osrelease"))
	// The machine's sched domains, for the models' topology: debugfs
	// mounted, and its domains directory shown, for the read where they
	// are not (read again after the counted run, for its newidle costs).
	ds, derr := ReadDomains(cfg.Root)
	if derr != nil && machine.Mount(u, cfg.Root, "debugfs", "sys/kernel/debug") == nil {
		ds, derr = ReadDomains(cfg.Root)
	}
	if derr != nil && showDomains(u, cfg.Root) == nil {
		ds, derr = ReadDomains(cfg.Root)
	}
	if c.Domains = ds; derr != nil {
		c.Notes = append(c.Notes, "sched domains not read: "+derr.Error())
	}
	logf := func(format string, args ...any) { fmt.Fprintf(cfg.Log, "kernel count: "+format+"\n", args...) }

	// What an earlier, killed run left: under our names only, and (the
	// lock held) no live run's.
	for _, f := range []func() ([]string, error){
		func() ([]string, error) { return machine.StaleSysctls(cfg.Root) }, tfs.RemoveStale, cg.RemoveStale,
	} {
		done, err := f()
		for _, d := range done {
			logf("stale from an earlier run: %s", d)
		}
		c.StaleRemoved = append(c.StaleRemoved, done...)
		if err != nil {
			return nil, err
		}
	}

	// Only now read the text: a stale kprobe is an int3 over the first
	// byte of the instruction it probes, which would hide that site.
	rep, err := Find(src.Input)
	if err != nil {
		return nil, err
	}
	if err := rep.Err(); err != nil {
		return nil, err
	}
	c.Idle = rep.Idle
	balanceFn := ""
	for _, fn := range []string{"sched_balance_domains", "rebalance_domains"} {
		if _, ok := src.Syms.Lookup(fn); ok {
			balanceFn = fn
			break
		}
	}
	causes, err := causeProbes(src.Input, balanceFn)
	if err != nil {
		return nil, err
	}

	if err := machine.Sysctl(u, cfg.Root, "kernel.sched_schedstats", "1"); err != nil {
		return nil, err
	}
	h, err := cg.MakeHierarchy(u, cfg.Levels, strconv.Itoa(os.Getpid()))
	if err != nil {
		return nil, err
	}
	c.Hierarchy = h.Dirs

	// Bare: nothing counting. Jiffies around it give HZ where the kernel
	// exposes no config.
	logf("bare run: %s, %d pairs, in %s", cfg.Shape, cfg.Pairs, h.Leaf)
	j0, j0err := Jiffies(cfg.Root)
	t0 := time.Now()
	if c.Bare, _, err = runChild(ctx, cfg, h.Leaf, nil); err != nil {
		return nil, err
	}
	j1, j1err := Jiffies(cfg.Root)
	bareFor := time.Since(t0)

	if err := tfs.TracingOff(u); err != nil {
		return nil, err
	}
	for _, p := range []struct{ name, fn string }{{"contend_enqueue", "enqueue_task_fair"}, {"contend_select", "select_task_rq_fair"}} {
		if err := tfs.AddKprobe(u, p.name, p.fn); err != nil {
			return nil, err
		}
	}
	// The balancer's passes, the denominator of its flag's operations:
	// sched_balance_domains (v6.10's name) or rebalance_domains.
	for _, fn := range []string{"sched_balance_domains", "rebalance_domains"} {
		if _, ok := src.Syms.Lookup(fn); ok {
			if err := tfs.AddKprobe(u, "contend_balance", fn); err != nil {
				c.Notes = append(c.Notes, err.Error())
			} else {
				c.BalanceProbe = fn
			}
			break
		}
	}
	c.BalanceCauses = addCauseProbes(u, tfs, causes)
	cpus, err := onlineCPUs(cfg.Root)
	if err != nil {
		return nil, err
	}
	var ticks *machine.Tracefs
	var kick *KickFetch
	var leaf *LeafFetch
	var wake *wakeTracing
	tickFn, note := "", "no tick trace: -no-tick-trace"
	if !cfg.NoTickTrace {
		var leafNote string
		leaf, leafNote = leafFetch(src.Input, h, cfg.Levels, cpus)
		if leafNote != "" {
			c.Notes = append(c.Notes, leafNote)
		}
		var kickNote string
		kick, kickNote = kickFetch(src.Input, cpus)
		if kickNote != "" {
			c.Notes = append(c.Notes, kickNote)
		}
		ticks, tickFn, note = traceTicks(u, tfs, src.Input, leaf, kick)
		var wakeNote string
		wake, wakeNote = traceWakes(u, tfs, src.Input, cpus)
		if wakeNote != "" {
			c.Notes = append(c.Notes, wakeNote)
		}
	}
	if note != "" {
		c.Notes = append(c.Notes, note)
	}
	c.CPUs = len(cpus)
	if v, ok := Config(cfg.Root, "CONFIG_HZ"); ok {
		c.HZ, _ = strconv.Atoi(v)
	} else {
		var note string
		c.HZ, note = hzOverRun(j0, j1, errors.Join(j0err, j1err), bareFor)
		c.Notes = append(c.Notes, note)
	}
	c.RateLimit = src.Layout.CfsRqLastUpdateTG >= 0
	// kprobes go on every tg->load_avg, balancer-flag and nohz-line site
	// tracefs accepts; the four breakpoints go where only they can count
	// first (update_load_avg is notrace, so no kprobe reaches it), then to
	// the blocked-load path. Never both on one instruction: where both
	// counted one, the breakpoint counted 14-21 % more than the kprobe
	// (6.1 and 6.12 guests), and one 6.12 guest died of an int3 Oops at a
	// site both held (whether of the pair or of TCG's cross-modifying
	// code, whose boot-time static-key patching Oopses the same way now
	// and then, is open). A site with a kprobe gets its breakpoint on the
	// next instruction, which runs exactly as often (Site.Next), so the
	// two methods count one site apart.
	var sites []SiteCount
	for i, s := range rep.Sites {
		sc := SiteCount{Site: s, Breakpoint: -1, Kprobe: -1}
		if s.Kind == "tg-load-avg" || s.Kind == "tg-load-avg-limit" || BalanceKinds[s.Kind] || NohzKinds[s.Kind] {
			if err := tfs.AddKprobe(u, fmt.Sprintf("contend_s%d", i), fmt.Sprintf("%s+%#x", s.Func, s.Off)); err != nil {
				c.Notes = append(c.Notes, err.Error())
			} else {
				sc.Kprobe = 0
			}
		}
		sites = append(sites, sc)
	}
	a := &arming{cfg: cfg, leaf: h.Leaf, u: u, tfs: tfs, cpus: cpus, syms: src.Syms}
	if ticks != nil {
		a.traces = append(a.traces, ticks)
	}
	if wake != nil {
		a.traces = append(a.traces, wake.inst)
	}
	r, err := a.run(ctx, sites, nil)
	if err != nil {
		return nil, err
	}
	// The trace records the counted run only (the checking run's
	// watchpoints slow the guest); its kprobes stay armed, counting, to
	// the end.
	a.traces = nil
	if wake != nil && r.Load != nil {
		w, saveErr, err := wake.read(r.Load.TIDs, cfg.WakeTrace)
		if saveErr != nil {
			c.Notes = append(c.Notes, "wake trace not saved: "+saveErr.Error())
		}
		if err != nil {
			c.Notes = append(c.Notes, "wake trace not read: "+err.Error())
		} else {
			c.Wakes = w
			if w.Lost > 0 {
				c.Notes = append(c.Notes, fmt.Sprintf("wake trace: the ring buffer overwrote %d records: its shares cover the run's end only", w.Lost))
			}
		}
	}
	if ticks != nil {
		var kickRQs []uint64
		if kick != nil {
			kickRQs = kick.RQs
		}
		if t, saveErr, err := readTicks(ticks, tickFn, c.HZ, cfg.TickTrace, kickRQs, leafAddrs(leaf)); err != nil {
			c.Notes = append(c.Notes, "tick trace not read: "+err.Error())
		} else {
			if saveErr != nil {
				c.Notes = append(c.Notes, "tick trace not saved: "+saveErr.Error())
			}
			c.Ticks = t
			if t.KickWrongRQ > 0 {
				c.Notes = append(c.Notes, fmt.Sprintf("tick trace: %d kick records dropped: their rq was not the one runqueues and __per_cpu_offset give for their cpu", t.KickWrongRQ))
			}
			if t.Lost > 0 {
				c.Notes = append(c.Notes, fmt.Sprintf("tick trace: the ring buffer overwrote %d records (a long run): its shares cover the run's end only, and it gives no rates", t.Lost))
			}
		}
	}
	c.Notes = append(c.Notes, r.notes...)
	c.Counted, c.Threads, c.Sites, c.Enqueues, c.SelectRQ, c.Balances, c.BusyPct = r.Load, r.Threads, r.Sites, r.Enqueues, r.SelectRQ, r.Balances, r.BusyPct
	c.LB = r.LB
	c.Callers = r.Callers
	if ds, err := ReadDomains(cfg.Root); err == nil && c.Domains != nil {
		c.Domains = ds // max_newidle_lb_cost as the counted run left it
	}
	readCauses(c.BalanceCauses, r.Probes, r.ProbesMissed)
	if !cfg.Check {
		return c, nil
	}

	// The check: each level's load_avg under a write watchpoint, a second
	// count of every site's writes (the lock add is the only instruction
	// that writes the word while the groups live), the one that reaches
	// update_load_avg's, which no kprobe can. A run of its own: under TCG
	// a watchpoint slows every access to its page, which changes how
	// often each cfs_rq is updated and so what the counted run measures.
	watch, note := watchTargets(src.Input, h, cfg.Levels)
	if note != "" {
		c.Notes = append(c.Notes, note)
		return c, nil
	}
	if len(watch) > machine.MaxBreakpoints-1 {
		c.Notes = append(c.Notes, fmt.Sprintf("watching %d of %d levels' load_avg: four debug registers", machine.MaxBreakpoints-1, len(watch)))
		watch = watch[:machine.MaxBreakpoints-1]
	}
	// The machine's other task groups (in the lab's guest, the session's
	// autogroup) write through the same sites: watched too where debug
	// registers are left, so both sides count the same groups' writes.
	tgs, _ := TaskGroups(src.Input, cfg.Levels)
	for _, g := range tgs {
		if len(watch) >= machine.MaxBreakpoints-1 {
			break
		}
		if !slices.ContainsFunc(watch, func(w WatchCount) bool { return w.Addr == g.LoadAvg }) {
			name := fmt.Sprintf("task group %#x (cgroup id %d)", g.Addr, g.CgroupID)
			if g.CgroupID == 0 {
				name = fmt.Sprintf("autogroup %#x", g.Addr)
			}
			watch = append(watch, WatchCount{Cgroup: name, Level: 0, Addr: g.LoadAvg})
		}
	}
	r, err = a.run(ctx, sites, watch)
	if err != nil {
		return nil, err
	}
	c.Notes = append(c.Notes, r.notes...)
	c.Check = &Check{Load: r.Load, Sites: r.Sites, Watched: r.Watched, Enqueues: r.Enqueues, Threads: r.Threads, TaskGroups: max(len(tgs), len(watch))}
	return c, nil
}

// arming is what each counted run of a count shares: the workload, the
// machine's kprobes (set once, read per run) and cpus.
type arming struct {
	cfg  CountConfig
	leaf string
	u    *machine.Undo
	tfs  *machine.Tracefs
	cpus []int
	// traces are the trace instances (the ticks', the wakeups'),
	// recording over the run.
	traces []*machine.Tracefs
	// syms places the sampled call chains' addresses.
	syms *Symbols
}

// armed is one counted run's outcome.
type armed struct {
	Load               *Load
	Threads            ThreadStats
	Sites              []SiteCount
	Watched            []WatchCount
	Enqueues, SelectRQ uint64
	Balances           uint64
	BusyPct            float64
	LB                 *schedstat.Stats // /proc/schedstat's change over the run
	// Probes and ProbesMissed are every kprobe's hits over the run, by
	// event name: kprobe_profile's after less before.
	Probes, ProbesMissed map[string]uint64
	// Callers: the sampled site's writes by caller, in a counted run.
	Callers *Callers
	notes   []string
}

// run counts one run of the workload: breakpoints on the sites (as many
// as the debug registers watch leaves), a write watchpoint on each of
// watch's words, the kprobes read over the same window; its breakpoints
// are closed before it returns, freeing the debug registers.
func (a *arming) run(ctx context.Context, template []SiteCount, watch []WatchCount) (*armed, error) {
	r := &armed{Sites: slices.Clone(template)}
	var bps []*machine.Breakpoint
	defer func() {
		for _, b := range bps {
			b.Close()
		}
	}()
	bpOf := map[int]*machine.Breakpoint{}
	sites := make([]Site, len(r.Sites))
	for i := range r.Sites {
		sites[i] = r.Sites[i].Site
	}
	for _, i := range breakpointOrder(sites) {
		s := &r.Sites[i]
		if len(bpOf) == machine.MaxBreakpoints-len(watch) {
			break
		}
		at, name := s.Addr, fmt.Sprintf("%s+%#x", s.Func, s.Off)
		if s.Kprobe == 0 {
			if s.Next == 0 {
				continue
			}
			at, name = s.Next, fmt.Sprintf("%s+%#x", s.Func, s.Off+(s.Next-s.Addr))
			s.BreakpointAt = name
		}
		b := &machine.Breakpoint{Name: name, Addr: at}
		if sampled := len(watch) == 0 && SampledSite(s.Site); sampled {
			b.Chains = callerChain
		}
		if err := b.Open(a.u, a.cpus, groupLeader(bps)); err != nil {
			r.notes = append(r.notes, err.Error())
			continue
		}
		bpOf[i] = b
		bps = append(bps, b)
		s.Breakpoint = 0
	}
	if len(bps) == 0 {
		return nil, errors.New("no breakpoint could be set on any tg->load_avg site: " + strings.Join(r.notes, "; "))
	}
	nsites := len(bps)
	wpOf := map[int]*machine.Breakpoint{}
	for _, w := range watch {
		b := &machine.Breakpoint{Name: "load_avg of " + filepath.Base(w.Cgroup), Addr: w.Addr, Write: true, Len: 8}
		if err := b.Open(a.u, a.cpus, groupLeader(bps)); err != nil {
			r.notes = append(r.notes, err.Error())
			continue
		}
		wpOf[len(r.Watched)] = b
		bps = append(bps, b)
		r.Watched = append(r.Watched, w)
	}
	// The two methods count over the same window. The breakpoints and
	// watchpoints are one perf group per cpu, read at one instant there;
	// the kprobes are read before them at the start and after them at the
	// end, so the kprobes' window holds the breakpoints' and a write the
	// watchpoints count that the sites do not is a site the finder
	// missed, not a read that came late. The breakpoints stay enabled
	// throughout (enabling sixteen takes interrupts to every cpu: under
	// TCG, long enough for the balancer to run between).
	for _, b := range bps {
		if err := b.Enable(true); err != nil {
			return nil, err
		}
	}
	for _, t := range a.traces {
		if err := t.Record(true); err != nil {
			return nil, err
		}
	}
	before, missed0, err := a.tfs.Hits()
	if err != nil {
		return nil, err
	}
	bp0, err := machine.ReadGroup(bps)
	if err != nil {
		return nil, err
	}
	t0, terr := machine.ReadCPUTimes(a.cfg.Root)
	ss0, serr := readSchedstat(a.cfg.Root)
	verb := "counting"
	if len(watch) > 0 {
		verb = "checking"
	}
	fmt.Fprintf(a.cfg.Log, "kernel count: %s: %d breakpoints, %d watchpoints, kprobes in %s/%s\n", verb, nsites, len(r.Watched), a.tfs.Dir, machine.ProbeGroup)
	var after, missed1 map[string]uint64
	var bp1 []uint64
	var herr error
	r.Load, r.Threads, err = runChild(ctx, a.cfg, a.leaf, func() {
		bp1, herr = machine.ReadGroup(bps)
		if herr == nil {
			after, missed1, herr = a.tfs.Hits()
		}
		if t1, err := machine.ReadCPUTimes(a.cfg.Root); err == nil && terr == nil {
			r.BusyPct = machine.BusyPct(t0, t1)
		}
		if ss1, err := readSchedstat(a.cfg.Root); err == nil && serr == nil {
			r.LB = ss1.Sub(ss0)
		}
		for _, b := range bps {
			b.Enable(false)
		}
		for _, t := range a.traces {
			if err := t.Record(false); err != nil && herr == nil {
				herr = err
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if herr != nil {
		return nil, herr
	}
	for _, p := range []string{"contend_enqueue", "contend_select"} {
		if m := missed1[p] - missed0[p]; m > 0 {
			r.notes = append(r.notes, fmt.Sprintf("%s run: kprobe %s missed %d hits (another kprobe was running on that cpu)", verb, p, m))
		}
	}
	r.Enqueues = after["contend_enqueue"] - before["contend_enqueue"]
	r.SelectRQ = after["contend_select"] - before["contend_select"]
	r.Balances = after["contend_balance"] - before["contend_balance"]
	r.Probes, r.ProbesMissed = map[string]uint64{}, map[string]uint64{}
	for name, n := range after {
		r.Probes[name] = n - before[name]
		r.ProbesMissed[name] = missed1[name] - missed0[name]
	}
	for i := range r.Sites {
		s := &r.Sites[i]
		if b := bpOf[i]; b != nil {
			k := slices.Index(bps, b)
			s.Breakpoint = int64(bp1[k] - bp0[k])
		}
		if s.Kprobe == 0 {
			name := fmt.Sprintf("contend_s%d", i)
			s.Kprobe = int64(after[name] - before[name])
			s.KprobeMissed = int64(missed1[name] - missed0[name])
		}
	}
	for i := range r.Watched {
		k := slices.Index(bps, wpOf[i])
		r.Watched[i].Writes = int64(bp1[k] - bp0[k])
	}
	for i, b := range bpOf {
		if b.Chains == 0 {
			continue
		}
		chains, lost, err := b.Samples()
		if err != nil {
			r.notes = append(r.notes, "no callers: "+err.Error())
			break
		}
		lost = RingLoss(uint64(len(chains)), lost, r.Sites[i].Breakpoint)
		r.Callers = CallersOf(r.Sites[i].Site, chains, lost, a.syms)
		if lost > 0 {
			r.notes = append(r.notes, fmt.Sprintf("callers: %s's sample rings dropped %d of %d samples (a ring filled); the callers' shares stand on the rest, the run's start on a cpu whose ring filled", b.Name, lost, r.Callers.Sampled+lost))
		}
	}
	return r, nil
}

// watchTargets finds the task group of each of the hierarchy's cgroups
// (by its directory's inode number, the cgroup's kernfs id), outermost
// first, or says in a note why none can be watched.
func watchTargets(in Input, h *machine.Hierarchy, levels int) ([]WatchCount, string) {
	tgs, err := hierarchyGroups(in, h, levels)
	if err != nil {
		return nil, "no watchpoints on load_avg: " + err.Error()
	}
	var out []WatchCount
	for lvl, g := range tgs {
		out = append(out, WatchCount{Cgroup: h.Dirs[lvl], Level: lvl + 1, Addr: g.LoadAvg})
	}
	return out, ""
}

// hierarchyGroups finds the task group of each of the hierarchy's
// cgroups (by its directory's inode number, the cgroup's kernfs id),
// outermost first.
func hierarchyGroups(in Input, h *machine.Hierarchy, levels int) ([]TaskGroup, error) {
	tgs, err := TaskGroups(in, levels)
	if err != nil {
		return nil, err
	}
	var out []TaskGroup
	for lvl, d := range h.Dirs {
		var st syscall.Stat_t
		if err := syscall.Stat(d, &st); err != nil {
			return nil, err
		}
		i := slices.IndexFunc(tgs, func(g TaskGroup) bool { return g.CgroupID == st.Ino && g.Depth == lvl+1 })
		if i < 0 {
			return nil, fmt.Errorf("no task group at depth %d has cgroup id %d (%s)", lvl+1, st.Ino, d)
		}
		out = append(out, tgs[i])
	}
	return out, nil
}

// leafFetch is where the tick trace reads the workload's leaf cfs_rq on
// each of the cpus (LeafFetch: tg->cfs_rq's entry of each cpu up to the
// highest online one, read through /proc/kcore: the array's pointer, or
// on 7.x per_cpu_ptr(), the per-cpu pointer plus __per_cpu_offset[cpu]),
// or a note saying why it cannot.
func leafFetch(in Input, h *machine.Hierarchy, levels int, cpus []int) (*LeafFetch, string) {
	const no = "no leaf ages in the tick trace: "
	l := in.Layout
	if l == nil || len(cpus) == 0 {
		return nil, no + "no BTF layout or no cpus"
	}
	if ok, why := l.Has("task_group.cfs_rq", "cfs_rq.avg", "sched_avg.last_update_time", "sched_avg.period_contrib"); !ok {
		return nil, no + why
	}
	cp, ok := l.RQ["clock_pelt"]
	if !ok {
		return nil, no + "BTF's struct rq has no clock_pelt"
	}
	li, ok := l.RQ["lost_idle_time"]
	if !ok {
		li = -1
	}
	tgs, err := hierarchyGroups(in, h, levels)
	if err != nil {
		return nil, no + err.Error()
	}
	mem := &words{m: in.Mem}
	word := mem.at
	ptr := word(tgs[len(tgs)-1].Addr + uint64(l.TGCfsRq))
	offsets, _ := in.Syms.Lookup("__per_cpu_offset")
	perCPU := offsets.Addr
	f := &LeafFetch{LastUpdate: l.CfsRqAvg + l.SALastUpdateTime, Contrib: l.CfsRqAvg + l.SAPeriodContrib, ClockPelt: cp, LostIdle: li}
	for cpu := range slices.Max(cpus) + 1 {
		switch l.TGCfsRqForm {
		case "array":
			f.Leaves = append(f.Leaves, word(ptr+8*uint64(cpu)))
		case "percpu":
			if perCPU == 0 {
				return nil, no + "kallsyms has no __per_cpu_offset for task_group's per-cpu cfs_rq"
			}
			f.Leaves = append(f.Leaves, ptr+word(perCPU+8*uint64(cpu)))
		default:
			return nil, no + "BTF does not say what task_group.cfs_rq points to"
		}
	}
	if mem.err != nil {
		return nil, no + mem.err.Error()
	}
	return f, ""
}

// kickFetch is where the kick record reads (KickFetch): nohz's mask and
// each cpu's struct rq up to the highest online one, resolved through
// /proc/kcore (the mask's pointer where cpumask_var_t is one,
// __per_cpu_offset[cpu]); or a note saying why it cannot.
func kickFetch(in Input, cpus []int) (*KickFetch, string) {
	const no = "no kicks in the tick trace: "
	l := in.Layout
	if l == nil || len(cpus) == 0 {
		return nil, no + "no BTF layout or no cpus"
	}
	if _, _, ok := in.Syms.Func(KickFunc); !ok {
		return nil, no + "kallsyms has no " + KickFunc
	}
	nohz, ok := in.Syms.Lookup("nohz")
	if !ok {
		return nil, no + "kallsyms has no nohz"
	}
	if ok, why := l.Has(".idle_cpus_mask", "cpumask_var_t"); !ok {
		return nil, no + why
	}
	rqs, okRQ := in.Syms.Lookup("runqueues")
	offsets, okOff := in.Syms.Lookup("__per_cpu_offset")
	if !okRQ || !okOff {
		return nil, no + "kallsyms has no runqueues or __per_cpu_offset"
	}
	mem := &words{m: in.Mem}
	word := mem.at
	f := &KickFetch{Mask: nohz.Addr + uint64(l.NohzIdleCPUsMask), RQ: l.RQ}
	if l.CpumaskOffstack {
		f.Mask = word(f.Mask)
	}
	for cpu := range slices.Max(cpus) + 1 {
		f.RQs = append(f.RQs, rqs.Addr+word(offsets.Addr+8*uint64(cpu)))
	}
	if mem.err != nil {
		return nil, no + mem.err.Error()
	}
	return f, ""
}

// groupLeader is the first breakpoint opened, the group's leader, or nil
// when none is open yet.
func groupLeader(bps []*machine.Breakpoint) *machine.Breakpoint {
	if len(bps) == 0 {
		return nil
	}
	return bps[0]
}

// breakpointOrder ranks the tg->load_avg sites (writes and the rate
// limit's test) for the four breakpoints: update_load_avg's first, where
// most writes happen and tracefs cannot reach, then the blocked-load
// update's, then the rest, each host's write before its test.
func breakpointOrder(sites []Site) []int {
	rank := func(s Site) int {
		r := 2
		switch {
		case s.Func == "update_load_avg":
			r = 0
		case strings.Contains(s.Func, "update_blocked_averages"):
			r = 1
		}
		r *= 2
		if s.Kind == "tg-load-avg-limit" {
			r++
		}
		return r
	}
	var idx []int
	for i, s := range sites {
		if s.Kind == "tg-load-avg" || s.Kind == "tg-load-avg-limit" {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return rank(sites[idx[a]]) < rank(sites[idx[b]]) })
	return idx
}

// runChild runs the workload as a process of its own, started inside
// leaf (clone3's CLONE_INTO_CGROUP, so no thread of it ever runs
// elsewhere), reads its threads' schedstats while it still lives, then
// lets it exit. stop, if set, runs the moment the workload reports, before
// the parent reads anything.
func runChild(ctx context.Context, cfg CountConfig, leaf string, stop func()) (*Load, ThreadStats, error) {
	var ts ThreadStats
	dir, err := os.Open(leaf)
	if err != nil {
		return nil, ts, err
	}
	defer dir.Close()
	cmd := exec.CommandContext(ctx, cfg.Self, "kernel", "load", "-shape", cfg.Shape,
		"-pairs", strconv.Itoa(cfg.Pairs), "-duration", cfg.Duration.String())
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(dir.Fd()), Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = cfg.Log
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, ts, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, ts, err
	}
	if err := cmd.Start(); err != nil {
		return nil, ts, fmt.Errorf("starting the workload in %s: %w", leaf, err)
	}
	line, rerr := bufio.NewReader(stdout).ReadBytes('\n')
	if stop != nil {
		stop()
	}
	var l Load
	if rerr == nil {
		rerr = json.Unmarshal(line, &l)
		ts = threadStats(cfg.Root, cmd.Process.Pid, l.TIDs)
	}
	stdin.Close()
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ts, ctx.Err()
	}
	if rerr != nil || werr != nil {
		return nil, ts, fmt.Errorf("the workload failed: %w", errors.Join(rerr, werr))
	}
	return &l, ts, nil
}

// threadStats sums the sched files of a process's threads: of tids
// where given (the workload's own, which it keeps alive to be read:
// workload.Load.TIDs), else of all of them. A thread gone is left out,
// and Tasks says how many were read.
func threadStats(root string, pid int, tids []int) ThreadStats {
	var ts ThreadStats
	tasks, _ := filepath.Glob(filepath.Join(root, "proc", strconv.Itoa(pid), "task/*/sched"))
	if tids != nil {
		tasks = tasks[:0]
		for _, tid := range tids {
			tasks = append(tasks, filepath.Join(root, "proc", strconv.Itoa(pid), "task", strconv.Itoa(tid), "sched"))
		}
	}
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		ts.Tasks++
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			switch f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); strings.TrimSpace(k) {
			case "se.sum_exec_runtime":
				ts.RunMs += f
				continue
			case "se.statistics.wait_sum", "wait_sum":
				ts.WaitMs += f
				continue
			case "se.avg.load_avg":
				if err == nil {
					ts.LoadAvg += uint64(f)
				}
				continue
			}
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				continue
			}
			switch strings.TrimSpace(k) {
			case "se.nr_migrations":
				ts.Migrations += n
			case "se.statistics.nr_wakeups", "nr_wakeups":
				ts.Wakeups += n
			case "se.statistics.nr_wakeups_affine", "nr_wakeups_affine":
				ts.Affine += n
			case "se.statistics.nr_wakeups_affine_attempts", "nr_wakeups_affine_attempts":
				ts.AffineAttempts += n
			case "se.statistics.nr_wakeups_migrate", "nr_wakeups_migrate":
				ts.WakeupsMigrated += n
			case "nr_voluntary_switches":
				ts.Sleeps += n
			case "se.statistics.nr_wakeups_local", "nr_wakeups_local":
				ts.Local += n
			case "nr_involuntary_switches":
				ts.Preempted += n
			case "se.statistics.wait_count", "wait_count":
				ts.Waits += n
			}
		}
	}
	return ts
}

// onlineCPUs reads /sys/devices/system/cpu/online.
func onlineCPUs(root string) ([]int, error) {
	s, err := readTrim(filepath.Join(root, "sys/devices/system/cpu/online"))
	if err != nil {
		return nil, err
	}
	var cpus []int
	for _, r := range strings.Split(s, ",") {
		lo, hi, found := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu/online %q: %w", s, err)
		}
		b := a
		if found {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("cpu/online %q: %w", s, err)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("cpu/online %q lists no cpu", s)
	}
	return cpus, nil
}

// readTrim reads a one-value kernel file.
func readTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

// iffUp is IFF_UP in /sys/class/net/IF/flags (include/uapi/linux/if.h).
const iffUp = 0x1

// LoopbackUp says, in one line, when lo is down: the udp and server
// shapes send over it, and a minimal system (an initramfs, a fresh
// network namespace) leaves it down, where every send fails with
// "network is unreachable".
func LoopbackUp(root string) error {
	s, err := readTrim(filepath.Join(root, "sys/class/net/lo/flags"))
	if err != nil {
		return fmt.Errorf("no loopback interface: %w", err)
	}
	flags, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 32)
	if err != nil {
		return fmt.Errorf("lo's flags %q: %w", s, err)
	}
	if flags&iffUp == 0 {
		return fmt.Errorf("loopback is down (lo's flags %s): bring it up first (ip link set lo up)", s)
	}
	return nil
}

// showDomains makes debugfs show the sched domains where it hides them
// behind sched/verbose (v6.4 on: sched_verbose_write() builds the
// directory as verbose turns on, and removes it as it turns off), and
// records turning it off again.
func showDomains(u *machine.Undo, root string) error {
	p := filepath.Join(root, "sys/kernel/debug/sched/verbose")
	v, err := readTrim(p)
	if err != nil || v == "Y" {
		return fmt.Errorf("sched/verbose: %q, %v", v, err)
	}
	if err := os.WriteFile(p, []byte("Y"), 0); err != nil {
		return err
	}
	u.Push("sched/verbose back to N", func() error { return os.WriteFile(p, []byte("N"), 0) })
	return nil
}

// traceTicks sets up the tick trace (ticktrace.go): the group's trace
// instance and, recording there, a kprobe with the record's fetch
// arguments on the balancer's trigger. It returns the instance and the
// function, or a note saying why there is none; the count goes on
// without it.
func traceTicks(u *machine.Undo, tfs *machine.Tracefs, in Input, leaf *LeafFetch, kick *KickFetch) (*machine.Tracefs, string, string) {
	fn := ""
	for _, f := range TickTraceFuncs {
		if _, _, ok := in.Syms.Func(f); ok {
			fn = f
			break
		}
	}
	if fn == "" {
		return nil, "", "no tick trace: kallsyms has none of " + strings.Join(TickTraceFuncs, ", ")
	}
	jiffies := ""
	if _, ok := in.Syms.Lookup("jiffies_64"); ok {
		jiffies = "jiffies_64"
	}
	var rq map[string]int64
	if in.Layout != nil {
		rq = in.Layout.RQ
	}
	args, err := TickProbeArgs(rq, jiffies)
	if err != nil {
		return nil, "", "no tick trace: " + err.Error()
	}
	inst, err := tfs.Instance(u, "")
	if err != nil {
		return nil, "", "no tick trace: " + err.Error()
	}
	// The leaf's fetches are the record's newest part: a kernel that
	// refuses them keeps the rest of the record.
	leafNote := ""
	if leaf != nil {
		err = tfs.AddTracedKprobe(u, inst, "contend_tick", fn, args+" "+leaf.Args())
		if err == nil {
			args = ""
		} else {
			leafNote = "; no leaf ages in the tick trace: " + err.Error()
		}
	}
	if args != "" {
		if err := tfs.AddTracedKprobe(u, inst, "contend_tick", fn, args); err != nil {
			return nil, "", "no tick trace: " + err.Error()
		}
	}
	// The kicks: what the nohz balancer's walks would find. Five fetch
	// arguments a cpu, and a kprobe takes at most 128 (MAX_TRACE_ARGS).
	switch ka, err := kick.args(jiffies); {
	case kick == nil:
	case err != nil:
		leafNote += "; no kicks in the tick trace: " + err.Error()
	case tfs.AddTracedKprobe(u, inst, KickEvent, KickFunc, ka) != nil:
		leafNote += fmt.Sprintf("; no kicks in the tick trace: the kernel refused the kprobe on %s (%d fetch arguments)", KickFunc, strings.Count(ka, "=")-1)
	}
	// The group ticks: how stale the running task's leaf was as its
	// tick came (GroupTickArgs).
	if leaf != nil {
		ga, err := groupTickProbe(in, *leaf)
		if err == nil {
			err = tfs.AddTracedKprobe(u, inst, GroupTickEvent, GroupTickFunc, ga)
		}
		if err != nil {
			leafNote += "; no group ticks in the tick trace: " + err.Error()
		}
	}
	// The newidle walks: what their gate tests, read at their entry.
	if note := traceNewidle(u, tfs, inst, in); note != "" {
		leafNote += "; " + note
	}
	// The idle entries beside the ticks: was the cpu idle at all
	// between two of its ticks?
	if _, _, ok := in.Syms.Func(IdleEntryFunc); !ok {
		return inst, fn, "no idle entries in the tick trace: kallsyms has no " + IdleEntryFunc + leafNote
	}
	if err := tfs.AddTracedKprobe(u, inst, IdleEntryEvent, IdleEntryFunc, ""); err != nil {
		return inst, fn, "no idle entries in the tick trace: " + err.Error() + leafNote
	}
	return inst, fn, strings.TrimPrefix(leafNote, "; ")
}

// groupTickProbe is the group tick record's fetch arguments for the
// running kernel (GroupTickArgs from its BTF layout), or why it has none.
func groupTickProbe(in Input, leaf LeafFetch) (string, error) {
	if in.Layout == nil {
		return "", errors.New("no BTF layout")
	}
	if _, _, ok := in.Syms.Func(GroupTickFunc); !ok {
		return "", fmt.Errorf("kallsyms has no %s", GroupTickFunc)
	}
	return GroupTickArgs(leaf, in.Layout.TaskSE, in.Layout.SECfsRq)
}

// args is f.Args, none where there is no f.
func (f *KickFetch) args(jiffies string) (string, error) {
	if f == nil {
		return "", nil
	}
	return f.Args(jiffies)
}

// traceNewidle adds the newidle record's kprobe (NewidleArgs) to the
// tick trace's instance, or says why it cannot.
func traceNewidle(u *machine.Undo, tfs, inst *machine.Tracefs, in Input) string {
	// The function itself, not a clone (.isra, .constprop) whose first
	// argument need not be the rq.
	fn := ""
	for _, f := range NewidleFuncs {
		if s, _, ok := in.Syms.Func(f); ok && s.Name == f {
			fn = f
			break
		}
	}
	if fn == "" || in.Layout == nil {
		return "no newidle walks in the tick trace: kallsyms has none of " + strings.Join(NewidleFuncs, ", ") + " (inlined, or only a clone), or there is no BTF layout"
	}
	l := in.Layout
	args, err := NewidleArgs(l.RQ, l.SDMaxNewidleCost, l.RDOverloaded, l.RDOverloadedSize)
	if err == nil {
		err = tfs.AddTracedKprobe(u, inst, NewidleEvent, fn, args)
	}
	if err != nil {
		return "no newidle walks in the tick trace: " + err.Error()
	}
	return ""
}

// leafAddrs is f's leaves, none where there is no f.
func leafAddrs(f *LeafFetch) []uint64 {
	if f == nil {
		return nil
	}
	return f.Leaves
}

// readTicks reads and sums the instance's records, saving them to save
// where set; a save that fails is saveErr, and the sum stands.
// A kick record whose rq is not kickRQs' for its cpu is dropped, and
// counted (TickTrace.KickWrongRQ).
func readTicks(inst *machine.Tracefs, fn string, hz int, save string, kickRQs, leaves []uint64) (t *TickTrace, saveErr, err error) {
	raw, saveErr, err := readTrace(inst, save, "-tick-trace")
	if err != nil {
		return nil, saveErr, err
	}
	recs, err := ParseTickTrace(bytes.NewReader(raw))
	if err != nil {
		return nil, saveErr, err
	}
	if len(recs) == 0 {
		return nil, saveErr, errors.New("no records")
	}
	wrong := 0
	recs = slices.DeleteFunc(recs, func(r TickRecord) bool {
		bad := r.Kick && !KickSelfOK(r, kickRQs)
		wrong += b2i(bad)
		return bad
	})
	sum := SumTicks(fn, recs, hz)
	sum.SumGroupTicks(recs, leaves)
	sum.Lost, sum.KickWrongRQ = TraceLost(raw), wrong
	return &sum, saveErr, nil
}

// readTrace reads an instance's trace text, saving it to save where set
// (flag names it in the error); a save that fails is saveErr, and the
// text stands.
func readTrace(inst *machine.Tracefs, save, flag string) (raw []byte, saveErr, err error) {
	f, err := inst.Trace()
	if err != nil {
		return nil, nil, err
	}
	raw, err = io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	if save != "" {
		if err := results.WriteFileAtomic(save, raw); err != nil {
			saveErr = fmt.Errorf("%s: %w", flag, err)
		}
	}
	return raw, saveErr, nil
}
