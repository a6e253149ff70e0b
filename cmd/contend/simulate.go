package main

import (
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

// simulations are the scenarios that declare a simulation (bench.Spec's
// Simulate), in the registry's order.
func simulations() []string {
	var names []string
	for _, s := range bench.Specs() {
		if s.Simulate != nil {
			names = append(names, s.Name)
		}
	}
	return names
}

// simulateCmd runs a model at the seed's size on any machine: the counts it
// prints need no real CPUs, only the model's own code on kernel time (what
// contention costs needs real CPUs: contend run and sweep). The scenario
// comes from the registry, and its package declares the flags after its
// name and prints the tables (bench.Simulation: each package's SimFlags).
// loadavg, the first model, also takes its flags before its name and is
// what simulate -h describes.
func simulateCmd(stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 {
		if spec, err := bench.Lookup(args[0]); err == nil && spec.Simulate != nil {
			return simulate(stdout, spec, args[1:])
		}
	}
	names := simulations()
	want := fmt.Sprintf("simulate: want the scenario to simulate, %s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	la, err := bench.Lookup("loadavg")
	if err != nil || la.Simulate == nil || la.Simulate.Flags == nil {
		return fmt.Errorf("%s (usage: contend simulate NAME [flags])", want)
	}
	fs := newFlags(stdout, "simulate", la.Simulate.Usage)
	run := la.Simulate.Flags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "loadavg" {
		return fmt.Errorf("%s (usage: contend simulate %s)", want, la.Simulate.Usage)
	}
	return run(stdout)
}

// simulate runs spec's simulation on the arguments after its name.
func simulate(stdout io.Writer, spec *bench.Spec, args []string) error {
	if spec.Simulate.Flags == nil {
		return fmt.Errorf("simulate %s: the scenario declares a simulation with no flags, and the command has none for it", spec.Name)
	}
	return runSimulation(stdout, spec.Name, spec.Simulate, args)
}

// runSimulation parses a simulation's flags from args, which may hold no
// positional argument, and runs it.
func runSimulation(stdout io.Writer, name string, sim *bench.Simulation, args []string) error {
	fs := newFlags(stdout, "simulate", sim.Usage)
	run := sim.Flags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("simulate %s: unexpected argument %q (usage: contend simulate %s)", name, pos[0], sim.Usage)
	}
	return run(stdout)
}
