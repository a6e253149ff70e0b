package bench

import (
	"slices"

	"github.com/contend/contend/affinity"
)

// ThreadLadder is the worker counts a benchmark or a full sweep climbs on t: 1, 2, 4, … below the
// usable CPUs, then all of them, and one node's worth (the usable CPUs of
// the largest node) where that is another count: the seeds' machines were
// measured at one socket and at the whole box.
func ThreadLadder(t *affinity.Topology) []int {
	allowed := t.AllowedCPUs.Weight()
	var ns []int
	for n := 1; n < allowed; n *= 2 {
		ns = append(ns, n)
	}
	ns = append(ns, allowed)
	node := 0
	for _, n := range t.Nodes {
		node = max(node, n.CPUs.And(t.AllowedCPUs).Weight())
	}
	if node > 0 && !slices.Contains(ns, node) {
		ns = append(ns, node)
		slices.Sort(ns)
	}
	return ns
}
