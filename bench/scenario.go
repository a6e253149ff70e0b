package bench

import (
	"fmt"
	"sort"
	"strings"
)

// A Spec describes a scenario to the command line, sweeps and benchmarks.
type Spec struct {
	// Name is the scenario's name on the command line ("loadavg").
	Name string
	// BenchName is the name after "Benchmark" in results: the name of the
	// go test benchmark function that runs the same scenario ("LoadAvg"),
	// so that sweep files and go test files compare.
	BenchName string
	// Summary is a one-line description.
	Summary string
	// Keys documents the variant keys and their values, one line each.
	Keys []string
	// Quick lists the variants a quick sweep runs.
	Quick []string
	// Full lists the variants a full sweep runs (the seeds' experiments).
	Full []string
	// Units maps each custom unit the scenario reports to "lower" or
	// "higher": which way is better.
	Units map[string]string
	// MinWorkers is the smallest sensible worker count (1 unless the
	// scenario needs partners, like a ping-pong).
	MinWorkers int
	// New builds a scenario from a variant: key=value parts joined by "/".
	// Missing keys take their defaults; unknown keys and values are errors
	// that list what is valid.
	New func(variant string) (Scenario, error)
}

var registry = map[string]*Spec{}

// Register adds a scenario. It is called from init functions; registering a
// name twice is a programming error.
func Register(s *Spec) {
	if _, dup := registry[s.Name]; dup {
		panic("bench: scenario registered twice: " + s.Name)
	}
	if s.MinWorkers == 0 {
		s.MinWorkers = 1
	}
	registry[s.Name] = s
}

// Lookup returns the scenario called name.
func Lookup(name string) (*Spec, error) {
	if s, ok := registry[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("unknown scenario %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// Names returns the registered scenario names in order.
func Names() []string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Params holds a parsed variant.
type Params struct {
	scenario string
	vals     map[string]string
	order    []string
}

// ParseParams parses a variant "k1=v1/k2=v2" for scenario, allowing only the
// keys in defaults and filling missing ones from it. defaults is a list of
// key=value pairs in canonical order.
func ParseParams(scenario, variant string, defaults ...string) (*Params, error) {
	p := &Params{scenario: scenario, vals: map[string]string{}}
	for _, d := range defaults {
		k, v, _ := strings.Cut(d, "=")
		p.vals[k] = v
		p.order = append(p.order, k)
	}
	if variant == "" {
		return p, nil
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(variant, "/") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%s: malformed variant part %q in %q (want key=value joined by /)", scenario, part, variant)
		}
		if _, known := p.vals[k]; !known {
			return nil, fmt.Errorf("%s: unknown variant key %q (want %s)", scenario, k, strings.Join(p.order, ", "))
		}
		if seen[k] {
			return nil, fmt.Errorf("%s: variant key %q given twice in %q", scenario, k, variant)
		}
		seen[k] = true
		p.vals[k] = v
	}
	return p, nil
}

// Get returns the value of key.
func (p *Params) Get(key string) string { return p.vals[key] }

// Choice returns the value of key, which must be one of valid.
func (p *Params) Choice(key string, valid ...string) (string, error) {
	v := p.vals[key]
	for _, ok := range valid {
		if v == ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("%s: unknown %s %q (want %s)", p.scenario, key, v, strings.Join(valid, ", "))
}

// Int returns the value of key as an integer in [lo, hi].
func (p *Params) Int(key string, lo, hi int) (int, error) {
	v := p.vals[key]
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || fmt.Sprint(n) != v {
		return 0, fmt.Errorf("%s: %s=%q is not an integer", p.scenario, key, v)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%s: %s=%d out of range [%d, %d]", p.scenario, key, n, lo, hi)
	}
	return n, nil
}

// String returns the canonical variant, every key in order.
func (p *Params) String() string {
	parts := make([]string, len(p.order))
	for i, k := range p.order {
		parts[i] = k + "=" + p.vals[k]
	}
	return strings.Join(parts, "/")
}
