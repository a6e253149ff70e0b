package vmlab

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/internal/vmlab/topology"
)

var update = flag.Bool("update", false, "rewrite testdata/guests.golden from the declarations")

// TestGuestsGolden renders what the lab hands QEMU and the guest for every
// topology declared in internal/vmlab/topology (Matrix, Big, Arm64): the emulator, the kernel
// command line, the data channel and machine arguments, the oracle (Want)
// and the /init its steps make. The golden holds them byte for byte, so a
// refactoring of the declarations, the oracle or the steps that changes
// what a guest is booted with or must show fails here, without a boot.
// Kernels are kernellab's (its own tests hold them).
func TestGuestsGolden(t *testing.T) {
	var b strings.Builder
	for _, topo := range slices.Concat(topology.Matrix, topology.Big, topology.Arm64) {
		fmt.Fprintf(&b, "=== %s\n", topo.Name)
		fmt.Fprintf(&b, "qemu: %s\n", topo.Architecture().QEMU)
		fmt.Fprintf(&b, "append: %s\n", topo.Cmdline())
		fmt.Fprintf(&b, "data: %q\n", topo.Architecture().DataArgs("data.log"))
		fmt.Fprintf(&b, "machine: %q\n", topo.QEMUArgs())
		fmt.Fprintf(&b, "want: %+v\n", topo.Want())
		var body []string
		for _, n := range topo.Steps {
			s, err := LookupStep(n)
			if err != nil {
				t.Fatalf("topology %s: %v", topo.Name, err)
			}
			body = append(body, s.Script(topo))
		}
		fmt.Fprintf(&b, "--- /init\n%s", InitScript(topo, body))
	}
	golden := filepath.Join("testdata", "guests.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestGuestsGolden -update writes it)", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s line %d:\n got %s\nwant %s\n(go test -run TestGuestsGolden -update rewrites it, if the change is meant)", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d lines rendered, %d in the golden", golden, len(gl), len(wl))
	}
}
