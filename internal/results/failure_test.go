package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failed run is a comment line: every reader skips it, and a resumed file
// knows which configurations failed, until a later result of the same one.
func TestFileFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	rf, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	fail := Failure{Name: "X/b", Round: 2, Msg: "x: invariant broken\nworker 1: found on cpu 3"}
	if err := rf.Write(result("X/a", 10), result("X/b", 20)); err != nil {
		t.Fatal(err)
	}
	if err := rf.Fail(fail); err != nil {
		t.Fatal(err)
	}
	if err := rf.Fail(Failure{Name: "X/c", Round: 1, Msg: "c failed"}); err != nil {
		t.Fatal(err)
	}
	if err := rf.Write(result("X/c", 30)); err != nil { // X/c retried
		t.Fatal(err)
	}
	if _, ok := rf.Failed("X/c"); ok {
		t.Error("X/c: failed after a result written since")
	}
	if err := rf.Commit(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\n# failed: X/b round=2: x: invariant broken; worker 1: found on cpu 3\n"; !strings.Contains(string(b), want) {
		t.Errorf("file:\n%s\nwant the line %q", b, want)
	}
	// The readers skip the failure lines: exactly the three results.
	if got := strings.Join(names(t, path), " "); got != "X/a X/b X/c" {
		t.Errorf("Read: results %q, want X/a X/b X/c", got)
	}

	rf, err = Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Abandon()
	got, ok := rf.Failed("X/b")
	if want := (Failure{Name: "X/b", Round: 2, Msg: "x: invariant broken; worker 1: found on cpu 3"}); !ok || got != want {
		t.Errorf("resumed: Failed(X/b) = %+v, %v; want %+v, true", got, ok, want)
	}
	if f, ok := rf.Failed("X/c"); ok {
		t.Errorf("resumed: Failed(X/c) = %+v: a result follows its failure line", f)
	}
	if _, ok := rf.Failed("X/a"); ok || rf.Len() != 3 || rf.Done("X/b") != 1 {
		t.Errorf("resumed: Failed(X/a) %v, Len %d, Done(X/b) %d; want false, 3, 1", ok, rf.Len(), rf.Done("X/b"))
	}
}

func TestParseFailure(t *testing.T) {
	tests := []struct {
		line string
		want Failure
		ok   bool
	}{
		{"# failed: A/x=1/threads=2/place=compact-2 round=3: a: b: c", Failure{"A/x=1/threads=2/place=compact-2", 3, "a: b: c"}, true},
		{"# failed: A round=1: ", Failure{"A", 1, ""}, true},
		{"# failed: A round=0: m", Failure{}, false},
		{"# failed: A round=x: m", Failure{}, false},
		{"# failed: A B round=1: m", Failure{}, false},
		{"# failed:  round=1: m", Failure{}, false},
		{"# A round=1: m", Failure{}, false},
		{"failed: A round=1: m", Failure{}, false}, // a configuration line, not ours
	}
	for _, tt := range tests {
		if got, ok := parseFailure(tt.line); got != tt.want || ok != tt.ok {
			t.Errorf("parseFailure(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
	f := Failure{Name: "A/b", Round: 7, Msg: "one\r\ntwo"}
	if got, ok := parseFailure(strings.TrimSuffix(f.line(), "\n")); !ok || got != (Failure{"A/b", 7, "one; two"}) {
		t.Errorf("parseFailure(%q) = %+v, %v", f.line(), got, ok)
	}
}
