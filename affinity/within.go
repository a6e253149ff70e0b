package affinity

import (
	"fmt"

	"github.com/contend/contend/nodemask"
)

// Within returns a copy of t whose allowed CPUs are only cpus, as if the
// process had been started under taskset with that list: placements,
// ladders and plans then use nothing else. Every CPU of cpus must be
// allowed now. The copy shares everything else with t.
func (t *Topology) Within(cpus nodemask.Bitmap) (*Topology, error) {
	if cpus.Empty() {
		return nil, fmt.Errorf("affinity: an empty cpu list")
	}
	if extra := cpus.AndNot(t.AllowedCPUs); !extra.Empty() {
		if extra.Weight() == 1 {
			return nil, fmt.Errorf("affinity: cpu %s is not among the allowed cpus %s", extra, t.AllowedCPUs)
		}
		return nil, fmt.Errorf("affinity: cpus %s are not among the allowed cpus %s", extra, t.AllowedCPUs)
	}
	w := *t
	w.AllowedCPUs = cpus.Clone()
	return &w, nil
}

// UsableNodes counts the nodes with at least one allowed CPU: the nodes a
// placement can spread over. Memory-only nodes and nodes taskset left out
// do not count.
func (t *Topology) UsableNodes() int {
	n := 0
	for _, node := range t.Nodes {
		if !node.CPUs.And(t.AllowedCPUs).Empty() {
			n++
		}
	}
	return n
}
