package ksim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
)

// levels spells a CPU's hierarchy as "NAME:weight:FLAGS groups=G" per level.
func levels(ds *Domains, c int) string {
	var s []string
	for _, d := range ds.CPU[c] {
		s = append(s, fmt.Sprintf("%s:%d:%s groups=%d", d.Name, d.Weight(), d.Flags&(SDShareCPUCapacity|SDShareLLC|SDSerialize|SDWakeAffine), len(d.Groups)))
	}
	return strings.Join(s, " ")
}

func TestGridDomains(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    Grid
		cpu  int
		want string
		llc  LLC
	}{
		// balanceflag's default machine: 2 sockets × 2 SNC nodes of 128
		// CPUs, SMT 2. x86 drops PKG (a package holds two nodes); NODE
		// is the MC span; two NUMA levels, both SD_SERIALIZE.
		{"gnr-snc2", Grid{CPUs: 512, SMT: 2, Node: 128, Socket: 256}, 131,
			"SMT:2:WAKE_AFFINE|SHARE_CPUCAPACITY|SHARE_LLC groups=2 MC:128:WAKE_AFFINE|SHARE_LLC groups=64 " +
				"NUMA:256:WAKE_AFFINE|SERIALIZE groups=2 NUMA:512:WAKE_AFFINE|SERIALIZE groups=2",
			LLC{Level: 1, Size: 128, ID: 128, Shared: 1}},
		// Without SNC: PKG and NODE are the LLC's span and degenerate.
		{"snc1", Grid{CPUs: 512, SMT: 2, Socket: 256}, 300,
			"SMT:2:WAKE_AFFINE|SHARE_CPUCAPACITY|SHARE_LLC groups=2 MC:256:WAKE_AFFINE|SHARE_LLC groups=128 " +
				"NUMA:512:WAKE_AFFINE|SERIALIZE groups=2",
			LLC{Level: 1, Size: 256, ID: 256, Shared: 1}},
		// seed 004's guest: 8 vCPUs, each its own LLC. SMT and MC are
		// one CPU wide (sd_degenerate): no sd_llc, no sd_llc_shared.
		{"vcpus", Grid{CPUs: 8, LLC: 1}, 3, "PKG:8:WAKE_AFFINE groups=8", LLC{Level: -1, Size: 1, ID: 3, Shared: -1}},
		// LLCs of 4 in one package.
		{"llc4", Grid{CPUs: 16, LLC: 4}, 6, "MC:4:WAKE_AFFINE|SHARE_LLC groups=4 PKG:16:WAKE_AFFINE groups=4",
			LLC{Level: 0, Size: 4, ID: 4, Shared: 1}},
		// One CPU: no domain at all.
		{"one", Grid{CPUs: 1}, 0, "", LLC{Level: -1, Size: 1, ID: 0, Shared: -1}},
	} {
		m, err := tc.g.Machine()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ds, err := m.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", tc.name, err)
		}
		if got := levels(ds, tc.cpu); got != tc.want {
			t.Errorf("%s: cpu %d's domains\n got %s\nwant %s", tc.name, tc.cpu, got, tc.want)
		}
		if got := ds.LLC(tc.cpu); got != tc.llc {
			t.Errorf("%s: LLC(%d) = %+v, want %+v", tc.name, tc.cpu, got, tc.llc)
		}
		checkDomains(t, tc.name, ds)
	}
}

// checkDomains checks what holds on every machine: each level's span holds
// the CPU and its child's span, is wider than it, and its groups partition
// it (cover it, at a NUMA level) with the local group first; sd_init's
// balance state.
func checkDomains(t *testing.T, name string, ds *Domains) {
	t.Helper()
	for c, doms := range ds.CPU {
		var child []int
		for i, d := range doms {
			if d.Level != i {
				t.Errorf("%s: cpu %d level %d has sd->level %d", name, c, i, d.Level)
			}
			if _, ok := slices.BinarySearch(d.Span, c); !ok {
				t.Errorf("%s: cpu %d's %s span %v lacks it", name, c, d.Name, d.Span)
			}
			if len(d.Span) <= len(child) || !subset(child, d.Span) {
				t.Errorf("%s: cpu %d's %s span %v does not strictly hold its child's %v", name, c, d.Name, d.Span, child)
			}
			var all []int
			for _, g := range d.Groups {
				all = append(all, g...)
			}
			slices.Sort(all)
			// A NUMA level's groups overlap where the distances are not
			// a hierarchy (SDTL_OVERLAP: each the child span of a CPU
			// of another node, which may reach past this span); every
			// other level's partition its span.
			if numa := d.Has(SDNUMA); numa && !subset(d.Span, slices.Compact(all)) || !numa && !slices.Equal(all, d.Span) {
				t.Errorf("%s: cpu %d's %s groups %v do not partition (NUMA: cover) its span %v", name, c, d.Name, d.Groups, d.Span)
			}
			if _, ok := slices.BinarySearch(d.Groups[0], c); !ok {
				t.Errorf("%s: cpu %d's %s first group %v is not the local one", name, c, d.Name, d.Groups[0])
			}
			w := int64(d.Weight())
			if d.Balance != (Balance{Interval: w, MinInterval: w, MaxInterval: 2 * w}) {
				t.Errorf("%s: cpu %d's %s balance %+v, want sd_init's for weight %d", name, c, d.Name, d.Balance, w)
			}
			if d.Has(SDNUMA) != d.Has(SDSerialize) {
				t.Errorf("%s: cpu %d's %s flags %v: SD_SERIALIZE on exactly the NUMA levels", name, c, d.Name, d.Flags)
			}
			child = d.Span
		}
	}
}

func TestTopologyDomains(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		cpu  int
		want string
	}{
		// 2 sockets of 2 cores × 2 threads, an L3 a socket, SLIT 10/20.
		{"../../affinity/testdata/qemu-skx-2s", 5,
			"SMT:2:WAKE_AFFINE|SHARE_CPUCAPACITY|SHARE_LLC groups=2 MC:4:WAKE_AFFINE|SHARE_LLC groups=2 NUMA:8:WAKE_AFFINE|SERIALIZE groups=2"},
		// 4 packages × 2 nodes of 8 CPUs, an L3 a node, compute-unit
		// pairs as siblings; SLIT 10/16/22, not fully connected: NUMA
		// levels at 16 (5 nodes' CPUs from node 0) and 22 (all). PKG
		// drops out (two nodes a package), NODE is the MC span.
		{"../../affinity/testdata/sysfs/64amd64-4s2n4ca2co", 0,
			"SMT:2:WAKE_AFFINE|SHARE_CPUCAPACITY|SHARE_LLC groups=2 MC:8:WAKE_AFFINE|SHARE_LLC groups=4 " +
				"NUMA:40:WAKE_AFFINE|SERIALIZE groups=5 NUMA:64:WAKE_AFFINE|SERIALIZE groups=3"},
		// The other real trees: only what holds on every machine is
		// checked (want ""), and the levels are logged.
		{"../../affinity/testdata/sysfs/16amd64-8n2c", 0, ""},
		{"../../affinity/testdata/sysfs/fakecpuid1f-64intel64-2p4d2n2c2t", 0, ""},
		{"../../affinity/testdata/sysfs/arm64-neoverse-n1-8cpu", 0, ""},
		{"../../affinity/testdata/sysfs/nonuma-4cpu", 0, ""},
	} {
		topo, err := affinity.Load(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		m, err := FromTopology(topo)
		if err != nil {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		ds, err := m.Build()
		if err != nil {
			t.Fatalf("%s: Build: %v", tc.dir, err)
		}
		if got := levels(ds, tc.cpu); tc.want != "" && got != tc.want {
			t.Errorf("%s: cpu %d's domains\n got %s\nwant %s", tc.dir, tc.cpu, got, tc.want)
		} else {
			t.Logf("%s: cpu %d: %s", tc.dir, tc.cpu, got)
		}
		checkDomains(t, tc.dir, ds)
	}
}

func TestGridErrors(t *testing.T) {
	for _, g := range []Grid{{CPUs: 0}, {CPUs: 12, SMT: 4, LLC: 6}, {CPUs: 12, Socket: 6, Node: 4}, {CPUs: 16, Node: 6, Socket: 8}, {CPUs: 8, SMT: -1}} {
		if _, err := g.Machine(); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Grid%+v.Machine() = %v, want a one-line error", g, err)
		}
	}
	if _, err := (Machine{CPUs: []Place{{Node: 2}}, Distance: [][]int{{10}}}).Build(); err == nil {
		t.Errorf("Build of a cpu outside the distance table: nil error")
	}
}

func TestFlagsString(t *testing.T) {
	if got := (SDSerialize | SDNUMA | SDWakeAffine).String(); got != "WAKE_AFFINE|SERIALIZE|NUMA" {
		t.Errorf("String() = %q", got)
	}
	if SDSharePkgResources != SDShareLLC {
		t.Errorf("SD_SHARE_PKG_RESOURCES is SD_SHARE_LLC's old name")
	}
}

// should_we_balance() by hand on a core of two threads beside another:
// CPUs 0-1 and 2-3, an MC domain over all four grouped by core.
func TestShouldWeBalance(t *testing.T) {
	m, _ := Grid{CPUs: 4, SMT: 2}.Machine()
	ds, err := m.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		idle    []int
		k       Kernel
		cpu     int
		level   int
		balance bool
	}{
		{nil, Mainline, 0, 1, true},          // none idle: the group's first
		{nil, Mainline, 1, 1, false},         // ... and no other
		{[]int{1}, Mainline, 1, 1, true},     // CPU 1 idle, its core busy: the idle SMT, none better
		{[]int{1}, Linux510, 1, 1, true},     // 5.10: the first idle CPU
		{[]int{1}, Mainline, 0, 0, true},     // the SMT level: each CPU is its own group
		{[]int{1}, Mainline, 1, 0, true},     // ... which balances it
		{[]int{2, 3}, Mainline, 0, 1, true},  // MC: the local group is the core; 0-1 busy: 0
		{[]int{2, 3}, Mainline, 3, 1, false}, // 2-3 an idle core: its first idle CPU, 2
		{[]int{2, 3}, Mainline, 2, 0, true},  // an SMT domain is CPU 2's
	} {
		idle := func(c int) bool { return slices.Contains(tc.idle, c) }
		if got := ds.ShouldWeBalance(tc.k, tc.cpu, tc.level, idle); got != tc.balance {
			t.Errorf("Kernel %s: idle %v, cpu %d level %d (%s): ShouldWeBalance = %v, want %v",
				tc.k.Name, tc.idle, tc.cpu, tc.level, ds.CPU[tc.cpu][tc.level].Name, got, tc.balance)
		}
	}
	// Two nodes of 8 CPUs in cores of 2: the NUMA level's local group is
	// the node. CPU 3 idle on a busy core, CPUs 4-5 an idle core: node 0
	// balances on 4 in mainline, on 3 before; node 1, all busy, on 8.
	m, _ = Grid{CPUs: 16, SMT: 2, Node: 8}.Machine()
	ds, _ = m.Build()
	idle := func(c int) bool { return c == 3 || c == 4 || c == 5 }
	for _, tc := range []struct {
		k    Kernel
		want []int
	}{{Mainline, []int{4, 8}}, {Linux510, []int{3, 8}}, {Linux413, []int{3, 8}}} {
		var got []int
		for c := range 16 {
			if ds.ShouldWeBalance(tc.k, c, 2, idle) {
				got = append(got, c)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Kernel %s: CPUs that balance %s = %v, want %v", tc.k.Name, ds.CPU[0][2].Name, got, tc.want)
		}
	}
}
