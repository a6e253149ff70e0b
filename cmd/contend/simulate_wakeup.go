package main

import (
	"io"

	"github.com/contend/contend/bench/wakeup"
)

// simulators are the scenarios simulate replays besides loadavg, by name:
// each takes the arguments after the scenario's name. The wakeup model's
// flags and table are its package's (bench/wakeup's simflags.go and
// simtable.go); simulate.go adds the other models'.
var simulators = map[string]func(stdout io.Writer, args []string) error{
	"wakeup": simulation(wakeup.SimUsage, wakeup.SimFlags),
}
