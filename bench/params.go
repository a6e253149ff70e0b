package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Params is a parsed variant: a canonical value for each of a scenario's
// keys, in their declared order.
type Params struct {
	scenario string
	keys     []Key
	vals     []string // vals[i] is keys[i]'s canonical value
}

// ParseParams parses a variant "k1=v1/k2=v2" of scenario with its declared
// keys: each part must name a key once and give a value in its domain, which
// is kept in its canonical spelling; keys not given take their defaults.
// Errors are one line starting with the scenario and naming the part, the
// key or the value and what is valid.
func ParseParams(scenario, variant string, keys []Key) (*Params, error) {
	p := &Params{scenario: scenario, keys: keys, vals: make([]string, len(keys))}
	for i, k := range keys {
		p.vals[i] = k.Default
	}
	if variant == "" {
		return p, nil
	}
	seen := make([]bool, len(keys))
	for _, part := range strings.Split(variant, "/") {
		name, v, ok := strings.Cut(part, "=")
		if !ok || name == "" || v == "" {
			return nil, fmt.Errorf("%s: malformed variant part %q in %q (want key=value joined by /)", scenario, part, variant)
		}
		i := p.index(name)
		if i < 0 {
			return nil, fmt.Errorf("%s: unknown variant key %q (want %s)", scenario, name, strings.Join(p.names(), ", "))
		}
		if seen[i] {
			return nil, fmt.Errorf("%s: variant key %q given twice in %q", scenario, name, variant)
		}
		seen[i] = true
		c, err := keys[i].Domain.Canon(name, v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", scenario, err)
		}
		p.vals[i] = c
	}
	return p, nil
}

func (p *Params) index(name string) int {
	return slices.IndexFunc(p.keys, func(k Key) bool { return k.Name == name })
}

func (p *Params) names() []string {
	names := make([]string, len(p.keys))
	for i, k := range p.keys {
		names[i] = k.Name
	}
	return names
}

// at returns key's position, panicking on a key the scenario did not
// declare: that is a typo in the constructor, found by its first test.
func (p *Params) at(key string) int {
	i := p.index(key)
	if i < 0 {
		panic(fmt.Sprintf("bench: %s has no variant key %q (keys: %s)", p.scenario, key, strings.Join(p.names(), ", ")))
	}
	return i
}

// Get returns key's canonical value; "" for a key with no default that was
// not given and not yet Set.
func (p *Params) Get(key string) string { return p.vals[p.at(key)] }

// Index returns the position of key's value in its OneOf list, so that a
// constructor can map the value onto its own enumeration. It panics when
// the key is not a OneOf or has no value.
func (p *Params) Index(key string) int {
	i := p.at(key)
	c, ok := p.keys[i].Domain.(choice)
	if !ok {
		panic(fmt.Sprintf("bench: %s variant key %s is not a OneOf", p.scenario, key))
	}
	n := slices.Index(c, p.vals[i])
	if n < 0 {
		panic(fmt.Sprintf("bench: %s variant key %s has no value", p.scenario, key))
	}
	return n
}

// Int returns key's value as an integer: an IntRange key's, or a OneOf's
// whose values are numbers (hz=1000|250). It panics on a value that is not
// one, which the key's domain makes a constructor's typo.
func (p *Params) Int(key string) int {
	n, err := strconv.Atoi(p.Get(key))
	if err != nil {
		panic(fmt.Sprintf("bench: %s variant key %s=%q is not an integer", p.scenario, key, p.Get(key)))
	}
	return n
}

// Duration returns a DurationRange key's value.
func (p *Params) Duration(key string) time.Duration {
	d, err := time.ParseDuration(p.Get(key))
	if err != nil {
		panic(fmt.Sprintf("bench: %s variant key %s=%q is not a duration", p.scenario, key, p.Get(key)))
	}
	return d
}

// Set sets key to v, checked and spelt by its domain: for a constructor
// whose rules across keys decide a value, such as a preset's parts, so that
// the canonical name carries what the run does however it was spelt.
func (p *Params) Set(key, v string) error {
	i := p.at(key)
	c, err := p.keys[i].Domain.Canon(key, v)
	if err != nil {
		return fmt.Errorf("%s: %w", p.scenario, err)
	}
	p.vals[i] = c
	return nil
}

// String returns the canonical variant: every key in declared order, each
// with its canonical value, except an OmitDefault key at its default. It is
// the variant's benchmark name.
func (p *Params) String() string {
	parts := make([]string, 0, len(p.keys))
	for i, k := range p.keys {
		if k.OmitDefault && p.vals[i] == k.Default {
			continue
		}
		parts = append(parts, k.Name+"="+p.vals[i])
	}
	return strings.Join(parts, "/")
}
