package kernel

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/contend/contend/internal/kernel/machine"
)

// showDomains turns debugfs's sched/verbose on where it is off, and its
// undo turns it off again; where it is on already, or missing, it changes
// nothing and says so.
func TestShowDomains(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "sys/kernel/debug/sched/verbose")
	u := machine.NewUndo(io.Discard)
	if err := showDomains(u, root); err == nil {
		t.Fatal("showDomains without sched/verbose succeeded")
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if err := os.WriteFile(p, []byte("N\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := showDomains(u, root); err != nil || read() != "Y" || u.Len() != 1 {
		t.Fatalf("showDomains: %v, verbose %q, %d undo steps; want Y and one step", err, read(), u.Len())
	}
	if err := u.Run(); err != nil || read() != "N" {
		t.Errorf("undo: %v, verbose %q; want N", err, read())
	}
	if err := os.WriteFile(p, []byte("Y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := showDomains(machine.NewUndo(io.Discard), root); err == nil {
		t.Error("showDomains with verbose already on succeeded (nothing to show: the domains were not read for another reason)")
	}
}
