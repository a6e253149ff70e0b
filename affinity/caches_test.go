package affinity

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// mapTree reads testdata/sysfs/<name> into a MapFS, for a test to edit.
func mapTree(t *testing.T, name string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	root := os.DirFS(filepath.Join("testdata", "sysfs", name))
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// editedTree loads testdata/sysfs/<name> changed by edit (nil: as it is),
// failing the test if it does not load or breaks an invariant.
func editedTree(t *testing.T, name string, edit func(fstest.MapFS)) *Topology {
	t.Helper()
	fsys := mapTree(t, name)
	if edit != nil {
		edit(fsys)
	}
	topo, err := LoadFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, topo)
	return topo
}

// TestLLCGroupsBySharedSet: the QEMU lab's guest with -cpu max (an AMD CPU
// without TOPOEXT, 2 sockets of 4 cpus) has two L3s, but the kernel gives
// each cpu's L3 its own APIC id as id (amd_cpuid4's num_threads_sharing 0
// in get_cache_id) while shared_cpu_list names the socket. Grouped by id,
// it was 8 groups; grouped by the sharing set, it is 2, whatever the ids
// say, and ids that disagree with the sets are noted.
func TestLLCGroupsBySharedSet(t *testing.T) {
	const tree = "amd-notopoext-2s8cpu"
	const noteText = "/cache/index3/id: does not match shared_cpu_list"
	forEachL3 := func(edit func(cpu int, name string)) {
		for cpu := range 8 {
			edit(cpu, fmt.Sprintf("sys/devices/system/cpu/cpu%d/cache/index3/id", cpu))
		}
	}
	id := func(n int) *fstest.MapFile { return &fstest.MapFile{Data: []byte(fmt.Sprintf("%d\n", n))} }
	tests := []struct {
		name     string
		edit     func(fstest.MapFS)
		wantNote string // a note naming these cpus' id files, "" for none
	}{
		{"ids are apic ids", nil, "cpu{1-3,5-7}"},
		{"no id files", func(fsys fstest.MapFS) {
			forEachL3(func(_ int, name string) { delete(fsys, name) })
		}, ""},
		{"id 0 on both sockets", func(fsys fstest.MapFS) {
			forEachL3(func(_ int, name string) { fsys[name] = id(0) })
		}, "cpu{4-7}"},
		{"ids per socket", func(fsys fstest.MapFS) {
			forEachL3(func(cpu int, name string) { fsys[name] = id(cpu / 4) })
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			topo := editedTree(t, tree, tt.edit)
			var got []string
			for _, g := range topo.LLCs {
				got = append(got, g.CPUs.String())
			}
			if strings.Join(got, " ") != "0-3 4-7" {
				t.Errorf("LLC groups %v, want [0-3 4-7]: one per L3, not one per cpu", got)
			}
			var notes []string
			for _, n := range topo.Notes {
				if strings.Contains(n, noteText) {
					notes = append(notes, n)
				}
			}
			switch {
			case tt.wantNote == "" && len(notes) > 0:
				t.Errorf("notes %q, want none about ids", notes)
			case tt.wantNote != "" && (len(notes) != 1 || !strings.Contains(notes[0], tt.wantNote+noteText)):
				t.Errorf("notes %q, want one naming %s", topo.Notes, tt.wantNote)
			}
		})
	}
}

// TestQEMUTrees checks the sysfs trees the QEMU lab (scripts/vmlab.sh)
// copies out of its guests into testdata/qemu-<topology>/: a real kernel's
// tree loads without error and its LLC groups partition the online cpus,
// each cpu in exactly one group, no two groups alike.
func TestQEMUTrees(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "qemu-*"))
	if len(dirs) == 0 {
		t.Skip("no testdata/qemu-* trees: the QEMU lab has not copied any guest's sysfs here")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			topo, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, topo)
			seen := map[string]bool{}
			var all []int
			for _, g := range topo.LLCs {
				if seen[g.CPUs.String()] {
					t.Errorf("two LLC groups share cpus %s", g.CPUs)
				}
				seen[g.CPUs.String()] = true
				all = append(all, g.CPUs.Bits()...)
			}
			if len(topo.LLCs) > 0 && len(all) != topo.OnlineCPUs.Weight() {
				t.Errorf("LLC groups hold %d cpus, %d online: groups overlap or miss cpus\n%s", len(all), topo.OnlineCPUs.Weight(), topo)
			}
			t.Logf("\n%s", topo)
		})
	}
}
