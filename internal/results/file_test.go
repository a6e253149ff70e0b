package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// result is one benchmark-format result named name (without "Benchmark").
func result(name string, ns float64) *benchfmt.Result {
	return &benchfmt.Result{
		Config: []benchfmt.Config{{Key: "goos", Value: []byte("linux"), File: true}},
		Name:   benchfmt.Name(name), Iters: 1000,
		Values: []benchfmt.Value{{Value: ns, Unit: "ns/op"}, {Value: 2, Unit: "cas/op"}},
	}
}

// names reads path and returns its results' names, in file order.
func names(t *testing.T, path string) []string {
	t.Helper()
	rs, err := Read([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, r := range rs.Results {
		ns = append(ns, r.Name.String())
	}
	return ns
}

// A sweep's results go to FILE.partial, durable after each Write, and
// replace FILE only on Commit.
func TestFileCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	// A directory that does not exist is refused (a mistyped -o), in one
	// line naming it; Open used to make it.
	if _, err := Open(filepath.Join(t.TempDir(), "sub", "out.txt"), false); err == nil || !strings.Contains(err.Error(), "sub does not exist") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Open in a missing directory: %v, want it refused", err)
	}
	rf, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := rf.Write(result("X/a", 10), result("X/b", 20)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(t, rf.Partial()), " "); got != "X/a X/b" {
		t.Errorf("partial file before Commit holds %q, want X/a X/b", got)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists before Commit: %v", path, err)
	}
	if rf.Len() != 2 || rf.Done("X/a") != 1 || rf.Done("X/c") != 0 {
		t.Errorf("Len %d, Done(X/a) %d, Done(X/c) %d; want 2, 1, 0", rf.Len(), rf.Done("X/a"), rf.Done("X/c"))
	}
	if err := rf.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(t, path), " "); got != "X/a X/b" {
		t.Errorf("committed file holds %q, want X/a X/b", got)
	}
	if _, err := os.Stat(rf.Partial()); !os.IsNotExist(err) {
		t.Errorf("partial file left after Commit: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("committed file: %v, %v; want mode 0644", fi.Mode(), err)
	}
}

// Resuming keeps the whole lines an earlier sweep left, in FILE.partial or
// else in FILE, and drops a torn last line even where it parses.
func TestFileResume(t *testing.T) {
	const kept = "goos: linux\n\nUnit cas/op better=lower\nBenchmarkX/a 1000 10 ns/op 2 cas/op\nBenchmarkX/a 1000 11 ns/op 2 cas/op\nBenchmarkX/b 1000 20 ns/op 2 cas/op\n"
	for _, tc := range []struct {
		name          string
		partial, file string // "" for none
		want          string // the results' names after resuming and one more Write
		err           string
	}{
		{name: "partial", partial: kept, want: "X/a X/a X/b X/c"},
		// A crash after ns/op: the line parses, but has lost cas/op.
		{name: "torn line", partial: kept + "BenchmarkX/b 1000 21 ns/op", want: "X/a X/a X/b X/c"},
		{name: "torn unit", partial: kept + "BenchmarkX/b 1000 21 ns/op 2 cas/", want: "X/a X/a X/b X/c"},
		{name: "partial over file", partial: kept, file: "BenchmarkX/z 1 1 ns/op\n", want: "X/a X/a X/b X/c"},
		{name: "file", file: kept, want: "X/a X/a X/b X/c"},
		{name: "nothing", want: "X/c"},
		{name: "bad line", partial: "BenchmarkX/a 1000 10 ns/op\nBenchmarkX/a ten 10 ns/op\nBenchmarkX/b 1000 20 ns/op\n",
			err: "out.txt.partial:2: parsing iteration count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.txt")
			for p, data := range map[string]string{path + ".partial": tc.partial, path: tc.file} {
				if data != "" {
					if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			rf, err := Open(path, true)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "cannot resume: ") || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Open = %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(tc.want)
			if rf.Len() != len(want)-1 || rf.Done("X/a") != strings.Count(tc.want, "X/a") || rf.Done("X/b") != strings.Count(tc.want, "X/b") {
				t.Errorf("kept Len %d, Done(X/a) %d, Done(X/b) %d; want %d, %d, %d", rf.Len(), rf.Done("X/a"), rf.Done("X/b"),
					len(want)-1, strings.Count(tc.want, "X/a"), strings.Count(tc.want, "X/b"))
			}
			if err := rf.Write(result("X/c", 30)); err != nil {
				t.Fatal(err)
			}
			if err := rf.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(names(t, path), " "); got != tc.want {
				t.Errorf("after resuming: %q, want %q", got, tc.want)
			}
			rs, err := Read([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs.Results {
				if _, ok := r.Value("cas/op"); !ok {
					_, line := r.Pos()
					t.Errorf("%s:%d: a torn result (no cas/op) was kept", path, line)
				}
			}
		})
	}
}

// Without -resume an interrupted sweep's partial file is never overwritten;
// Abandon leaves the partial file for -resume.
func TestFileRefusesPartial(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	rf, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := rf.Write(result("X/a", 10)); err != nil {
		t.Fatal(err)
	}
	if err := rf.Abandon(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, false); err == nil || !strings.Contains(err.Error(), "pass -resume") {
		t.Errorf("Open over a partial file without resume = %v, want an error suggesting -resume", err)
	}
	if got := strings.Join(names(t, path+".partial"), " "); got != "X/a" {
		t.Errorf("partial file holds %q after a refused Open, want X/a", got)
	}
}
