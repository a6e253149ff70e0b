package resultfmt

import (
	"runtime"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
)

func TestAtomicsKind(t *testing.T) {
	for _, tt := range []struct {
		level string
		lse   bool
		want  string
	}{
		{"v8.0", false, "llsc"},
		{"v8.0", true, "lse"}, // the run-time check finds LSE
		{"v8.0,lse", false, "lse"},
		{"v8.0,crypto", false, "llsc"},
		{"v8.1", false, "lse"},
		{"v8.9,crypto", false, "lse"},
		{"v9.0", false, "lse"},
		{"v9.5,lse,crypto", false, "lse"},
		{"bogus", false, "llsc"},
	} {
		if got := atomicsKind(tt.level, tt.lse); got != tt.want {
			t.Errorf("atomicsKind(%q, lse %v) = %q, want %q", tt.level, tt.lse, got, tt.want)
		}
	}
}

// TestProvenanceArm64 reads the real arm64 guest's tree: MIDR_EL1's fields
// follow cpu_stepping, the hypervisor is QEMU (its device tree says so),
// and a tree with no firmware facts and no CPUID says unknown, not none.
func TestProvenanceArm64(t *testing.T) {
	keys := func(tree string) (string, map[string]string) {
		topo, err := affinity.Load("../../affinity/testdata/sysfs/" + tree)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		kv := map[string]string{}
		for _, c := range Provenance(topo) {
			order = append(order, c.Key)
			kv[c.Key] = string(c.Value)
		}
		return strings.Join(order, " "), kv
	}
	order, kv := keys("arm64-virt-max-2n4cpu")
	if !strings.Contains(order, "cpu_stepping cpu_implementer cpu_part cpu_variant cpu_revision") {
		t.Errorf("keys %s: want MIDR_EL1's after cpu_stepping", order)
	}
	if kv["cpu_implementer"] != "0x00" || kv["cpu_part"] != "0x051" || kv["hypervisor"] != "QEMU" {
		t.Errorf("arm64 guest: implementer %s, part %s, hypervisor %s", kv["cpu_implementer"], kv["cpu_part"], kv["hypervisor"])
	}
	_, kv = keys("nonuma-4cpu")
	if kv["hypervisor"] != "unknown" {
		t.Errorf("a tree without CPUID or firmware: hypervisor %q, want unknown", kv["hypervisor"])
	}
	if _, ok := kv["cpu_implementer"]; ok {
		t.Error("cpu_implementer on a tree without MIDR_EL1")
	}
	_, onArm := kv["goarm64"]
	if onArm != (runtime.GOARCH == "arm64") || (runtime.GOARCH == "arm64" && kv["atomics"] == "") {
		t.Errorf("goarm64 %q atomics %q on %s", kv["goarm64"], kv["atomics"], runtime.GOARCH)
	}
}
