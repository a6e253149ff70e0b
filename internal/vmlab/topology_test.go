package vmlab

import (
	"slices"
	"strings"
	"testing"
)

func TestMatrixValid(t *testing.T) {
	if len(Matrix) < 4 {
		t.Fatalf("the matrix has %d topologies, want at least 4", len(Matrix))
	}
	seen := map[string]bool{}
	for _, topo := range Matrix {
		if err := topo.Validate(); err != nil {
			t.Error(err)
		}
		if seen[topo.Name] {
			t.Errorf("topology %s declared twice", topo.Name)
		}
		seen[topo.Name] = true
		if topo.CPUs() > 8 {
			t.Errorf("topology %s: %d vcpus; spinning steps need small guests (≤ 8)", topo.Name, topo.CPUs())
		}
		for _, s := range topo.Steps {
			if _, err := LookupStep(s); err != nil {
				t.Errorf("topology %s: %v", topo.Name, err)
			}
		}
		for _, n := range topo.Tests {
			if !slices.ContainsFunc(scenarioTests, func(s struct{ name, bench, variant string }) bool { return s.name == n }) {
				t.Errorf("topology %s: tests %s: no such scenario test", topo.Name, n)
			}
		}
		if topo.Steps[0] != "topo" {
			t.Errorf("topology %s: first step %s, want topo (the oracle check)", topo.Name, topo.Steps[0])
		}
	}
}

// TestBigNoSpinning: a big guest runs no step that spins a worker per cpu.
func TestBigNoSpinning(t *testing.T) {
	for _, topo := range Big {
		if err := topo.Validate(); err != nil {
			t.Error(err)
		}
		for _, s := range topo.Steps {
			if !slices.Contains([]string{"topo", "sysfs", "plan"}, s) {
				t.Errorf("topology %s: step %s spins workers; big guests run topo, sysfs and plan only", topo.Name, s)
			}
		}
		if _, err := Lookup(topo.Name); err != nil {
			t.Error(err)
		}
	}
}

// TestTestsCovered: between them, the matrix's guests run every scenario's
// test binary.
func TestTestsCovered(t *testing.T) {
	for _, s := range scenarioTests {
		covered := false
		for _, topo := range Matrix {
			covered = covered || (slices.Contains(topo.Steps, "tests") && testedHere(topo, s.name))
		}
		if !covered {
			t.Errorf("no guest of the matrix runs %s's benchmarks", s.name)
		}
	}
}

func TestValidateRefuses(t *testing.T) {
	base := Topology{Name: "x", CPUModel: "max", Sockets: 1, Cores: 2, Threads: 1, Nodes: []Node{{[]int{0, 1}, 128}}}
	for _, c := range []struct {
		name string
		edit func(*Topology)
		want string
	}{
		{"cpu in no node", func(t *Topology) { t.Nodes[0].CPUs = []int{0} }, "cpu 1 is in no node"},
		{"cpu twice", func(t *Topology) { t.Nodes = append(t.Nodes, Node{[]int{1}, 128}) }, "in two nodes"},
		{"small node", func(t *Topology) { t.Nodes[0].MemMiB = 8 }, "at least 64"},
		{"distance rows", func(t *Topology) { t.Distance = [][]int{{10}, {10}} }, "2 distance rows for 1 nodes"},
		{"offline cpu 0", func(t *Topology) { t.Offline = []int{0} }, "cannot put cpu 0 offline"},
		{"boot beyond", func(t *Topology) { t.Boot = 3 }, "3 boot cpus of 2"},
		{"maxcpus beyond", func(t *Topology) { t.KernelMaxCPUs = 3 }, "maxcpus=3 with 2 cpus present"},
		{"offline not up", func(t *Topology) { t.KernelMaxCPUs = 1; t.Offline = []int{1} }, "cannot put cpu 1 offline"},
	} {
		tp := base
		tp.Nodes = slices.Clone(base.Nodes)
		tp.Nodes[0].CPUs = slices.Clone(base.Nodes[0].CPUs)
		c.edit(&tp)
		err := tp.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if err := base.Validate(); err != nil {
		t.Errorf("base: Validate() = %v", err)
	}
}

func TestQEMUArgs(t *testing.T) {
	for _, c := range []struct {
		name string
		want string
	}{
		{"skx-2s", "-cpu Skylake-Server -smp 8,sockets=2,cores=2,threads=2 -m 512M " +
			"-object memory-backend-ram,id=mem0,size=256M -numa node,nodeid=0,memdev=mem0,cpus=0-3 " +
			"-object memory-backend-ram,id=mem1,size=256M -numa node,nodeid=1,memdev=mem1,cpus=4-7"},
		{"memonly-3n", "-cpu Skylake-Server -smp 8,sockets=2,cores=2,threads=2 -m 512M " +
			"-object memory-backend-ram,id=mem0,size=192M -numa node,nodeid=0,memdev=mem0,cpus=0-3 " +
			"-object memory-backend-ram,id=mem1,size=192M -numa node,nodeid=1,memdev=mem1,cpus=4-7 " +
			"-object memory-backend-ram,id=mem2,size=128M -numa node,nodeid=2,memdev=mem2 " +
			"-numa dist,src=0,dst=1,val=20 -numa dist,src=0,dst=2,val=30 -numa dist,src=1,dst=2,val=30"},
		{"offline-2s", "-cpu Skylake-Server -smp 6,sockets=2,cores=2,threads=2,maxcpus=8 -m 512M " +
			"-object memory-backend-ram,id=mem0,size=256M -numa node,nodeid=0,memdev=mem0,cpus=0-3 " +
			"-object memory-backend-ram,id=mem1,size=256M -numa node,nodeid=1,memdev=mem1,cpus=4-7"},
	} {
		topo, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(topo.QEMUArgs(), " "); got != c.want {
			t.Errorf("%s: QEMUArgs() =\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestRanges(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{3}, "3"},
		{[]int{0, 1, 2, 5, 7, 8}, "0-2 5 7-8"},
	} {
		if got := strings.Join(ranges(c.in), " "); got != c.want {
			t.Errorf("ranges(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "skx-2s") {
		t.Errorf("Lookup(nope) = %v, want an error listing the topologies", err)
	}
}
