package loadavg

import (
	"flag"
	"fmt"
	"github.com/contend/contend/bench"
	"io"
	"strings"
	"time"
)

// SimUsage is the synopsis of contend simulate loadavg.
const SimUsage = "loadavg [-cpus 224] [-nodes 2] [-levels 2] [-duration 1s] [-gap 40us] [-mig 79] [-tasks 2] [-hz 1000] [-seed 1] [-variants base,rate,...] [-sensitivity=true] [-sens-duration 250ms] [-json]"

// SimFlags declares contend simulate loadavg's flags on fs, each default
// with where it comes from, and returns the function that runs the
// simulation they ask for once fs has parsed a command line: it checks the
// values (a one-line error naming the flag), runs the model at the seed's
// size on one thread, on kernel time, and prints the seed's table (writes
// per 5 s per level, the readers' error per patch) and then, unless
// -sensitivity=false, the rate limit's error against tasks, task weight,
// levels and mig; with -json the table's rows alone.
func SimFlags(fs *flag.FlagSet) (run func(w io.Writer) error) {
	cpus := fs.Int("cpus", 224, "virtual `cpus`, one cfs_rq of the task group each (224: the seed's Sapphire Rapids)")
	nodes := fs.Int("nodes", 2, "NUMA `nodes` the per-node presets split the cpus over")
	duration := fs.Duration("duration", time.Second, "kernel time simulated per row; counts are scaled to the seed's 5 s window")
	gap := fs.Duration("gap", 0, "kernel time between a cpu's events (default 40us: 25k en/dequeues per cpu per second, the seed's postgres_sysbench)")
	var mig SimMig // its zero is the default, "0" none
	fs.Var(&mig, "mig", "percent of wakeups on another cpu, 0 to 100 (default 79: the seed's 11M migrations per 14M wakeups)")
	tasks := fs.Int("tasks", 0, "tasks per cpu (default 2)")
	hz := fs.Int("hz", 0, "CONFIG_HZ: 1000 or 250 (default 1000)")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed replays the same events")
	variants := fs.String("variants", "", "comma-separated `rows`: presets or store=/write=/read= variants (default: every preset in the seed's order)")
	asJSON := fs.Bool("json", false, "print the rows as JSON (the sensitivity table is text only)")
	levels := fs.Int("levels", 2, "task-group `levels`: the tasks' group this many levels below the root, each with its own tg->load_avg (2: the seed's docker container under system.slice)")
	sens := fs.Bool("sensitivity", true, "after the table, the rate limit's tg_weight error against tasks per cpu, task weight, levels and mig")
	sensDuration := fs.Duration("sens-duration", 250*time.Millisecond, "kernel time simulated per cell of the sensitivity table")
	return func(w io.Writer) error {
		cfg := SimConfig{CPUs: *cpus, Nodes: *nodes, Levels: *levels, Duration: *duration, Gap: *gap,
			Mig: mig, Tasks: *tasks, HZ: *hz, Seed: *seed}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, name := range []string{"cpus", "nodes", "levels", "duration", "gap", "tasks", "hz", "sens-duration"} {
			if v := fs.Lookup(name).Value.String(); set[name] && (v == "0" || v == "0s") {
				return fmt.Errorf("simulate: -%s 0: want a positive value", name)
			}
		}
		if *variants != "" {
			cfg.Variants = strings.Split(*variants, ",")
		}
		tab, err := Simulate(cfg)
		if err != nil {
			return err // one line, "simulate loadavg: ..."
		}
		if *asJSON {
			return bench.WriteJSON(w, tab.Rows)
		}
		var st *SensTable
		if *sens {
			sc := cfg
			sc.Duration = *sensDuration
			if st, err = Sensitivity(sc); err != nil {
				return err
			}
		}
		if err := tab.WriteText(w); err != nil || st == nil {
			return err
		}
		fmt.Fprintln(w)
		return st.WriteText(w)
	}
}
