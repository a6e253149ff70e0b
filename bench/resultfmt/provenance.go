package resultfmt

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
)

// Provenance returns the configuration lines that make two results files
// comparable: what machine (the brand, and CPUID's family, model and
// stepping, which tell generations apart where a guest's brand says only
// "AMD EPYC"), which kernel, how many nodes and whether they were real, the
// cache line, the governor, the Go toolchain and contend's own commit. go
// test -bench output prints the same keys (bench/benchtest's Main), so files
// from both compare with benchstat.
func Provenance(t *affinity.Topology) []benchfmt.Config {
	m := t.Machine
	kv := [][2]string{
		{"goos", runtime.GOOS},
		{"goarch", runtime.GOARCH},
		// Byte for byte what go test prints on its own cpu: line.
		{"cpu", cmp.Or(m.GoCPU, m.Brand)},
		{"cpu_family", cpuidNumber(m, m.Family)},
		{"cpu_model", cpuidNumber(m, m.Model)},
		{"cpu_stepping", cpuidNumber(m, m.Stepping)},
	}
	// arm64's identity, MIDR_EL1's fields (none on x86, so x86 files keep
	// their keys), and how this binary does atomics there.
	kv = append(kv, m.CoreConfig()...)
	kv = append(kv, atomicsConfig()...)
	kv = append(kv, [][2]string{
		{"kernel", t.Kernel},
		{"nodes", fmt.Sprint(len(t.Nodes))},
		{"nr_node_ids", fmt.Sprint(t.NrNodeIDs)},
		{"topology", t.Label()},
		{"cpus", strings.ReplaceAll(t.AllowedCPUs.String(), "-", "..")},
		{"cacheline", fmt.Sprint(t.CacheLine())},
		{"governor", governors(t)},
		{"hypervisor", hypervisor(t)},
		{"go", runtime.Version()},
		{"contend", Version()},
	}...)
	cfg := make([]benchfmt.Config, 0, len(kv))
	for _, p := range kv {
		if p[1] == "" {
			p[1] = "unknown"
		}
		cfg = append(cfg, benchfmt.Config{Key: p[0], Value: []byte(p[1]), File: true})
	}
	return cfg
}

// cpuidNumber is a CPUID family, model or stepping in decimal, as
// /proc/cpuinfo prints it; "" (unknown) for a machine CPUID did not
// describe (a topology read from a sysfs tree, a non-x86 CPU).
func cpuidNumber(m affinity.Machine, n int) string {
	if m.Vendor == "" || m.Family == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// FileConfig is the configuration of the results a contend command writes:
// Provenance, the command line that made them (args, as os.Args; none when
// args is empty) and the date. Each record of a scenario adds its package with WithPackage.
func FileConfig(t *affinity.Topology, args []string) []benchfmt.Config {
	cfg := Provenance(t)
	if len(args) > 0 {
		cfg = append(cfg, commandLine(args))
	}
	return append(cfg, benchfmt.Config{Key: "date", Value: []byte(date()), File: true})
}

// commandLine is the "command" configuration line: the command that made a
// results file, quoted so that a shell runs it again, with the program
// named by its base name (go run's binary lives in a temporary directory).
func commandLine(args []string) benchfmt.Config {
	words := make([]string, len(args))
	for i, a := range args {
		if i == 0 {
			a = filepath.Base(a)
		}
		words[i] = shellQuote(a)
	}
	return benchfmt.Config{Key: "command", Value: []byte(strings.Join(words, " ")), File: true}
}

// shellQuote quotes s for a POSIX shell when it needs quoting: single
// quotes, or $'...' for control characters (which a configuration line,
// one line of text, could not hold as they are).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r))
	}) < 0 {
		return s
	}
	if strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		q := strconv.Quote(s) // "..." with Go escapes: \n, \t, \x00, \"
		q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
		return "$'" + strings.ReplaceAll(q, "'", `\'`) + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WithPackage returns a copy of cfg with the "pkg" line naming the import
// path pkg (a scenario's bench.Spec.Package), placed after goarch as go test
// places it. go test -bench output names the package of its benchmarks on
// that line, and plain benchstat's default tables split on every
// configuration key: without it, a sweep's results and go test's of the
// same scenario would land in separate tables. An empty pkg removes the line.
func WithPackage(cfg []benchfmt.Config, pkg string) []benchfmt.Config {
	out := make([]benchfmt.Config, 0, len(cfg)+1)
	line := benchfmt.Config{Key: "pkg", Value: []byte(pkg), File: true}
	placed := pkg == ""
	for _, c := range cfg {
		if c.Key == "pkg" {
			continue
		}
		out = append(out, c)
		if c.Key == "goarch" && !placed {
			out, placed = append(out, line), true
		}
	}
	if !placed {
		out = append(out, line)
	}
	return out
}

func governors(t *affinity.Topology) string {
	seen := map[string]bool{}
	for _, c := range t.CPUs {
		if c.Online && c.Governor != "" {
			seen[c.Governor] = true
		}
	}
	var gs []string
	for g := range seen {
		gs = append(gs, g)
	}
	sort.Strings(gs)
	if len(gs) == 0 {
		return "none"
	}
	return strings.Join(gs, ",")
}

func hypervisor(t *affinity.Topology) string {
	if !t.Machine.HypervisorKnown() {
		return "unknown" // no CPUID bit to say none (arm64, a sysfs tree)
	}
	if !t.Machine.Hypervisor {
		return "none"
	}
	if t.Machine.HypervisorVendor != "" {
		return t.Machine.HypervisorVendor
	}
	return "yes"
}

var version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		return rev + dirty
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	module := cmp.Or(info.Main.Path, contendModule)
	// The source tree this file was compiled from, when the build kept
	// its path (no -trimpath), is the code; the working directory is
	// only a guess at it.
	var dirs []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dirs = append(dirs, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	for _, dir := range dirs {
		if v := gitVersion(dir, module); v != "devel" {
			return v
		}
	}
	return "devel"
})

// contendModule is the main module's path when the build info has none.
const contendModule = "github.com/contend/contend"

// gitVersion asks git for the commit of the repository holding dir, for
// builds that carry no VCS stamp (go run, go test, -buildvcs=false): results
// must still say which code made them, and for go run and go test the tree
// is the code. The "-tree" suffix marks the value as read at run time.
//
// Only a repository whose module is module is believed: a contend binary
// run from inside a kernel tree must not record the kernel's commit as its
// own. The module is read from the go.mod nearest dir, no higher than the
// repository's top level. "devel" when git cannot tell or the repository
// is someone else's.
func gitVersion(dir, module string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	git := func(args ...string) ([]byte, error) {
		return exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return "devel"
	}
	if got := moduleOf(dir, strings.TrimSpace(string(top))); got != module {
		return "devel"
	}
	out, err := git("rev-parse", "--short=12", "HEAD")
	if err != nil {
		return "devel"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := git("status", "--porcelain", "--untracked-files=no"); err == nil && len(st) > 0 {
		rev += "+dirty"
	}
	// Say where the commit came from: the tree may have moved on since the
	// binary was built.
	return rev + "-tree"
}

// moduleOf returns the module path declared by the go.mod nearest dir,
// looking no higher than top; "" when there is none.
func moduleOf(dir, top string) string {
	dir, top = filepath.Clean(dir), filepath.Clean(top)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	if t, err := filepath.EvalSymlinks(top); err == nil {
		top = t
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			return modulePath(data)
		}
		parent := filepath.Dir(dir)
		if dir == top || parent == dir || !strings.HasPrefix(dir, top) {
			return ""
		}
		dir = parent
	}
}

// modulePath returns the path on go.mod's module line ("module x" or
// "module \"x\""), "" when there is none.
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`")
		}
	}
	return ""
}

// Version returns contend's version: the VCS commit it was built from when
// the build recorded one.
func Version() string { return version() }

// date is the date line value: when the results were made.
func date() string { return time.Now().UTC().Format(time.RFC3339) }
