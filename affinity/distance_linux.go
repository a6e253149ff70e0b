package affinity

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// distance reads a node's distance row. The kernel prints one entry per
// online node, in id order; a tree that printed one per possible node is
// accepted too, as the two agree whenever every possible node is online.
func (r sysfs) distance(n *Node, name string, online, possible []int) error {
	const instead = "distances taken from the other nodes' rows, as if symmetric"
	s, ok := r.optString(name, instead)
	if !ok {
		if _, err := fs.Stat(r.fsys, name); errors.Is(err, fs.ErrNotExist) {
			r.notes.add(name, "missing; "+instead)
		}
		return nil
	}
	if s == "" {
		r.notes.add(name, "empty; "+instead)
		return nil
	}
	fields := strings.Fields(s)
	ids := online
	if len(fields) != len(online) {
		ids = possible
	}
	if len(fields) != len(ids) {
		return fmt.Errorf("%s: %d distances for %d online nodes", name, len(fields), len(online))
	}
	for i, f := range fields {
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return fmt.Errorf("%s: distance %d is %q, not a non-negative number", name, i, f)
		}
		n.Distance[ids[i]] = d
	}
	return nil
}

// fillDistances completes the rows of nodes whose distance file could not
// be read from the other nodes' rows: the kernel's node_distance table is
// symmetric on practically every machine (ACPI SLIT entries a→b and b→a
// agree), and a node is LOCAL_DISTANCE (10) from itself.
func (t *Topology) fillDistances() {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if slices.ContainsFunc(n.Distance, func(d int) bool { return d != 0 }) {
			continue
		}
		for _, o := range t.Nodes {
			if o.ID == n.ID {
				n.Distance[n.ID] = 10
			} else if n.ID < len(o.Distance) {
				n.Distance[o.ID] = o.Distance[n.ID]
			}
		}
	}
}
