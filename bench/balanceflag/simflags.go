package balanceflag

import (
	"flag"
	"fmt"
	"github.com/contend/contend/bench"
	"io"
	"strings"
	"time"

	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/bench/ksim"
)

// SimUsage is the synopsis of contend simulate balanceflag.
const SimUsage = "balanceflag [-cpus 512] [-sockets 2] [-snc 2] [-smt 2] [-busy 90] [-newidle 2] [-hz 1000] [-cas D] [-cas-remote 0] [-local 10ns] [-cs 100ns] [-duration 1s] [-seed 1] [-skew-tick] [-jitter 0] [-newidle-per-tick 1] [-newidle-share 0] [-short-idle 0] [-idle-tick governor] [-fresh-idle] [-idle-pull 0] [-idle-queued 0] [-tick-corr 0] [-orders cmpxchg-first,...] [-nohz] [-json]"

// SimFlags declares contend simulate balanceflag's flags on fs, each
// default with where it comes from, and returns the function that runs the
// simulation they ask for once fs has parsed a command line: it checks the
// values (a one-line error naming the flag), prices a contended cmpxchg at
// this machine's handoff unless -cas gives it, runs the model on one
// thread on kernel time and prints what share of the cycles the flag takes
// before and after check-first (the table, or with -json its JSON).
func SimFlags(fs *flag.FlagSet) (run func(w io.Writer) error) {
	cpus := fs.Int("cpus", 512, "virtual `cpus` (512: a 2-socket Granite Rapids with SMT, the seed's class of machine)")
	sockets := fs.Int("sockets", 2, "`sockets`")
	snc := fs.Int("snc", 2, "sub-NUMA clusters per socket: 1 gives one SD_SERIALIZE level, more give two")
	smt := fs.Int("smt", 2, "threads per core")
	busy := fs.Int("busy", 90, "`percent` of cpus busy in a tick")
	newidle := fs.Int("newidle", 2, "a busy cpu also goes newly idle every `N` ticks (0: only when it turns idle)")
	hz := fs.Int("hz", 1000, "CONFIG_HZ: 1000 or 250")
	cas := fs.Duration("cas", 0, "one contended cmpxchg, a line handoff (default: this machine's, measured as contend c2c -mode cas does, in a second)")
	casRemote := fs.Duration("cas-remote", 0, "one handoff of the flag's line from the other socket, where -cas is then one within a socket (default: every handoff at -cas)")
	local := fs.Duration("local", 10*time.Nanosecond, "one cmpxchg on a line this cpu already holds")
	cs := fs.Duration("cs", 100*time.Nanosecond, "a balancing pass's cost per cpu of its domain's span")
	duration := fs.Duration("duration", time.Second, "kernel time simulated per order")
	seed := fs.Uint64("seed", 1, "random `seed` of the idle pattern")
	skew := fs.Bool("skew-tick", false, "the skew_tick=1 boot option: cpu i ticks i×(TICK_NSEC/2)/cpus after the jiffy (default: the kernel's, aligned)")
	jitter := fs.Duration("jitter", 0, "delay each cpu's tick work by a random `D`uration in [0, D), per cpu and tick (default: none, the worst case)")
	perTick := fs.Int("newidle-per-tick", 1, "short idles of a busy cpu in a tick that has them (the seed gives no rate)")
	share := fs.Float64("newidle-share", 0, "the `share` of busy ticks that have short idles, drawn per cpu and tick (default: one in -newidle)")
	shortIdle := fs.Duration("short-idle", 0, "how long a busy cpu's short idle lasts, what rq->avg_idle learns (default: as long as avg_idle's cap, so no walk is cut)")
	idleTick := fs.String("idle-tick", "governor", "the idle loop's tick `rule`: governor (a cpuidle driver's; the model stops the tick at idle entry), stop (no driver, before f4c31b07b136: the same), after-tick (no driver, from it: the idle's first tick kept, its cpu_idle pass run)")
	fresh := fs.Bool("fresh-idle", false, "with -idle-tick after-tick or stop: each idle tick falls in an idle begun since the cpu's last tick (idles far shorter than a tick): its span has short idles as a busy tick's, and after-tick it fires, balances CPU_IDLE and stops the tick")
	pull := fs.Float64("idle-pull", 0, "with -fresh-idle and -idle-tick after-tick: the `share` of idle ticks whose work pulls a task, ending the idle before the tick stops")
	corr := fs.Float64("tick-corr", 0, "the `correlation` of a cpu's busy or idle state at successive ticks, in [0, 0.95] (default: each tick drawn on its own)")
	queued := fs.Float64("idle-queued", 0, "with -fresh-idle and -idle-tick after-tick: the `share` of idle ticks that find a task already queued (rq->idle_balance 0): the walk balances CPU_NOT_IDLE and the idle ends without a tick stop")
	orders := fs.String("orders", "", "comma-separated order= `values` (default: all three)")
	nohz := fs.Bool("nohz", false, "count the nohz struct's and idle mask's lines per second, nohz.nr_cpus kept (counter) and removed (weight, 5d86d542f68f), instead of the flag")
	asJSON := fs.Bool("json", false, "print the table as JSON")
	return func(w io.Writer) error {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if err := bench.RequirePositive("balanceflag", []bench.FlagValue[int]{bench.Flag("cpus", *cpus), bench.Flag("sockets", *sockets), bench.Flag("snc", *snc), bench.Flag("smt", *smt), bench.Flag("busy", *busy), bench.Flag("hz", *hz)}, nil); err != nil {
			return err
		}
		if err := bench.RequirePositive("balanceflag", []bench.FlagValue[time.Duration]{bench.Flag("local", *local), bench.Flag("cs", *cs), bench.Flag("duration", *duration)}, func(n string) bool { return set[n] }); err != nil {
			return err
		}
		if *perTick < 1 {
			return fmt.Errorf("simulate balanceflag: -newidle-per-tick %d: want a positive count", *perTick)
		}
		rule, err := ksim.ParseIdleTickRule(*idleTick)
		if err != nil {
			return fmt.Errorf("simulate balanceflag: -idle-tick: %w", err)
		}
		if *newidle < 0 {
			return fmt.Errorf("simulate balanceflag: -newidle %d: want 0 (only when a cpu turns idle) or a period in ticks", *newidle)
		}
		cfg := SimConfig{CPUs: *cpus, Sockets: *sockets, SNC: *snc, SMT: *smt, Busy: *busy,
			Newidle: *newidle, HZ: *hz, CAS: *cas, Local: *local, CS: *cs, Duration: *duration, Seed: *seed,
			SkewTick: *skew, Jitter: *jitter, NewidlePerTick: *perTick, ShortIdle: *shortIdle, CASRemote: *casRemote, IdleTick: rule, FreshIdle: *fresh, IdlePull: *pull, IdleQueued: *queued, TickCorr: *corr, NewidleShare: *share}
		if *orders != "" {
			cfg.Orders = strings.Split(*orders, ",")
		}
		casNote := "given with -cas"
		if !set["cas"] {
			ns, note, err := c2c.HostCASHandoff()
			if err != nil {
				return fmt.Errorf("simulate balanceflag: -cas: %w", err)
			}
			cfg.CAS, casNote = ns, note
		} else if *cas <= 0 {
			return fmt.Errorf("simulate balanceflag: -cas %v: want a positive duration", *cas)
		}
		if *nohz {
			tab, err := SimulateNohz(cfg)
			if err != nil {
				return err
			}
			if *asJSON {
				return tab.WriteJSON(w, casNote)
			}
			if _, err := fmt.Fprintf(w, "line handoff %v: %s\n", cfg.CAS, casNote); err != nil {
				return err
			}
			return tab.WriteText(w)
		}
		tab, err := Simulate(cfg)
		if err != nil {
			return err // one line, "simulate balanceflag: ..."
		}
		if *asJSON {
			return tab.WriteJSON(w, casNote)
		}
		if _, err := fmt.Fprintf(w, "cmpxchg handoff %v: %s\n", cfg.CAS, casNote); err != nil {
			return err
		}
		if err := tab.WriteText(w); err != nil || len(cfg.Knobs()) == 0 {
			return err
		}
		base, err := Simulate(cfg.Baseline())
		if err != nil {
			return err
		}
		return tab.WriteMoves(w, base)
	}
}
