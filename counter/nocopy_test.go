package counter

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoCopy runs `go vet` over testdata/copylocks, which copies each type
// that embeds noCopy, and expects a report for every copy. It fails if a
// type loses its noCopy or noCopy stops looking like a lock to vet.
func TestNoCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet; skipped in -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	out, err := exec.Command(gobin, "vet", "-copylocks", "./testdata/copylocks").CombinedOutput()
	if err == nil {
		t.Fatalf("go vet -copylocks found nothing to report in testdata/copylocks:\n%s", out)
	}
	for _, typ := range []string{"Atomic", "FalseShare", "PerNode", "PerCPU", "CfsRq"} {
		if !strings.Contains(string(out), "counter."+typ+" contains") {
			t.Errorf("go vet did not report the copy of counter.%s:\n%s", typ, out)
		}
	}
}
