package bench

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"
)

// The pieces a scenario declares beside its benchmark, so that the command
// line, the lab and contend reproduce find them through the registry
// instead of lists of their own. bench cannot import the layers that use
// them (cmd/contend, internal/vmlab, internal/reproduce): each piece is data,
// or a function with only standard-library types, that those layers read.

// A Simulation is a scenario's kernel-time simulation as contend simulate
// NAME runs it.
type Simulation struct {
	// Usage is the synopsis after "contend simulate": the name and its
	// flags ("loadavg [-cpus 224] ... [-json]").
	Usage string
	// Flags declares the simulation's flags on fs, the command's flag set
	// (the command parses the arguments after the name with it, and -h
	// prints its defaults under Usage), and returns the function that
	// runs the simulation once they are parsed, writing its table (or
	// JSON) to w: each package's SimFlags. An error is one line naming
	// the flag or the value ("simulate: -cpus 0: want a positive value").
	//
	// Nil Flags: the command line still holds this simulation's flags
	// (wakeup's, in cmd/contend/simulate_wakeup.go, until the wakeup
	// model's rewrite moves them into its package); cmd/contend's
	// TestSimulateRegistry checks that it does.
	Flags func(fs *flag.FlagSet) (run func(w io.Writer) error)
}

// A LabTest is what the QEMU lab's tests step runs of a scenario's
// benchmark (BenchmarkBenchName in the package's test binary) in a guest, at
// every worker count and placement of the ladder.
type LabTest struct {
	// Variant is the variant run: its key=value parts as -test.bench
	// patterns, one per "/"-separated level (a part may be a regular
	// expression: "release=(mov|stlr)"); "" runs every sub-benchmark.
	// Each configuration costs TCG about a second; the lab's tests-full
	// step runs every variant.
	Variant string
}

// Binary is the name of the test binary go test -c builds for the
// scenario's package ("loadavg.test"): the last element of its import path.
func (s *Spec) Binary() string {
	p := s.Package
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:] + ".test"
		}
	}
	return p + ".test"
}

// Missing lists the pieces s declares neither way, or both ways (nil when
// none): "simulate", "lab", "findings".
func (s *Spec) Missing() []string {
	var m []string
	if (s.Simulate == nil) == (s.NoSimulate == "") {
		m = append(m, "simulate")
	}
	if (s.Lab == nil) == (s.NoLab == "") {
		m = append(m, "lab")
	}
	if (len(s.Findings) == 0) == (s.NoFindings == "") {
		m = append(m, "findings")
	}
	return m
}

// FlagGiven reports whether the command line set flag name on fs, for a
// simulation whose zero means "the default" and whose explicit 0 is an
// error.
func FlagGiven(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// WriteJSON prints v as indented JSON, a simulation's -json.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// A FlagValue is a simulation flag's name and value, for RequirePositive.
type FlagValue[T int | time.Duration] struct {
	Name string
	V    T
}

// RequirePositive refuses, in one line naming the simulation and the flag,
// the first value that is not positive: "simulate wakeup: -hz 0: want a
// positive value" (a duration: "want a positive duration"). given, when
// not nil, limits the check to the flags the command line set (where a
// zero flag takes the default).
func RequirePositive[T int | time.Duration](sim string, vals []FlagValue[T], given func(name string) bool) error {
	for _, f := range vals {
		if f.V > 0 || (given != nil && !given(f.Name)) {
			continue
		}
		what := "value"
		if _, ok := any(f.V).(time.Duration); ok {
			what = "duration"
		}
		return fmt.Errorf("simulate %s: -%s %v: want a positive %s", sim, f.Name, f.V, what)
	}
	return nil
}

// Flag is a FlagValue.
func Flag[T int | time.Duration](name string, v T) FlagValue[T] {
	return FlagValue[T]{Name: name, V: v}
}
