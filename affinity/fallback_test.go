package affinity

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// unreadable stands for a file that exists but cannot be read: fstest's
// MapFS fails a read of a directory ("invalid argument"), as a real sysfs
// file can fail with EIO or EACCES.
var unreadable = &fstest.MapFile{Mode: fs.ModeDir}

// denyDirs is a tree whose directories in deny cannot be listed, as a sysfs
// directory can refuse with EACCES.
type denyDirs struct {
	fstest.MapFS
	deny []string
}

func (d denyDirs) ReadDir(name string) ([]fs.DirEntry, error) {
	if slices.Contains(d.deny, name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrPermission}
	}
	return d.MapFS.ReadDir(name)
}

// TestLoadFallbacks breaks one file, or a few, of a valid two-node tree at a
// time, as older kernels and odd systems do: the machine must still load,
// the fallback must give the right answer, and a note must say what was
// done instead.
func TestLoadFallbacks(t *testing.T) {
	const cpu, node = "sys/devices/system/cpu/", "sys/devices/system/node/"
	data := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name  string
		edit  map[string]*fstest.MapFile // nil deletes the file
		deny  []string                   // directories that cannot be listed
		check func(*Topology) bool
		notes []string
	}{
		{
			name: "node cpumap without cpulist",
			edit: map[string]*fstest.MapFile{node + "node0/cpulist": nil, node + "node1/cpulist": nil,
				node + "node0/cpumap": data("00000001\n"), node + "node1/cpumap": data("00000000,00000002\n")},
			check: func(t *Topology) bool { return t.NodeOf(0) == 0 && t.NodeOf(1) == 1 },
			notes: []string{node + "node{0-1}/cpulist: missing (an older kernel); read the hex cpumap"},
		},
		{
			name:  "unreadable cpulist",
			edit:  map[string]*fstest.MapFile{node + "node1/cpulist": unreadable, node + "node1/cpumap": data("2\n")},
			check: func(t *Topology) bool { return t.NodeOf(1) == 1 },
			notes: []string{node + "node1/cpulist: unreadable (invalid argument); reading cpumap instead"},
		},
		{
			name:  "empty cpuN/online without cpu/online",
			edit:  map[string]*fstest.MapFile{cpu + "online": nil, cpu + "cpu1/online": data("")},
			check: func(t *Topology) bool { return t.OnlineCPUs.String() == "0-1" },
			notes: []string{cpu + "cpu1/online: empty; taken as online, as a present cpu without the file is"},
		},
		{
			name:  "unreadable cpuN/online without cpu/online",
			edit:  map[string]*fstest.MapFile{cpu + "online": nil, cpu + "cpu0/online": unreadable, cpu + "cpu1/online": data("0\n")},
			check: func(t *Topology) bool { return t.OnlineCPUs.String() == "0" && t.OfflineCPUs.String() == "1" },
			notes: []string{cpu + "cpu0/online: unreadable (invalid argument); taken as online, as a present cpu without the file is"},
		},
		{
			// cpu/online is authoritative: a broken cpuN/online beside it
			// is never read.
			name:  "empty cpuN/online beside cpu/online",
			edit:  map[string]*fstest.MapFile{cpu + "cpu1/online": data("")},
			check: func(t *Topology) bool { return t.OnlineCPUs.String() == "0-1" },
		},
		{
			name:  "empty cpu/online",
			edit:  map[string]*fstest.MapFile{cpu + "online": data("\n"), cpu + "cpu1/online": data("0\n")},
			check: func(t *Topology) bool { return t.OnlineCPUs.String() == "0" },
			notes: []string{cpu + "online: empty; reading each cpuN/online instead"},
		},
		{
			name:  "empty cpu/present",
			edit:  map[string]*fstest.MapFile{cpu + "present": data("\n")},
			check: func(t *Topology) bool { return t.PresentCPUs.String() == "0-1" && t.OnlineCPUs.String() == "0-1" },
			notes: []string{cpu + "present: empty; taking every possible cpu as present"},
		},
		{
			name:  "unreadable cpu/possible",
			edit:  map[string]*fstest.MapFile{cpu + "possible": unreadable},
			check: func(t *Topology) bool { return t.PossibleCPUs.String() == "0-1" },
			notes: []string{cpu + "possible: unreadable (invalid argument); cpus found from the cpuN directories"},
		},
		{
			name:  "unreadable node/online",
			edit:  map[string]*fstest.MapFile{node + "online": unreadable},
			check: func(t *Topology) bool { return t.OnlineNodes.String() == "0-1" },
			notes: []string{node + "online: unreadable (invalid argument); nodes found from the nodeN directories"},
		},
		{
			name:  "empty core_id",
			edit:  map[string]*fstest.MapFile{cpu + "cpu1/topology/core_id": data("\n")},
			check: func(t *Topology) bool { return t.CPUs[1].Core == 1 },
			notes: []string{cpu + "cpu1/topology/core_id: empty; taken as a core of its own"},
		},
		{
			name: "hex thread_siblings",
			edit: map[string]*fstest.MapFile{cpu + "cpu0/topology/thread_siblings_list": nil, cpu + "cpu1/topology/thread_siblings_list": nil,
				cpu + "cpu0/topology/thread_siblings": data("00000003\n"), cpu + "cpu1/topology/thread_siblings": data("00000003\n")},
			check: func(t *Topology) bool {
				return t.CPUs[0].Siblings.String() == "0-1" && t.CPUs[1].Siblings.String() == "0-1"
			},
			notes: []string{cpu + "cpu{0-1}/topology/thread_siblings_list: missing (an older kernel); read the hex thread_siblings"},
		},
		{
			name: "hex shared_cpu_map",
			edit: map[string]*fstest.MapFile{cpu + "cpu0/cache/index3/shared_cpu_list": nil, cpu + "cpu1/cache/index3/shared_cpu_list": unreadable,
				cpu + "cpu0/cache/index3/shared_cpu_map": data("3\n"), cpu + "cpu1/cache/index3/shared_cpu_map": data("3\n")},
			check: func(t *Topology) bool { return len(t.LLCs) == 1 && t.LLCs[0].CPUs.String() == "0-1" },
			notes: []string{
				cpu + "cpu0/cache/index3/shared_cpu_list: missing (an older kernel); read the hex shared_cpu_map",
				cpu + "cpu1/cache/index3/shared_cpu_list: unreadable (invalid argument); reading shared_cpu_map instead",
			},
		},
		{
			// One cpu's cache level unreadable: it joins the group its
			// neighbour named, rather than making a second one.
			name:  "unreadable cache level",
			edit:  map[string]*fstest.MapFile{cpu + "cpu1/cache/index3/level": unreadable},
			check: func(t *Topology) bool { return len(t.LLCs) == 1 && t.LLCs[0].Level == 3 && t.CPUs[1].LLC == 0 },
			notes: []string{cpu + "cpu1/cache/index3/level: unreadable (invalid argument); cache level unknown"},
		},
		{
			// A cache directory that cannot be listed: that cpu's LLC
			// is unknown, the machine still loads.
			name:  "unreadable cache directory",
			deny:  []string{cpu + "cpu1/cache"},
			check: func(t *Topology) bool { return t.CPUs[1].LLC == -1 && t.CPUs[0].LLC == 0 && len(t.LLCs) == 1 },
			notes: []string{cpu + "cpu1/cache: unreadable (permission denied); last-level cache unknown"},
		},
		{
			name: "unreadable governors",
			edit: map[string]*fstest.MapFile{cpu + "cpu0/cpufreq/scaling_governor": unreadable, cpu + "cpu1/cpufreq/scaling_governor": unreadable},
			check: func(t *Topology) bool {
				return t.CPUs[0].Governor == "" && t.CPUs[1].Governor == ""
			},
			notes: []string{cpu + "cpu{0-1}/cpufreq/scaling_governor: unreadable (invalid argument); governor unknown"},
		},
		{
			name: "empty distance",
			edit: map[string]*fstest.MapFile{node + "node1/distance": data("")},
			check: func(t *Topology) bool {
				return t.Distance(1, 0) == 20 && t.Distance(1, 1) == 10 && t.Distance(0, 1) == 20
			},
			notes: []string{node + "node1/distance: empty; distances taken from the other nodes' rows, as if symmetric"},
		},
		{
			name: "missing distance",
			edit: map[string]*fstest.MapFile{node + "node0/distance": nil},
			check: func(t *Topology) bool {
				return t.Distance(0, 1) == 20 && t.Distance(0, 0) == 10 && t.Distance(1, 0) == 20
			},
			notes: []string{node + "node0/distance: missing; distances taken from the other nodes' rows, as if symmetric"},
		},
		{
			name:  "unreadable osrelease",
			edit:  map[string]*fstest.MapFile{"proc/sys/kernel/osrelease": unreadable},
			check: func(t *Topology) bool { return t.Kernel == "" },
			notes: []string{"proc/sys/kernel/osrelease: unreadable (invalid argument); kernel unknown"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := validTree()
			for name, f := range tt.edit {
				if f == nil {
					delete(fsys, name)
				} else {
					fsys[name] = f
				}
			}
			topo, err := LoadFS(denyDirs{fsys, tt.deny})
			if err != nil {
				t.Fatalf("LoadFS: %v; want the fallback to load the machine", err)
			}
			checkInvariants(t, topo)
			if !tt.check(topo) {
				t.Errorf("fallback gave the wrong answer:\n%s", topo)
			}
			if !slices.Equal(topo.Notes, tt.notes) {
				t.Errorf("notes:\n got %q\nwant %q", topo.Notes, tt.notes)
			}
			if len(tt.notes) > 0 && !strings.Contains(topo.String(), "\nnotes     "+tt.notes[0]+"\n") {
				t.Errorf("String() does not print the notes:\n%s", topo)
			}
		})
	}
}

// TestLoadFallbackFixtures reads the hand-made trees of an older kernel
// (hex maps only, no cpu or node lists, an empty cpu3/online) and of a
// current one with odd files, and compares contend topo's output with the
// golden files (go test -run TestLoadFallbackFixtures -update rewrites them).
func TestLoadFallbackFixtures(t *testing.T) {
	for _, tc := range []struct {
		tree  string
		check func(*Topology) bool
	}{
		{"oldkernel-cpumap", func(t *Topology) bool {
			return t.Nodes[1].CPUs.String() == "2-3" && t.OnlineCPUs.String() == "0-3" &&
				len(t.LLCs) == 2 && t.LLCs[1].CPUs.String() == "2-3" && t.LLCs[1].Level == 2 && len(t.Notes) == 4
		}},
		{"odd-files", func(t *Topology) bool {
			return t.Distance(1, 0) == 21 && t.CPUs[1].Core == 1 && len(t.LLCs) == 2 && t.CPUs[3].LLC == 1 && len(t.Notes) == 3
		}},
	} {
		t.Run(tc.tree, func(t *testing.T) {
			topo := tree(t, tc.tree)
			topo.Root = "testdata/sysfs/" + tc.tree
			checkInvariants(t, topo)
			if !tc.check(topo) {
				t.Errorf("unexpected topology:\n%s", topo)
			}
			golden(t, filepath.Join("testdata", tc.tree+".golden"), topo.String())
			var j struct {
				Notes []string `json:"notes"`
			}
			if b, err := json.Marshal(topo); err != nil || json.Unmarshal(b, &j) != nil || !slices.Equal(j.Notes, topo.Notes) {
				t.Errorf("JSON notes = %q, %v; want %q", j.Notes, err, topo.Notes)
			}
		})
	}
}

// The nodeN directories are read only where the node lists are missing or
// broken: a tree whose node directory cannot be listed loads from its lists,
// and fails, naming the directory, only where it needed the listing. The
// same for the cpuN directories without cpu/possible.
func TestLoadUnlistableDirs(t *testing.T) {
	const cpu, node = "sys/devices/system/cpu", "sys/devices/system/node"
	topo, err := LoadFS(denyDirs{validTree(), []string{node, cpu}})
	if err != nil {
		t.Fatalf("LoadFS with unlistable node and cpu directories beside their lists: %v", err)
	}
	if topo.OnlineNodes.String() != "0-1" || topo.PossibleCPUs.String() != "0-1" || len(topo.Notes) != 0 {
		t.Errorf("online nodes %s, possible cpus %s, notes %q; want 0-1, 0-1 and none", topo.OnlineNodes, topo.PossibleCPUs, topo.Notes)
	}
	without := func(name string) fstest.MapFS {
		fsys := validTree()
		delete(fsys, name)
		return fsys
	}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		deny string
	}{
		{"no node/online", without(node + "/online"), node},
		{"no node/possible", without(node + "/possible"), node},
		{"no cpu/possible", without(cpu + "/possible"), cpu},
	} {
		_, err := LoadFS(denyDirs{tc.fsys, []string{tc.deny}})
		if want := "affinity: " + tc.deny + ": permission denied"; err == nil || err.Error() != want {
			t.Errorf("%s, %s unlistable: error %v, want %s", tc.name, tc.deny, err, want)
		}
	}
}
