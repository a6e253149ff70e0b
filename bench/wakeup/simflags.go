package wakeup

import (
	"flag"
	"fmt"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
	"io"
	"strconv"
	"strings"
	"time"
)

// SimUsage is the synopsis of contend simulate wakeup.
const SimUsage = "wakeup [-cpus 4,8,16,32] [-topo s390|s390llcN|llcN] [-policies llcstats,basic,v6.1] [-threads 40] [-servers N] [-hz N] " +
	"[-think 8.8us] [-service 38us] [-statements 20] [-io 0] [-irq idle|cpu0|local] [-idlewake 20us] [-pull 10us] [-lbcost 5us] " +
	"[-tail 0] [-others 0] [-others-period 10ms] [-others-burst 5us] [-duration 5s] [-warmup 3s] [-seed 1] [-test oltp|threads] [-locks 8] [-yields 1000] [-lock 200ns] [-yield 1us] [-idle-tick governor|stop|after-tick] [-figures [-chip 8] [-ivb-cores 15]] [-json]"

// SimFlags declares contend simulate wakeup's flags on fs and returns the
// function that runs the simulation they ask for once fs has parsed a
// command line: it checks the values (a one-line error naming the flag),
// runs each guest size and policy on one thread, on kernel time, and prints
// migrations per 5 s by cause beside seed 004's (the table, or with -json
// its rows). A flag left unset takes SimConfig's default, which says where
// it comes from.
func SimFlags(fs *flag.FlagSet) (run func(w io.Writer) error) {
	cpus := fs.String("cpus", "4,8,16,32", "comma-separated guest `sizes` in vCPUs (seed 004 does not give its guest's)")
	topo := fs.String("topo", "s390", "guest `topology`: s390 (every vCPU its own core, no LLC domain), s390llcN (s390 with the topology facility: MC over chips of N cpus, the host LPAR's) or llcN (x86 LLCs of N cpus)")
	policies := fs.String("policies", "", "comma-separated `policies`: llcstats (4.13 before the patch), basic (the patch), v6.1 (default: all)")
	threads := fs.Int("threads", 0, "sysbench client `threads`, each with a server thread (default 40)")
	servers := fs.Int("servers", 0, "server `threads` (default one per client thread, MySQL's; 1: one server answering every client)")
	hz := fs.Int("hz", 0, "CONFIG_HZ (default 100 on s390, 250 on llcN)")
	think := fs.Duration("think", 0, "mean client cpu time per statement (default 8.8µs)")
	service := fs.Duration("service", 0, "mean server cpu time per statement (default 38µs)")
	statements := fs.Int("statements", 0, "statements per transaction (default 20)")
	ioLat := fs.Duration("io", 0, "commit log flush latency, 0 for none")
	irq := fs.String("irq", "", "where I/O completions land: idle, cpu0 or local (default idle on s390, cpu0 on llcN)")
	idleWake := fs.Duration("idlewake", 0, "cost of waking an idle vCPU (default 20µs)")
	pull := fs.Duration("pull", 0, "cpu time a moved task's working set adds to its first run (default 10µs)")
	lbCost := fs.Duration("lbcost", 0, "one level's newidle balance cost (default 5µs)")
	tail := fs.Duration("tail", 0, "cpu a waker runs after its send's wakeup before it blocks, out of think and service (default 0)")
	others := fs.Int("others", 0, "the guest's other `threads`, each woken by a timer (uncounted; their interrupts flip the wakee_flips of the tasks they interrupt)")
	othersPeriod := fs.Duration("others-period", 0, "mean sleep of an other thread (default 10ms, Go's sysmon's longest)")
	othersBurst := fs.Duration("others-burst", 0, "cpu an other thread runs per wakeup (default 5µs)")
	duration := fs.Duration("duration", 0, "kernel time counted per run (default 5s, the seed's window)")
	warmup := fs.Duration("warmup", 0, "kernel time run before counting (default 3s)")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed replays the same runs")
	test := fs.String("test", "", "sysbench `test`: oltp (clients and server threads) or threads (lock, sched_yield(), unlock) (default oltp)")
	locks := fs.Int("locks", 0, "threads test: mutexes, --thread-locks (default 8)")
	yields := fs.Int("yields", 0, "threads test: rounds per event, --thread-yields (default 1000)")
	lock := fs.Duration("lock", 0, "threads test: cpu from an unlock to the next lock attempt (default 200ns)")
	yield := fs.Duration("yield", 0, "threads test: cpu of a sched_yield() round trip (default 1µs)")
	figures := fs.Bool("figures", false, "run the seed's four figures per topology (s390, s390llcN, ivb-ex) beside the seed's numbers; -cpus are the s390 guest sizes (default 16), -threads the sysbench threads, -duration and -warmup each oltp run's (default 1s, 3s)")
	chip := fs.Int("chip", 0, "with -figures: cpus per chip of the s390llcN topology (default 8, a z13's cores per chip)")
	ivbCores := fs.String("ivb-cores", "", "with -figures: comma-separated cores per socket of figure 3's 4-socket, 2-thread ivb-ex (default 15)")
	idleTick := fs.String("idle-tick", "governor", "how an idle cpu's loop decides the tick: governor (menu, a cpuidle driver's), stop (no driver, before f4c31b07b136: at every idle entry) or after-tick (no driver, from it: after the idle's first tick)")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	return func(w io.Writer) error {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		cfg := SimConfig{Topology: *topo, Threads: *threads, Servers: *servers, HZ: *hz, Think: *think, Service: *service,
			Statements: *statements, IO: *ioLat, IRQ: *irq, IdleWake: *idleWake, Pull: *pull, LBCost: *lbCost,
			Duration: *duration, Warmup: *warmup, Seed: *seed, Others: *others, OthersPeriod: *othersPeriod, OthersBurst: *othersBurst, Tail: *tail,
			Test: *test, Locks: *locks, Yields: *yields, Lock: *lock, Yield: *yield}
		given := func(n string) bool { return set[n] }
		rule, err := ksim.ParseIdleTickRule(*idleTick)
		if err != nil {
			return fmt.Errorf("simulate wakeup: -idle-tick: %w", err)
		}
		cfg.IdleTick = rule
		if err := bench.RequirePositive("wakeup", []bench.FlagValue[int]{bench.Flag("threads", *threads), bench.Flag("servers", *servers), bench.Flag("hz", *hz), bench.Flag("statements", *statements), bench.Flag("locks", *locks), bench.Flag("yields", *yields), bench.Flag("chip", *chip)}, given); err != nil {
			return err
		}
		if err := bench.RequirePositive("wakeup", []bench.FlagValue[time.Duration]{bench.Flag("think", *think), bench.Flag("service", *service), bench.Flag("idlewake", *idleWake), bench.Flag("pull", *pull), bench.Flag("lbcost", *lbCost), bench.Flag("duration", *duration), bench.Flag("others-period", *othersPeriod), bench.Flag("lock", *lock), bench.Flag("yield", *yield)}, given); err != nil {
			return err
		}
		if *others < 0 || *othersBurst < 0 || *tail < 0 {
			return fmt.Errorf("simulate wakeup: -others %d, -others-burst %s, -tail %s: want 0 or more", *others, *othersBurst, *tail)
		}
		if *ioLat < 0 {
			return fmt.Errorf("simulate wakeup: -io %s: want 0 or a positive duration", *ioLat)
		}
		if *warmup < 0 {
			return fmt.Errorf("simulate wakeup: -warmup %s: want 0 or a positive duration", *warmup)
		}
		if set["warmup"] && *warmup == 0 {
			cfg.Warmup = -1 // SimConfig's zero is the default; -1 asks for none
		}
		for _, f := range strings.Split(*cpus, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("simulate wakeup: -cpus %q: %q is not a whole number", *cpus, f)
			}
			cfg.CPUs = append(cfg.CPUs, n)
		}
		if *policies != "" {
			cfg.Policies = strings.Split(*policies, ",")
		}
		if *figures {
			return runFigures(w, cfg, set["cpus"], *chip, *ivbCores, *asJSON)
		}
		tab, err := Simulate(cfg)
		if err != nil {
			return err // one line, "simulate wakeup: ..."
		}
		if *asJSON {
			return bench.WriteJSON(w, tab.Rows)
		}
		return tab.WriteText(w)
	}
}

// runFigures is -figures: the seed's four figures at the flags' sizes.
func runFigures(w io.Writer, cfg SimConfig, cpusSet bool, chip int, ivbCores string, asJSON bool) error {
	fc := FigConfig{Chip: chip, Threads: cfg.Threads, Duration: cfg.Duration, Warmup: max(cfg.Warmup, 0)}
	if cfg.Warmup < 0 {
		fc.Warmup = time.Nanosecond // SimConfig's -1: none, as near as FigConfig's zero default allows
	}
	if cpusSet {
		fc.GuestCPUs = cfg.CPUs
	}
	if ivbCores != "" {
		for _, f := range strings.Split(ivbCores, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("simulate wakeup: -ivb-cores %q: %q is not a whole number", ivbCores, f)
			}
			fc.IvbCores = append(fc.IvbCores, n)
		}
	}
	tab, err := Figures(fc)
	if err != nil {
		return err
	}
	if asJSON {
		return bench.WriteJSON(w, tab.Rows)
	}
	return tab.WriteText(w)
}
