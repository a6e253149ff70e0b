package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
)

// A textTable lays out a table for a fixed-width font: a label column, then
// column groups (one per file, or per thread count), each made of
// sub-columns (the median, its ± range, a delta, ...). Header cells span
// sub-columns and are centred or left-aligned over them; body cells are one
// per sub-column. The look is benchstat's, so the two read alike side by side.
type textTable struct {
	groups [][]subCol
	header [][]headCell
	body   []textRow
}

// A subCol is one sub-column: margin is printed before a non-empty cell (the
// " ± " before a range keeps the ± signs aligned); right aligns numbers.
type subCol struct {
	margin string
	right  bool
}

type headCell struct {
	group, sub, span int
	text             string
	left             bool // centred unless left
}

type textRow struct {
	label string
	cells [][]string // [group][sub]; short or nil slices are empty cells
}

func (t *textTable) write(w io.Writer) error {
	off, total := t.layout()
	var out strings.Builder
	emit := func(line []rune) {
		out.WriteString(strings.TrimRight(string(line), " "))
		out.WriteByte('\n')
	}
	for _, hl := range t.header {
		line := blank(total + 2)
		for g := range t.groups {
			put(line, off[g][0]-2, "│")
		}
		put(line, total+1, "│")
		for _, h := range hl {
			l, r := off[h.group][h.sub], off[h.group][h.sub+h.span]
			pad := 0
			if !h.left {
				pad = (r - l - width(h.text)) / 2
			}
			put(line, l+pad, h.text)
		}
		emit(line)
	}
	for _, r := range t.body {
		line := blank(total)
		put(line, 0, r.label)
		for g, cells := range r.cells {
			for s, c := range cells {
				if c == "" {
					continue
				}
				sc := t.groups[g][s]
				if sc.right {
					put(line, off[g][s], sc.margin)
					put(line, off[g][s+1]-width(c), c)
				} else {
					put(line, off[g][s], sc.margin+c)
				}
			}
		}
		emit(line)
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// layout returns where each sub-column starts, off[group][sub] (with one
// more entry per group: where it ends), and the width of a body line.
func (t *textTable) layout() (off [][]int, total int) {
	ws, label := t.widths()
	// " │ " (or three spaces) before each group.
	off = make([][]int, len(t.groups))
	x := label
	for g := range t.groups {
		x += 3
		off[g] = make([]int, len(ws[g])+1)
		for s, wd := range ws[g] {
			off[g][s] = x
			x += wd
		}
		off[g][len(ws[g])] = x
	}
	return off, x
}

// widths returns each sub-column's width, margins included, and the label
// column's: wide enough for the body, and for every header.
func (t *textTable) widths() (ws [][]int, label int) {
	ws = make([][]int, len(t.groups))
	for g, subs := range t.groups {
		ws[g] = make([]int, len(subs))
	}
	for _, r := range t.body {
		label = max(label, width(r.label))
		for g, cells := range r.cells {
			for s, c := range cells {
				if c != "" {
					ws[g][s] = max(ws[g][s], width(t.groups[g][s].margin)+width(c))
				}
			}
		}
	}
	// Widen the first spanned sub-column of any header that does not fit.
	for _, line := range t.header {
		for _, h := range line {
			have := 0
			for s := h.sub; s < h.sub+h.span; s++ {
				have += ws[h.group][s]
			}
			if need := width(h.text); need > have {
				ws[h.group][h.sub] += need - have
			}
		}
	}
	return ws, label
}

func blank(n int) []rune { return []rune(strings.Repeat(" ", n)) }

func put(line []rune, at int, s string) { copy(line[at:], []rune(s)) }

func width(s string) int { return utf8.RuneCountInString(s) }

// WriteText writes the report as text: the shared configuration, then one
// table per unit, laid out as benchstat lays out its tables.
func (rep *Report) WriteText(w io.Writer) error {
	var out strings.Builder
	writeConfig(&out, rep.results, rep.ignore)
	rep.writeShared(&out)
	if rep.compare {
		// Say which keys tell the files apart, and what plain benchstat
		// would need to compare them rather than print separate tables.
		if diff := differingKeys(rep.results); len(diff) > 0 {
			fmt.Fprintf(&out, "\nconfiguration differs between the files in: %s (plain benchstat: -ignore %s)\n",
				strings.Join(diff, ", "), strings.Join(diff, ","))
		}
	}
	for _, t := range rep.tables {
		out.WriteString("\n")
		rep.writeTable(&out, t)
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// Sub-columns of a column group: median, ± range, notes; compared columns
// add delta, verdict and (p= n=) before the notes.
var (
	baseSubs = []subCol{{right: true}, {margin: " ± ", right: true}, {margin: " "}}
	cmpSubs  = []subCol{{right: true}, {margin: " ± ", right: true}, {margin: "  ", right: true}, {margin: " "}, {margin: " "}, {margin: " "}}
)

// heads returns a table's column groups and its two header lines: the
// column labels, and the unit (with "vs base" over the deltas).
func (rep *Report) heads(t *table) (groups [][]subCol, header [][]headCell) {
	var labels, units []headCell
	for g, col := range t.cols {
		subs := baseSubs
		if rep.compare && g > 0 {
			subs = cmpSubs
		}
		groups = append(groups, subs)
		labels = append(labels, headCell{group: g, span: len(subs), text: keyLabel(col)})
		units = append(units, headCell{group: g, span: 2, text: t.unit})
		if rep.compare && g > 0 {
			units = append(units, headCell{group: g, sub: 2, span: 3, text: "  vs base", left: true})
		}
	}
	return groups, [][]headCell{labels, units}
}

func (rep *Report) writeTable(w io.Writer, t *table) {
	fmt.Fprintf(w, "%s: %s\n", t.unit, direction(t.better))
	var tt textTable
	var notes []string
	mark := func(errs ...error) string {
		var ms []string
		for _, e := range errs {
			i := slices.Index(notes, e.Error())
			if i < 0 {
				i = len(notes)
				notes = append(notes, e.Error())
			}
			ms = append(ms, superscript(i+1))
		}
		return strings.Join(ms, " ")
	}
	tt.groups, tt.header = rep.heads(t)

	class := benchunit.ClassOf(t.unit)
	for _, row := range t.rows {
		r := textRow{label: rep.label(rep.elider(), row), cells: make([][]string, len(t.cols))}
		var centers []float64
		for _, col := range t.cols {
			if c := t.cells[cellKey{row, col}]; c != nil {
				centers = append(centers, max(c.sum.Center, c.belowClock))
			}
		}
		scale := benchunit.CommonScale(centers, class)
		for g, col := range t.cols {
			c := t.cells[cellKey{row, col}]
			if c == nil {
				continue
			}
			cells := []string{formatCenter(scale, t.unit, c.sum.Center), c.sum.PctRangeString()}
			if c.belowClock > 0 {
				cells = []string{"< " + formatCenter(scale, t.unit, c.belowClock), ""}
			}
			if rep.compare && g > 0 {
				if c.base != nil {
					delta := c.cmp.FormatDelta(c.base.sum.Center, c.sum.Center)
					cells = append(cells, delta, verdict(delta, t.better), "("+c.cmp.String()+")")
				} else {
					cells = append(cells, "", "", "")
				}
			}
			r.cells[g] = append(cells, mark(c.notes...))
		}
		tt.body = append(tt.body, r)
	}
	if t.geomean != nil {
		r := textRow{label: "geomean", cells: make([][]string, len(t.cols))}
		for g, s := range t.geomean {
			center := ""
			if s.hasCenter {
				center = formatCenter(benchunit.CommonScale([]float64{s.center}, class), t.unit, s.center)
			}
			cells := []string{center, ""}
			if g > 0 {
				delta := "?"
				if s.hasRatio {
					delta = fmt.Sprintf("%+.2f%%", (s.ratio-1)*100)
				}
				cells = append(cells, delta, "", "")
			}
			r.cells[g] = append(cells, mark(s.notes...))
		}
		tt.body = append(tt.body, r)
	}
	tt.write(w)
	for i, n := range notes {
		fmt.Fprintf(w, "%s %s\n", superscript(i+1), n)
	}
}

func direction(better int) string {
	switch {
	case better > 0:
		return "higher is better"
	case better < 0:
		return "lower is better"
	}
	return "no Unit better= line, so no better/worse verdicts"
}

// verdict reads a significant delta in the unit's direction.
func verdict(delta string, better int) string {
	if better == 0 || !strings.HasSuffix(delta, "%") || delta == "0.00%" {
		return ""
	}
	if (delta[0] == '+') == (better > 0) {
		return "better"
	}
	return "worse"
}

// keyLabel names a row or column: values of whole-name keys as they are,
// name and config keys as key=value.
func keyLabel(k benchproc.Key) string {
	var parts []string
	for _, f := range k.Projection().FlattenedFields() {
		v := k.Get(f)
		switch {
		case v == "":
		case strings.HasPrefix(f.Name, "."):
			parts = append(parts, v)
		default:
			parts = append(parts, strings.TrimPrefix(f.Name, "/")+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	d := []rune(digits)
	s := ""
	for ; n > 0; n /= 10 {
		s = string(d[n%10]) + s
	}
	return s
}

// jsonCell is one cell of a table as WriteJSON prints it: the summary of
// one configuration's samples of one unit, in the unit's base (tidied)
// form, so 2.5e-08 sec/op rather than 25 ns/op.
type jsonCell struct {
	Unit    string            `json:"unit"`
	Better  string            `json:"better,omitempty"` // lower, higher, or none
	Row     string            `json:"row"`
	RowKeys map[string]string `json:"row_keys"`
	Col     string            `json:"col"`
	ColKeys map[string]string `json:"col_keys"`
	Center  float64           `json:"center"` // the median
	// Lo and Hi are the confidence interval around it, absent where
	// too few samples make none (JSON has no infinity).
	Lo      *float64  `json:"lo,omitempty"`
	Hi      *float64  `json:"hi,omitempty"`
	N       int       `json:"n"`
	Samples []float64 `json:"samples"`
	Disturb int       `json:"disturbed"` // how many samples come from disturbed runs
	// Unconverged: a sweep's adaptive rounds ran out before this cell's
	// confidence interval reached their target.
	Unconverged bool `json:"unconverged,omitempty"`
	// BelowClock is the clock's cost where a latency quantile's median is
	// below it: the figure is the clock's, not the operation's.
	BelowClock float64  `json:"below_clock,omitempty"`
	Delta      string   `json:"delta,omitempty"`
	P          *float64 `json:"p,omitempty"` // of the comparison with the first column
	Verdict    string   `json:"verdict,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	Compared   bool     `json:"compared"`
}

// WriteJSON writes the report's cells as JSON Lines, one object per cell,
// in the order the text tables print them, for scripts that would
// otherwise parse the tables.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, t := range rep.tables {
		for _, row := range t.rows {
			for _, col := range t.cols {
				c := t.cells[cellKey{row, col}]
				if c == nil {
					continue
				}
				jc := jsonCell{
					Unit: t.unit, Better: betterWord(t.better),
					Row: keyLabel(row), RowKeys: keyMap(row), Col: keyLabel(col), ColKeys: keyMap(col),
					Center: c.sum.Center, Lo: finite(c.sum.Lo), Hi: finite(c.sum.Hi), N: len(c.values),
					Samples: c.sum.Sample.Values, Disturb: c.disturbed, BelowClock: c.belowClock, Unconverged: c.unconverged,
				}
				for _, n := range c.notes {
					jc.Notes = append(jc.Notes, n.Error())
				}
				if c.base != nil {
					p := c.cmp.P
					jc.Compared, jc.P = true, &p
					jc.Delta = c.cmp.FormatDelta(c.base.sum.Center, c.sum.Center)
					jc.Verdict = verdict(jc.Delta, t.better)
				}
				if err := enc.Encode(jc); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// finite is &x, or nil for an infinite x.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

func betterWord(better int) string {
	switch {
	case better > 0:
		return "higher"
	case better < 0:
		return "lower"
	}
	return ""
}

// keyMap is a row or column key as its fields and values.
func keyMap(k benchproc.Key) map[string]string {
	m := map[string]string{}
	for _, f := range k.Projection().FlattenedFields() {
		m[f.Name] = k.Get(f)
	}
	return m
}

// formatCenter writes a cell's median as benchstat does (an SI prefix
// common to the row: 20.3µ, 1.5k), except for a percentage, which reads
// wrongly with a prefix ("958.6m" for 0.96%): it is written as it is, to
// four significant figures.
func formatCenter(scale benchunit.Scaler, unit string, v float64) string {
	if strings.HasSuffix(unit, "%") {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return scale.Format(v)
}
