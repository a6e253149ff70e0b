package machine

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCPUTimes(t *testing.T) {
	root := t.TempDir()
	write := func(s string) {
		if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "proc/stat"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cpu  100 0 50 800 50 0 0 0 7 0\ncpu0 1 2 3\n")
	a, err := ReadCPUTimes(root)
	if err != nil || a != (CPUTimes{1000, 850}) {
		t.Fatalf("ReadCPUTimes = %+v, %v; want {1000 850}", a, err)
	}
	write("cpu  300 0 100 1500 100 0 0 0 7 0\n")
	b, _ := ReadCPUTimes(root)
	if got := BusyPct(a, b); got != 25 {
		t.Errorf("BusyPct = %v, want 25 (250 of 1000 jiffies busy)", got)
	}
	if BusyPct(b, a) != -1 {
		t.Error("BusyPct with no time passed is not -1")
	}
	write("intr 1 2\n")
	if _, err := ReadCPUTimes(root); err == nil {
		t.Error("a /proc/stat without the cpu line read")
	}
}
