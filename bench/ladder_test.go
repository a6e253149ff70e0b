package bench_test

import (
	"fmt"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/fixture"
)

func TestThreadLadder(t *testing.T) {
	tests := []struct {
		machine string
		fake    int
		want    string
	}{
		{fixture.AMD4Sockets, 0, "[1 2 4 8 16 32 64]"},        // nodes of 8: already a rung
		{fixture.Intel2Pkg, 0, "[1 2 4 8 16 32 64]"},          // nodes of 32
		{fixture.AMD8Nodes, 0, "[1 2 4 8 16]"},                // nodes of 2
		{fixture.AMD4Sockets, 3, "[1 2 4 8 16 22 32 64]"},     // a fake node of 22 is one node's worth
		{fixture.SparseNodes, 0, fmt.Sprint(sparseLadder(t))}, // whatever the tree holds, ends at all cpus
	}
	for _, tt := range tests {
		topo := fixture.Topology(t, tt.machine)
		if tt.fake > 0 {
			topo = fixture.Fake(t, tt.machine, tt.fake)
		}
		if got := fmt.Sprint(bench.ThreadLadder(topo)); got != tt.want {
			t.Errorf("ThreadLadder(%s fake=%d) = %s, want %s", tt.machine, tt.fake, got, tt.want)
		}
	}
}

// sparseLadder is the ladder of the sparse-nodes tree worked out by hand
// from its allowed CPU count, so the row above checks the shape, not a
// copy of the code.
func sparseLadder(t *testing.T) []int {
	n := fixture.Topology(t, fixture.SparseNodes).AllowedCPUs.Weight()
	var ns []int
	for k := 1; k < n; k *= 2 {
		ns = append(ns, k)
	}
	return append(ns, n)
}

// The seeds' rungs: 1, 2, one LLC, one node and the quarters of the
// machine, each once with every question it answers.
func TestSeedRungs(t *testing.T) {
	tests := []struct {
		name string
		topo *affinity.Topology
		want string
	}{
		{"sapphire-rapids-224", fixture.Synthetic(t, fixture.SapphireRapids224),
			"[{1 [1]} {2 [2]} {56 [25%]} {112 [one LLC one node 50%]} {168 [75%]} {224 [100%]}]"},
		{fixture.AMD4Sockets, fixture.Topology(t, fixture.AMD4Sockets), // an LLC a node of 8
			"[{1 [1]} {2 [2]} {8 [one LLC one node]} {16 [25%]} {32 [50%]} {48 [75%]} {64 [100%]}]"},
		{fixture.AMD8Nodes, fixture.Topology(t, fixture.AMD8Nodes), // nodes of 2, an L3 a cpu
			"[{1 [1 one LLC]} {2 [2 one node]} {4 [25%]} {8 [50%]} {12 [75%]} {16 [100%]}]"},
		{fixture.NoNUMA, fixture.Topology(t, fixture.NoNUMA),
			"[{1 [1 25%]} {2 [2 50%]} {3 [75%]} {4 [one LLC one node 100%]}]"},
	}
	for _, tt := range tests {
		rs := bench.SeedRungs(tt.topo)
		if got := fmt.Sprint(rs); got != tt.want {
			t.Errorf("SeedRungs(%s) = %s, want %s", tt.name, got, tt.want)
		}
	}
	if r := (bench.Rung{Threads: 112, Why: []string{"one node", "50%"}}); !r.Topological() {
		t.Errorf("%v: not topological", r)
	}
	if r := (bench.Rung{Threads: 168, Why: []string{"75%"}}); r.Topological() {
		t.Errorf("%v: topological", r)
	}
}
