package counter

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/contend/contend/affinity"
	"golang.org/x/sys/unix"
)

func TestPerNodePlacementReal(t *testing.T) {
	for _, bind := range []bool{false, true} {
		p, err := NewPerNode(Options{Nodes: []int{0}, Bind: bind})
		if err != nil {
			t.Fatalf("NewPerNode(node 0, bind %v): %v", bind, err)
		}
		defer p.Close()
		pl := p.Placement()
		if len(pl) != 1 {
			t.Fatalf("Placement() has %d slots, want 1", len(pl))
		}
		s := pl[0]
		t.Logf("bind %v: %v; summary %q", bind, s, p.PlacementSummary())
		if s.Node != 0 || s.Addr != p.Layout().Hot[0] {
			t.Errorf("Placement()[0] = %+v, want node 0 at %#x", s, p.Layout().Hot[0])
		}
		switch s.PageNode {
		case 0:
			// Node 0 is the only node a real machine is sure to have, so a
			// page whose node is known must be on it and local.
			if !s.Local || s.Note != "" {
				t.Errorf("Placement()[0] = %+v: page on node 0, want Local and no note", s)
			}
			if !strings.HasPrefix(p.PlacementSummary(), "1/1 slots node-local") {
				t.Errorf("PlacementSummary() = %q, want 1/1 slots node-local", p.PlacementSummary())
			}
		case -1:
			if s.Local || !strings.Contains(s.Note, "placement unknown") {
				t.Errorf("Placement()[0] = %+v: page node unknown, want not Local and a note saying so", s)
			}
		default:
			t.Errorf("Placement()[0].PageNode = %d on node 0's slot", s.PageNode)
		}
		if s.Method == "first touch" && !strings.Contains(s.Note, "mbind") {
			t.Errorf("placed by first touch but the note %q does not say why mbind was not used", s.Note)
		}
	}
}

func TestPerNodePlacementFake(t *testing.T) {
	p, err := NewPerNode(Options{Nodes: []int{0, 1, 2, 3}, Fake: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, s := range p.Placement() {
		if s.Local || s.Method != "fake" || s.Note != "not node-local (fake nodes)" {
			t.Errorf("fake node %d: %+v, want not Local, method fake, note \"not node-local (fake nodes)\"", s.Node, s)
		}
		if !strings.Contains(s.String(), "not node-local") {
			t.Errorf("SlotPlacement.String() = %q, want it to say not node-local", s)
		}
	}
	if got := p.PlacementSummary(); got != "0/4 slots node-local (fake): not node-local (fake nodes)" {
		t.Errorf("PlacementSummary() = %q", got)
	}
}

// TestPerNodeMbindRefused plays a container whose seccomp profile refuses
// the NUMA system calls: the store must still work, placed by first touch,
// and say so.
func TestPerNodeMbindRefused(t *testing.T) {
	defer func(m func([]byte, int, affinity.MemPolicy) error, pn func(unsafe.Pointer) (int, error)) {
		sysMbind, sysPageNode = m, pn
	}(sysMbind, sysPageNode)
	sysMbind = func(_ []byte, node int, p affinity.MemPolicy) error {
		return fmt.Errorf("mbind %s node %d: %w", p, node, unix.EPERM) // as affinity.BindMemory words it
	}

	t.Run("verified", func(t *testing.T) {
		p, err := NewPerNode(Options{Nodes: []int{0}})
		if err != nil {
			t.Fatalf("NewPerNode with mbind refused: %v", err)
		}
		defer p.Close()
		s := p.Placement()[0]
		if s.Method != "first touch" || !strings.Contains(s.Note, "mbind MPOL_PREFERRED node 0: operation not permitted") {
			t.Errorf("Placement()[0] = %+v, want first touch with the mbind error in the note", s)
		}
		p.Add(0, 3)
		if p.Sum() != 3 {
			t.Errorf("Sum() = %d after Add(0, 3), want 3", p.Sum())
		}
	})
	t.Run("pinned touch", func(t *testing.T) {
		var touched []int
		p, err := NewPerNodeTouch(Options{Nodes: []int{0}}, func(node int, touch func()) error {
			touched = append(touched, node)
			touch()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if fmt.Sprint(touched) != "[0]" {
			t.Errorf("TouchFunc called for nodes %v, want [0]", touched)
		}
		if s := p.Placement()[0]; s.Method != "first touch on a pinned thread" {
			t.Errorf("Placement()[0].Method = %q, want first touch on a pinned thread", s.Method)
		}
	})
	t.Run("unverifiable", func(t *testing.T) {
		sysPageNode = func(unsafe.Pointer) (int, error) { return -1, errors.New("get_mempolicy: operation not permitted") }
		p, err := NewPerNode(Options{Nodes: []int{0}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		s := p.Placement()[0]
		if s.Local || s.PageNode != -1 || !strings.Contains(s.Note, "placement unknown") {
			t.Errorf("Placement()[0] = %+v, want not Local, PageNode -1, placement unknown", s)
		}
		if !strings.HasPrefix(p.PlacementSummary(), "0/1 slots node-local (first touch)") {
			t.Errorf("PlacementSummary() = %q", p.PlacementSummary())
		}
	})
}

func TestPerNodeMissingNode(t *testing.T) {
	probe, err := NewPerNode(Options{})
	if err != nil {
		t.Fatal(err)
	}
	method := probe.Placement()[0].Method
	probe.Close()
	if !strings.HasPrefix(method, "mbind") {
		t.Skipf("mbind is not available here (%s), so a missing node cannot be detected", method)
	}
	// Node 1000 exists on no machine this runs on.
	p, err := NewPerNode(Options{Nodes: []int{0, 1000}})
	if err == nil {
		p.Close()
		t.Fatal("NewPerNode(nodes 0 and 1000, real) succeeded, want an error naming node 1000")
	}
	if !strings.Contains(err.Error(), "node 1000") || !strings.Contains(err.Error(), "fake") {
		t.Errorf("NewPerNode(nodes 0 and 1000) = %v, want it to name node 1000 and suggest a fake topology", err)
	}
}

// TestPerNodeScan checks that the bounded walk and the full MAX_NUMNODES
// walk visit the same slots.
func TestPerNodeScan(t *testing.T) {
	tests := []struct {
		nodes []int
		nr    int
	}{
		{[]int{0}, 0},
		{[]int{0, 1}, 0},
		{[]int{0, 1, 2, 3}, 0},
		{[]int{0, 3, 7}, 0},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7}, 0},
		{[]int{2, 63, 64, 900}, 0},
		{[]int{0, 1}, 1024},
		{[]int{1023}, 0},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("nodes=%v/nr=%d", tt.nodes, tt.nr)
		var sums [2]int64
		for i, full := range []bool{false, true} {
			p, err := NewPerNode(Options{Nodes: tt.nodes, NrNodeIDs: tt.nr, Fake: true, FullScan: full})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if p.FullScan() != full || p.Nodes() != len(tt.nodes) {
				t.Errorf("%s: FullScan(), Nodes() = %v, %d, want %v, %d", name, p.FullScan(), p.Nodes(), full, len(tt.nodes))
			}
			var want int64
			for j, n := range tt.nodes {
				d := int64(1) << j
				p.Add(n, d)
				want += d
			}
			sums[i] = p.Sum()
			if sums[i] != want {
				t.Errorf("%s: full %v: Sum() = %d, want %d", name, full, sums[i], want)
			}
			p.Close()
		}
		if sums[0] != sums[1] {
			t.Errorf("%s: bounded Sum() = %d, full-scan Sum() = %d", name, sums[0], sums[1])
		}
	}
}
