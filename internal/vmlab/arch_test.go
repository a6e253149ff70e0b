package vmlab

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/internal/vmlab/topology"
)

// TestArm64Guest checks what an arm64 guest is booted with and that the
// oracle reads its real sysfs tree (the fixture from a virt -cpu max guest)
// as the declaration says: no LLC group, two sockets, two nodes.
func TestArm64Guest(t *testing.T) {
	g, err := Lookup("virt-arm64")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	args := strings.Join(g.QEMUArgs(), " ")
	if !strings.HasPrefix(args, "-M virt") || !strings.Contains(args, "-smp 4,sockets=2,cores=2,threads=1") {
		t.Errorf("QEMU args %q", args)
	}
	if c := g.Cmdline(); !strings.Contains(c, "console=ttyAMA0") || strings.Contains(c, "ttyS0") {
		t.Errorf("cmdline %q: want the PL011 console", c)
	}
	init := InitScript(g, nil)
	for _, want := range []string{"insmod /lib/modules/virtio_mmio.ko\ninsmod /lib/modules/virtio_console.ko\n", "exec 3>/dev/hvc0"} {
		if !strings.Contains(init, want) {
			t.Errorf("/init lacks %q", want)
		}
	}
	if strings.Contains(init, "ttyS1") || strings.Index(init, "insmod") < strings.Index(init, "mount -t devtmpfs") {
		t.Error("/init uses ttyS1, or loads modules before /dev is mounted")
	}
	if a := strings.Join(topology.Arches["arm64"].DataArgs("d.log"), " "); !strings.Contains(a, "virtconsole") {
		t.Errorf("arm64 data channel %q", a)
	}
	if skx, _ := Lookup("skx-2s"); strings.Contains(InitScript(skx, nil), "insmod") || !slices.Contains(skx.QEMUArgs(), "Skylake-Server") || skx.QEMUArgs()[0] != "-cpu" {
		t.Error("an x86 guest's /init or QEMU args changed")
	}
	bad, err := topology.CheckTree(g, "../../affinity/testdata/sysfs/arm64-virt-max-2n4cpu")
	if err != nil || len(bad) > 0 {
		t.Errorf("the arm64 guest's tree against the oracle: %v %v", err, bad)
	}
	// The same tree with an LLC per socket wanted must fail.
	withLLC := g
	withLLC.Arch = "amd64"
	if bad, _ := topology.CheckTree(withLLC, "../../affinity/testdata/sysfs/arm64-virt-max-2n4cpu"); len(bad) == 0 {
		t.Error("an oracle wanting one LLC per socket accepted a tree with none")
	}
	g.Arch = "sparc"
	if g.Validate() == nil {
		t.Error("an unknown arch was accepted")
	}
}

func TestArm64StepChecks(t *testing.T) {
	g, _ := Lookup("virt-arm64")
	skx, _ := Lookup("skx-2s")
	const ok = "  pinning verified: 1580 on-cpu checks during the run (rseq cpu_id), none off-cpu\n"
	tests := []struct {
		name  string
		check func(Topology, *Transcript) []string
		topo  Topology
		out   Output
		want  string
	}{
		{"pinning rseq", pinningCheck, g, Output{Name: "pinning", Data: []byte(ok)}, ""},
		{"pinning getcpu", pinningCheck, g, Output{Name: "pinning", Data: []byte(strings.Replace(ok, "rseq cpu_id", "getcpu", 1))}, "want rseq cpu_id"},
		{"pinning tscaux on x86", pinningCheck, skx, Output{Name: "pinning", Data: []byte(strings.Replace(ok, "rseq cpu_id", "RDTSCP TSC_AUX", 1))}, ""},
		{"pinning getcpu on x86", pinningCheck, skx, Output{Name: "pinning", Data: []byte(strings.Replace(ok, "rseq cpu_id", "getcpu", 1))}, "without a system call"},
		{"pinning no checks", pinningCheck, g, Output{Name: "pinning", Data: []byte(strings.Replace(ok, "1580", "0", 1))}, "no 'pinning verified"},
		{"pinning failed", pinningCheck, g, Output{Name: "pinning", RC: 1, Data: []byte("contend: worker 0: found on cpu 1, pinned to cpu 0\n")}, "exit status 1"},
		{"gc ok", gcCheck, g, Output{Name: "gc", Data: []byte(strings.Repeat("--- PASS: TestGCMidBarrier (0.30s)\n", 3) + "PASS\n")}, ""},
		{"gc hung", gcCheck, g, Output{Name: "gc", RC: 124, Data: []byte("=== RUN   TestGCMidBarrier\n")}, "exit status 124"},
		{"gc once", gcCheck, g, Output{Name: "gc", Data: []byte("--- PASS: TestGCMidBarrier (0.30s)\nPASS\n")}, "did not pass 3 times"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := strings.Join(tt.check(tt.topo, &Transcript{Outputs: []Output{tt.out}, Done: true}), "; ")
			if tt.want == "" && bad != "" || tt.want != "" && !strings.Contains(bad, tt.want) {
				t.Errorf("problems %q, want %q", bad, tt.want)
			}
		})
	}
}

// TestExtract builds a small .deb with dpkg-deb and takes a kernel image
// and named files out of it, as the lab does from Debian's packages; a
// file the package lacks is an error.
func TestExtract(t *testing.T) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("no dpkg-deb")
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "pkg")
	for name, data := range map[string]string{
		"DEBIAN/control":                        "Package: k\nVersion: 1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n",
		"boot/vmlinuz-6.1.0-1-arm64":            "kernel",
		"lib/modules/6.1.0-1-arm64/kernel/a.ko": "module a",
		"bin/busybox":                           "busybox",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deb := filepath.Join(dir, "k.deb")
	if out, err := exec.Command("dpkg-deb", "--root-owner-group", "--build", root, deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb --build: %v: %s", err, out)
	}
	img := filepath.Join(dir, "img")
	if err := extractKernel(deb, img); err != nil {
		t.Fatal(err)
	}
	mod, bb := filepath.Join(dir, "a.ko"), filepath.Join(dir, "bb")
	if err := extractFiles(deb, map[string]string{"./lib/modules/6.1.0-1-arm64/kernel/a.ko": mod, "./bin/busybox": bb}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{img: "kernel", mod: "module a", bb: "busybox"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q, want %q", filepath.Base(p), got, want)
		}
	}
	if err := extractFiles(deb, map[string]string{"./bin/busybox": bb, "./lib/missing.ko": mod}); err == nil || !strings.Contains(err.Error(), "1 of the 2") {
		t.Errorf("a missing file: %v", err)
	}
}
