package bench_test

import (
	"fmt"
	"testing"

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
