package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/internal/kernel"
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

// TestGuestMachine: the balanceflag machine comes from the guest's own
// domains where the count has them (a one-node guest of two LLCs is two
// groups under a top level with no flag), else from its nodes.
func TestGuestMachine(t *testing.T) {
	for _, tc := range []struct {
		nodes      int
		domains    string
		sockets    int
		serialized bool
	}{
		{1, "MC:4 DIE:8", 2, false},
		{2, "MC:2 NUMA:4+serialize", 2, true},
		{2, "SMT:2 MC:4 NUMA:8+serialize", 2, true},
		{1, "MC:8", 1, false},
		{2, "", 2, true},
		{1, "", 1, true}, // older files: the scenario's serialized level
	} {
		kc := CountResult{CPUs: 8, Nodes: tc.nodes}
		if tc.domains != "" {
			var err error
			if kc.Domains, err = kernel.ParseDomains(tc.domains); err != nil {
				t.Fatal(err)
			}
		}
		if s, ser := guestMachine(kc); s != tc.sockets || ser != tc.serialized {
			t.Errorf("nodes %d, domains %q: %d sockets, serialized %v; want %d, %v", tc.nodes, tc.domains, s, ser, tc.sockets, tc.serialized)
		}
	}
}

// TestLabGuestsHaveNoDriver holds countDriver's premise: every committed
// count made in the lab's TCG guests that records the cpuidle driver
// records none, and a count with neither line keeps the governor.
func TestLabGuestsHaveNoDriver(t *testing.T) {
	files, err := filepath.Glob("testdata/count-*.txt")
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if !strings.Contains(text, "\nhypervisor: TCG") {
			continue
		}
		for _, line := range strings.Split(text, "\n") {
			if d, ok := strings.CutPrefix(line, "cpuidle-driver: "); ok {
				recorded++
				if d != "none" {
					t.Errorf("%s: a TCG guest with cpuidle-driver %q", f, d)
				}
			}
		}
	}
	if recorded < 10 {
		t.Errorf("%d TCG counts record the driver, want the lab's many", recorded)
	}
	if d, from := countDriver("", "TCGTCGTCGTCG"); d != "none" || from == "" {
		t.Errorf("countDriver(an older TCG count) = %q, %q", d, from)
	}
	if d, from := countDriver("", "KVMKVMKVM"); d != "" || from != "" {
		t.Errorf("countDriver(an older KVM count) = %q, %q", d, from)
	}
	if d, _ := countDriver("intel_idle", "TCGTCGTCGTCG"); d != "intel_idle" {
		t.Errorf("countDriver keeps the count's own line: %q", d)
	}
}
