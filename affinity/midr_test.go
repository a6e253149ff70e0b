package affinity

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

func TestMIDR(t *testing.T) {
	tests := []struct {
		midr                           MIDR
		impl, variant, arch, part, rev int
		name, str                      string
	}{
		{0x413fd0c1, 0x41, 3, 0xf, 0xd0c, 1, "Arm Neoverse N1", "0x413fd0c1"}, // Graviton2, Ampere Altra
		{0x411fd401, 0x41, 1, 0xf, 0xd40, 1, "Arm Neoverse V1", "0x411fd401"}, // Graviton3
		{0x410fd4f0, 0x41, 0, 0xf, 0xd4f, 0, "Arm Neoverse V2", "0x410fd4f0"}, // Grace, Graviton4
		{0x410fd490, 0x41, 0, 0xf, 0xd49, 0, "Arm Neoverse N2", "0x410fd490"},
		{0xc00fac30, 0xc0, 0, 0xf, 0xac3, 0, "Ampere AmpereOne", "0xc00fac30"},
		{0x6d0fd490, 0x6d, 0, 0xf, 0xd49, 0, "Microsoft Azure Cobalt 100 (Neoverse N2)", "0x6d0fd490"},
		{0x000f0510, 0x00, 0, 0xf, 0x051, 0, "QEMU TCG max", "0x000f0510"},
		{0x5a2f1234, 0x5a, 2, 0xf, 0x123, 4, "implementer 0x5a part 0x123", "0x5a2f1234"},
		{0x41afd0c1, 0x41, 0xa, 0xf, 0xd0c, 1, "Arm Neoverse N1", "0x41afd0c1"},
	}
	for _, tt := range tests {
		m := tt.midr
		if m.Implementer() != tt.impl || m.Variant() != tt.variant || m.Architecture() != tt.arch || m.Part() != tt.part || m.Revision() != tt.rev {
			t.Errorf("MIDR(%#x) = implementer %#x variant %d arch %#x part %#x revision %d; want %#x %d %#x %#x %d",
				uint64(m), m.Implementer(), m.Variant(), m.Architecture(), m.Part(), m.Revision(), tt.impl, tt.variant, tt.arch, tt.part, tt.rev)
		}
		if m.Name() != tt.name || m.String() != tt.str {
			t.Errorf("MIDR(%#x).Name(), String() = %q, %q; want %q, %q", uint64(m), m.Name(), m.String(), tt.name, tt.str)
		}
	}
}

func TestCoreConfig(t *testing.T) {
	got := fmt.Sprint(machineFromMIDR(0x413fd0c1).CoreConfig())
	if want := "[[cpu_implementer 0x41] [cpu_part 0xd0c] [cpu_variant 3] [cpu_revision 1]]"; got != want {
		t.Errorf("CoreConfig() = %s, want %s", got, want)
	}
	if got := (Machine{Vendor: "GenuineIntel", Family: 6}).CoreConfig(); got != nil {
		t.Errorf("x86 CoreConfig() = %v, want none (family, model, stepping say it)", got)
	}
	b, err := json.Marshal(machineFromMIDR(0x413fd0c1))
	if err != nil || !strings.Contains(string(b), `"midr":"0x413fd0c1"`) {
		t.Errorf("json = %s, %v; want the MIDR in hex", b, err)
	}
	if b, _ := json.Marshal(Machine{Vendor: "AuthenticAMD"}); strings.Contains(string(b), "midr") {
		t.Errorf("x86 json = %s, want no midr", b)
	}
}

// TestLoadArm64 reads the arm64 trees: the core named from midr_el1, the
// line from sysfs where a cache gives one, and LLC groups only from
// caches above L1; where sysfs lists only L1s, none, and String says so.
func TestLoadArm64(t *testing.T) {
	tests := []struct {
		tree       string
		edit       func(fstest.MapFS)
		brand      string
		llcs       string // each group's cpus
		line       int
		lineFrom   string
		llcText    string // in String
		cachesSeen string
	}{
		{tree: "arm64-virt-max-2n4cpu", brand: "QEMU TCG max", llcs: "",
			line: 64, lineFrom: assumedLine, cachesSeen: "L1d, L1i",
			llcText: "llc       no shared cache reported: sysfs lists only L1d, L1i per cpu"},
		{tree: "arm64-virt-max-2n4cpu", brand: "QEMU TCG max", llcs: "",
			edit: func(fsys fstest.MapFS) {
				for cpu := range 4 {
					fsys[fmt.Sprintf("sys/devices/system/cpu/cpu%d/cache/index0/coherency_line_size", cpu)] = &fstest.MapFile{Data: []byte("64\n")}
				}
			},
			line: 64, lineFrom: "sysfs coherency_line_size, L1d", cachesSeen: "L1d, L1i",
			llcText: "cacheline 64 B (sysfs coherency_line_size, L1d)"},
		{tree: "arm64-neoverse-n1-8cpu", brand: "Arm Neoverse N1", llcs: "0-7",
			line: 64, lineFrom: "sysfs coherency_line_size",
			llcText: "llc 0: L3 32 MiB, line 64 B, cpus 0-7"},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			topo := editedTree(t, tt.tree, tt.edit)
			if topo.Machine.Brand != tt.brand || topo.Machine.MIDR == 0 || topo.Machine.Family != 0 {
				t.Errorf("Machine = %+v, want %s named from midr_el1", topo.Machine, tt.brand)
			}
			var groups []string
			for _, g := range topo.LLCs {
				groups = append(groups, g.CPUs.String())
				if g.Level < 2 {
					t.Errorf("LLC group %+v is an L%d", g, g.Level)
				}
			}
			if strings.Join(groups, " ") != tt.llcs {
				t.Errorf("LLC groups %v, want %q", groups, tt.llcs)
			}
			for _, c := range topo.CPUs {
				if (c.LLC < 0) != (tt.llcs == "") {
					t.Errorf("cpu %d LLC %d", c.ID, c.LLC)
				}
			}
			if n, from := topo.cacheLine(); n != tt.line || from != tt.lineFrom {
				t.Errorf("cacheLine() = %d, %q; want %d, %q", n, from, tt.line, tt.lineFrom)
			}
			if topo.cachesSeen != tt.cachesSeen {
				t.Errorf("cachesSeen %q, want %q", topo.cachesSeen, tt.cachesSeen)
			}
			if s := topo.String(); !strings.Contains(s, tt.llcText) {
				t.Errorf("String() lacks %q:\n%s", tt.llcText, s)
			}
		})
	}
}

// TestEmulator: with no CPUID bit to ask, a QEMU guest is known by its
// firmware (the virt board's device tree, QEMU's SMBIOS vendor); anything
// else leaves the hypervisor unknown, not "none".
func TestEmulator(t *testing.T) {
	dmi := func(vendor string) func(fstest.MapFS) {
		return func(fsys fstest.MapFS) { fsys[dmiVendor] = &fstest.MapFile{Data: []byte(vendor + "\n")} }
	}
	tests := []struct {
		tree       string
		edit       func(fstest.MapFS)
		hypervisor bool
	}{
		{"arm64-virt-max-2n4cpu", nil, true}, // compatible "linux,dummy-virt"
		{"arm64-neoverse-n1-8cpu", nil, false},
		{"arm64-neoverse-n1-8cpu", dmi("QEMU"), true},
		{"arm64-neoverse-n1-8cpu", dmi("Amazon EC2"), false}, // a .metal instance says so too
	}
	for _, tt := range tests {
		m := editedTree(t, tt.tree, tt.edit).Machine
		if m.Hypervisor != tt.hypervisor || m.HypervisorKnown() != tt.hypervisor || tt.hypervisor && m.HypervisorVendor != "QEMU" {
			t.Errorf("%s: Hypervisor %v %q, HypervisorKnown %v; want %v", tt.tree, m.Hypervisor, m.HypervisorVendor, m.HypervisorKnown(), tt.hypervisor)
		}
	}
	if !(Machine{Vendor: "GenuineIntel"}).HypervisorKnown() {
		t.Error("an x86 Machine without the hypervisor bit: HypervisorKnown false, want true (CPUID says none)")
	}
}

// TestLoadArm64Mixed: a machine of two core types (big.LITTLE) is named by
// its first cpu's core, and a note names the others.
func TestLoadArm64Mixed(t *testing.T) {
	topo := editedTree(t, "arm64-neoverse-n1-8cpu", func(fsys fstest.MapFS) {
		for cpu := 4; cpu < 8; cpu++ {
			fsys[fmt.Sprintf("sys/devices/system/cpu/cpu%d/regs/identification/midr_el1", cpu)] = &fstest.MapFile{Data: []byte("0x00000000414fd0b1\n")}
		}
	})
	want := "sys/devices/system/cpu/cpu{4-7}/regs/identification/midr_el1: Arm Cortex-A76 (MIDR 0x414fd0b1), not cpu0's Arm Neoverse N1"
	if topo.Machine.Brand != "Arm Neoverse N1" || len(topo.Notes) != 1 || !strings.HasPrefix(topo.Notes[0], want) {
		t.Errorf("Machine %q, notes %q; want Neoverse N1 and a note starting %q", topo.Machine.Brand, topo.Notes, want)
	}
}

// FuzzLoadArm64 feeds arbitrary midr_el1 and L1 cache files to the arm64
// guest's tree: Load must return a one-line error or a topology that holds
// the invariants, and never make an L1 an LLC.
func FuzzLoadArm64(f *testing.F) {
	f.Add("0x00000000000f0510", "1", "Data", "64", "0")
	f.Add("0x00000000413fd0c1", "2", "Unified", "128", "0-3")
	f.Add("0xffffffffffffffff", "", "Instruction", "x", "9")
	f.Fuzz(func(t *testing.T, midr, level, typ, line, shared string) {
		fsys := mapTree(t, "arm64-virt-max-2n4cpu")
		put := func(name, data string) { fsys[name] = &fstest.MapFile{Data: []byte(data)} }
		const c1 = "sys/devices/system/cpu/cpu1/"
		put(c1+"regs/identification/midr_el1", midr)
		put(c1+"cache/index0/level", level)
		put(c1+"cache/index0/type", typ)
		put(c1+"cache/index0/coherency_line_size", line)
		put(c1+"cache/index0/shared_cpu_list", shared)
		topo := fuzzLoad(t, fsys)
		if topo == nil {
			return
		}
		for _, g := range topo.LLCs {
			if g.Level == 1 {
				t.Errorf("an L1 became an LLC: %+v", g)
			}
		}
		if n := topo.CacheLine(); !plausibleLine(n) {
			t.Errorf("CacheLine() = %d", n)
		}
	})
}
