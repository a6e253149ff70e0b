package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/contend/contend/bench/balanceflag"
	"github.com/contend/contend/bench/idlemask"
	"github.com/contend/contend/bench/loadavg"
)

func init() {
	register(&command{
		name:    "simulate",
		summary: "replay a scenario's model on N virtual cpus on kernel time, on one thread, and print the seed's table (loadavg, wakeup, idlemask, balanceflag)",
		run:     simulateCmd,
	})
	simulators["balanceflag"] = simulation(balanceflag.SimUsage, balanceflag.SimFlags)
	simulators["idlemask"] = simulation(idlemask.SimUsage, idlemask.SimFlags)
}

// simulateCmd runs a model at the seed's size on any machine: the counts it
// prints (writes per 5 s, the readers' error) need no real CPUs, only the
// model's own code on kernel time. What contention costs needs real CPUs:
// contend run and sweep. Each model declares its flags and prints its
// tables beside it (its package's SimFlags); loadavg, the first, also takes
// its flags before its name and is what simulate -h describes.
func simulateCmd(stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 {
		if sim, ok := simulators[args[0]]; ok { // simulate_wakeup.go, and above
			return sim(stdout, args[1:])
		}
	}
	fs := newFlags(stdout, "simulate", loadavg.SimUsage)
	run := loadavg.SimFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "loadavg" {
		return fmt.Errorf("simulate: want the scenario to simulate, loadavg, wakeup, idlemask or balanceflag (usage: contend simulate %s)", loadavg.SimUsage)
	}
	return run(stdout)
}

// simulation is the simulator of a model whose package declares its flags
// (SimFlags) and synopsis (SimUsage, the model's name first): it takes the
// arguments after the model's name, and no positional ones.
func simulation(usage string, flags func(*flag.FlagSet) func(io.Writer) error) func(io.Writer, []string) error {
	name, _, _ := strings.Cut(usage, " ")
	return func(stdout io.Writer, args []string) error {
		fs := newFlags(stdout, "simulate", usage)
		run := flags(fs)
		pos, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 0 {
			return fmt.Errorf("simulate %s: unexpected argument %q (usage: contend simulate %s)", name, pos[0], usage)
		}
		return run(stdout)
	}
}
