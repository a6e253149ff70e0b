package affinity

import (
	"os"
	"path/filepath"
	"testing"
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
