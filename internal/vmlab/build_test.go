package vmlab

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIsVmlinuz: the kernel's path in Debian's packages, before and after
// 6.19 moved it into linux-binary-V.
func TestIsVmlinuz(t *testing.T) {
	for name, want := range map[string]bool{
		"./boot/vmlinuz-6.18.15+deb13-amd64":                 true,
		"./usr/lib/modules/7.3.4+deb13-amd64/vmlinuz":        true,
		"./boot/System.map-6.18.15+deb13-amd64":              false,
		"./usr/lib/modules/7.3.4+deb13-amd64/kernel/vmlinuz": false,
		"./usr/share/doc/vmlinuz":                            false,
	} {
		if got := isVmlinuz(name); got != want {
			t.Errorf("isVmlinuz(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestKeep: a guest's outputs land under Keep/<topology>-<release>/.
func TestKeep(t *testing.T) {
	l := &Lab{Keep: t.TempDir(), Host: Host{Out: t.TempDir()}}
	// A boot that crashed before this one left its console.
	os.MkdirAll(filepath.Join(l.Out, "oracle-2n"), 0o755)
	os.WriteFile(filepath.Join(l.Out, "oracle-2n", "console.1.log"), []byte("Oops: int3\n"), 0o644)
	os.WriteFile(filepath.Join(l.Out, "oracle-2n", "console.log"), []byte("the last boot's\n"), 0o644)
	tr := &Transcript{Outputs: []Output{
		{Name: "kernel-release", Data: []byte("7.3.4+deb13-amd64\n")},
		{Name: "kernel-count.results", Data: []byte("BenchmarkKernelCount/x 1 1 tx/s\n")},
	}}
	stale := filepath.Join(l.Keep, "oracle-2n-7.3.4+deb13-amd64", "kernel-sites")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, []byte("an earlier guest's\n"), 0o644)
	dir, err := l.keep(Topology{Name: "oracle-2n"}, tr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("an earlier guest's output is still kept beside this one's")
	}
	if filepath.Base(dir) != "oracle-2n-7.3.4+deb13-amd64" {
		t.Errorf("kept in %s", dir)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "kernel-count.results")); err != nil || string(b) != "BenchmarkKernelCount/x 1 1 tx/s\n" {
		t.Errorf("kernel-count.results: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "console.1.log")); err != nil || string(b) != "Oops: int3\n" {
		t.Errorf("the crashed boot's console: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "console.log")); err == nil {
		t.Error("the last boot's console kept too: only crashed boots' are")
	}
}
