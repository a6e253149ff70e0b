package results

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A results file cut mid-line (a full disk, a killed tee) still parses: the
// half line may read as a sample of another unit or a wrong figure. It is
// left out, and a warning names the file and line; whole files warn of
// nothing.
func TestCutLastLine(t *testing.T) {
	whole := "goos: linux\n\nBenchmarkX/threads=1-2\t10\t5 ns/op\t3 cas/op\nBenchmarkX/threads=1-2\t10\t6 ns/op\t3 cas/op\n"
	for _, tc := range []struct {
		name, text string
		results    int
		warnLine   int // 0: no warning
	}{
		{"whole", whole, 2, 0},
		{"trailing blanks", whole + "  \n\n ", 2, 0},
		{"cut in a unit", whole + "BenchmarkX/threads=1-2\t10\t7 ns/op\t3 cas/o", 2, 5},
		{"cut in a figure", whole + "BenchmarkX/threads=1-2\t10\t12", 2, 5},
		{"cut in a config line", whole + "kernel: 6.1", 2, 5},
		{"cut rounds line", whole + "# rounds: X/threads=1-2 rounds=6 ci=1% tar", 2, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := Parse(strings.NewReader(tc.text), "cut.txt")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(rs.Results) != tc.results {
				t.Errorf("%d results, want %d", len(rs.Results), tc.results)
			}
			switch {
			case tc.warnLine == 0 && len(rs.Warnings) > 0:
				t.Errorf("warnings %q, want none", rs.Warnings)
			case tc.warnLine > 0:
				want := "cut.txt:" + strconv.Itoa(tc.warnLine) + ": "
				if len(rs.Warnings) != 1 || !strings.HasPrefix(rs.Warnings[0], want) || strings.Contains(rs.Warnings[0], "\n") {
					t.Errorf("warnings %q, want one line starting %q", rs.Warnings, want)
				}
			}
		})
	}
	// A cut file on its own: no results left is the usual error.
	if _, err := Parse(strings.NewReader("BenchmarkX-2\t10\t5 ns/o"), "cut.txt"); err == nil || !strings.Contains(err.Error(), "no benchmark results") {
		t.Errorf("a file of one cut line: %v, want no benchmark results", err)
	}
	// Read names the path.
	p := filepath.Join(t.TempDir(), "sweep.txt")
	if err := os.WriteFile(p, []byte(whole+"BenchmarkX/threads=1-2\t10\t1"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := Read([]string{p})
	if err != nil || len(rs.Warnings) != 1 || !strings.HasPrefix(rs.Warnings[0], p+":5: ") {
		t.Errorf("Read: %v, warnings %q; want one naming %s:5", err, rs.Warnings, p)
	}
}
