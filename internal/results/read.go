package results

// Reading results files: the shared front end of contend compare, table,
// plot and reproduce.
//
// All four read the Go benchmark format through benchfmt.Reader, the reader
// benchstat uses, so whatever benchstat accepts they accept too: contend run
// and sweep output, go test -bench output, and both concatenated. They differ
// from benchstat in one respect: a line benchfmt cannot parse is an error, not
// a warning. A results file is the record of a measurement someone may act
// on; quietly dropping part of it would make a comparison look cleaner than
// the data is. The failure lines a sweep writes ("# failed: ...", see
// Failure) are comments to benchfmt and skipped as such: a failed run has
// no result to read.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
)

// A Set is every result read from a command's input files, in file
// order, with the unit metadata (Unit X better=... lines) they declared.
type Set struct {
	Results []*benchfmt.Result
	Units   benchfmt.UnitMetadataMap
	// Rounds holds the "# rounds:" lines (Convergence) of sweeps with
	// adaptive rounds, by file label and name (Set.Convergence reads it).
	Rounds map[FileName]Convergence
	// Shared holds the "# shared:" lines: by file label and the name of a
	// configuration that had another's run, that run's name.
	Shared map[FileName]string
	// Warnings are what reading found amiss but could read past, one
	// line each naming the file and line (a last line cut mid-write);
	// commands print them on stderr.
	Warnings []string

	// One reader for all files: unit metadata carries across files,
	// as in benchstat, and contradicting metadata (better=lower in one
	// file, better=higher in the next) is reported where it appears.
	rd benchfmt.Reader
}

// Read reads the results files named by args. An argument is a path,
// "-" for standard input, or label=path to name a column something shorter
// than the path (as benchstat allows). Every file must hold at least one
// result.
func Read(args []string) (*Set, error) {
	rs := newSet()
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
	return rs, nil
}

// A FileName is a result's name in one input: its file label (the .file
// key) and full name.
type FileName struct{ File, Name string }

// Convergence returns the rounds line a sweep with adaptive rounds wrote
// for r's configuration in r's file, if any.
func (rs *Set) Convergence(r *benchfmt.Result) (Convergence, bool) {
	c, ok := rs.Rounds[FileName{r.GetConfig(".file"), r.Name.String()}]
	return c, ok
}

// comments reads the sweep's comment lines of one input as they stream
// past benchfmt.Reader, which skips them.
type comments struct {
	rs      *Set
	label   string
	partial []byte
}

func (c *comments) Write(b []byte) (int, error) {
	n := len(b)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			c.partial = append(c.partial, b...)
			return n, nil
		}
		line := b[:i]
		if len(c.partial) > 0 {
			line = append(c.partial, line...)
			c.partial = c.partial[:0]
		}
		c.line(string(line))
		b = b[i+1:]
	}
}

func (c *comments) line(l string) {
	if !strings.HasPrefix(l, "# ") {
		return
	}
	if cv, ok := parseConvergence(l); ok {
		c.rs.Rounds[FileName{c.label, cv.Name}] = cv
	}
	if sh, ok := parseShared(l); ok {
		for _, a := range sh.Also {
			c.rs.Shared[FileName{c.label, a}] = sh.Name
		}
	}
}

func newSet() *Set {
	rs := &Set{Rounds: map[FileName]Convergence{}, Shared: map[FileName]string{}}
	rs.rd.Reset(strings.NewReader(""), "")
	rs.Units = rs.rd.Units() // the reader's own map, which every file adds to
	return rs
}

func (rs *Set) readFile(path, label string) error {
	if path == "-" {
		return rs.read(os.Stdin, "<stdin>", label)
	}
	f, err := os.Open(path)
	if err != nil {
		return err // *PathError: "open x.txt: no such file or directory"
	}
	defer f.Close()
	// A directory opens, and fails only on the first read, which benchfmt
	// reports at line 0: "/tmp:0: read /tmp: is a directory".
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory, not a results file", path)
	}
	return rs.read(f, path, label)
}

// read appends the results of one input. name is the file name errors
// report; label is its .file key.
func (rs *Set) read(r io.Reader, name, label string) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	data, cut := cutLastLine(data)
	if cut > 0 {
		rs.Warnings = append(rs.Warnings, fmt.Sprintf("%s:%d: the last line is cut short (no newline at its end: a write cut off mid-line); left out", name, cut))
	}
	cm := &comments{rs: rs, label: label}
	rs.rd.Reset(io.TeeReader(bytes.NewReader(data), cm), name, ".file", label)
	defer func() { cm.line(string(cm.partial)) }() // a last line without its newline
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
			rs.Results = append(rs.Results, rec.Clone())
			n++
		}
	}
	if err := rs.rd.Err(); err != nil {
		return err // already "x.txt:12: ..."
	}
	if n == 0 {
		return fmt.Errorf("%s: no benchmark results", name)
	}
	return nil
}

// cutLastLine returns data without a last line that has no newline, and
// that line's number (0 when every line is whole). Every writer of results
// files ends each line with one (benchfmt.Writer, go test, results.File);
// a line without is one cut mid-write (a full disk, a killed tee, a copy
// stopped short), and what it holds cannot be trusted: "12.3 cas/op" cut
// to "12.3 cas/o" or "123.4 ns/op" to "12" still parses, as another unit or
// a wrong figure. Blank space at the end is not a line.
func cutLastLine(data []byte) ([]byte, int) {
	i := bytes.LastIndexByte(data, '\n')
	if len(bytes.TrimSpace(data[i+1:])) == 0 {
		return data, 0
	}
	return data[:i+1], bytes.Count(data, []byte("\n")) + 1
}

// checkValues rejects measurements the statistics cannot use. benchfmt
// accepts "NaN" and "Inf" because strconv does; a median or a geomean over
// them would be silently meaningless.
func checkValues(r *benchfmt.Result) error {
	for _, v := range r.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			file, line := r.Pos()
			return fmt.Errorf("%s:%d: %s measurement is %v, not a finite number", file, line, OrigUnit(v), v.Value)
		}
	}
	return nil
}

// OrigUnit is the unit as the file wrote it (ns/op, not the tidied sec/op).
func OrigUnit(v benchfmt.Value) string {
	if v.OrigUnit != "" {
		return v.OrigUnit
	}
	return v.Unit
}

// OrigValue is the value as the file wrote it, in OrigUnit (25 ns/op, not
// the tidied 2.5e-08 sec/op).
func OrigValue(v benchfmt.Value) float64 {
	if v.OrigUnit != "" {
		return v.OrigValue
	}
	return v.Value
}

// TidyUnit is the unit as the tables name it: benchunit normalizes ns to sec
// and MB to B, as benchstat does, so "ns/op" and "sec/op" are one unit.
func TidyUnit(unit string) string {
	_, u := benchunit.Tidy(1, unit)
	return u
}

// NameKeys returns the sub-benchmark name keys (/threads, /place, ...) the
// results carry, in order of first appearance; /gomaxprocs stands for the
// -N suffix go test adds.
func (rs *Set) NameKeys() []string {
	var keys []string
	for _, r := range rs.Results {
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

// ConfigKeys returns the file configuration keys (goos, cpu, topology, ...)
// the results carry, in order of first appearance.
func (rs *Set) ConfigKeys() []string {
	var keys []string
	for _, r := range rs.Results {
		for _, c := range r.Config {
			if c.File && !slices.Contains(keys, c.Key) {
				keys = append(keys, c.Key)
			}
		}
	}
	return keys
}

// CheckKeys reports a projection key that no result carries. benchproc
// itself accepts any key and projects a missing one as "", which turns a
// typo such as -col /thread into one silent column of everything.
func (rs *Set) CheckKeys(flagName string, proj *benchproc.Projection) error {
	names, configs := rs.NameKeys(), rs.ConfigKeys()
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

// UnitNames returns the units results measure, as the files wrote them, in
// order of first appearance.
func UnitNames(results []*benchfmt.Result) []string {
	var us []string
	for _, r := range results {
		for _, v := range r.Values {
			if u := OrigUnit(v); !slices.Contains(us, u) {
				us = append(us, u)
			}
		}
	}
	return us
}

// SelectUnits parses a -unit list (comma- or space-separated, either ns/op or
// sec/op spelling) into a set of tidied units; an empty list selects all.
func (rs *Set) SelectUnits(list string) (map[string]bool, error) {
	fields := strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' })
	if len(fields) == 0 {
		return nil, nil
	}
	units := UnitNames(rs.Results)
	have := map[string]bool{}
	for _, u := range units {
		have[TidyUnit(u)] = true
	}
	want := map[string]bool{}
	for _, u := range fields {
		if !have[TidyUnit(u)] {
			return nil, fmt.Errorf("-unit %s: no result measures it (units: %s)", u, strings.Join(units, " "))
		}
		want[TidyUnit(u)] = true
	}
	return want, nil
}

// Parse reads one results stream, named name in errors, into a new set, as
// Read reads files.
func Parse(r io.Reader, name string) (*Set, error) {
	rs := newSet()
	if err := rs.read(r, name, name); err != nil {
		return nil, err
	}
	return rs, nil
}

// The configuration keys that say how results were measured, for the gate
// of contend compare -fail-on (report.Gate). SessionKey is one id per
// sweep or contend ab run, on every result: results that share one were
// measured interleaved round by round (a sweep runs its whole matrix each
// round; ab alternates its two sides), so that drift of the host falls on
// all alike and the i-th samples of two configurations pair. SideKey is
// contend ab's side of a result: old or new.
const (
	SessionKey = "session"
	SideKey    = "side"
)

// NewSession returns a session id: the UTC time and a random suffix, so
// that two runs started in the same second differ.
func NewSession() string {
	return fmt.Sprintf("%s-%04x", time.Now().UTC().Format("20060102T150405Z"), rand.Uint32()&0xffff)
}

// Sessions returns the distinct session ids of the results, in order of
// first appearance, "" standing for results that carry none (go test
// output, files from before sessions were recorded).
func (rs *Set) Sessions() []string {
	var ids []string
	for _, r := range rs.Results {
		if id := r.GetConfig(SessionKey); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}
