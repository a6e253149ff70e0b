package c2c

// A Floor is the handoff floor of a CPU set: what one line transfer
// between two of its CPUs costs. A contended result divided by NS is the
// number of line transfers an operation costs (handoffs/op), a figure that
// compares across machines.
type Floor struct {
	CPUs []int
	Mode Mode
	// NS is the expected one-way handoff between two distinct CPUs of the
	// set drawn at random: each class's median weighted by how many of the
	// set's pairs are of that class.
	NS float64
	// MinNS is the cheapest class's NS: the floor for workers placed as
	// close as the set allows.
	MinNS   float64
	Pairs   []Result
	Classes []ClassSummary
}

// Handoffs returns nsPerOp in units of the floor: line transfers per
// operation.
func (f *Floor) Handoffs(nsPerOp float64) float64 { return nsPerOp / f.NS }
