package kernel

import "github.com/contend/contend/internal/kernel/workload"

// The workload lives in its own package; the count reports its Load and
// checks shapes by these names.
type Load = workload.Load

// Shapes are the workloads a count can run (workload.Shapes).
var Shapes = workload.Shapes
