package benchtest

import (
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

// SimFlags is the shape of a model package's SimFlags: it declares contend
// simulate NAME's flags on a flag set and returns what runs the simulation
// once the set has parsed a command line.
type SimFlags func(fs *flag.FlagSet) (run func(w io.Writer) error)

// Simulate parses args (flags only) as contend simulate parses them for a
// model whose package declares flags, runs it, and returns what it printed.
func Simulate(flags SimFlags, args ...string) (string, error) {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := flags(fs)
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	var out strings.Builder
	err := run(&out)
	return out.String(), err
}

// A BadArgs is a command line a simulation must refuse, and what its error
// must say.
type BadArgs struct {
	Args []string
	Want string
}

// CheckBadArgs runs each command line and checks that it fails with a
// one-line error containing its Want, having printed nothing.
func CheckBadArgs(t *testing.T, flags SimFlags, cases []BadArgs) {
	t.Helper()
	for _, tc := range cases {
		out, err := Simulate(flags, tc.Args...)
		if err == nil || !strings.Contains(err.Error(), tc.Want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("simulate %v: error = %v, want one line containing %q", tc.Args, err, tc.Want)
		}
		if out != "" {
			t.Errorf("simulate %v printed %q", tc.Args, out)
		}
	}
}

// CheckGolden compares got, a simulation's output, with the golden file
// path, or rewrites the file with it when update is set (the package's
// -update flag).
func CheckGolden(t *testing.T, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run Golden -update rewrites it):\n%s\nwant:\n%s", path, got, want)
	}
}
