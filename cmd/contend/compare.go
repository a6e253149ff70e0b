package main

// contend compare: benchstat's A/B comparison for contend's results files.
//
// The statistics are benchstat's, built from the same public pieces of
// golang.org/x/perf: benchproc projects each result into a (unit, row, column)
// cell, benchmath summarizes each cell by its median and a distribution-free
// confidence interval for it, and compares each cell with the first column's
// by the Mann-Whitney U-test, printing "~" when p exceeds -alpha. A geomean
// row summarizes each column. Numbers are scaled with benchunit, so a contend
// table and a benchstat table of the same files show the same figures.
//
// Two things differ, both because of what contend's files carry:
//
//   - Tables split by unit only, not by file configuration. Every contend
//     file records its date and commit, which differ between old and new by
//     design; benchstat's default -table .config would put old and new in
//     separate tables and compare nothing. The shared configuration is
//     printed above the tables instead, with any differing values side by
//     side. (Plain benchstat reads contend's files with -ignore date,contend.)
//   - Each unit says which way is better (the Unit ... better= lines contend
//     writes), so a significant delta is labelled better or worse.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

func init() {
	register(&command{
		name:    "compare",
		summary: "compare results files as benchstat does: medians, 95% confidence intervals, deltas with p-values, geomeans",
		run:     compareCmd,
	})
}

const compareUsage = "[-row KEYS] [-col KEYS] [-filter EXPR] [-unit UNITS] [-alpha 0.05] old.txt new.txt [more.txt ...]"

func compareCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "compare", compareUsage)
	var sf statFlags
	sf.register(fs, ".fullname", ".file")
	alpha := fs.Float64("alpha", 0.05, "consider a difference significant if p < `α`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("compare: want results files (usage: contend compare %s)", compareUsage)
	}
	if len(pos) == 1 && sf.col == ".file" {
		return errors.New("compare: want at least two results files to compare, or -col KEYS to compare within one")
	}
	if !(*alpha > 0 && *alpha < 1) {
		return fmt.Errorf("compare: -alpha %v: want a level between 0 and 1", *alpha)
	}
	if err := sf.check(fs.Name()); err != nil {
		return err
	}
	rs, err := readResults(pos)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	rep, err := buildStats(rs, sf.opts(*alpha, true))
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return rep.write(stdout)
}

// statFlags are the flags compare and table share.
type statFlags struct {
	row, col, filter, ignore, unit string
	confidence                     float64
}

func (f *statFlags) register(fs *flag.FlagSet, row, col string) {
	fs.StringVar(&f.row, "row", row, "split results into rows by `KEYS`: .name, .fullname, /name-key, config-key, .file (as benchstat)")
	colHelp := "split results into columns by `KEYS`"
	if col == ".file" {
		colHelp += " (the first column is the base of comparisons)"
	}
	fs.StringVar(&f.col, "col", col, colHelp)
	fs.StringVar(&f.filter, "filter", "*", "use only results matching the benchstat filter `EXPR`, e.g. '/place:spread .unit:ns/op'")
	fs.StringVar(&f.ignore, "ignore", "date", "ignore variation in `KEYS` when checking that a cell's results belong together")
	fs.StringVar(&f.unit, "unit", "", "show only these `UNITS` (comma-separated, e.g. ns/op,cas/op; default all)")
	fs.Float64Var(&f.confidence, "confidence", 0.95, "confidence `level` of the ± ranges")
}

func (f *statFlags) check(cmd string) error {
	if !(f.confidence > 0 && f.confidence < 1) {
		return fmt.Errorf("%s: -confidence %v: want a level between 0 and 1", cmd, f.confidence)
	}
	return nil
}

func (f *statFlags) opts(alpha float64, compare bool) statOpts {
	return statOpts{row: f.row, col: f.col, filter: f.filter, ignore: f.ignore, units: f.unit,
		alpha: alpha, confidence: f.confidence, compare: compare}
}

// flagSet reports whether the command line set flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

type statOpts struct {
	row, col, filter, ignore, units string
	alpha, confidence               float64
	compare                         bool // compare columns with the first; geomean row
}

// A statReport is the tables of one compare or table run, and the results
// they were built from (whose configuration heads the output).
type statReport struct {
	tables  []*statTable
	results []*benchfmt.Result
	ignore  map[string]bool
	compare bool
	alpha   float64
}

// A statTable is one unit's rows × columns of summarized samples.
type statTable struct {
	unit       string // tidied: sec/op, not ns/op
	better     int    // +1 higher is better, -1 lower, 0 unknown
	rows, cols []benchproc.Key
	cells      map[cellKey]*statCell
	geomean    []*colSummary // per column; nil without comparisons or with one row
}

type cellKey struct{ row, col benchproc.Key }

type statCell struct {
	values  []float64
	residue map[benchproc.Key]bool
	sample  *benchmath.Sample
	summary benchmath.Summary
	base    *statCell // the first column's cell of this row, when comparing
	cmp     benchmath.Comparison
	notes   []error
}

type colSummary struct {
	center, ratio       float64
	hasCenter, hasRatio bool
	notes               []error
}

// buildStats projects rs into one table per unit and summarizes every cell.
func buildStats(rs *resultSet, o statOpts) (*statReport, error) {
	filter, err := benchproc.NewFilter(o.filter)
	if err != nil {
		return nil, fmt.Errorf("-filter %q: %w", o.filter, oneLine(err))
	}
	var parser benchproc.ProjectionParser
	tableBy, unitField, err := parser.ParseWithUnit("", filter)
	if err != nil {
		return nil, err
	}
	parse := func(name, expr string) (*benchproc.Projection, error) {
		proj, err := parser.Parse(expr, filter)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", name, expr, oneLine(err))
		}
		if err := rs.checkKeys(name, proj); err != nil {
			return nil, err
		}
		return proj, nil
	}
	rowBy, err := parse("-row", o.row)
	if err != nil {
		return nil, err
	}
	colBy, err := parse("-col", o.col)
	if err != nil {
		return nil, err
	}
	ignoreBy, err := parser.Parse(o.ignore, filter)
	if err != nil {
		return nil, fmt.Errorf("-ignore %q: %w", o.ignore, oneLine(err))
	}
	residue := parser.Residue()
	units, err := rs.selectUnits(o.units)
	if err != nil {
		return nil, err
	}

	rep := &statReport{ignore: map[string]bool{}, compare: o.compare, alpha: o.alpha}
	for _, f := range ignoreBy.Fields() {
		rep.ignore[f.Name] = true
	}
	tables := map[benchproc.Key]*statTable{}
	var tableKeys []benchproc.Key
	for _, r := range rs.results {
		r = r.Clone() // filters and -unit edit Values
		if ok, _ := filter.Apply(r); !ok {
			continue
		}
		if units != nil {
			vs := r.Values[:0]
			for _, v := range r.Values {
				if units[v.Unit] {
					vs = append(vs, v)
				}
			}
			r.Values = vs
		}
		if len(r.Values) == 0 {
			continue
		}
		rep.results = append(rep.results, r)
		row, col, res := rowBy.Project(r), colBy.Project(r), residue.Project(r)
		for i, tk := range tableBy.ProjectValues(r) {
			t := tables[tk]
			if t == nil {
				t = &statTable{unit: tk.Get(unitField), cells: map[cellKey]*statCell{}}
				tables[tk] = t
				tableKeys = append(tableKeys, tk)
			}
			c := t.cells[cellKey{row, col}]
			if c == nil {
				c = &statCell{residue: map[benchproc.Key]bool{}}
				t.cells[cellKey{row, col}] = c
				t.rows = appendKey(t.rows, row)
				t.cols = appendKey(t.cols, col)
			}
			c.values = append(c.values, r.Values[i].Value)
			c.residue[res] = true
		}
	}
	if len(rep.results) == 0 {
		if o.units != "" {
			return nil, fmt.Errorf("no results match -filter %q and -unit %q", o.filter, o.units)
		}
		return nil, fmt.Errorf("no results match -filter %q", o.filter)
	}

	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = o.alpha
	if !o.compare {
		thresholds.CompareAlpha = benchmath.DefaultThresholds.CompareAlpha
	}
	benchproc.SortKeys(tableKeys)
	for _, tk := range tableKeys {
		t := tables[tk]
		t.better = rs.units.GetBetter(t.unit)
		t.summarize(rs.units.GetAssumption(t.unit), &thresholds, o)
		rep.tables = append(rep.tables, t)
	}
	return rep, nil
}

func appendKey(keys []benchproc.Key, k benchproc.Key) []benchproc.Key {
	for _, have := range keys {
		if have == k {
			return keys
		}
	}
	return append(keys, k)
}

func (t *statTable) summarize(a benchmath.Assumption, th *benchmath.Thresholds, o statOpts) {
	benchproc.SortKeys(t.rows)
	benchproc.SortKeys(t.cols)
	for _, c := range t.cells {
		c.sample = benchmath.NewSample(c.values, th)
		c.summary = a.Summary(c.sample, o.confidence)
		c.notes = append(c.notes, c.sample.Warnings...)
		c.notes = append(c.notes, c.summary.Warnings...)
		// Results that land in one cell but differ in some
		// configuration key (two topologies, two machines) make a
		// median of unlike things: say which key.
		var res []benchproc.Key
		for k := range c.residue {
			res = append(res, k)
		}
		if fs := benchproc.NonSingularFields(res); len(fs) > 0 {
			var names []string
			for _, f := range fs {
				names = append(names, f.Name)
			}
			c.notes = append(c.notes, fmt.Errorf("results vary in %s", strings.Join(names, ", ")))
		}
	}
	if !o.compare {
		return
	}
	for key, c := range t.cells {
		if key.col == t.cols[0] {
			continue
		}
		if base := t.cells[cellKey{key.row, t.cols[0]}]; base != nil {
			c.base = base
			c.cmp = a.Compare(base.sample, c.sample)
			c.notes = append(c.notes, c.cmp.Warnings...)
		}
	}
	if len(t.rows) > 1 {
		for i, col := range t.cols {
			t.geomean = append(t.geomean, t.summarizeCol(col, i == 0))
		}
	}
}

// summarizeCol is benchstat's geomean row: the geomean of the column's
// medians, and the geomean of each row's ratio to its base (not the ratio of
// the geomeans, which would compare unlike sets when rows are missing).
func (t *statTable) summarizeCol(col benchproc.Key, isBase bool) *colSummary {
	s := &colSummary{}
	var centers, ratios []float64
	nBase, bad := 0, false
	for _, row := range t.rows {
		if t.cells[cellKey{row, t.cols[0]}] != nil {
			nBase++
		}
		c := t.cells[cellKey{row, col}]
		if c == nil {
			continue
		}
		centers = append(centers, c.summary.Center)
		if c.base != nil {
			n, o := c.summary.Center, c.base.summary.Center
			switch {
			case n == o:
				ratios = append(ratios, 1)
			case o == 0:
				bad = true
				ratios = append(ratios, 0)
			default:
				ratios = append(ratios, n/o)
			}
		}
	}
	if !isBase && len(ratios) != nBase {
		s.notes = append(s.notes, errors.New("benchmark set differs from baseline; geomeans may not be comparable"))
	}
	if gm := geomean(centers); math.IsNaN(gm) {
		s.notes = append(s.notes, errors.New("summaries must be >0 to compute geomean"))
	} else {
		s.center, s.hasCenter = gm, true
	}
	if !isBase && !bad {
		if gm := geomean(ratios); math.IsNaN(gm) {
			s.notes = append(s.notes, errors.New("ratios must be >0 to compute geomean"))
		} else {
			s.ratio, s.hasRatio = gm, true
		}
	}
	return s
}

// geomean is NaN unless every value is positive.
func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		if !(x > 0) {
			return math.NaN()
		}
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}
