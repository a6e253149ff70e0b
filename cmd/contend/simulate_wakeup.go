package main

import "io"

// simulators are the simulations whose flags the command holds for a
// scenario whose Spec declares none (bench.Simulation's nil Flags): none
// now. The wakeup model's flags and table are its package's (bench/wakeup's
// simflags.go and simtable.go), declared in its Spec like every other
// model's.
var simulators = map[string]func(stdout io.Writer, args []string) error{}
