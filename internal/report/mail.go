package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// Comparisons for mail. Kernel engineers paste results into LKML threads,
// where two layouts are settled: the 0-day robot's (lkp), a header naming the
// machine and the commits, then one row per metric of
// "base ±%stddev  %change  new ±%stddev  metric", ± shown only where it is
// large; and the seeds' own, "base: 90569±1.15%  node: 104152±0.34%  +15.0%".
// Both are written here from the same cells as the text tables: the centre of
// each column is the median, as benchstat's (so the numbers read back against
// benchstat's), the ± is the relative standard deviation, as lkp's, and a
// change is printed only where the U-test finds it at the report's α ("~"
// otherwise, benchstat's mark).

// A Format is a layout of a comparison.
type Format string

// The formats of contend compare.
const (
	FormatText     Format = "text"     // benchstat's tables
	FormatLKP      Format = "lkp"      // the 0-day robot's comparison
	FormatSeed     Format = "seed"     // the seeds' "base: x±s%  new: y±s%  +d%"
	FormatMarkdown Format = "markdown" // a Markdown table
)

// Formats lists every format, for flag help and errors.
var Formats = []Format{FormatText, FormatLKP, FormatSeed, FormatMarkdown}

// ParseFormat returns the format called s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// lkpStddevShown is the smallest relative standard deviation lkp's layout
// prints: below it the figure is steady enough that ± would be clutter.
const lkpStddevShown = 2.0

// A mailRow is one metric of one configuration across the compared columns.
type mailRow struct {
	metric string // "LoadAvg/preset=rate/threads=2 ns/op"
	better int
	cols   []mailCell // one per column; the first is the base
}

type mailCell struct {
	ok          bool
	center      float64 // in the file's unit
	stddevPct   float64 // relative standard deviation, %
	notes       []error // the cell's notes, as the text tables mark them
	n           int
	deltaPct    float64 // against the base column
	p           float64
	significant bool
	compared    bool
}

// mailRows flattens the report's tables into one row per unit and table
// row, the metric named by the row's elided label and the file's unit.
func (rep *Report) mailRows() []mailRow {
	el := rep.elider()
	var rows []mailRow
	for _, t := range rep.tables {
		unit, scale := fileUnit(rep.results, t.unit)
		for _, row := range t.rows {
			mr := mailRow{metric: rep.label(el, row) + " " + unit, better: t.better}
			for _, col := range t.cols {
				c := t.cells[cellKey{row, col}]
				if c == nil {
					mr.cols = append(mr.cols, mailCell{})
					continue
				}
				mc := mailCell{ok: true, center: c.sum.Center * scale, n: len(c.values), notes: provenanceNotes(c.notes)}
				s := stats.Sample{Xs: c.values}
				if m := s.Mean(); m != 0 && len(c.values) > 1 {
					mc.stddevPct = math.Abs(s.StdDev() / m * 100)
				}
				if c.base != nil {
					mc.compared = true
					mc.p = c.cmp.P
					mc.significant = c.cmp.P < rep.alpha
					if o := c.base.sum.Center; o != 0 {
						mc.deltaPct = (c.sum.Center - o) / o * 100
					}
				}
				mr.cols = append(mr.cols, mc)
			}
			rows = append(rows, mr)
		}
	}
	return rows
}

// fileUnit returns the unit the results files wrote a tidied unit in (ns/op
// for sec/op, cas/kernel-sec as it is) and the factor from the tidied value
// to the file's (1e9 for ns/op): mail shows figures as the file has them. Only the units
// benchunit.Tidy rewrote differ (ns to sec and MB to B in the numerator); a
// rate per second of kernel time is not a time, and guessing from the unit's
// spelling once scaled cas/kernel-sec 17.6 to 1.76e+10 cas/kernel-ns.
func fileUnit(rs []*benchfmt.Result, tidied string) (string, float64) {
	for _, r := range rs {
		for _, v := range r.Values {
			if v.Unit != tidied || v.OrigUnit == "" || v.OrigUnit == tidied {
				continue
			}
			// Tidy's factors are powers of ten (ns→sec 1e-9, MB→B
			// 1e6): 1/1e-9 is 999999999.9999999, which would move a
			// median of 85.535 ns from 85.54 to 85.53.
			if f, _ := benchunit.Tidy(1, v.OrigUnit); f > 0 {
				return v.OrigUnit, math.Pow(10, math.Round(-math.Log10(f)))
			}
		}
	}
	return tidied, 1
}

// mailNumber writes a figure to four significant digits, without exponent
// where that is short enough.
func mailNumber(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	switch {
	case a >= 1e4 && a < 1e9:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1e-3 && a < 1e4:
		if s := strconv.FormatFloat(v, 'g', 4, 64); !strings.Contains(s, "e") {
			return s
		}
		return strconv.FormatFloat(v, 'f', 0, 64) // 9999.6 rounds to 10000, not "1e+04"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// provenanceNotes keeps the notes on where a cell's samples come from
// (disturbed runs, unconverged rounds, the clock's floor, results that
// differ in configuration), which mail marks as the tables do; the
// statistics' own remarks ("all samples are equal") stay in the tables.
func provenanceNotes(notes []error) []error {
	var keep []error
	for _, n := range notes {
		if n == errDisturbed || n == errUnconverged || n == errBelowClock || strings.HasPrefix(n.Error(), "results vary in ") {
			keep = append(keep, n)
		}
	}
	return keep
}

// footnotes numbers the distinct notes of the cells a mail shows, as the
// text tables do: a disturbed or unconverged cell carries the same ¹ or ²
// in every format, and the notes follow the table.
type footnotes []string

// mark returns errs' marks ("¹ ²"), numbering notes not seen before.
func (f *footnotes) mark(errs []error) string {
	var ms []string
	for _, e := range errs {
		i := slices.Index(*f, e.Error())
		if i < 0 {
			i = len(*f)
			*f = append(*f, e.Error())
		}
		ms = append(ms, superscript(i+1))
	}
	return strings.Join(ms, "")
}

// write writes one line per note.
func (f footnotes) write(out *strings.Builder) {
	for i, n := range f {
		fmt.Fprintf(out, "%s %s\n", superscript(i+1), n)
	}
}

func (c mailCell) change() string {
	switch {
	case !c.compared:
		return ""
	case !c.significant:
		return "~"
	}
	return fmt.Sprintf("%+.1f%%", c.deltaPct)
}

// WriteFormat writes the report in format f.
func (rep *Report) WriteFormat(w io.Writer, f Format) error {
	switch f {
	case FormatText, "":
		return rep.WriteText(w)
	case FormatLKP:
		return rep.writeLKP(w)
	case FormatSeed:
		return rep.writeSeed(w)
	case FormatMarkdown:
		return rep.writeMarkdown(w)
	}
	return fmt.Errorf("unknown format %q", f)
}

// colNames returns the compared columns' labels (file names, or the -col
// key's values).
func (rep *Report) colNames() []string {
	if len(rep.tables) == 0 {
		return nil
	}
	t := rep.tables[0]
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = keyLabel(c)
	}
	return names
}

// runsWord says how many runs each column's cells hold: "6", or "3-6".
func runsWord(rows []mailRow, col int) string {
	lo, hi := 0, 0
	for _, r := range rows {
		if col >= len(r.cols) || !r.cols[col].ok {
			continue
		}
		n := r.cols[col].n
		if lo == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

func (rep *Report) writeLKP(w io.Writer) error {
	rows := rep.mailRows()
	names := rep.colNames()
	var out strings.Builder
	rule := strings.Repeat("=", 89)
	fmt.Fprintln(&out, rule)
	if m := machineLine(rep.results); m != "" {
		fmt.Fprintln(&out, strings.TrimPrefix(m, "machine: "))
	}
	rep.writeParams(&out)
	fmt.Fprintf(&out, "\ncommit:\n")
	for i, n := range names {
		fmt.Fprintf(&out, "  %s%s (%s runs)\n", n, fileVersion(rep.results, n), runsWord(rows, i))
	}
	out.WriteString("\n")
	for i, n := range names {
		if i > 0 {
			out.WriteString(" ")
		}
		w := 27 // the columns of "%change  new ±%stddev"
		if i == 0 {
			w = 16 // the base's "value ±%stddev"
		}
		out.WriteString(fitLeft(n, w))
	}
	out.WriteString("\n")
	out.WriteString("----------------")
	for range names[1:] {
		out.WriteString(" ---------------------------")
	}
	out.WriteString("\n         %stddev")
	for range names[1:] {
		out.WriteString("     %change         %stddev")
	}
	out.WriteString("\n             \\  ")
	for range names[1:] {
		out.WriteString("        |                \\  ")
	}
	out.WriteString("\n")
	var notes footnotes
	for _, r := range rows {
		for i, c := range r.cols {
			if i > 0 {
				fmt.Fprintf(&out, " %10s ", c.change())
			}
			out.WriteString(lkpValue(c, notes.mark(c.notes)))
		}
		fmt.Fprintf(&out, "  %s\n", r.metric)
	}
	fmt.Fprintf(&out, "\n~: no significant change (Mann-Whitney U-test, p ≥ %g); centres are medians, ± the relative standard deviation where ≥ %g%%\n",
		rep.alpha, lkpStddevShown)
	notes.write(&out)
	_, err := io.WriteString(w, trimLines(out.String()))
	return err
}

// trimLines drops the spaces the fixed-width columns leave at line ends.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// lkpValue writes one column of an lkp row: the figure and its notes' marks
// in 10 columns, then " ± NN%" or as many spaces.
func lkpValue(c mailCell, marks string) string {
	if !c.ok {
		return fmt.Sprintf("%10s%6s", "", "")
	}
	sd := ""
	if c.stddevPct >= lkpStddevShown {
		sd = fmt.Sprintf(" ±%3.0f%%", c.stddevPct)
	}
	return fmt.Sprintf("%10s%-6s", mailNumber(c.center)+marks, sd)
}

func (rep *Report) writeSeed(w io.Writer) error {
	rows := rep.mailRows()
	names := rep.colNames()
	var out strings.Builder
	if m := machineLine(rep.results); m != "" {
		fmt.Fprintln(&out, m)
	}
	rep.writeParams(&out)
	var runs []string
	for i, n := range names {
		runs = append(runs, fmt.Sprintf("%s %s", n, runsWord(rows, i)))
	}
	fmt.Fprintf(&out, "runs: %s\n\n", strings.Join(runs, ", "))
	mw := 0
	for _, r := range rows {
		mw = max(mw, width(r.metric))
	}
	var notes footnotes
	for _, r := range rows {
		fmt.Fprintf(&out, "%-*s", mw, r.metric)
		for i, c := range r.cols {
			if !c.ok {
				continue
			}
			fmt.Fprintf(&out, "  %s: %s±%.2f%%%s", names[i], mailNumber(c.center), c.stddevPct, notes.mark(c.notes))
			if ch := c.change(); ch != "" {
				fmt.Fprintf(&out, " %s", ch)
			}
		}
		out.WriteString("\n")
	}
	fmt.Fprintf(&out, "\n~: no significant change (Mann-Whitney U-test, p ≥ %g); medians ± relative standard deviation\n", rep.alpha)
	notes.write(&out)
	_, err := io.WriteString(w, out.String())
	return err
}

func (rep *Report) writeMarkdown(w io.Writer) error {
	rows := rep.mailRows()
	names := rep.colNames()
	var out strings.Builder
	if m := machineLine(rep.results); m != "" {
		fmt.Fprintf(&out, "%s\n\n", m)
	}
	out.WriteString("| metric |")
	sep := "|---|"
	for i, n := range names {
		fmt.Fprintf(&out, " %s (%s runs) |", n, runsWord(rows, i))
		sep += "---:|"
		if i > 0 {
			out.WriteString(" change | p |")
			sep += "---:|---:|"
		}
	}
	fmt.Fprintf(&out, "\n%s\n", sep)
	var notes footnotes
	for _, r := range rows {
		fmt.Fprintf(&out, "| %s |", strings.ReplaceAll(r.metric, "|", `\|`))
		for i, c := range r.cols {
			if !c.ok {
				out.WriteString(" |")
				if i > 0 {
					out.WriteString(" | |")
				}
				continue
			}
			fmt.Fprintf(&out, " %s ±%.1f%%%s |", mailNumber(c.center), c.stddevPct, notes.mark(c.notes))
			if i > 0 {
				p := ""
				if c.compared {
					p = strconv.FormatFloat(c.p, 'f', 3, 64)
				}
				fmt.Fprintf(&out, " %s | %s |", c.change(), p)
			}
		}
		out.WriteString("\n")
	}
	fmt.Fprintf(&out, "\n~: no significant change (Mann-Whitney U-test, p ≥ %g); medians ± relative standard deviation\n", rep.alpha)
	notes.write(&out)
	_, err := io.WriteString(w, out.String())
	return err
}

// writeParams writes the keys each benchmark's results share (the test
// parameters of lkp's header), one line per benchmark.
func (rep *Report) writeParams(out *strings.Builder) {
	el := rep.elider()
	for _, b := range el.bases {
		if c := el.common(b); len(c) > 0 {
			fmt.Fprintf(out, "%s: %s\n", b, strings.Join(c, " "))
		}
	}
}

// fileVersion returns ": contend VERSION, DATE" for the file labelled
// label, from its results' configuration ("" where they name neither).
func fileVersion(rs []*benchfmt.Result, label string) string {
	for _, r := range rs {
		if r.GetConfig(".file") != label {
			continue
		}
		var parts []string
		if v := r.GetConfig("contend"); v != "" {
			parts = append(parts, "contend "+v)
		}
		if d := r.GetConfig("date"); d != "" {
			parts = append(parts, d)
		}
		if len(parts) == 0 {
			return ""
		}
		return ": " + strings.Join(parts, ", ")
	}
	return ""
}

func fitLeft(s string, w int) string {
	if width(s) >= w {
		return s
	}
	return s + strings.Repeat(" ", w-width(s))
}

// A Regression is a metric that got worse by more than a threshold, with
// the U-test's confidence.
type Regression struct {
	Metric    string
	Base, New float64 // medians, in the metric's display unit
	DeltaPct  float64
	P         float64
	Column    string
	// Paired, from Gate: the median per-round change (%), how many
	// rounds paired and how many were worse than the threshold, and the
	// sign test's p of that many.
	Paired       bool
	PairedPct    float64
	Pairs, Worse int
	SignP        float64
}

// Regressions returns every compared metric whose direction is known and
// that got worse than its base by more than pct percent with p < α: the
// rows that should fail a kernel CI job.
func (rep *Report) Regressions(pct float64) []Regression {
	names := rep.colNames()
	var regs []Regression
	for _, r := range rep.mailRows() {
		if r.better == 0 {
			continue
		}
		for i, c := range r.cols {
			if i == 0 || !c.ok || !c.compared || !c.significant {
				continue
			}
			worse := c.deltaPct * float64(-r.better) // > 0: worse
			if worse > pct {
				regs = append(regs, Regression{Metric: r.metric, Base: r.cols[0].center, New: c.center,
					DeltaPct: c.deltaPct, P: c.p, Column: names[i]})
			}
		}
	}
	return regs
}

// String writes the regression as one line.
func (r Regression) String() string {
	return fmt.Sprintf("%s: %s → %s (%+.1f%%, p=%.3f) in %s%s", r.Metric, mailNumber(r.Base), mailNumber(r.New), r.DeltaPct, r.P, r.Column, r.pairedString())
}
