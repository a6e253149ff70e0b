package figure

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestSiblingOfReport keeps figure and report siblings: each reads results
// files through internal/results, and neither imports the other, even
// indirectly, so that a helper both need goes down into results (as
// results.OneLine did) rather than making the arrows point both ways.
func TestSiblingOfReport(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list packages with")
	}
	const mod = "github.com/contend/contend/internal/"
	for _, tc := range []struct{ pkg, sibling string }{
		{mod + "figure", mod + "report"},
		{mod + "report", mod + "figure"},
	} {
		out, err := exec.Command("go", "list", "-deps", tc.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", tc.pkg, err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, mod+"results") {
			t.Errorf("%s does not build on internal/results; the check below would prove nothing", tc.pkg)
		}
		if slices.Contains(deps, tc.sibling) {
			t.Errorf("%s imports %s: the pictures and the tables are siblings; move what both need into internal/results", tc.pkg, tc.sibling)
		}
	}
}
