package affinity

import (
	"strconv"
	"strings"
	"testing"

	"github.com/contend/contend/nodemask"
)

// TestFake splits real trees and checks that the fake nodes are contiguous,
// disjoint, cover the allowed CPUs, differ in size by at most one, and that
// everything but the nodes is still the real machine's.
func TestFake(t *testing.T) {
	tests := []struct {
		name    string
		tree    string
		allowed string // "" keeps the tree's (all online CPUs)
		k       int
		want    []string // each fake node's CPUs
	}{
		{"2 cpus into 2", "nonuma-4cpu", "1,3", 2, []string{"1", "3"}},
		{"4 cpus into 1", "nonuma-4cpu", "", 1, []string{"0-3"}},
		{"64 cpus into 3", "64amd64-4s2n4ca2co", "", 3, []string{"0-21", "22-42", "43-63"}},
		{"64 cpus into 64", "64amd64-4s2n4ca2co", "", 64, nil},
		{"sparse allowed into 2", "fakecpuid1f-64intel64-2p4d2n2c2t", "0-3,32-35,60", 2, []string{"0-3,32", "33-35,60"}},
		{"offline cpu skipped", "sparse-nodes", "", 2, []string{"0-1", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			real := tree(t, tt.tree)
			if tt.allowed != "" {
				real.AllowedCPUs = list(t, tt.allowed)
			}
			before := real.String()
			f, err := real.Fake(tt.k)
			if err != nil {
				t.Fatal(err)
			}
			if real.String() != before || real.IsFake() {
				t.Error("Fake changed the topology it was called on")
			}
			if f.Label() != "fake-"+strconv.Itoa(tt.k) || !f.IsFake() || f.Real != real || f.NrNodeIDs != tt.k || len(f.Nodes) != tt.k {
				t.Fatalf("Fake(%d): label %q, real %p (want %p), nr_node_ids %d, %d nodes",
					tt.k, f.Label(), f.Real, real, f.NrNodeIDs, len(f.Nodes))
			}
			allowed := real.AllowedCPUs.Bits()
			var covered nodemask.Bitmap
			next, minSize, maxSize := 0, len(allowed), 0
			for i, n := range f.Nodes {
				if tt.want != nil && n.CPUs.String() != tt.want[i] {
					t.Errorf("node %d cpus %s, want %s", i, n.CPUs, tt.want[i])
				}
				// Contiguous: node i holds the next run of allowed CPUs.
				for _, cpu := range n.CPUs.Bits() {
					if next >= len(allowed) || allowed[next] != cpu {
						t.Fatalf("node %d holds cpu %d out of order (allowed %v)", i, cpu, allowed)
					}
					next++
					if f.NodeOf(cpu) != i {
						t.Errorf("NodeOf(%d) = %d, want %d", cpu, f.NodeOf(cpu), i)
					}
				}
				covered = covered.Or(n.CPUs)
				minSize, maxSize = min(minSize, n.CPUs.Weight()), max(maxSize, n.CPUs.Weight())
				for j := range f.Nodes {
					want := 20
					if i == j {
						want = 10
					}
					if d := f.Distance(i, j); d != want {
						t.Errorf("Distance(%d, %d) = %d, want %d", i, j, d, want)
					}
				}
			}
			if !covered.Equal(real.AllowedCPUs) || maxSize-minSize > 1 || minSize < 1 {
				t.Errorf("nodes cover %s (want %s), sizes %d..%d", covered, real.AllowedCPUs, minSize, maxSize)
			}
			for _, c := range f.CPUs {
				r := real.CPUs[c.ID]
				if !real.AllowedCPUs.Test(c.ID) && c.Node != -1 {
					t.Errorf("cpu %d is not allowed but sits on fake node %d", c.ID, c.Node)
				}
				if c.Package != r.Package || c.Core != r.Core || c.LLC != r.LLC || !c.Siblings.Equal(r.Siblings) {
					t.Errorf("cpu %d = %+v, real %+v: core and cache facts must stay real", c.ID, c, r)
				}
			}
			if len(f.LLCs) != len(real.LLCs) {
				t.Errorf("%d LLC groups, real has %d", len(f.LLCs), len(real.LLCs))
			}
			checkInvariants(t, f)
			if s := f.String(); !strings.HasPrefix(s, "topology  FAKE (fake-"+strconv.Itoa(tt.k)+")") {
				t.Errorf("String() does not start by saying FAKE:\n%s", s)
			}
		})
	}
}

// TestFakeIndependent: the fake copy shares no bitmaps with the real one,
// and faking a fake starts again from the real topology.
func TestFakeIndependent(t *testing.T) {
	real := tree(t, "nonuma-4cpu")
	f, err := real.Fake(2)
	if err != nil {
		t.Fatal(err)
	}
	f.CPUs[0].Siblings.Set(3)
	f.LLCs[0].CPUs.Clear(0)
	f.AllowedCPUs.Clear(1)
	if real.CPUs[0].Siblings.String() != "0-1" || real.LLCs[0].CPUs.String() != "0-3" || real.AllowedCPUs.String() != "0-3" {
		t.Errorf("editing the fake changed the real topology: siblings %s, llc %s, allowed %s",
			real.CPUs[0].Siblings, real.LLCs[0].CPUs, real.AllowedCPUs)
	}
	ff, err := f.Fake(4)
	if err != nil {
		t.Fatal(err)
	}
	if ff.Real != real || len(ff.Nodes) != 4 || ff.Label() != "fake-4" {
		t.Errorf("Fake of fake: real %p (want %p), %d nodes, label %q", ff.Real, real, len(ff.Nodes), ff.Label())
	}
}

func TestFakeErrors(t *testing.T) {
	real := tree(t, "nonuma-4cpu")
	tests := []struct {
		k    int
		want string
	}{
		{0, "affinity: a fake topology needs at least 1 node, not 0"},
		{-2, "affinity: a fake topology needs at least 1 node, not -2"},
		{5, "affinity: cannot split 4 allowed cpus (0-3) into 5 fake nodes"},
	}
	for _, tt := range tests {
		f, err := real.Fake(tt.k)
		if got := errString(err); got != tt.want || f != nil {
			t.Errorf("Fake(%d) = %v, %q; want nil, %q", tt.k, f, got, tt.want)
		}
	}
}
