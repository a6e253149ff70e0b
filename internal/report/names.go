package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// Benchmark names spell every key of a configuration, so that a results
// file alone says what was run and benchstat groups it; a sweep's loadavg
// row is over 150 columns. People read better with what a scenario's rows
// share said once: an elider moves the keys whose value is the same in every
// name of a benchmark into that benchmark's heading, and a label keeps only
// the keys that vary, as contend plot does with its panel titles.

// A namePart is one configuration part of a benchmark name: "/key=value",
// a positional "/value" (key is the whole part), or the "-N" GOMAXPROCS
// suffix (key "-").
type namePart struct{ key, text string }

// splitName splits a full benchmark name into its base ("LoadAvg") and its
// configuration parts, as benchfmt does.
func splitName(full string) (base string, parts []namePart) {
	b, ps := benchfmt.Name(full).Parts()
	for _, p := range ps {
		s := string(p)
		switch {
		case s[0] == '-':
			parts = append(parts, namePart{key: "-", text: s})
		default:
			k, _, ok := strings.Cut(s[1:], "=")
			if !ok {
				k = s
			}
			parts = append(parts, namePart{key: k, text: s})
		}
	}
	return string(b), parts
}

// An elider shortens the names of one set of results.
type elider struct {
	bases  []string                       // benchmark base names, in order of first appearance
	keys   map[string][]string            // base → its keys, in order of first appearance
	values map[string]map[string][]string // base → key → distinct part texts
}

func newElider(names []string) *elider {
	e := &elider{keys: map[string][]string{}, values: map[string]map[string][]string{}}
	for _, n := range names {
		base, parts := splitName(n)
		if e.values[base] == nil {
			e.bases = append(e.bases, base)
			e.values[base] = map[string][]string{}
		}
		vals := e.values[base]
		for _, p := range parts {
			if _, seen := vals[p.key]; !seen {
				e.keys[base] = append(e.keys[base], p.key)
			}
			if !slices.Contains(vals[p.key], p.text) {
				vals[p.key] = append(vals[p.key], p.text)
			}
		}
	}
	// A key some names of a benchmark lack varies too: its absence is a value.
	for _, n := range names {
		base, parts := splitName(n)
		for _, k := range e.keys[base] {
			if !slices.ContainsFunc(parts, func(p namePart) bool { return p.key == k }) &&
				!slices.Contains(e.values[base][k], "") {
				e.values[base][k] = append(e.values[base][k], "")
			}
		}
	}
	return e
}

// varies says whether key takes more than one value among base's names.
func (e *elider) varies(base, key string) bool { return len(e.values[base][key]) > 1 }

// label is full without the parts every name of its benchmark shares.
func (e *elider) label(full string) string {
	base, parts := splitName(full)
	var b strings.Builder
	b.WriteString(base)
	for _, p := range parts {
		if e.varies(base, p.key) {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// common returns the parts every name of base shares, as key=value words
// (the GOMAXPROCS suffix as procs=N).
func (e *elider) common(base string) []string {
	var words []string
	for _, k := range e.keys[base] {
		if e.varies(base, k) {
			continue
		}
		t := e.values[base][k][0]
		switch {
		case k == "-":
			words = append(words, "procs="+t[1:])
		default:
			words = append(words, t[1:])
		}
	}
	return words
}

// varying returns base's keys that vary, in name order, without the
// GOMAXPROCS suffix's.
func (e *elider) varying(base string) []string {
	var ks []string
	for _, k := range e.keys[base] {
		if k != "-" && e.varies(base, k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// partValue returns the value of key among a name's parts ("" where it
// has none; a positional part's whole text, without its "/").
func partValue(parts []namePart, key string) string {
	for _, p := range parts {
		if p.key == key {
			if _, v, ok := strings.Cut(p.text[1:], "="); ok {
				return v
			}
			return p.text[1:]
		}
	}
	return ""
}

// elider returns the elider of the report's row names (the .fullname
// values of its rows), built once.
func (rep *Report) elider() *elider {
	if rep.el == nil {
		var names []string
		for _, t := range rep.tables {
			for _, row := range t.rows {
				if n, ok := fullName(row); ok {
					names = append(names, n)
				}
			}
		}
		rep.el = newElider(names)
	}
	return rep.el
}

// label names a row for people: its full name without the keys every
// result of its benchmark shares, unless the report keeps whole names.
func (rep *Report) label(el *elider, k benchproc.Key) string {
	if rep.fullNames {
		return keyLabel(k)
	}
	var parts []string
	for _, f := range k.Projection().FlattenedFields() {
		v := k.Get(f)
		switch {
		case v == "":
		case f.Name == ".fullname":
			parts = append(parts, el.label(v))
		case strings.HasPrefix(f.Name, "."):
			parts = append(parts, v)
		default:
			parts = append(parts, strings.TrimPrefix(f.Name, "/")+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// fullName returns the .fullname value of a row key, if it has one.
func fullName(k benchproc.Key) (string, bool) {
	for _, f := range k.Projection().FlattenedFields() {
		if f.Name == ".fullname" {
			return k.Get(f), true
		}
	}
	return "", false
}

// writeShared writes, for each benchmark whose names were shortened, the
// keys its results share: what the shortened names leave out.
func (rep *Report) writeShared(w io.Writer) {
	if rep.fullNames {
		return
	}
	el := rep.elider()
	first := true
	for _, b := range el.bases {
		c := el.common(b)
		if len(c) == 0 {
			continue
		}
		if first {
			fmt.Fprintf(w, "\nevery result of a benchmark shares these keys, left out of its rows (-full-names keeps them):\n")
			first = false
		}
		fmt.Fprintf(w, "  %s: %s\n", b, strings.Join(c, " "))
	}
}
