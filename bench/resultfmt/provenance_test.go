package resultfmt

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
	"golang.org/x/perf/benchfmt"
)

// gitRepo makes a git repository in a new directory with one commit of
// files, skipping the test when git is missing.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "x"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dir
}

// TestGitVersionTrustsOnlyContend: a binary without a VCS stamp run inside
// someone else's repository (a kernel tree) must not take that
// repository's commit for its own.
func TestGitVersionTrustsOnlyContend(t *testing.T) {
	const module = "github.com/contend/contend"
	tree := regexp.MustCompile(`^[0-9a-f]{12}-tree$`)
	t.Run("kernel tree", func(t *testing.T) {
		dir := gitRepo(t, map[string]string{"Makefile": "VERSION = 6\n", "kernel/sched/fair.c": "int x;\n"})
		for _, d := range []string{dir, filepath.Join(dir, "kernel", "sched")} {
			if got := gitVersion(d, module); got != "devel" {
				t.Errorf("gitVersion(%s) = %q, want devel: the repository is not contend's", d, got)
			}
		}
	})
	t.Run("another module", func(t *testing.T) {
		dir := gitRepo(t, map[string]string{"go.mod": "module example.com/other\n\ngo 1.22\n"})
		if got := gitVersion(dir, module); got != "devel" {
			t.Errorf("gitVersion = %q, want devel: go.mod names example.com/other", got)
		}
	})
	t.Run("contend", func(t *testing.T) {
		dir := gitRepo(t, map[string]string{"go.mod": "module github.com/contend/contend // the module\n", "internal/results/x.go": "package results\n"})
		for _, d := range []string{dir, filepath.Join(dir, "internal", "results")} {
			if got := gitVersion(d, module); !tree.MatchString(got) {
				t.Errorf("gitVersion(%s) = %q, want the commit with -tree", d, got)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "internal", "results", "x.go"), []byte("package results // edited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := gitVersion(dir, module); !strings.HasSuffix(got, "+dirty-tree") {
			t.Errorf("gitVersion of an edited tree = %q, want +dirty-tree", got)
		}
	})
	t.Run("contend vendored in a larger repository", func(t *testing.T) {
		dir := gitRepo(t, map[string]string{"README": "monorepo\n", "tools/contend/go.mod": "module \"github.com/contend/contend\"\n"})
		if got := gitVersion(filepath.Join(dir, "tools", "contend"), module); !tree.MatchString(got) {
			t.Errorf("gitVersion(tools/contend) = %q, want the commit: its go.mod is contend's", got)
		}
		if got := gitVersion(dir, module); got != "devel" {
			t.Errorf("gitVersion(repository root) = %q, want devel: no go.mod there", got)
		}
	})
	t.Run("no repository", func(t *testing.T) {
		if got := gitVersion(t.TempDir(), module); got != "devel" {
			t.Errorf("gitVersion outside any repository = %q, want devel", got)
		}
	})
}

func TestModulePath(t *testing.T) {
	for _, tc := range []struct{ gomod, want string }{
		{"module github.com/contend/contend\n\ngo 1.26\n", "github.com/contend/contend"},
		{"// comment\nmodule \"example.com/x\" // trailing\n", "example.com/x"},
		{"go 1.22\n", ""},
		{"modules x\n", ""},
	} {
		if got := modulePath([]byte(tc.gomod)); got != tc.want {
			t.Errorf("modulePath(%q) = %q, want %q", tc.gomod, got, tc.want)
		}
	}
}

func configMap(cfg []benchfmt.Config) map[string]string {
	m := map[string]string{}
	for _, c := range cfg {
		m[c.Key] = string(c.Value)
	}
	return m
}

func TestProvenanceCPUID(t *testing.T) {
	topo, err := affinity.Load(filepath.Join("..", "..", "affinity", "testdata", "sysfs", "sparse-nodes"))
	if err != nil {
		t.Fatal(err)
	}
	// A tree read from sysfs has no CPUID facts: say so, never 0.
	m := configMap(Provenance(topo))
	for _, k := range []string{"cpu", "cpu_family", "cpu_model", "cpu_stepping"} {
		if m[k] != "unknown" {
			t.Errorf("%s: %q, want unknown for a topology without CPUID", k, m[k])
		}
	}
	topo.Machine = affinity.Machine{Vendor: "AuthenticAMD", Brand: "AMD EPYC 9B14 96-Core Processor",
		GoCPU: "AMD EPYC 9B14 96-Core Processor        ", Family: 25, Model: 17, Stepping: 1}
	m = configMap(Provenance(topo))
	want := map[string]string{"cpu": "AMD EPYC 9B14 96-Core Processor        ", "cpu_family": "25", "cpu_model": "17", "cpu_stepping": "1"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s: %q, want %q", k, m[k], v)
		}
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"/tmp/go-build123/b001/exe/contend", "sweep", "-quick", "-o", "/tmp/q.txt"}, "contend sweep -quick -o /tmp/q.txt"},
		{[]string{"contend", "plot", "-filter", "/place:spread AND /threads:2", ""}, `contend plot -filter '/place:spread AND /threads:2' ''`},
		{[]string{"contend", "it's"}, `contend 'it'\''s'`},
		{[]string{"contend", "a\nb"}, `contend $'a\nb'`},
	} {
		c := commandLine(tc.args)
		if c.Key != "command" || string(c.Value) != tc.want || !c.File {
			t.Errorf("commandLine(%q) = %s: %s (file %v), want command: %s", tc.args, c.Key, c.Value, c.File, tc.want)
		}
	}
}

func TestWithPackage(t *testing.T) {
	cfg := []benchfmt.Config{{Key: "goos", Value: []byte("linux")}, {Key: "goarch", Value: []byte("amd64")}, {Key: "cpu", Value: []byte("x")}}
	got := WithPackage(cfg, "github.com/contend/contend/bench/loadavg")
	var keys []string
	for _, c := range got {
		keys = append(keys, c.Key)
	}
	if strings.Join(keys, " ") != "goos goarch pkg cpu" || string(got[2].Value) != "github.com/contend/contend/bench/loadavg" {
		t.Errorf("WithPackage = %v, want pkg after goarch, as go test prints it", got)
	}
	again := WithPackage(got, "github.com/contend/contend/bench/nodemask")
	if len(again) != 4 || string(again[2].Value) != "github.com/contend/contend/bench/nodemask" {
		t.Errorf("WithPackage over a pkg line = %v, want it replaced", again)
	}
	if len(cfg) != 3 {
		t.Errorf("WithPackage changed its argument")
	}
	if none := WithPackage(got, ""); len(none) != 3 || none[2].Key != "cpu" {
		t.Errorf("WithPackage(\"\") = %v, want the pkg line removed", none)
	}
}

func TestFileConfig(t *testing.T) {
	topo, err := affinity.Load(filepath.Join("..", "..", "affinity", "testdata", "sysfs", "sparse-nodes"))
	if err != nil {
		t.Fatal(err)
	}
	m := configMap(FileConfig(topo, []string{"/usr/local/bin/contend", "sweep", "-quick"}))
	if m["command"] != "contend sweep -quick" || m["date"] == "" || m["topology"] != "real" {
		t.Errorf("FileConfig = %v, want provenance, the command and the date", m)
	}
	if _, ok := configMap(FileConfig(topo, nil))["command"]; ok {
		t.Errorf("FileConfig without args has a command line")
	}
}
