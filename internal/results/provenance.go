package results

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
)

// Provenance returns the configuration lines that make two results files
// comparable: what machine, which kernel, how many nodes and whether they were
// real, the cache line, the governor, the Go toolchain and contend's own
// commit. go test -bench output prints the same keys (see TestMain in this
// package), so files from both compare with benchstat.
func Provenance(t *affinity.Topology) []benchfmt.Config {
	kv := [][2]string{
		{"goos", runtime.GOOS},
		{"goarch", runtime.GOARCH},
		{"cpu", t.Machine.Brand},
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
	}
	cfg := make([]benchfmt.Config, 0, len(kv))
	for _, p := range kv {
		if p[1] == "" {
			p[1] = "unknown"
		}
		cfg = append(cfg, benchfmt.Config{Key: p[0], Value: []byte(p[1]), File: true})
	}
	return cfg
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
	if rev == "" {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		return gitVersion()
	}
	return rev + dirty
})

// gitVersion asks git for the commit of the working directory, for builds
// that carry no VCS stamp (go run, go test, -buildvcs=false): results must
// still say which code made them, and for go run and go test the tree is the
// code. The "-tree" suffix marks the value as read at run time. "devel" when
// git cannot tell.
func gitVersion() string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "devel"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		rev += "+dirty"
	}
	// Say where the commit came from: the tree may have moved on since the
	// binary was built.
	return rev + "-tree"
}

// Version returns contend's version: the VCS commit it was built from when
// the build recorded one.
func Version() string { return version() }

// Date is the date line value: when the results were made.
func Date() string { return time.Now().UTC().Format(time.RFC3339) }
