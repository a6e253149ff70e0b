package bench

import (
	"fmt"
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

// A Rung is a worker count a sweep runs at and the questions of the seeds it
// answers there ("one LLC", "50%").
type Rung struct {
	Threads int
	Why     []string
}

// Topological reports whether the rung is one of the machine's own sizes (2
// workers, one LLC's worth, one node's worth), where which CPUs the workers
// share is the question and every placement has an answer; the others are
// points of a scaling curve.
func (r Rung) Topological() bool {
	for _, w := range r.Why {
		if w == "2" || w == "one LLC" || w == "one node" {
			return true
		}
	}
	return false
}

// SeedRungs returns the worker counts the seeds measured at, on t: 1 and 2
// workers, one LLC's worth (the usable CPUs of the largest last-level
// cache), one node's worth (of the largest node), and 25, 50, 75 and 100 %
// of the usable CPUs (postgres_sysbench and netperf ran nr_thread at those
// points), rounded to the nearest count. Each count is there once,
// ascending, with every question it answers: on a 2-socket, 224-CPU box
// with one LLC a socket, 1, 2, 56 (25%), 112 (one LLC, one node, 50%), 168
// (75%) and 224 (100%), where ThreadLadder climbs ten rungs.
func SeedRungs(t *affinity.Topology) []Rung {
	allowed := t.AllowedCPUs.Weight()
	var rs []Rung
	add := func(n int, why string) {
		if n < 1 || n > allowed {
			return
		}
		for i := range rs {
			if rs[i].Threads == n {
				rs[i].Why = append(rs[i].Why, why)
				return
			}
		}
		rs = append(rs, Rung{Threads: n, Why: []string{why}})
	}
	add(1, "1")
	add(2, "2")
	llc := 0
	for _, g := range t.LLCs {
		llc = max(llc, g.CPUs.And(t.AllowedCPUs).Weight())
	}
	add(llc, "one LLC")
	node := 0
	for _, n := range t.Nodes {
		node = max(node, n.CPUs.And(t.AllowedCPUs).Weight())
	}
	add(node, "one node")
	for _, pct := range []int{25, 50, 75, 100} {
		add(max(1, (allowed*pct+50)/100), fmt.Sprintf("%d%%", pct))
	}
	slices.SortFunc(rs, func(a, b Rung) int { return a.Threads - b.Threads })
	return rs
}
