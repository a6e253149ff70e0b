package affinity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestOnlineIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "online")
	if err := os.WriteFile(path, []byte("0-2,4-6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cpu        int
		online, ok bool
	}{{0, true, true}, {3, false, true}, {6, true, true}, {7, false, true}} {
		if on, ok := onlineIn(path, tt.cpu); on != tt.online || ok != tt.ok {
			t.Errorf("cpu %d: online %v ok %v, want %v %v", tt.cpu, on, ok, tt.online, tt.ok)
		}
	}
	if _, ok := onlineIn(filepath.Join(t.TempDir(), "missing"), 0); ok {
		t.Error("a missing file read as ok")
	}
	os.WriteFile(path, []byte("garbage"), 0o644)
	if _, ok := onlineIn(path, 0); ok {
		t.Error("a malformed list read as ok")
	}
	if on, ok := OnlineNow(0); ok && !on {
		t.Error("this machine's cpu 0 reads offline")
	}
}

// A thread found off its cpu is told apart: unplugged (even when cpu/online
// catches up only after a few reads), or moved from outside.
func TestOffCPU(t *testing.T) {
	for _, tt := range []struct {
		name   string
		online func(reads int) (bool, bool)
		want   string
	}{
		{"unplugged", func(int) (bool, bool) { return false, true }, "cpu 7 went offline during the run (the kernel moved it to cpu 2)"},
		{"unplugged late", func(n int) (bool, bool) { return n < 3, true }, "cpu 7 went offline during the run"},
		{"still online", func(int) (bool, bool) { return true, true }, "found on cpu 2, pinned to cpu 7 (its affinity was changed from outside?)"},
		{"unreadable", func(int) (bool, bool) { return false, false }, "found on cpu 2, pinned to cpu 7"},
	} {
		reads := 0
		online := func(cpu int) (bool, bool) {
			if cpu != 7 {
				t.Errorf("%s: asked about cpu %d, want the pinned cpu 7", tt.name, cpu)
			}
			reads++
			return tt.online(reads)
		}
		if err := offCPU(7, 2, online, 5, 0); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: offCPU(7, 2) = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// A refused pin says whether the cpu is offline or outside the cpuset, from
// cpu/online; an unreadable cpu/online leaves both named.
func TestSetaffinityRefused(t *testing.T) {
	for _, tt := range []struct {
		name       string
		err        error
		online, ok bool
		want       string
	}{
		{"offline", unix.EINVAL, false, true, "cpu 7 is not online: invalid argument"},
		{"cpuset", unix.EINVAL, true, true, "cpu 7 is outside this process's cpuset: invalid argument"},
		{"unreadable", unix.EINVAL, false, false, "cpu 7 is offline or outside this process's cpuset: invalid argument"},
		{"other errno", unix.EPERM, true, true, "operation not permitted"},
	} {
		online := func(int) (bool, bool) { return tt.online, tt.ok }
		if got := setaffinityRefused(7, tt.err, online).Error(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
