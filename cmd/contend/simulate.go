package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/contend/contend/bench"
)

func init() {
	register(&command{
		name:    "simulate",
		summary: "replay a scenario's model on N virtual cpus on kernel time, on one thread, and print the seed's table (" + strings.Join(simulations(), ", ") + ")",
		run:     simulateCmd,
	})
}

// simulations are the scenarios that declare a simulation, in the
// registry's order.
func simulations() []string {
	var names []string
	for _, s := range bench.Specs() {
		if s.Simulate != nil {
			names = append(names, s.Name)
		}
	}
	return names
}

// simulateCmd runs a scenario's model at the seed's size on any machine:
// the counts it prints need no real CPUs, only the model's own code on
// kernel time (what contention costs needs real CPUs: contend run and
// sweep). The scenario comes first; the simulation (bench.Simulation, from
// the registry) declares the flags after it.
func simulateCmd(stdout, stderr io.Writer, args []string) error {
	names := simulations()
	want := fmt.Sprintf("simulate: want the scenario to simulate, %s or %s (usage: contend simulate NAME [flags]; contend simulate NAME -h lists its flags)",
		strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	if len(args) == 0 {
		return fmt.Errorf("%s", want)
	}
	if a := args[0]; a == "-h" || a == "-help" || a == "--help" {
		fmt.Fprintf(stdout, "Usage: contend simulate NAME [flags]\n\n%s\n\nNAME -h lists a simulation's flags.\n", commands["simulate"].summary)
		return flag.ErrHelp
	}
	spec, err := bench.Lookup(args[0])
	if err != nil || spec.Simulate == nil {
		return fmt.Errorf("%s", want)
	}
	sim := spec.Simulate
	if sim.Flags == nil {
		run, ok := simulators[spec.Name] // simulate_wakeup.go, simulate_balanceflag.go
		if !ok {
			return fmt.Errorf("simulate %s: the scenario declares a simulation with no flags, and the command has none for it", spec.Name)
		}
		return run(stdout, args[1:])
	}
	fs := newFlags(stdout, "simulate", sim.Usage)
	run := sim.Flags(fs, stdout)
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("simulate %s: unexpected argument %q (usage: contend simulate %s)", spec.Name, pos[0], sim.Usage)
	}
	return run()
}
