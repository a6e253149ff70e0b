package bench

import "fmt"

// A Unit is a figure a scenario reports beside ns/op, declared once by the
// scenario as a package-level variable and used by value everywhere: by the
// scenario when it reports, by the results writer for its "Unit ...
// better=" line, by contend reproduce's findings when they look a figure up.
// A misspelt unit is then a compile error, not a finding that quietly says
// "no results".
type Unit struct {
	// Name is the benchmark unit, e.g. "shared-writes/op". It follows
	// the testing package's conventions: "/op" for per-operation counts,
	// "-%" for percentages.
	Name string
	// Better says which way the figure improves.
	Better Better
	// Doc is a line saying what the figure counts, for contend list.
	Doc string
}

func (u Unit) String() string { return u.Name }

// Better is the direction in which a unit improves.
type Better int8

const (
	// Check marks a figure that is neither a cost nor a goal but a
	// fairness check: two variants compared must agree on it (both
	// orders of the balance flag must do the same balancing work), so a
	// difference means the comparison is unfair, not that one side won.
	// Its results-file metadata is "role=check", and no better= line, so
	// benchstat prints no better/worse verdict for it.
	Check Better = 0
	// Lower is better: costs, counts of shared writes, errors.
	Lower Better = -1
	// Higher is better: throughput, hit rates.
	Higher Better = 1
)

// String returns the value of the unit's better= metadata: "lower",
// "higher", or "check".
func (b Better) String() string {
	switch b {
	case Lower:
		return "lower"
	case Higher:
		return "higher"
	case Check:
		return "check"
	}
	return fmt.Sprintf("better(%d)", int8(b))
}

// Units every run reports, whatever the scenario.
var (
	// WorkerCV is the coefficient of variation of the workers' operation
	// counts, in per cent.
	WorkerCV = Unit{Name: "worker-cv-%", Better: Lower,
		Doc: "coefficient of variation of the workers' operation counts, per cent"}
)
