package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/contend/contend/internal/fixture"
	"github.com/contend/contend/internal/report"
)

// sysfs is a fixture machine's sysfs tree, named relative to this package
// so that what the outputs print of it is the same in every checkout.
func sysfs(name string) string {
	return filepath.Join("..", "..", "affinity", "testdata", "sysfs", name)
}

// TestGoldenOutputs holds the printed forms that moved out of the command
// (#31 §6: flags and wiring here, the ideas in their packages) to the
// bytes they had before the move: usage texts, topologies read from sysfs
// fixtures, the pairs c2c would measure, a sweep's plan, and the summary a
// sweep leads with, of a stored quick sweep. The compare and table goldens
// are TestCompareGolden's and TestTableGolden's.
func TestGoldenOutputs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"usage", []string{"help"}},
		{"help-run", []string{"help", "run"}},
		{"help-list", []string{"help", "list"}},
		{"help-sweep", []string{"help", "sweep"}},
		{"help-c2c", []string{"help", "c2c"}},
		{"help-plot", []string{"help", "plot"}},
		{"help-table", []string{"help", "table"}},
		{"help-compare", []string{"help", "compare"}},
		{"help-topo", []string{"help", "topo"}},
		{"topo-16amd64-8n2c", []string{"topo", "-sysfs", sysfs("16amd64-8n2c")}},
		{"topo-64amd64-4s2n4ca2co", []string{"topo", "-sysfs", sysfs("64amd64-4s2n4ca2co")}},
		{"topo-arm64-virt-max-2n4cpu-json", []string{"topo", "-json", "-sysfs", sysfs("arm64-virt-max-2n4cpu")}},
		{"topo-16amd64-8n2c-fake2", []string{"topo", "-fake-nodes", "2", "-sysfs", sysfs("16amd64-8n2c")}},
		{"c2c-list-64amd64", []string{"c2c", "-list", "-pairs", "sample", "-sysfs", sysfs("64amd64-4s2n4ca2co")}},
		{"c2c-list-16amd64-json", []string{"c2c", "-list", "-json", "-sysfs", sysfs("16amd64-8n2c")}},
		{"sweep-plan-quick", []string{"sweep", "-plan", "-scenarios", "atomicadd", "-sysfs", sysfs("64amd64-4s2n4ca2co")}},
		{"sweep-plan-full-budget", []string{"sweep", "-plan", "-full", "-scenarios", "atomicadd", "-budget", "2m", "-sysfs", sysfs("64amd64-4s2n4ca2co")}},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args) })
	}
	t.Run("summary-quick", func(t *testing.T) {
		var b bytes.Buffer
		if err := report.SummarizeFile(&b, "../../internal/report/testdata/sweep-quick-stored.txt"); err != nil {
			t.Fatal(err)
		}
		goldenFile(t, filepath.Join("testdata", "summary-quick.stdout"), b.Bytes())
	})
}

// TestPlotGolden: the SVG contend plot writes of a fixed results file, a
// core-to-core matrix and a stored quick sweep, byte for byte.
func TestPlotGolden(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"plot-new", res("new.txt")},
		{"plot-c2c", res("c2c.txt")},
		{"plot-quick-sweep", "../../internal/figure/testdata/quick-sweep.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "p.svg")
			if _, _, err := runContend("plot", "-o", out, tc.in); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			goldenFile(t, filepath.Join("testdata", tc.name+".svg"), got)
		})
	}
}

// goldenFile checks got against the file path, which go test -update
// rewrites.
func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	fixture.Golden(t, path, got, *update)
}
