package main

// Reading results files: the shared front end of contend compare, table and
// plot.
//
// All three read the Go benchmark format through benchfmt.Reader, the reader
// benchstat uses, so whatever benchstat accepts they accept too: contend run
// and sweep output, go test -bench output, and both concatenated. They differ
// from benchstat in one respect: a line benchfmt cannot parse is an error, not
// a warning. A results file is the record of a measurement someone may act
// on; quietly dropping part of it would make a comparison look cleaner than
// the data is.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
)

// A resultSet is every result read from a command's input files, in file
// order, with the unit metadata (Unit X better=... lines) they declared.
type resultSet struct {
	results []*benchfmt.Result
	units   benchfmt.UnitMetadataMap
	labels  []string // each input's .file label, in argument order

	// One reader for all files: unit metadata carries across files,
	// as in benchstat, and contradicting metadata (better=lower in one
	// file, better=higher in the next) is reported where it appears.
	rd benchfmt.Reader
}

// readResults reads the results files named by args. An argument is a path,
// "-" for standard input, or label=path to name a column something shorter
// than the path (as benchstat allows). Every file must hold at least one
// result.
func readResults(args []string) (*resultSet, error) {
	rs := newResultSet()
	seen := map[string]int{}
	for _, arg := range args {
		path, label := arg, arg
		if _, err := os.Stat(arg); err != nil && arg != "-" {
			if i := strings.IndexByte(arg, '='); i > 0 {
				label, path = arg[:i], arg[i+1:]
			}
		}
		// The same file twice would otherwise merge into one column
		// with twice the samples; benchstat numbers them instead.
		n := seen[label]
		seen[label]++
		if n > 0 {
			label = fmt.Sprintf("%s#%d", label, n)
		}
		if err := rs.readFile(path, label); err != nil {
			return nil, err
		}
	}
	rs.units = rs.rd.Units()
	return rs, nil
}

func newResultSet() *resultSet {
	rs := &resultSet{}
	rs.rd.Reset(strings.NewReader(""), "")
	rs.units = rs.rd.Units()
	return rs
}

func (rs *resultSet) readFile(path, label string) error {
	if path == "-" {
		return rs.read(os.Stdin, "<stdin>", label)
	}
	f, err := os.Open(path)
	if err != nil {
		return err // *PathError: "open x.txt: no such file or directory"
	}
	defer f.Close()
	return rs.read(f, path, label)
}

// read appends the results of one input. name is the file name errors
// report; label is its .file key.
func (rs *resultSet) read(r io.Reader, name, label string) error {
	rs.rd.Reset(r, name, ".file", label)
	n := 0
	for rs.rd.Scan() {
		switch rec := rs.rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return rec // "x.txt:12: parsing iteration count: ..."
		case *benchfmt.Result:
			if err := checkValues(rec); err != nil {
				return err
			}
			// The reader reuses its Result.
			rs.results = append(rs.results, rec.Clone())
			n++
		}
	}
	if err := rs.rd.Err(); err != nil {
		return err // already "x.txt:12: ..."
	}
	if n == 0 {
		return fmt.Errorf("%s: no benchmark results", name)
	}
	rs.labels = append(rs.labels, label)
	return nil
}

// checkValues rejects measurements the statistics cannot use. benchfmt
// accepts "NaN" and "Inf" because strconv does; a median or a geomean over
// them would be silently meaningless.
func checkValues(r *benchfmt.Result) error {
	for _, v := range r.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			file, line := r.Pos()
			return fmt.Errorf("%s:%d: %s measurement is %v, not a finite number", file, line, origUnit(v), v.Value)
		}
	}
	return nil
}

// origUnit is the unit as the file wrote it (ns/op, not the tidied sec/op).
func origUnit(v benchfmt.Value) string {
	if v.OrigUnit != "" {
		return v.OrigUnit
	}
	return v.Unit
}

// tidyUnit is the unit as the tables name it: benchunit normalizes ns to sec
// and MB to B, as benchstat does, so "ns/op" and "sec/op" are one unit.
func tidyUnit(unit string) string {
	_, u := benchunit.Tidy(1, unit)
	return u
}

// nameKeys returns the sub-benchmark name keys (/threads, /place, ...) the
// results carry, in order of first appearance; /gomaxprocs stands for the
// -N suffix go test adds.
func (rs *resultSet) nameKeys() []string {
	var keys []string
	for _, r := range rs.results {
		_, parts := r.Name.Parts()
		for _, p := range parts {
			var k string
			switch {
			case p[0] == '-':
				k = "/gomaxprocs"
			case bytes.IndexByte(p, '=') > 0:
				k = string(p[:bytes.IndexByte(p, '=')])
			default:
				continue // a positional part has no key
			}
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// configKeys returns the file configuration keys (goos, cpu, topology, ...)
// the results carry, in order of first appearance.
func (rs *resultSet) configKeys() []string {
	var keys []string
	for _, r := range rs.results {
		for _, c := range r.Config {
			if c.File && !slices.Contains(keys, c.Key) {
				keys = append(keys, c.Key)
			}
		}
	}
	return keys
}

// checkKeys reports a projection key that no result carries. benchproc
// itself accepts any key and projects a missing one as "", which turns a
// typo such as -col /thread into one silent column of everything.
func (rs *resultSet) checkKeys(flagName string, proj *benchproc.Projection) error {
	names, configs := rs.nameKeys(), rs.configKeys()
	for _, f := range proj.Fields() {
		k := f.Name
		switch {
		case k == ".name", k == ".fullname", k == ".config", k == ".file", k == ".unit":
			continue
		case strings.HasPrefix(k, "/"):
			if slices.Contains(names, k) {
				continue
			}
		case slices.Contains(configs, k):
			continue
		}
		return fmt.Errorf("%s: no result has key %s (name keys: %s; config keys: %s)",
			flagName, k, listOrNone(names), listOrNone(configs))
	}
	return nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}

// unitNames returns the units results measure, as the files wrote them, in
// order of first appearance.
func (rs *resultSet) unitNames() []string { return unitNames(rs.results) }

func unitNames(results []*benchfmt.Result) []string {
	var us []string
	for _, r := range results {
		for _, v := range r.Values {
			if u := origUnit(v); !slices.Contains(us, u) {
				us = append(us, u)
			}
		}
	}
	return us
}

// selectUnits parses a -unit list (comma- or space-separated, either ns/op or
// sec/op spelling) into a set of tidied units; an empty list selects all.
func (rs *resultSet) selectUnits(list string) (map[string]bool, error) {
	fields := strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' })
	if len(fields) == 0 {
		return nil, nil
	}
	have := map[string]bool{}
	for _, u := range rs.unitNames() {
		have[tidyUnit(u)] = true
	}
	want := map[string]bool{}
	for _, u := range fields {
		if !have[tidyUnit(u)] {
			return nil, fmt.Errorf("-unit %s: no result measures it (units: %s)", u, strings.Join(rs.unitNames(), " "))
		}
		want[tidyUnit(u)] = true
	}
	return want, nil
}

// writeConfig prints the file configuration of results as key: value lines,
// the way benchstat heads its tables. A key whose value differs between
// results (the contend commit of old and new, say) lists its values in order,
// separated by " | "; keys in ignore are printed only when they agree, since
// they were declared noise (the date of each run).
func writeConfig(w io.Writer, results []*benchfmt.Result, ignore map[string]bool) {
	var keys []string
	vals := map[string][]string{}
	for _, r := range results {
		for _, c := range r.Config {
			if !c.File {
				continue
			}
			v, seen := vals[c.Key]
			if !seen {
				keys = append(keys, c.Key)
			}
			if !slices.Contains(v, string(c.Value)) {
				vals[c.Key] = append(v, string(c.Value))
			}
		}
	}
	for _, k := range keys {
		v := vals[k]
		switch {
		case len(v) == 1:
			fmt.Fprintf(w, "%s: %s\n", k, v[0])
		case ignore[k]:
		case len(v) > 4:
			fmt.Fprintf(w, "%s: %s | ... (%d values)\n", k, strings.Join(v[:3], " | "), len(v))
		default:
			fmt.Fprintf(w, "%s: %s\n", k, strings.Join(v, " | "))
		}
	}
}

// writeFileAtomic replaces path with data, or leaves it as it was. It writes
// a temporary file in the target's own directory (so the rename cannot cross
// file systems) and renames it over path only once everything is written:
// a failed run never leaves a truncated plot where a good one stood.
func writeFileAtomic(path string, data []byte) (err error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		mode = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// oneLine flattens benchproc's syntax errors, which point at the bad
// character with a caret under a copy of the query:
//
//	syntax error: unknown order "bogus"
//		/threads@bogus
//		         ^
//
// into one line that gives the position as a number.
func oneLine(err error) error {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[2], "^") {
		return err
	}
	col := width(strings.TrimPrefix(lines[2], "\t"))
	return &flatError{fmt.Sprintf("%s at character %d", lines[0], col), err}
}

type flatError struct {
	msg string
	err error
}

func (e *flatError) Error() string { return e.msg }
func (e *flatError) Unwrap() error { return e.err }
