package resultfmt_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// The floors below the command: the scenarios and their runner, the data
// structures, the bitmaps, the topology and pinning.
var lowerFloors = []string{
	"github.com/contend/contend/bench/...",
	"github.com/contend/contend/counter/...",
	"github.com/contend/contend/nodemask/...",
	"github.com/contend/contend/affinity/...",
}

// upper says whether a package sits above the lower floors: the command and
// the libraries under internal/ (results, sweep, report, reproduce) that
// build on what the floors write.
func upper(pkg string) bool {
	return strings.HasPrefix(pkg, "github.com/contend/contend/internal/") ||
		strings.HasPrefix(pkg, "github.com/contend/contend/cmd/")
}

// TestNoUpwardImports keeps the arrow pointing down: nothing under bench/,
// counter/, nodemask/ or affinity/ imports, even indirectly, a package
// under internal/ or cmd/ — which is why this package exists, holding the
// results writers the runner and c2c need. Tests may use the fixtures in
// internal/fixture, and nothing else from above.
func TestNoUpwardImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list packages with")
	}
	// Every package the floors' code builds, with its own imports, so an
	// upward import is named at the package that makes it.
	out, err := exec.Command("go", append([]string{"list", "-deps",
		"-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, lowerFloors...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr(err))
	}
	checked := 0
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "github.com/contend/contend/") {
			continue
		}
		checked++
		for _, imp := range f[1:] {
			if upper(imp) && !upper(f[0]) {
				t.Errorf("%s imports %s: the lower floors must not import internal/ or cmd/", f[0], imp)
			}
		}
		if upper(f[0]) {
			t.Errorf("%s is built into the lower floors' code", f[0])
		}
	}
	if checked < 10 {
		t.Fatalf("go list named %d of contend's packages; the floors have more", checked)
	}

	out, err = exec.Command("go", append([]string{"list",
		"-f", "{{.ImportPath}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}"}, lowerFloors...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr(err))
	}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		f := strings.Fields(sc.Text())
		for _, imp := range f[1:] {
			if upper(imp) && imp != "github.com/contend/contend/internal/fixture" {
				t.Errorf("%s's tests import %s: tests of the lower floors may use internal/fixture only", f[0], imp)
			}
		}
	}
}

func stderr(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}
