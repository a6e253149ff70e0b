package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contend/contend/bench/loadavg"
)

func init() {
	register(&command{
		name:    "simulate",
		summary: "replay a scenario's model on N virtual cpus on kernel time, on one thread, and print the seed's table (loadavg, wakeup, idlemask, balanceflag)",
		run:     simulateCmd,
	})
}

const simulateUsage = "loadavg [-cpus 224] [-nodes 2] [-levels 2] [-duration 1s] [-gap 40us] [-mig 79] [-tasks 2] [-hz 1000] [-seed 1] [-variants base,rate,...] [-sensitivity=true] [-sens-duration 250ms] [-json]"

// simulateCmd runs a model at the seed's size on any machine: the counts it
// prints (writes per 5 s, the readers' error) need no real CPUs, only the
// model's own code on kernel time. What contention costs needs real CPUs:
// contend run and sweep.
func simulateCmd(stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 {
		if sim, ok := simulators[args[0]]; ok { // simulate_wakeup.go
			return sim(stdout, args[1:])
		}
	}
	fs := newFlags(stdout, "simulate", simulateUsage)
	cpus := fs.Int("cpus", 224, "virtual `cpus`, one cfs_rq of the task group each (224: the seed's Sapphire Rapids)")
	nodes := fs.Int("nodes", 2, "NUMA `nodes` the per-node presets split the cpus over")
	duration := fs.Duration("duration", time.Second, "kernel time simulated per row; counts are scaled to the seed's 5 s window")
	gap := fs.Duration("gap", 0, "kernel time between a cpu's events (default 40us: 25k en/dequeues per cpu per second, the seed's postgres_sysbench)")
	var mig loadavg.SimMig // the library's own value: its zero is the default, "0" none
	fs.Var(&mig, "mig", "percent of wakeups on another cpu, 0 to 100 (default 79: the seed's 11M migrations per 14M wakeups)")
	tasks := fs.Int("tasks", 0, "tasks per cpu (default 2)")
	hz := fs.Int("hz", 0, "CONFIG_HZ: 1000 or 250 (default 1000)")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed replays the same events")
	variants := fs.String("variants", "", "comma-separated `rows`: presets or store=/write=/read= variants (default: every preset in the seed's order)")
	asJSON := fs.Bool("json", false, "print the rows as JSON (the sensitivity table is text only)")
	levels := fs.Int("levels", 2, "task-group `levels`: the tasks' group this many levels below the root, each with its own tg->load_avg (2: the seed's docker container under system.slice)")
	sens := fs.Bool("sensitivity", true, "after the table, the rate limit's tg_weight error against tasks per cpu, task weight, levels and mig")
	sensDuration := fs.Duration("sens-duration", 250*time.Millisecond, "kernel time simulated per cell of the sensitivity table")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "loadavg" {
		return fmt.Errorf("simulate: want the scenario to simulate, loadavg, wakeup, idlemask or balanceflag (usage: contend simulate %s)", simulateUsage)
	}
	cfg := loadavg.SimConfig{CPUs: *cpus, Nodes: *nodes, Levels: *levels, Duration: *duration, Gap: *gap,
		Mig: mig, Tasks: *tasks, HZ: *hz, Seed: *seed}
	for _, flagName := range []string{"cpus", "nodes", "levels", "duration", "gap", "tasks", "hz", "sens-duration"} {
		if f := fs.Lookup(flagName); flagSet(fs, flagName) && (f.Value.String() == "0" || f.Value.String() == "0s") {
			return fmt.Errorf("simulate: -%s 0: want a positive value", flagName)
		}
	}
	if *variants != "" {
		cfg.Variants = strings.Split(*variants, ",")
	}
	tab, err := loadavg.Simulate(cfg)
	if err != nil {
		return err // one line, "simulate loadavg: ..."
	}
	if *asJSON {
		return writeJSON(stdout, tab.Rows)
	}
	var st *loadavg.SensTable
	if *sens {
		sc := cfg
		sc.Duration = *sensDuration
		if st, err = loadavg.Sensitivity(sc); err != nil {
			return err
		}
	}
	if err := tab.WriteText(stdout); err != nil || st == nil {
		return err
	}
	fmt.Fprintln(stdout)
	return st.WriteText(stdout)
}
