package vmlab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contend/contend/internal/vmlab/topology"
)

// The guests are declared, with their oracle, in internal/vmlab/topology;
// the lab's steps and kernellab's declarations name them by these aliases.
type (
	Topology = topology.Topology
	Node     = topology.Node
)

// Kernels are the kernel oracle's guests, booted only when named: declared
// (with their steps) in internal/vmlab/kernellab, which appends them here
// when imported.
var Kernels []Topology

// Lookup returns the topology of that name, from topology's Matrix, Big and
// Arm64 or Kernels.
func Lookup(name string) (Topology, error) {
	var names []string
	for _, t := range slices.Concat(topology.Matrix, topology.Big, topology.Arm64, Kernels) {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return Topology{}, fmt.Errorf("unknown topology %q (have %s)", name, strings.Join(names, ", "))
}
