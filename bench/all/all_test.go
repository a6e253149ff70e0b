package all_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contend/contend/bench"
	_ "github.com/contend/contend/bench/all"
	"github.com/contend/contend/bench/benchtest"
)

func TestMain(m *testing.M) { benchtest.Main(m) }

// Every registered scenario must name itself consistently: its preset
// variants are canonical (so a sweep file and go test output name one
// configuration the same way), and every metric a run reports has its
// direction declared for the Unit lines benchstat reads.
func TestEverySpec(t *testing.T) {
	topo, cpus := benchtest.HostCPUs(t, 2)
	for _, name := range bench.Names() {
		spec, _ := bench.Lookup(name)
		t.Run(name, func(t *testing.T) {
			if spec.BenchName == "" || spec.Summary == "" || len(spec.Keys) == 0 || len(spec.Quick) == 0 {
				t.Fatalf("spec %s lacks a benchmark name, summary, keys or quick variants", name)
			}
			for _, v := range slices.Concat(spec.Quick, spec.Full) {
				s, err := spec.New(v)
				if err != nil {
					t.Errorf("sweep variant %q: %v", v, err)
					continue
				}
				if strings.HasSuffix(s.Variant(), "-") || s.Variant() == "" {
					t.Errorf("variant %q has a bad canonical name %q", v, s.Variant())
				}
				again, err := spec.New(s.Variant())
				if err != nil || again.Variant() != s.Variant() {
					t.Errorf("canonical variant %q does not read back as itself: %v", s.Variant(), err)
				}
			}
			seen := map[string]bool{}
			for _, v := range slices.Concat(spec.Quick, spec.Full) {
				s := benchtest.New(t, name, v)
				// A paced variant takes its kernel time of wall time per
				// operation (a millisecond a tick): run fewer.
				ops := int64(2000)
				if strings.Contains(s.Variant(), "pace=on") || strings.Contains(s.Variant(), "pace=kernel") {
					ops = 100
				}
				res, err := bench.Run(s, bench.Config{Topology: topo, CPUs: cpus[:max(spec.MinWorkers, 2)], Ops: ops})
				if err != nil {
					t.Fatalf("%s %s: %v", name, v, err)
				}
				for _, m := range res.Metrics {
					seen[m.Unit.Name] = true
					if !slices.Contains(spec.Units, m.Unit) {
						t.Errorf("%s reports %s, which Spec.Units does not declare", v, m.Unit)
					}
				}
			}
			for _, u := range spec.Units {
				if u.Doc == "" {
					t.Errorf("unit %s has no Doc", u)
				}
				if !seen[u.Name] {
					t.Errorf("Spec.Units declares %s, which no preset variant reports", u)
				}
			}
		})
	}
}

// Every scenario's constructor parses with its declared keys: the canonical
// name of every default, Quick and Full variant names exactly Spec.Keys, in
// order, each value canonical in its key's domain, and a key left out of a
// variant takes its declared default (where the key has one and no preset
// overrides it: a constructor's rules across keys may change a value, as
// loadavg's preset=none names the preset it matches).
func TestSpecKeys(t *testing.T) {
	for _, spec := range bench.Specs() {
		for _, v := range slices.Concat([]string{""}, spec.Quick, spec.Full) {
			s, err := spec.New(v)
			if err != nil {
				t.Errorf("%s variant %q: %v", spec.Name, v, err)
				continue
			}
			parts := strings.Split(s.Variant(), "/")
			for _, k := range spec.Keys {
				var part string
				if len(parts) > 0 {
					part = parts[0]
				}
				name, val, _ := strings.Cut(part, "=")
				if name != k.Name {
					if !k.OmitDefault {
						t.Errorf("%s variant %q is named %q, which lacks key %s where Spec.Keys puts it", spec.Name, v, s.Variant(), k.Name)
					}
					continue
				}
				parts = parts[1:]
				if c, err := k.Domain.Canon(k.Name, val); err != nil || c != val {
					t.Errorf("%s variant %q: %s=%s is not canonical in its domain %s: %q, %v", spec.Name, s.Variant(), k.Name, val, k.Domain.Syntax(), c, err)
				}
				if k.OmitDefault && val == k.Default {
					t.Errorf("%s variant %q names %s=%s, an OmitDefault key at its default", spec.Name, s.Variant(), k.Name, val)
				}
			}
			if len(parts) > 0 {
				t.Errorf("%s variant %q is named %q: %v are not Spec.Keys, in order", spec.Name, v, s.Variant(), parts)
			}
		}
		// Each key alone at its default names the default variant.
		def, _ := spec.New("")
		for _, k := range spec.Keys {
			if k.Default == "" {
				continue
			}
			s, err := spec.New(k.Name + "=" + k.Default)
			if err != nil || s.Variant() != def.Variant() {
				t.Errorf("%s: %s=%s (its default) names %v, %v; want the default variant %q", spec.Name, k.Name, k.Default, variantOf(s), err, def.Variant())
			}
		}
	}
}

func variantOf(s bench.Scenario) string {
	if s == nil {
		return "nothing"
	}
	return s.Variant()
}

// Register records the package each scenario lives in, which is where go test
// finds its benchmarks and what the results files' pkg line says. The
// scenario packages are found on disk, not listed: every directory under
// bench/ whose code calls bench.Register is a scenario named after it, and
// must be registered here (a blank import in all.go), from that package.
func TestSpecPackages(t *testing.T) {
	dirs, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // scenario → package
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("..", d.Name(), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			if src, err := os.ReadFile(f); err == nil && strings.Contains(string(src), "bench.Register(") {
				want[d.Name()] = "github.com/contend/contend/bench/" + d.Name()
				break
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no scenario package found under bench/")
	}
	for name, pkg := range want {
		s, err := bench.Lookup(name)
		if err != nil {
			t.Errorf("bench/%s calls bench.Register but no scenario %s is registered: import it in all.go (or name the package after its scenario)", name, name)
			continue
		}
		if s.Package != pkg {
			t.Errorf("%s: Package = %q, want %q", name, s.Package, pkg)
		}
	}
	for _, s := range bench.Specs() {
		if _, ok := want[s.Name]; !ok {
			t.Errorf("%s: registered from %s, not from a bench/ package of its name", s.Name, s.Package)
		}
	}
}
