package affinity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contend/contend/nodemask"
)

func TestPlacementAssign(t *testing.T) {
	tests := []struct {
		machine string
		place   string
		workers int
		want    string // CPU list in worker order, or "!error substring"
	}{
		// 8 nodes × 2 CPUs, no SMT.
		{"16amd64-8n2c", "compact", 4, "0 1 2 3"},
		{"16amd64-8n2c", "spread", 4, "0 2 4 6"},
		{"16amd64-8n2c", "spread", 10, "0 2 4 6 8 10 12 14 1 3"},
		{"16amd64-8n2c", "cross", 4, "0 1 2 3"}, // all remote nodes are at 20: the first one wins
		{"16amd64-8n2c", "smt", 2, "!no SMT|none"},
		{"16amd64-8n2c", "compact", 17, "!17 workers"},
		{"16amd64-8n2c", "3,5,7-8", 0, "!at least 1 worker"},
		{"16amd64-8n2c", "3,5,7-8", 4, "3 5 7 8"},
		{"16amd64-8n2c", "3,5,7-8", 5, "!only 4 usable cpus"},
		{"16amd64-8n2c", "3,99", 2, "!99"},
		// 4 sockets × 2 nodes, distances 10/16/22: cross goes to a node at 22.
		{"64amd64-4s2n4ca2co", "cross", 4, "0 2 24 26"}, // 0-1 are compute-unit siblings
		// 2 packages × 2 dies, SMT: compact takes one thread per core first.
		{"fakecpuid1f-64intel64-2p4d2n2c2t", "compact", 2, "0 2"},
		{"fakecpuid1f-64intel64-2p4d2n2c2t", "smt", 4, "0 1 2 3"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%d", tt.machine, tt.place, tt.workers), func(t *testing.T) {
			topo := tree(t, tt.machine)
			p, err := ParsePlacement(tt.place)
			if err != nil {
				t.Fatal(err)
			}
			cpus, err := p.Assign(topo, tt.workers, false)
			if want, ok := strings.CutPrefix(tt.want, "!"); ok {
				if err == nil || !containsAny(err.Error(), strings.Split(want, "|")) {
					t.Fatalf("Assign(%d) = %v, %v; want error containing %q", tt.workers, cpus, err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Trim(fmt.Sprint(cpus), "[]"); got != tt.want {
				t.Errorf("Assign(%d) = %s, want %s", tt.workers, got, tt.want)
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Every policy hands out distinct, usable CPUs, and each half of a cross
// placement sits on one node.
func TestPlacementInvariants(t *testing.T) {
	for _, machine := range []string{"16amd64-8n2c", "64amd64-4s2n4ca2co", "fakecpuid1f-64intel64-2p4d2n2c2t"} {
		topo := tree(t, machine)
		n := topo.AllowedCPUs.Weight()
		for _, pol := range Policies {
			for workers := 2; workers <= n; workers += 3 {
				cpus, err := Placement{Policy: pol}.Assign(topo, workers, false)
				if err != nil {
					if pol == Cross || pol == SMT {
						continue // legitimately unavailable on some machines and sizes
					}
					t.Fatalf("%s %s %d: %v", machine, pol, workers, err)
				}
				seen := map[int]bool{}
				for _, c := range cpus {
					if seen[c] || topo.CheckCPU(c) != nil {
						t.Fatalf("%s %s %d: cpu %d repeated or unusable in %v", machine, pol, workers, c, cpus)
					}
					seen[c] = true
				}
				if pol == Cross {
					half := (workers + 1) / 2
					for i, c := range cpus {
						if want := topo.NodeOf(cpus[0]); i < half && topo.NodeOf(c) != want {
							t.Errorf("%s cross %d: writer %d on node %d, want %d", machine, workers, i, topo.NodeOf(c), want)
						}
						if want := topo.NodeOf(cpus[half]); i >= half && topo.NodeOf(c) != want {
							t.Errorf("%s cross %d: reader %d on node %d, want %d", machine, workers, i, topo.NodeOf(c), want)
						}
					}
				}
			}
		}
	}
}

func TestPlacementRespectsAllowedAndOversubscribe(t *testing.T) {
	topo := tree(t, "16amd64-8n2c")
	topo.AllowedCPUs = nodemask.BitmapOf(4, 5, 9)
	cpus, err := Placement{Policy: Compact}.Assign(topo, 3, false)
	if err != nil || fmt.Sprint(cpus) != "[4 5 9]" {
		t.Errorf("compact within allowed 4,5,9 = %v, %v; want [4 5 9]", cpus, err)
	}
	if _, err := (Placement{Policy: Compact}).Assign(topo, 4, false); err == nil || !strings.Contains(err.Error(), "pass -oversubscribe") {
		t.Errorf("4 workers on 3 allowed cpus: error = %v, want one suggesting -oversubscribe (the flag's spelling)", err)
	}
	cpus, err = Placement{Policy: Compact}.Assign(topo, 4, true)
	if err != nil || fmt.Sprint(cpus) != "[4 5 9 4]" {
		t.Errorf("oversubscribed = %v, %v; want [4 5 9 4]", cpus, err)
	}
	p, _ := ParsePlacement("3")
	if _, err := p.Assign(topo, 1, false); err == nil || !strings.Contains(err.Error(), "allowed") {
		t.Errorf("disallowed cpu 3: error = %v, want one saying it is not allowed", err)
	}
}

func TestParsePlacement(t *testing.T) {
	tests := []struct {
		in, want string // want: String() of the result, or "!error substring"
	}{
		{"compact", "compact"},
		{"spread", "spread"},
		{"cross", "cross"},
		{"smt", "smt"},
		{"0,2,4-7", "cpus:0,2,4..7"},
		{"0-3", "cpus:0..3"},
		{"3-1", "!descending"},
		{"a", "!unknown placement"},
		{"1,,2", "!cpu list"},
		{"-1", "!cpu list"},
		{"", "!unknown placement"},
	}
	for _, tt := range tests {
		p, err := ParsePlacement(tt.in)
		if want, ok := strings.CutPrefix(tt.want, "!"); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ParsePlacement(%q) = %v, %v; want error containing %q", tt.in, p, err, want)
			}
			continue
		}
		if err != nil || p.String() != tt.want {
			t.Errorf("ParsePlacement(%q) = %v, %v; want %s", tt.in, p, err, tt.want)
		}
	}
}
