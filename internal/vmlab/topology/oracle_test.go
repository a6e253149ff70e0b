package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWant spells out by hand what each matrix topology's kernel must show,
// so the oracle is checked against something other than itself.
func TestWant(t *testing.T) {
	for _, c := range []struct {
		name string
		want Want
	}{
		{"skx-2s", Want{
			PossibleNodes: "0-1", CPUNodes: "0-1", MemoryNodes: "0-1", NrNodeIDs: 2,
			NodeCPUs: map[int]string{0: "0-3", 1: "4-7"}, Distance: [][]int{{10, 20}, {20, 10}},
			PossibleCPUs: "0-7", PresentCPUs: "0-7", OnlineCPUs: "0-7", OfflineCPUs: "",
			Packages: []string{"0-3", "4-7"}, Cores: []string{"0-1", "2-3", "4-5", "6-7"}, LLCs: []string{"0-3", "4-7"},
		}},
		{"snc-4n", Want{
			PossibleNodes: "0-3", CPUNodes: "0-3", MemoryNodes: "0-3", NrNodeIDs: 4,
			NodeCPUs:     map[int]string{0: "0-1", 1: "2-3", 2: "4-5", 3: "6-7"},
			Distance:     [][]int{{10, 12, 21, 21}, {12, 10, 21, 21}, {21, 21, 10, 12}, {21, 21, 12, 10}},
			PossibleCPUs: "0-7", PresentCPUs: "0-7", OnlineCPUs: "0-7", OfflineCPUs: "",
			Packages: []string{"0-3", "4-7"}, Cores: []string{"0", "1", "2", "3", "4", "5", "6", "7"}, LLCs: []string{"0-3", "4-7"},
		}},
		{"memonly-3n", Want{
			PossibleNodes: "0-2", CPUNodes: "0-1", MemoryNodes: "0-2", NrNodeIDs: 3,
			NodeCPUs: map[int]string{0: "0-3", 1: "4-7", 2: ""}, Distance: [][]int{{10, 20, 30}, {20, 10, 30}, {30, 30, 10}},
			PossibleCPUs: "0-7", PresentCPUs: "0-7", OnlineCPUs: "0-7", OfflineCPUs: "",
			Packages: []string{"0-3", "4-7"}, Cores: []string{"0-1", "2-3", "4-5", "6-7"}, LLCs: []string{"0-3", "4-7"},
		}},
		{"offline-2s", Want{
			PossibleNodes: "0-1", CPUNodes: "0-1", MemoryNodes: "0-1", NrNodeIDs: 2,
			NodeCPUs: map[int]string{0: "0-2", 1: "4"}, Distance: [][]int{{10, 20}, {20, 10}},
			PossibleCPUs: "0-7", PresentCPUs: "0-5", OnlineCPUs: "0-2,4", OfflineCPUs: "3,5-7",
			Packages: []string{"0-2", "4"}, Cores: []string{"0-1", "2", "4"}, LLCs: []string{"0-2", "4"},
		}},
		{"amd-8", Want{
			PossibleNodes: "0-1", CPUNodes: "0-1", MemoryNodes: "0-1", NrNodeIDs: 2,
			NodeCPUs: map[int]string{0: "0-3", 1: "4-7"}, Distance: [][]int{{10, 20}, {20, 10}},
			PossibleCPUs: "0-7", PresentCPUs: "0-7", OnlineCPUs: "0-7", OfflineCPUs: "",
			Packages: []string{"0-3", "4-7"}, Cores: []string{"0", "1", "2", "3", "4", "5", "6", "7"}, LLCs: []string{"0-3", "4-7"},
		}},
	} {
		topo, err := lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprintf("%+v", topo.Want()), fmt.Sprintf("%+v", c.want); got != want {
			t.Errorf("%s: Want() =\n%s\nwant\n%s", c.name, got, want)
		}
	}
}

// TestCheckTopo runs the oracle on contend topo -json as a skx-2s guest
// printed it (testdata/skx-2s.topo.json; big-224's too), then on edited copies, each of
// which must be caught naming its field.
func TestCheckTopo(t *testing.T) {
	js, err := os.ReadFile("testdata/skx-2s.topo.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"skx-2s", "big-224"} {
		topo, _ := lookup(name)
		guest, err := os.ReadFile("testdata/" + name + ".topo.json")
		if err != nil {
			t.Fatal(err)
		}
		bad, err := CheckTopo(topo, guest)
		if err != nil || len(bad) != 0 {
			t.Errorf("CheckTopo(%s, its guest's output) = %q, %v; want no problems", name, bad, err)
		}
	}
	topo, _ := lookup("skx-2s")
	for _, c := range []struct {
		old, new, want string
	}{
		{`"nr_node_ids": 2`, `"nr_node_ids": 3`, "nr_node_ids = 3, want 2"},
		{`"siblings": "0-1"`, `"siblings": "0"`, "SMT sibling sets"},
		{`"offline_cpus": ""`, `"offline_cpus": "7"`, "offline_cpus = 7, want "},
		{`"hypervisor": true`, `"hypervisor": false`, "machine.hypervisor"},
		{`"cpus": "4-7",
      "has_cpu"`, `"cpus": "4-6",
      "has_cpu"`, "node 1 cpus = 4-6, want 4-7"},
		{`"llc": 1`, `"llc": 0`, "LLC groups"},
	} {
		edited := strings.Replace(string(js), c.old, c.new, 1)
		if edited == string(js) {
			t.Fatalf("fixture has no %q to edit", c.old)
		}
		bad, err := CheckTopo(topo, []byte(edited))
		if err != nil || !strings.Contains(strings.Join(bad, "\n"), c.want) {
			t.Errorf("CheckTopo with %s → %s = %q, %v; want a problem containing %q", c.old, c.new, bad, err, c.want)
		}
	}
	if _, err := CheckTopo(topo, []byte("{")); err == nil {
		t.Error("CheckTopo(truncated JSON) succeeded")
	}
}

// TestCheckTree checks the sysfs trees guests sent back (kept as
// affinity's fixtures) against their topologies' oracles. amd-8's LLC
// groups are what affinity's reader gets wrong for an L3 without an id;
// the test says so until that reader is fixed.
func TestCheckTree(t *testing.T) {
	for _, c := range []struct{ topo, dir string }{
		{"skx-2s", "qemu-skx-2s"},
		{"amd-8", "qemu-amd-8"},
	} {
		root := filepath.Join("..", "..", "..", "affinity", "testdata", c.dir)
		if _, err := os.Stat(root); err != nil {
			t.Fatalf("%s: %v (made by scripts/vmlab.sh -save-sysfs)", c.topo, err)
		}
		topo, _ := lookup(c.topo)
		bad, err := CheckTree(topo, root)
		if err != nil {
			t.Fatalf("%s: %v", c.topo, err)
		}
		for _, b := range bad {
			t.Errorf("%s: sysfs tree %s: %s", c.topo, c.dir, b)
		}
	}
}
