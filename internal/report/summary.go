package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// The summary is what a sweep prints first: the answer in one screen, the
// tables behind it (contend table). Per scenario, one block: the keys its
// runs share on the heading line, then a row for each combination of the
// keys that vary, with the median time per operation and its confidence
// interval at each thread count, the scenario's headline metric at the
// largest thread count, and the row's time against the scenario's first row
// (its baseline: every scenario lists its unpatched variant first) at that
// thread count, as a speed-up (Speedup: "9.09× faster", "1.30× slower"),
// with the U-test's verdict. A summary most of whose cells were disturbed or
// never converged leads with one line that says so (busyLine): a reader of
// a busy machine's tables learns it before the figures, not under them.

// SummaryOptions say how to summarize.
type SummaryOptions struct {
	// File names the results file in the closing line; "" leaves it out.
	File string
	// Headline returns the unit a scenario leads with beside time, by its
	// benchmark name ("LoadAvg" → "shared-writes/op"); nil or "" for none.
	Headline func(bench string) string
	// Disturbers says where to see what disturbed the runs, on the
	// busy-machine line (busyLine): "contend run atomicadd shows who
	// took the cpus" if "" (a sweep's), "the WARNING lines above say
	// who took the cpus" for contend run -count, which printed them.
	Disturbers string
	// Alpha is the significance level of the comparisons with the
	// baseline (0.05 if zero); Confidence the level of the intervals
	// (0.95 if zero).
	Alpha, Confidence float64
}

// timeUnit is the tidied unit of ns/op.
const timeUnit = "sec/op"

// A summaryCell is one row's samples at one thread count.
type summaryCell struct {
	times, head []float64
	disturbed   bool
	sum         *results.Summary

	unconverged bool // a sweep's adaptive rounds ran out before its target (results.Convergence)
}

type summaryRow struct {
	label []string // the varying keys' values
	place string   // the row's placement, which its baseline must share
	cells map[int]*summaryCell
}

type summaryBlock struct {
	bench    string
	common   []string
	keys     []string // the varying keys, labels of the row columns
	threads  []int
	rows     []*summaryRow
	headUnit string
}

// WriteSummary writes the summary of rs.
func WriteSummary(w io.Writer, rs *results.Set, o SummaryOptions) error {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	blocks := summaryBlocks(rs, o)
	if len(blocks) == 0 {
		return fmt.Errorf("no results with a time per operation to summarize")
	}
	var out strings.Builder
	if l := busyLine(blocks, o.Disturbers); l != "" {
		fmt.Fprintf(&out, "%s\n", l)
	}
	if m := machineLine(rs.Results); m != "" {
		fmt.Fprintf(&out, "%s\n", m)
	}
	fmt.Fprintf(&out, "%s\n", runsLine(blocks, o.Confidence))
	th := benchmath.DefaultThresholds
	th.CompareAlpha = o.Alpha
	assume := rs.Units.GetAssumption(timeUnit)
	disturbed := 0
	for _, b := range blocks {
		out.WriteString("\n")
		disturbed += b.write(&out, assume, &th, o)
	}
	out.WriteString("\n")
	if strings.Contains(out.String(), "±∞") {
		need := ""
		if o.Confidence == 0.95 {
			need = " (that takes 6)"
		}
		fmt.Fprintf(&out, "±∞: too few runs for a %g%% confidence interval of the median%s\n", o.Confidence*100, need)
	}
	if disturbed > 0 {
		cells := "cells include"
		if disturbed == 1 {
			cells = "cell includes"
		}
		fmt.Fprintf(&out, "¹ %d %s a disturbed run (another task, the hypervisor or sleep took over %g%% of a worker's time): read them with care\n",
			disturbed, cells, bench.DisturbedPct)
	}
	if n := countCells(blocks).unconverged; n > 0 {
		cells := "cells"
		if n == 1 {
			cells = "cell"
		}
		fmt.Fprintf(&out, "² %d %s never converged: all rounds ran, the 95%% interval still over its target (the file's \"# rounds:\" lines say how far)\n", n, cells)
	}
	if slices.ContainsFunc(blocks, func(b *summaryBlock) bool { return len(b.rows) > 1 }) {
		// Not "the scenario's first row": balanceflag's pace=on rows
		// have their own base, as cpumask's several workloads do.
		fmt.Fprintf(&out, "vs base: each row against the row marked base above it: its scenario's first with the same workload (keys beside the fix,\n"+
			"  such as pace=) and placement, at the largest thread count; N× faster: base time over the row's; ~: the U-test finds no difference (p ≥ %g)\n", o.Alpha)
	}
	if o.File != "" {
		fmt.Fprintf(&out, "every table: contend table %s   (whole names: -full-names; JSON: -json)\n", o.File)
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// summaryBlocks groups the results with a time per operation by benchmark.
func summaryBlocks(rs *results.Set, o SummaryOptions) []*summaryBlock {
	var names []string
	for _, r := range rs.Results {
		if _, ok := r.Value(timeUnit); ok {
			names = append(names, withoutThreads(r.Name.Full()))
		}
	}
	el := newElider(names)
	byBench := map[string]*summaryBlock{}
	var blocks []*summaryBlock
	for _, r := range rs.Results {
		t, ok := r.Value(timeUnit)
		if !ok {
			continue
		}
		base, parts := splitName(string(r.Name.Full()))
		b := byBench[base]
		if b == nil {
			b = &summaryBlock{bench: base, common: el.common(base), keys: el.varying(base)}
			b.keys = slices.DeleteFunc(b.keys, func(k string) bool { return k == "threads" })
			if o.Headline != nil {
				b.headUnit = results.TidyUnit(o.Headline(base))
			}
			byBench[base] = b
			blocks = append(blocks, b)
		}
		threads, _ := strconv.Atoi(partValue(parts, "threads"))
		if !slices.Contains(b.threads, threads) {
			b.threads = append(b.threads, threads)
		}
		row := b.row(parts)
		c := row.cells[threads]
		if c == nil {
			c = &summaryCell{}
			row.cells[threads] = c
		}
		c.times = append(c.times, t)
		if b.headUnit != "" {
			if v, ok := r.Value(b.headUnit); ok {
				c.head = append(c.head, v)
			}
		}
		c.disturbed = c.disturbed || results.Disturbed(r)
		if cv, ok := rs.Convergence(r); ok && !cv.Converged {
			c.unconverged = true
		}
	}
	for _, b := range blocks {
		slices.Sort(b.threads)
	}
	return blocks
}

// withoutThreads drops the /threads= part of a full name: thread counts are
// the summary's columns, not part of a row.
func withoutThreads(full []byte) string {
	base, parts := splitName(string(full))
	var b strings.Builder
	b.WriteString(base)
	for _, p := range parts {
		if p.key != "threads" {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// row returns the row of a result's name parts, making it on first sight.
func (b *summaryBlock) row(parts []namePart) *summaryRow {
	var label []string
	for _, k := range b.keys {
		label = append(label, partValue(parts, k))
	}
	for _, r := range b.rows {
		if slices.Equal(r.label, label) {
			return r
		}
	}
	r := &summaryRow{label: label, place: partValue(parts, "place"), cells: map[int]*summaryCell{}}
	b.rows = append(b.rows, r)
	return r
}

// base returns the baseline of row: the block's first row that runs the same
// workload on the same placement. By the scenarios' convention a variant's
// first key names the fix (line, order, update, preset, iter, wake), so that
// key is what rows are compared across, together with the keys it decides
// (a preset's write=, idlemask's scan=): a key that takes one value for each
// value of the first is part of the fix. Any other varying key (balanceflag's
// pace=) describes the workload, which the baseline must share.
func (b *summaryBlock) base(row *summaryRow) *summaryRow {
	workload := b.workloadKeys()
	for _, r := range b.rows {
		same := r.place == row.place
		for _, i := range workload {
			same = same && r.label[i] == row.label[i]
		}
		if same {
			return r
		}
	}
	return row
}

// workloadKeys returns the indexes of the varying keys not decided by the
// first.
func (b *summaryBlock) workloadKeys() []int {
	var ks []int
	for i := 1; i < len(b.keys); i++ {
		decided := map[string]string{}
		for _, r := range b.rows {
			if v, seen := decided[r.label[0]]; seen && v != r.label[i] {
				ks = append(ks, i)
				break
			}
			decided[r.label[0]] = r.label[i]
		}
	}
	return ks
}

// write writes the block and returns how many of its cells include a
// disturbed run.
func (b *summaryBlock) write(out *strings.Builder, assume benchmath.Assumption, th *benchmath.Thresholds, o SummaryOptions) int {
	for _, r := range b.rows {
		for _, c := range r.cells {
			c.sum = results.Summarize(c.times, assume, th, o.Confidence)
		}
	}
	top := b.threads[len(b.threads)-1]
	fmt.Fprintf(out, "%s", b.bench)
	if len(b.common) > 0 {
		fmt.Fprintf(out, "   %s", wrapWords(b.common, 150-len(b.bench)))
	}
	out.WriteString("\n")

	// Columns: the varying keys, then median and ± (and a mark) per
	// thread count, the headline, the comparison.
	var g textGrid
	head := slices.Clone(b.keys)
	for _, n := range b.threads {
		head = append(head, fmt.Sprintf("threads=%d", n), "", "")
	}
	if b.headUnit != "" {
		head = append(head, fmt.Sprintf("%s@%d", b.headUnit, top))
	}
	compare := len(b.rows) > 1
	if compare {
		head = append(head, fmt.Sprintf("vs base@%d", top), "")
	}
	g.add(head...)
	disturbed := 0
	for _, r := range b.rows {
		cells := slices.Clone(r.label)
		for _, n := range b.threads {
			c := r.cells[n]
			if c == nil {
				cells = append(cells, "", "", "")
				continue
			}
			mark := ""
			if c.disturbed {
				mark = "¹"
				disturbed++
			}
			if c.unconverged {
				mark += "²"
			}
			cells = append(cells, Seconds(c.sum.Center), "±"+pctRange(c.sum), mark)
		}
		if b.headUnit != "" {
			h := ""
			if c := r.cells[top]; c != nil && len(c.head) > 0 {
				h = formatValue(b.headUnit, results.Summarize(c.head, assume, th, o.Confidence).Center)
			}
			cells = append(cells, h)
		}
		if compare {
			vs := b.versus(r, top, assume, o.Alpha)
			for len(vs) < 2 {
				vs = append(vs, "")
			}
			cells = append(cells, vs...)
		}
		g.add(cells...)
	}
	// Keys left-aligned; figures right-aligned, the mark after them.
	right := make([]bool, len(head))
	for i := len(b.keys); i < len(head); i++ {
		right[i] = true
	}
	for i := range b.threads {
		right[len(b.keys)+3*i+2] = false // the mark
	}
	if compare {
		right[len(head)-1] = false // the verdict's words
	}
	gap := make([]int, len(head))
	for i := 1; i < len(head); i++ {
		gap[i] = 2
	}
	for i := range b.threads {
		gap[len(b.keys)+3*i+1] = 1 // the ± after its median
		gap[len(b.keys)+3*i+2] = 0 // the mark after its ±
	}
	if compare {
		gap[len(head)-1] = 1
	}
	g.write(out, "  ", right, gap)
	return disturbed
}

// versus compares row's time at threads with its baseline's.
func (b *summaryBlock) versus(row *summaryRow, threads int, assume benchmath.Assumption, alpha float64) []string {
	base := b.base(row)
	if base == row {
		return []string{"base"}
	}
	c, bc := row.cells[threads], base.cells[threads]
	if c == nil || bc == nil || bc.sum.Center == 0 {
		return nil
	}
	cmp := c.sum.Compare(assume, bc.sum)
	ch := Speedup(bc.sum.Center, c.sum.Center)
	if cmp.P >= alpha { // not cmp.Alpha: 0 under assume=exact
		return []string{"~", fmt.Sprintf("(%s, p=%.2f)", ch, cmp.P)}
	}
	if ch.Factor == "" { // significant, yet the medians are equal or one is 0
		return []string{"", fmt.Sprintf("%s, p=%.3f", ch.Word, cmp.P)}
	}
	return []string{ch.Factor, fmt.Sprintf("%s, p=%.3f", ch.Word, cmp.P)}
}

// A Change is a change of a median from a base to a new value, worded as
// people read one: the factor by which the new value is lower or higher,
// never below 1, and the word for the way it went ("9.09×" "faster"). Ratio
// is the one place contend words a ratio of medians, so that no ratio below
// 1 stands beside a word that reads it backwards (TestRatioPhrases holds
// every command's output to that).
type Change struct {
	// Factor is max(base/new, new/base) to three figures, with its ×
	// ("9.09×", "11.2×", "157×"); "" where no factor says it (no change,
	// a fall to 0, a rise from 0).
	Factor string
	// Word is which way the value went (the down or up word given to
	// Ratio), or "no change", "down to 0", "up from 0".
	Word string
}

// String is the change as one phrase: "9.09× faster", "no change".
func (c Change) String() string {
	if c.Factor == "" {
		return c.Word
	}
	return c.Factor + " " + c.Word
}

// Ratio words the change from base to new: down is the word for a fall
// ("faster" for a time, "lower"), up for a rise ("slower", "higher").
func Ratio(base, new float64, down, up string) Change {
	switch {
	case new == base:
		return Change{Word: "no change"}
	case new == 0:
		return Change{Word: "down to 0"}
	case base == 0:
		return Change{Word: "up from 0"}
	case new < base:
		return Change{factorString(base / new), down}
	default:
		return Change{factorString(new / base), up}
	}
}

// Speedup words a change of time from base to new: "9.09× faster" where
// new is a ninth of base, "1.30× slower" where it is 1.3 times base.
func Speedup(base, new float64) Change { return Ratio(base, new, "faster", "slower") }

// factorString writes a factor of at least 1 to three figures, with its ×.
func factorString(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f×", r)
	case r >= 10:
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// pctRange is a cell's confidence interval as a share of its median
// ("3%"), or "?" when the samples are too few for one.
func pctRange(s *results.Summary) string {
	r := strings.TrimSpace(strings.TrimPrefix(s.PctRangeString(), "±"))
	return r
}

// Seconds writes a time in seconds as the tables do (benchunit's SI scale):
// 823.5ns, 1.330µs; 0 as "0s".
func Seconds(sec float64) string {
	if sec == 0 {
		return "0s"
	}
	return benchunit.Scale(sec, benchunit.Decimal) + "s"
}

// Latency writes a sampled latency quantile for people: as Seconds, or
// "< C" where it is below the clock's cost C (bench.LatencyClock), where
// timing one operation alone no longer resolves it.
func Latency(sec, clock float64) string {
	if clock > 0 && sec < clock {
		return "< " + Seconds(clock)
	}
	return Seconds(sec)
}

// formatValue writes a metric's median as the tables do.
func formatValue(unit string, v float64) string {
	return formatCenter(benchunit.CommonScale([]float64{v}, benchunit.ClassOf(unit)), unit, v)
}

// wrapWords joins words with spaces, cut to width with a final "…".
func wrapWords(words []string, width int) string {
	s := strings.Join(words, " ")
	if width > 10 && len(s) > width {
		cut := strings.LastIndexByte(s[:width-1], ' ')
		if cut < 0 {
			cut = width - 1
		}
		s = s[:cut] + " …"
	}
	return s
}

// runsLine says how many runs each cell has, and at what confidence.
func runsLine(blocks []*summaryBlock, confidence float64) string {
	lo, hi := -1, 0
	for _, b := range blocks {
		for _, r := range b.rows {
			for _, c := range r.cells {
				n := len(c.times)
				if lo < 0 || n < lo {
					lo = n
				}
				hi = max(hi, n)
			}
		}
	}
	runs := strconv.Itoa(lo)
	if hi != lo {
		runs = fmt.Sprintf("%d-%d", lo, hi)
	}
	return fmt.Sprintf("time per operation: median of %s runs ± its %g%% confidence interval", runs, confidence*100)
}

// machineLine names the machine the results came from, in one line, from
// the files' configuration: what a reader needs to know whether the figures
// apply to their machine.
func machineLine(rs []*benchfmt.Result) string {
	if len(rs) == 0 {
		return ""
	}
	r := rs[0]
	get := func(k string) string { return r.GetConfig(k) }
	var parts []string
	if cpu := strings.Join(strings.Fields(get("cpu")), " "); cpu != "" {
		// CPUID pads a brand with spaces ("Oxide Virtual Turin-like
		// Processor              "), which the file keeps as it is.
		id := cpu
		if f, m := get("cpu_family"), get("cpu_model"); f != "" && m != "" {
			id += fmt.Sprintf(" (family %s model %s)", f, m)
		}
		parts = append(parts, id)
	}
	if c := get("cpus"); c != "" {
		parts = append(parts, "cpus "+c)
	}
	if n := get("nodes"); n != "" {
		nodes := n + " nodes"
		if n == "1" {
			nodes = "1 node"
		}
		if t := get("topology"); t != "" && t != "real" {
			nodes += " (" + strings.ToUpper(t) + ": not real nodes)"
		}
		parts = append(parts, nodes)
	}
	if h := get("hypervisor"); h != "" && h != "none" {
		parts = append(parts, "under "+affinity.HypervisorName(h))
	}
	if k := get("kernel"); k != "" {
		parts = append(parts, "kernel "+k)
	}
	if g := get("go"); g != "" {
		parts = append(parts, g)
	}
	if len(parts) == 0 {
		return ""
	}
	return "machine: " + strings.Join(parts, ", ")
}

// A textGrid is a table of text cells for a fixed-width font, laid out in
// columns as wide as their widest cell. Its first row is a header whose
// cells span the columns with empty header cells after them (threads=2 over
// a median, its ± and its mark).
type textGrid struct{ rows [][]string }

func (g *textGrid) add(cells ...string) { g.rows = append(g.rows, cells) }

// write writes the grid, each line after indent; right says which columns
// align right, gap how many spaces come before each column but the first.
func (g *textGrid) write(out *strings.Builder, indent string, right []bool, gap []int) {
	if len(g.rows) == 0 {
		return
	}
	head := g.rows[0]
	w := make([]int, len(head))
	for _, r := range g.rows[1:] {
		for i, c := range r {
			w[i] = max(w[i], width(c))
		}
	}
	// span returns the header cell i's last column and its width.
	span := func(i int) (int, int) {
		j, have := i, w[i]
		for j+1 < len(head) && head[j+1] == "" {
			j++
			have += gap[j] + w[j]
		}
		return j, have
	}
	for i := range head {
		if head[i] == "" {
			continue
		}
		if _, have := span(i); width(head[i]) > have {
			w[i] += width(head[i]) - have
		}
	}
	put := func(line *strings.Builder, c string, wd int, r bool) {
		pad := strings.Repeat(" ", max(wd-width(c), 0))
		if r {
			line.WriteString(pad + c)
		} else {
			line.WriteString(c + pad)
		}
	}
	for ri, r := range g.rows {
		var line strings.Builder
		line.WriteString(indent)
		for i := 0; i < len(r); i++ {
			if i > 0 {
				line.WriteString(strings.Repeat(" ", gap[i]))
			}
			if ri == 0 {
				j, have := span(i)
				put(&line, r[i], have, right[i])
				i = j
				continue
			}
			put(&line, r[i], w[i], right[i])
		}
		out.WriteString(strings.TrimRight(line.String(), " "))
		out.WriteString("\n")
	}
}

// busyLine is the summary's first line when the machine was too busy for
// its figures to say much about the code: when more than half of the
// cells include a disturbed run or never converged (NOISY where none was
// disturbed, so that a busy machine is not blamed for what disturbance
// accounting did not see). A majority, because then the tables mostly
// measure the load (what the issue saw: 37 of 37 cells disturbed at load 5
// on 2 cpus, intervals of ±2331%), while a few marked cells on a quiet
// machine are what the footnotes under the tables are for. "" otherwise.
func busyLine(blocks []*summaryBlock, disturbers string) string {
	n := countCells(blocks)
	if !busy(n.bad, n.cells) {
		return ""
	}
	// One line, under the summary's 160 columns at 3-digit counts.
	if n.disturbed == 0 {
		// Wide intervals, yet no worker lost its cpu: what took the
		// time is not what disturbance accounting sees (an SMT sibling,
		// frequency changes), or the target is tighter than this
		// machine holds. contend run would say "undisturbed".
		return fmt.Sprintf("NOISY MACHINE: %d of %d cells never converged², no run disturbed: rerun on a quieter machine, or with a larger -count or -ci",
			n.bad, n.cells)
	}
	why := "disturbed¹"
	if n.unconverged > 0 {
		why += " or never converged²"
	}
	if disturbers == "" {
		disturbers = "contend run atomicadd shows who took the cpus"
	}
	return fmt.Sprintf("BUSY MACHINE: %d of %d cells %s: rerun on a quiet machine; %s", n.bad, n.cells, why, disturbers)
}

// busy reports whether bad of cells is most of them: more than half.
func busy(bad, cells int) bool { return 2*bad > cells }

// cellCounts counts a summary's cells: all, those that include a
// disturbed run, those whose sweep's adaptive rounds ran out before their
// confidence target, and those that are either (bad).
type cellCounts struct{ cells, disturbed, unconverged, bad int }

func countCells(blocks []*summaryBlock) cellCounts {
	var n cellCounts
	for _, b := range blocks {
		for _, r := range b.rows {
			for _, c := range r.cells {
				n.cells++
				if c.disturbed {
					n.disturbed++
				}
				if c.unconverged {
					n.unconverged++
				}
				if c.disturbed || c.unconverged {
					n.bad++
				}
			}
		}
	}
	return n
}
