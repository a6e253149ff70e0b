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
		return nil, fmt.Errorf("affinity: cpus %s are not among the allowed cpus %s", extra, t.AllowedCPUs)
	}
	w := *t
	w.AllowedCPUs = cpus.Clone()
	return &w, nil
}
