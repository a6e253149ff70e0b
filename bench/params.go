package bench

import (
	"fmt"
	"strconv"
	"strings"
)

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
	n, err := strconv.Atoi(v)
	if err != nil || strconv.Itoa(n) != v { // "+5", "05": one spelling per value
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
