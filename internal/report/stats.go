package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// Options say how to lay results out, as contend compare's and table's
// flags do.
type Options struct {
	Row, Col   string  // projections (benchproc syntax) of rows and columns
	Filter     string  // benchproc filter of the results used
	Ignore     string  // keys whose variation within a cell is expected (the date)
	Units      string  // the units shown, comma-separated; "" for all but bench.DetailUnits
	Alpha      float64 // significance level of comparisons
	Confidence float64 // confidence level of the ± ranges
	Compare    bool    // compare columns with the first, with a geomean row
	// Paired says the columns were measured in one session, interleaved
	// round by round, so that the i-th samples of a row's cells pair
	// (Report.Gate judges only such a report).
	Paired    bool
	FullNames bool // label rows with whole benchmark names, not only the keys that vary
}

// A Report is the tables of one compare or table run, and the results
// they were built from (whose configuration heads the output).
type Report struct {
	tables  []*table
	results []*benchfmt.Result
	ignore  map[string]bool
	compare bool
	paired  bool
	// unitsNamed says Options.Units chose the units (the gate then
	// judges run figures too).
	unitsNamed bool

	fullNames bool
	el        *elider // the row names' elider, built on first use
	// alpha is the significance level comparisons are judged at. It is
	// kept here, not read from each benchmath.Comparison, whose Alpha is
	// 0 under assume=exact and assume=normal.
	alpha float64
}

// A table is one unit's rows × columns of summarized samples.
type table struct {
	unit       string // tidied: sec/op, not ns/op
	better     int    // +1 higher is better, -1 lower, 0 unknown
	rows, cols []benchproc.Key
	cells      map[cellKey]*cell
	geomean    []*colSummary // per column; nil without comparisons or with one row
}

type cellKey struct{ row, col benchproc.Key }

type cell struct {
	values    []float64 // sorted once summarized
	ordered   []float64 // the values in file order: a session's rounds (Gate pairs them)
	disturbed int       // how many of the values come from disturbed runs
	clock     []float64 // each value's run's clock-sec, where it has one
	residue   map[benchproc.Key]bool
	// belowClock is the clock's cost where the cell is a latency quantile
	// below it (see bench.LatencyClock), else 0.
	belowClock float64
	sum        *results.Summary
	base       *cell // the first column's cell of this row, when comparing
	cmp        benchmath.Comparison
	notes      []error

	// unconverged says some of the values come from a sweep's
	// configuration whose adaptive rounds never reached their confidence
	// target (results.Convergence).
	unconverged bool
}

type colSummary struct {
	center, ratio       float64
	hasCenter, hasRatio bool
	notes               []error
}

// Build projects rs into one table per unit and summarizes every cell.
func Build(rs *results.Set, o Options) (*Report, error) {
	p, err := newProjector(rs, o)
	if err != nil {
		return nil, err
	}
	rep := &Report{ignore: p.ignore, compare: o.Compare, paired: o.Paired, unitsNamed: o.Units != "", fullNames: o.FullNames, alpha: cmp.Or(o.Alpha, 0.05)}
	// Each result filtered once (a copy: a filter on .unit edits Values),
	// then stripped to the units shown, which by default depend on what
	// the filter kept.
	var picked []*benchfmt.Result
	var disturbed, unconverged []bool
	for _, r := range rs.Results {
		c := r.Clone()
		if ok, _ := p.filter.Apply(c); ok {
			picked = append(picked, c)
			disturbed = append(disturbed, results.Disturbed(r)) // before -unit drops lost-%
			cv, ok := rs.Convergence(r)
			unconverged = append(unconverged, ok && !cv.Converged)
		}
	}
	units := p.units
	if units == nil {
		units = defaultUnits(picked)
	}
	tables := map[benchproc.Key]*table{}
	var tableKeys []benchproc.Key
	for i, r := range picked {
		clock, hasClock := r.Value(bench.LatencyClock.Name) // before -unit drops it
		if !hasClock {
			clock = math.NaN()
		}
		if !keepUnits(r, units) {
			continue
		}
		rep.results = append(rep.results, r)
		row, col, res := p.rowBy.Project(r), p.colBy.Project(r), p.residue.Project(r)
		for vi, tk := range p.tableBy.ProjectValues(r) {
			t := tables[tk]
			if t == nil {
				t = &table{unit: tk.Get(p.unitField), cells: map[cellKey]*cell{}}
				tables[tk] = t
				tableKeys = append(tableKeys, tk)
			}
			t.add(row, col, res, r.Values[vi].Value, disturbed[i], clock)
			if unconverged[i] {
				t.cells[cellKey{row, col}].unconverged = true
			}
		}
	}
	if len(rep.results) == 0 {
		if o.Units != "" {
			return nil, fmt.Errorf("no results match -filter %q and -unit %q", o.Filter, o.Units)
		}
		return nil, fmt.Errorf("no results match -filter %q", o.Filter)
	}

	thresholds := benchmath.DefaultThresholds
	if o.Compare {
		thresholds.CompareAlpha = o.Alpha
	}
	benchproc.SortKeys(tableKeys)
	for _, tk := range tableKeys {
		t := tables[tk]
		t.better = rs.Units.GetBetter(t.unit)
		t.summarize(rs.Units.GetAssumption(t.unit), &thresholds, o)
		rep.tables = append(rep.tables, t)
	}
	return rep, nil
}

// A projector is Options parsed against a result set: the filter, the
// projections into tables, rows and columns, and the units kept.
type projector struct {
	filter                         *benchproc.Filter
	tableBy, rowBy, colBy, residue *benchproc.Projection
	unitField                      *benchproc.Field
	ignore                         map[string]bool
	units                          map[string]bool // -unit's; nil: the default (defaultUnits)
}

func newProjector(rs *results.Set, o Options) (*projector, error) {
	p := &projector{ignore: map[string]bool{}}
	var err error
	if p.filter, err = benchproc.NewFilter(o.Filter); err != nil {
		return nil, fmt.Errorf("-filter %q: %w", o.Filter, results.OneLine(err))
	}
	var parser benchproc.ProjectionParser
	if p.tableBy, p.unitField, err = parser.ParseWithUnit("", p.filter); err != nil {
		return nil, err
	}
	parse := func(name, expr string) (*benchproc.Projection, error) {
		proj, err := parser.Parse(expr, p.filter)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", name, expr, results.OneLine(err))
		}
		if err := rs.CheckKeys(name, proj); err != nil {
			return nil, err
		}
		return proj, nil
	}
	if p.rowBy, err = parse("-row", o.Row); err != nil {
		return nil, err
	}
	if p.colBy, err = parse("-col", o.Col); err != nil {
		return nil, err
	}
	ignoreBy, err := parser.Parse(o.Ignore, p.filter)
	if err != nil {
		return nil, fmt.Errorf("-ignore %q: %w", o.Ignore, results.OneLine(err))
	}
	for _, f := range ignoreBy.Fields() {
		p.ignore[f.Name] = true
	}
	p.residue = parser.Residue()
	if p.units, err = rs.SelectUnits(o.Units); err != nil {
		return nil, err
	}
	return p, nil
}

// defaultUnits is the units a table shows when -unit names none: every unit
// of the results the filter kept except bench.DetailUnits (the disturbance
// figures, which show as a note on the cells they concern, and worker-cv-%,
// whose ± range is noise), unless nothing else is left. nil means all.
func defaultUnits(picked []*benchfmt.Result) map[string]bool {
	detail := map[string]bool{}
	for _, u := range bench.DetailUnits {
		detail[results.TidyUnit(u.Name)] = true
	}
	units := map[string]bool{}
	hidden := false
	for _, r := range picked {
		for _, v := range r.Values {
			if detail[v.Unit] {
				hidden = true
			} else {
				units[v.Unit] = true
			}
		}
	}
	if !hidden || len(units) == 0 {
		return nil
	}
	return units
}

// keepUnits drops from r the values of units not in units (nil: keeps
// all), and reports whether any are left.
func keepUnits(r *benchfmt.Result, units map[string]bool) bool {
	if units != nil {
		r.Values = slices.DeleteFunc(r.Values, func(v benchfmt.Value) bool { return !units[v.Unit] })
	}
	return len(r.Values) > 0
}

// add puts one value into the cell at row, col; disturbed says it comes
// from a disturbed run, clock is its run's clock-sec (NaN if none).
func (t *table) add(row, col, residue benchproc.Key, v float64, disturbed bool, clock float64) {
	c := t.cells[cellKey{row, col}]
	if c == nil {
		c = &cell{residue: map[benchproc.Key]bool{}}
		t.cells[cellKey{row, col}] = c
		t.rows = appendKey(t.rows, row)
		t.cols = appendKey(t.cols, col)
	}
	c.values = append(c.values, v)
	if !math.IsNaN(clock) {
		c.clock = append(c.clock, clock)
	}
	if disturbed {
		c.disturbed++
	}
	c.residue[residue] = true
}

// errDisturbed is the note on a cell whose samples include a disturbed run.
// It gives no count, so that every such cell shares one footnote, as
// benchstat's notes do; the count is in -json's "disturbed".
var errDisturbed = fmt.Errorf("samples include disturbed runs: a worker lost over %g%% of its time to other tasks, the hypervisor or sleeping (-unit lost-%%,wait-%%,steal-%% shows them)", bench.DisturbedPct)

// errUnconverged is the note on a cell whose samples include a sweep's
// configuration that ran its most rounds without its confidence interval
// reaching the sweep's target (its "# rounds:" line says how far it got).
var errUnconverged = errors.New("never converged: the sweep ran its most rounds without the 95% interval of this configuration's ns/op median reaching its target (the results file's \"# rounds:\" line says how far it got)")

// errBelowClock is the note on a latency quantile below the clock.
var errBelowClock = errors.New("below the clock: an operation cheaper than timing one (clock-sec) cannot be timed alone; ns/op times operations in bulk")

// clockFloor returns the median clock cost of a latency quantile cell's
// runs, or 0 for other units and for runs that recorded none.
func (t *table) clockFloor(c *cell) float64 {
	if len(c.clock) == 0 || !slices.ContainsFunc(bench.LatencyQuantiles, func(u bench.Unit) bool { return results.TidyUnit(u.Name) == t.unit }) {
		return 0
	}
	cs := slices.Sorted(slices.Values(c.clock))
	return cs[len(cs)/2]
}

func appendKey(keys []benchproc.Key, k benchproc.Key) []benchproc.Key {
	for _, have := range keys {
		if have == k {
			return keys
		}
	}
	return append(keys, k)
}

func (t *table) summarize(a benchmath.Assumption, th *benchmath.Thresholds, o Options) {
	benchproc.SortKeys(t.rows)
	benchproc.SortKeys(t.cols)
	for _, c := range t.cells {
		c.ordered = slices.Clone(c.values) // Summarize sorts values in place
		c.sum = results.Summarize(c.values, a, th, o.Confidence)
		c.notes = append(c.notes, c.sum.Sample.Warnings...)
		c.notes = append(c.notes, c.sum.Warnings...)
		if c.disturbed > 0 {
			c.notes = append(c.notes, errDisturbed)
		}
		if c.unconverged {
			c.notes = append(c.notes, errUnconverged)
		}
		if clock := t.clockFloor(c); clock > 0 && c.sum.Center < clock {
			c.belowClock = clock
			c.notes = append(c.notes, errBelowClock)
		}
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
	if !o.Compare {
		return
	}
	for key, c := range t.cells {
		if key.col == t.cols[0] {
			continue
		}
		if base := t.cells[cellKey{key.row, t.cols[0]}]; base != nil {
			c.base = base
			c.cmp = c.sum.Compare(a, base.sum)
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
func (t *table) summarizeCol(col benchproc.Key, isBase bool) *colSummary {
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
		centers = append(centers, c.sum.Center)
		if c.base != nil {
			n, o := c.sum.Center, c.base.sum.Center
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
