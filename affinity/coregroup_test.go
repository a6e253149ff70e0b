package affinity

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// SchedLLC on the arm64 QEMU guest's tree, which reports no LLC: the
// kernel's cpu_coregroup_mask() takes the smaller of the node and the
// package, then the cluster where it holds that, never every cpu as one
// LLC. Each row edits the tree (2 nodes {0,1} {2,3}, 2 packages the same,
// clusters the same) into the case it names; a reported LLC (the Neoverse
// N1 tree's one L3) is returned as it is.
func TestSchedLLC(t *testing.T) {
	const cpu = "sys/devices/system/cpu/cpu%d/topology/"
	const node = "sys/devices/system/node/"
	set := func(fsys fstest.MapFS, file, v string) { fsys[file] = &fstest.MapFile{Data: []byte(v + "\n")} }
	onePackage := func(fsys fstest.MapFS) {
		for c := range 4 {
			set(fsys, fmt.Sprintf(cpu+"physical_package_id", c), "0")
			set(fsys, fmt.Sprintf(cpu+"core_id", c), fmt.Sprint(c))
		}
	}
	oneNode := func(fsys fstest.MapFS) {
		for name := range fsys {
			if strings.HasPrefix(name, node+"node1/") {
				delete(fsys, name)
			}
		}
		for _, f := range []string{"possible", "online", "has_cpu", "has_memory", "has_normal_memory"} {
			set(fsys, node+f, "0")
		}
		set(fsys, node+"node0/cpulist", "0-3")
		set(fsys, node+"node0/distance", "10")
	}
	for _, tt := range []struct {
		name    string
		tree    string
		edit    func(fstest.MapFS)
		want    string // each cpu's set, by cpu
		derived bool
	}{
		{"as booted: node = package", "arm64-virt-max-2n4cpu", nil, "0-1 0-1 2-3 2-3", true},
		{"package within the node", "arm64-virt-max-2n4cpu", oneNode, "0-1 0-1 2-3 2-3", true},
		{"one node, one package", "arm64-virt-max-2n4cpu", func(fsys fstest.MapFS) { oneNode(fsys); onePackage(fsys) }, "0-3 0-3 0-3 0-3", true},
		{"node within the package", "arm64-virt-max-2n4cpu", func(fsys fstest.MapFS) {
			onePackage(fsys)
			for c := range 4 {
				set(fsys, fmt.Sprintf(cpu+"cluster_id", c), fmt.Sprint(c))
			}
		}, "0-1 0-1 2-3 2-3", true},
		{"node within a cluster", "arm64-virt-max-2n4cpu", func(fsys fstest.MapFS) {
			onePackage(fsys)
			for c := range 4 {
				set(fsys, fmt.Sprintf(cpu+"cluster_id", c), "0")
			}
		}, "0-3 0-3 0-3 0-3", true},
		{"an LLC reported", "arm64-neoverse-n1-8cpu", nil, "0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			topo := editedTree(t, tt.tree, tt.edit)
			var got []string
			for c := range topo.CPUs {
				s, derived := topo.SchedLLC(c)
				if derived != tt.derived {
					t.Errorf("SchedLLC(%d) derived %v, want %v", c, derived, tt.derived)
				}
				got = append(got, s.String())
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("SchedLLC by cpu = %v, want %s", got, tt.want)
			}
			if s, _ := topo.SchedLLC(len(topo.CPUs)); !s.Empty() {
				t.Errorf("SchedLLC of a cpu beyond the machine = %s, want none", s)
			}
		})
	}
}
