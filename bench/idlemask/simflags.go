package idlemask

import (
	"flag"
	"fmt"
	"github.com/contend/contend/bench"
	"io"
	"time"
)

// SimUsage is the synopsis of contend simulate idlemask.
const SimUsage = "idlemask [-cpus 192] [-llc 48] [-busy 90] [-wake 10] [-entries 80] [-hz 1000] [-probe 50ns] [-duration 50ms] [-seed 1] [-prev draw] [-smt 2] [-nohz] [-json]"

// SimFlags declares contend simulate idlemask's flags on fs, each default
// with where it comes from, and returns the function that runs the
// simulation they ask for once fs has parsed a command line: it checks the
// values (a one-line error naming the flag), runs the update policies at
// seed 003's size on one thread, on kernel time, and prints the mask's
// writes and the searches' probes beside the seed's figures (the table, or
// with -json its rows).
func SimFlags(fs *flag.FlagSet) (run func(w io.Writer) error) {
	cpus := fs.Int("cpus", 192, "virtual `cpus` (192: seed 003's 4-socket box)")
	llc := fs.Int("llc", 48, "`cpus` per LLC (48: a socket of 24 cores × 2 threads)")
	busy := fs.Int("busy", 90, "`percent` of non-wakeup events that find the cpu busy")
	wake := fs.Int("wake", 10, "`percent` of events that are wakeups")
	entries := fs.Int("entries", 80, "idle `entries` a cpu makes between two ticks (80: uperf's, seed 003)")
	hz := fs.Int("hz", 1000, "CONFIG_HZ: 1000 or 250")
	probe := fs.Duration("probe", 50*time.Nanosecond, "kernel time one runqueue probe adds to avg_scan_cost")
	duration := fs.Duration("duration", 50*time.Millisecond, "kernel time simulated per row")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed replays the same events")
	prev := fs.String("prev", "draw", "a woken task's prev_cpu and recent_used_cpu: draw (uniform over the LLC at each wakeup) or history (each task's own, as v5.11 sets them)")
	smt := fs.Int("smt", 2, "hardware `threads` a core (2: seed 003's machine, where v5.11 runs select_idle_core() before the mask and select_idle_smt() after; 1: neither)")
	nohz := fs.Bool("nohz", false, "add the nohz struct's and idle mask's lines per second on v5's tick-stop path, nohz.nr_cpus kept (counter) and removed (weight, 5d86d542f68f)")
	asJSON := fs.Bool("json", false, "print the rows as JSON (with -nohz, an object of the rows and the nohz rows)")
	return func(w io.Writer) error {
		if err := bench.RequirePositive("idlemask", []bench.FlagValue[int]{bench.Flag("cpus", *cpus), bench.Flag("llc", *llc), bench.Flag("entries", *entries), bench.Flag("hz", *hz), bench.Flag("smt", *smt)}, nil); err != nil {
			return err
		}
		if *probe <= 0 || *duration <= 0 {
			return fmt.Errorf("simulate idlemask: -probe %s, -duration %s: want positive durations", *probe, *duration)
		}
		cfg := SimConfig{CPUs: *cpus, LLC: *llc, Busy: *busy, Wake: *wake, Entries: *entries, HZ: *hz,
			Probe: *probe, Duration: *duration, Seed: *seed, Prev: *prev, SMT: *smt, Nohz: *nohz}
		// SimConfig's zero is the default; -1 asks for 0.
		if *busy == 0 {
			cfg.Busy = -1
		}
		if *wake == 0 {
			cfg.Wake = -1
		}
		if *busy < 0 || *wake < 0 {
			return fmt.Errorf("simulate idlemask: -busy %d, -wake %d: want percentages in [0, 100]", *busy, *wake)
		}
		tab, err := Simulate(cfg)
		if err != nil {
			return err // one line, "simulate idlemask: ..."
		}
		if *asJSON && *nohz {
			return bench.WriteJSON(w, struct{ Rows, Nohz any }{tab.Rows, tab.Nohz})
		}
		if *asJSON {
			return bench.WriteJSON(w, tab.Rows)
		}
		return tab.WriteText(w)
	}
}
