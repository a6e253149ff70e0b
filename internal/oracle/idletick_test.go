package oracle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contend/contend/bench/ksim"
)

// TestIdleTick holds where the idle loop's rule comes from: the driver
// first, then the kernel's text (the sites file), then the count's own
// reading, each case as a file would have it.
func TestIdleTick(t *testing.T) {
	dir := t.TempDir()
	write := func(release, form string) {
		if err := os.WriteFile(filepath.Join(dir, "sites-"+release+".txt"), []byte("  form: "+form+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("6.1.0-57-amd64", idleFormAfterTick+" (f4c31b07b136)")
	write("6.16.12+deb13-amd64", idleFormStop)
	for _, tc := range []struct {
		release, driver, counted string
		want                     ksim.IdleTickRule
	}{
		{"6.1.0-57-amd64", "intel_idle", "after-tick", ksim.IdleTickGovernor},
		{"6.1.0-57-amd64", "", "", ksim.IdleTickGovernor},
		{"6.1.0-57-amd64", "none", "stop", ksim.IdleTickAfterTick}, // the text wins
		{"6.16.12+deb13-amd64", "none", "", ksim.IdleTickStop},
		{"7.0.13+deb13-amd64", "none", "after-tick", ksim.IdleTickAfterTick},
		{"7.0.13+deb13-amd64", "none", "stop", ksim.IdleTickStop},
		{"7.0.13+deb13-amd64", "none", "", ksim.IdleTickStop},
	} {
		got, from := idleTick(dir, tc.release, tc.driver, tc.counted)
		if got != tc.want || from == "" {
			t.Errorf("idleTick(%s, driver %q, counted %q) = %v (from %q), want %v", tc.release, tc.driver, tc.counted, got, from, tc.want)
		}
	}
}
