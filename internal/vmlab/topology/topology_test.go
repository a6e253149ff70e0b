package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// lookup finds a topology declared here, as internal/vmlab's Lookup does
// (which adds kernellab's).
func lookup(name string) (Topology, error) {
	for _, t := range slices.Concat(Matrix, Big, Arm64) {
		if t.Name == name {
			return t, nil
		}
	}
	return Topology{}, fmt.Errorf("unknown topology %q", name)
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
		topo, err := lookup(c.name)
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
