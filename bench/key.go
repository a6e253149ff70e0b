package bench

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contend/contend/benchname"
)

// A Key is one variant key of a scenario, declared once: its name, its
// default, what it means and the values it takes. A scenario's keys, in
// their canonical order, are its Spec.Keys and what its constructor parses
// with (ParseParams); from them come the parsing and validation of every
// value, the defaults, the canonical variant name that results are filed
// under, contend list's key lines and the README table's check. A
// constructor keeps only the rules that span keys.
//
// Register checks each key: a Default outside its Domain panics, so a typo
// in either fails every test of the scenario.
type Key struct {
	// Name is the key in variants ("work").
	Name string
	// Default is the value a variant that omits the key gets, in its
	// canonical spelling ("0"). Empty means none: the constructor derives
	// the value from other keys (loadavg's store, write, read and scan
	// come from its preset) and sets it with Params.Set.
	Default string
	// Doc says what the key changes, in a line, for contend list.
	Doc string
	// Domain is the values the key takes and their canonical spelling.
	Domain Domain
	// OmitDefault leaves the key's part out of the canonical name while
	// its value is the default: for a key added after results were
	// recorded, so that those results keep comparing by name with new
	// ones at the default (a key spelt out at its default renames every
	// benchmark of the scenario). It needs a default.
	OmitDefault bool
}

// String returns the key as contend list and errors show it: its name and
// its domain, "work=0..100000".
func (k Key) String() string { return k.Name + "=" + k.Domain.Syntax() }

// check reports what is wrong with the declaration, for Register.
func (k Key) check() error {
	switch {
	case !keyName.MatchString(k.Name):
		return fmt.Errorf("key %q: a name is lower-case letters and digits", k.Name)
	case k.Name == "threads" || k.Name == "place":
		return fmt.Errorf("key %s: the name is the runner's, after the variant in every benchmark name (ConfigName)", k.Name)
	case k.Domain == nil:
		return fmt.Errorf("key %s: no domain", k.Name)
	case k.Doc == "":
		return fmt.Errorf("key %s: no doc", k.Name)
	case k.Default == "" && k.OmitDefault:
		return fmt.Errorf("key %s: OmitDefault without a default", k.Name)
	case k.Default == "":
		return nil
	}
	c, err := k.Domain.Canon(k.Name, k.Default)
	if err != nil {
		return fmt.Errorf("key %s: default: %w", k.Name, err)
	}
	if c != k.Default {
		return fmt.Errorf("key %s: default %q is spelt %q canonically", k.Name, k.Default, c)
	}
	return nil
}

var keyName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// A Domain is the set of values a key takes. Use OneOf, IntRange,
// DurationRange, Or of those, or, for a grammar of its own, Form.
//
// A domain is declared once, and contend list and every error about a value
// read it: a refused value's error is
//
//	key="value": why (want SYNTAX)
//
// with SYNTAX what contend list prints after "key=", so that the two can
// never say different things (cmd/contend's TestKeyErrorsNameTheirDomain
// holds every registered key to it).
type Domain interface {
	// Canon checks v and returns its canonical spelling, the one the
	// benchmark name carries; the error is one line naming key, v, why it
	// is refused and Syntax (ParseParams adds the scenario).
	Canon(key, v string) (string, error)
	// Syntax is the domain as contend list shows it after "key=":
	// "shared|private", "0..100000", "1us..100ms", "auto|2..8192".
	Syntax() string
}

// grammar is what bench's own domains share: canon returns v's canonical
// spelling, or why v is not a value; near says that v has the domain's
// form and only lies outside its bounds (an integer out of range), which
// Or takes as the reason that matters.
type grammar interface {
	Domain
	canon(v string) (c, why string, near bool)
}

// canonOf is Canon for every grammar: the one place a refused value's
// error is written.
func canonOf(g grammar, key, v string) (string, error) {
	c, why, _ := g.canon(v)
	if why != "" {
		return "", refuse(key, v, why, g.Syntax())
	}
	return c, nil
}

// refuse is the error for a value v of key that a domain of the given
// syntax does not take.
func refuse(key, v, why, syntax string) error {
	return fmt.Errorf("%s=%q: %s (want %s)", key, v, why, syntax)
}

// OneOf is a choice among values, each spelt one way. Params.Index gives a
// value's position, so a constructor can map it onto its own enumeration.
// An empty, repeated or badly formed value panics: domains are declared at
// package initialisation, and a typo must not wait for a user.
func OneOf(values ...string) Domain {
	if len(values) == 0 {
		panic("bench.OneOf: no values")
	}
	for i, v := range values {
		if err := checkValue(v); err != nil {
			panic("bench.OneOf: " + err.Error())
		}
		if slices.Contains(values[:i], v) {
			panic(fmt.Sprintf("bench.OneOf: value %q given twice", v))
		}
	}
	return choice(slices.Clone(values))
}

type choice []string

func (c choice) canon(v string) (string, string, bool) {
	if slices.Contains(c, v) {
		return v, "", false
	}
	return "", "unknown value", false
}

func (c choice) Canon(key, v string) (string, error) { return canonOf(c, key, v) }
func (c choice) Syntax() string                      { return strings.Join(c, "|") }

// IntRange is an integer in [lo, hi], spelt in decimal without sign or
// leading zeros ("+5" and "05" are refused, not renamed: one spelling per
// value). lo > hi panics.
func IntRange(lo, hi int) Domain {
	if lo > hi {
		panic(fmt.Sprintf("bench.IntRange: empty range [%d, %d]", lo, hi))
	}
	return intRange{lo, hi}
}

type intRange struct{ lo, hi int }

func (r intRange) canon(v string) (string, string, bool) {
	n, err := strconv.Atoi(v)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange):
		return "", "out of range", true
	case err != nil:
		return "", "not an integer", false
	case strconv.Itoa(n) != v:
		return "", "spelt with a sign or a leading zero", false
	case n < r.lo || n > r.hi:
		return "", "out of range", true
	}
	return v, "", false
}

func (r intRange) Canon(key, v string) (string, error) { return canonOf(r, key, v) }
func (r intRange) Syntax() string                      { return fmt.Sprintf("%d..%d", r.lo, r.hi) }

// DurationRange is a Go duration in [lo, hi] ("40us", "1.5ms"), spelt
// canonically in its largest whole ASCII unit (benchname.FormatDuration):
// "0.1us" and "100ns" name one variant. lo > hi panics.
func DurationRange(lo, hi time.Duration) Domain {
	if lo > hi {
		panic(fmt.Sprintf("bench.DurationRange: empty range [%s, %s]", lo, hi))
	}
	return durationRange{lo, hi}
}

type durationRange struct{ lo, hi time.Duration }

func (r durationRange) canon(v string) (string, string, bool) {
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return "", "not a duration such as 40us", false
	case d < r.lo || d > r.hi:
		return "", "out of range", true
	}
	return benchname.FormatDuration(d), "", false
}

func (r durationRange) Canon(key, v string) (string, error) { return canonOf(r, key, v) }
func (r durationRange) Syntax() string {
	return benchname.FormatDuration(r.lo) + ".." + benchname.FormatDuration(r.hi)
}

// Or is a value of any of the domains, tried in order: Or(OneOf("auto"),
// IntRange(2, 8192)) is "auto|2..8192". Each must be bench's own (OneOf,
// IntRange, DurationRange or an Or), and no value may be spelt in two of
// them, which Register's check of the default cannot see: the first that
// takes a value gives its spelling. Fewer than two domains panic.
func Or(domains ...Domain) Domain {
	if len(domains) < 2 {
		panic("bench.Or: fewer than two domains")
	}
	alts := make(either, len(domains))
	for i, d := range domains {
		g, ok := d.(grammar)
		if !ok {
			panic(fmt.Sprintf("bench.Or: domain %d (%T) is not OneOf, IntRange, DurationRange or Or", i, d))
		}
		alts[i] = g
	}
	return alts
}

type either []grammar

func (e either) canon(v string) (string, string, bool) {
	why, near := "unknown value", false
	for _, g := range e {
		c, w, n := g.canon(v)
		if w == "" {
			return c, "", false
		}
		if n && !near {
			why, near = w, true
		}
	}
	return "", why, near
}

func (e either) Canon(key, v string) (string, error) { return canonOf(e, key, v) }
func (e either) Syntax() string {
	s := make([]string, len(e))
	for i, g := range e {
		s[i] = g.Syntax()
	}
	return strings.Join(s, "|")
}

// Form is a domain with a grammar of its own, declared with its own
// description: syntax is the grammar as contend list shows it
// ("every|threshold=N|ratelimit[=D]|delay"), where says in a few words what
// its placeholders take ("N 1..1048576, D 1us..1s"; "" when it has none),
// and canon checks a value and returns its canonical spelling, or an error
// saying why the value is not one, in a few words; Form's error adds the
// key, the value and the syntax with where, as every domain's does, and
// contend list shows the two joined by "; ". Register checks the key's
// default against it; every other value, the scenario's variant tests.
// A domain that is a choice, a range or an Or of them is declared as one
// instead, and says its values itself.
func Form(syntax, where string, canon func(v string) (string, error)) Domain {
	if syntax == "" || canon == nil {
		panic("bench.Form: no syntax or no canon function")
	}
	if strings.Contains(syntax, "; ") || strings.Contains(where, "\n") {
		panic("bench.Form: a syntax holds no \"; \" and a where no newline: contend list joins them by it")
	}
	if where != "" {
		syntax += "; " + where
	}
	return form{syntax, canon}
}

type form struct {
	syntax string
	canon  func(v string) (string, error)
}

func (f form) Canon(key, v string) (string, error) {
	c, err := f.canon(v)
	if err != nil {
		return "", refuse(key, v, err.Error(), f.syntax)
	}
	if err := checkValue(c); err != nil { // the form's own bug
		return "", fmt.Errorf("%s=%q: canonical spelling: %w", key, v, err)
	}
	return c, nil
}

func (f form) Syntax() string { return f.syntax }

// checkValue refuses what a benchmark name cannot carry: an empty value, a
// "/" (the key separator), white space, and a final -<digits>, which
// benchstat reads as a GOMAXPROCS suffix.
func checkValue(v string) error {
	switch {
	case v == "":
		return fmt.Errorf("empty value")
	case strings.ContainsAny(v, "/ \t\n"):
		return fmt.Errorf("value %q holds a / or white space", v)
	case procsSuffix.MatchString(v):
		return fmt.Errorf("value %q ends in -<digits>, which benchstat reads as GOMAXPROCS", v)
	}
	return nil
}

var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// checkKeys checks a scenario's key list, for Register.
func checkKeys(keys []Key) error {
	for i, k := range keys {
		if err := k.check(); err != nil {
			return err
		}
		for _, prev := range keys[:i] {
			if prev.Name == k.Name {
				return fmt.Errorf("key %s declared twice", k.Name)
			}
		}
	}
	return nil
}
