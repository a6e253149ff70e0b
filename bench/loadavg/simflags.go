package loadavg

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contend/contend/bench"
)

// simulation is contend simulate loadavg (bench.Simulation): the model at
// the seed's size on any machine. The counts it prints (writes per 5 s, the
// readers' error) need no real CPUs, only the model's own code on kernel
// time; what contention costs needs real CPUs: contend run and sweep.
var simulation = &bench.Simulation{
	Usage: "loadavg [-cpus 224] [-nodes 2] [-levels 2] [-duration 1s] [-gap 40us] [-mig 79] [-tasks 2] [-hz 1000] [-seed 1] [-variants base,rate,...] [-sensitivity=true] [-sens-duration 250ms] [-json]",
	Flags: simFlags,
}

func simFlags(fs *flag.FlagSet, stdout io.Writer) func() error {
	cpus := fs.Int("cpus", 224, "virtual `cpus`, one cfs_rq of the task group each (224: the seed's Sapphire Rapids)")
	nodes := fs.Int("nodes", 2, "NUMA `nodes` the per-node presets split the cpus over")
	duration := fs.Duration("duration", time.Second, "kernel time simulated per row; counts are scaled to the seed's 5 s window")
	gap := fs.Duration("gap", 0, "kernel time between a cpu's events (default 40us: 25k en/dequeues per cpu per second, the seed's postgres_sysbench)")
	var mig SimMig // the library's own value: its zero is the default, "0" none
	fs.Var(&mig, "mig", "percent of wakeups on another cpu, 0 to 100 (default 79: the seed's 11M migrations per 14M wakeups)")
	tasks := fs.Int("tasks", 0, "tasks per cpu (default 2)")
	hz := fs.Int("hz", 0, "CONFIG_HZ: 1000 or 250 (default 1000)")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed replays the same events")
	variants := fs.String("variants", "", "comma-separated `rows`: presets or store=/write=/read= variants (default: every preset in the seed's order)")
	asJSON := fs.Bool("json", false, "print the rows as JSON (the sensitivity table is text only)")
	levels := fs.Int("levels", 2, "task-group `levels`: the tasks' group this many levels below the root, each with its own tg->load_avg (2: the seed's docker container under system.slice)")
	sens := fs.Bool("sensitivity", true, "after the table, the rate limit's tg_weight error against tasks per cpu, task weight, levels and mig")
	sensDuration := fs.Duration("sens-duration", 250*time.Millisecond, "kernel time simulated per cell of the sensitivity table")
	return func() error {
		cfg := SimConfig{CPUs: *cpus, Nodes: *nodes, Levels: *levels, Duration: *duration, Gap: *gap,
			Mig: mig, Tasks: *tasks, HZ: *hz, Seed: *seed}
		for _, flagName := range []string{"cpus", "nodes", "levels", "duration", "gap", "tasks", "hz", "sens-duration"} {
			if f := fs.Lookup(flagName); bench.FlagGiven(fs, flagName) && (f.Value.String() == "0" || f.Value.String() == "0s") {
				return fmt.Errorf("simulate: -%s 0: want a positive value", flagName)
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
			return bench.WriteJSON(stdout, tab.Rows)
		}
		var st *SensTable
		if *sens {
			sc := cfg
			sc.Duration = *sensDuration
			if st, err = Sensitivity(sc); err != nil {
				return err
			}
		}
		if err := tab.WriteText(stdout); err != nil || st == nil {
			return err
		}
		fmt.Fprintln(stdout)
		return st.WriteText(stdout)
	}
}
