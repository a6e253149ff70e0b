package results

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestFileWriteErrorNamesResultsFile: a write that fails (a full disk) names
// the results file and the partial file that holds what was written, never
// the temporary name the partial file was created under, which no longer
// exists.
func TestFileWriteErrorNamesResultsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.txt")
	rf, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	tmpName := rf.f.Name()
	rf.f.Close()
	// A handle that cannot write stands in for a full disk.
	ro, err := os.Open(rf.partial)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rf.f = ro
	res := &benchfmt.Result{Name: benchfmt.Name("X/a=1"), Iters: 1, Values: []benchfmt.Value{{Value: 1, Unit: "ns/op"}}}
	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"Write", func() error { return rf.Write(res) }},
		{"Fail", func() error { return rf.Fail(Failure{Name: "X/a=1", Round: 1, Msg: "m"}) }},
	} {
		err := tc.do()
		if err == nil {
			t.Fatalf("%s on a read-only file: no error", tc.name)
		}
		msg := err.Error()
		if !strings.Contains(msg, path+" ") || !strings.Contains(msg, rf.partial) || strings.Contains(msg, tmpName) ||
			strings.Contains(msg, ".tmp") || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q, want one line naming %s and %s, not the temporary %s", tc.name, msg, path, rf.partial, tmpName)
		}
		if !strings.Contains(msg, syscall.EBADF.Error()) {
			t.Errorf("%s: %q lost the cause", tc.name, msg)
		}
	}
}
