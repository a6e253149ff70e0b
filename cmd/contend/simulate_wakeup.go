package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/contend/contend/bench/wakeup"
)

// simulators are the scenarios simulate replays besides loadavg, by name:
// each takes the arguments after the scenario's name.
var simulators = map[string]func(stdout io.Writer, args []string) error{
	"wakeup": simulateWakeup,
}

const simulateWakeupUsage = "wakeup [-cpus 8] [-llc 1] [-mig 1.2] [-sync 100] [-tasks 4] [-rate 226000] [-duration 5s] [-seed 1] [-policies affine,prev,...] [-json]"

// simulateWakeup runs the wakeup model's policies on N virtual cpus on one
// thread, on kernel time, and prints migrations per 5 s beside seed 004's.
func simulateWakeup(stdout io.Writer, args []string) error {
	fs := newFlags(stdout, "simulate", simulateWakeupUsage)
	cpus := fs.Int("cpus", 8, "virtual `cpus` (seed 004 does not give its guest's size)")
	llc := fs.Int("llc", 1, "`cpus` per LLC, consecutive ids sharing one (1: every vCPU its own, which 4.13 gives no LLC statistics)")
	mig := fs.String("mig", "1.2", "`percent` of wakeups made away from the task's home cpu, two decimals at most")
	sync := fs.Int("sync", 100, "`percent` of wakeups flagged WF_SYNC (sysbench's socket wakeups are)")
	tasks := fs.Int("tasks", 4, "sleeping `tasks` per cpu")
	rate := fs.Int("rate", 226000, "machine-wide wakeups per second of kernel time (226000: seed 004's, estimated)")
	duration := fs.Duration("duration", 0, "kernel time simulated per policy (default 5s, the seed's window)")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed replays the same wakeups")
	policies := fs.String("policies", "", "comma-separated wake= `policies`, llcstats/stats=live for the pre-patch policy on exact LLC statistics (default: all, and that)")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("simulate wakeup: unexpected argument %q (usage: contend simulate %s)", pos[0], simulateWakeupUsage)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"cpus", *cpus}, {"llc", *llc}, {"tasks", *tasks}, {"rate", *rate}} {
		if f.v < 1 {
			return fmt.Errorf("simulate wakeup: -%s %d: want a positive value", f.name, f.v)
		}
	}
	if *sync < 0 || *sync > 100 {
		return fmt.Errorf("simulate wakeup: -sync %d: want a percentage in [0, 100]", *sync)
	}
	if flagSet(fs, "duration") && *duration <= 0 {
		return fmt.Errorf("simulate wakeup: -duration %s: want a positive duration", *duration)
	}
	cfg := wakeup.SimConfig{CPUs: *cpus, LLC: *llc, Mig: *mig, Sync: *sync, Tasks: *tasks, Rate: *rate, Duration: *duration, Seed: *seed}
	if *sync == 0 {
		cfg.Sync = -1 // SimConfig's zero is the default; -1 asks for none
	}
	if *policies != "" {
		cfg.Policies = strings.Split(*policies, ",")
	}
	tab, err := wakeup.Simulate(cfg)
	if err != nil {
		return err // one line, "simulate wakeup: ..."
	}
	if *asJSON {
		return writeJSON(stdout, tab.Rows)
	}
	return tab.WriteText(stdout)
}
