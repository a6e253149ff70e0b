package reproduce

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// legend says once how every figure and verdict was reached.
const legend = `Figures are medians over the runs. "× lower/higher" is the ratio of medians; an effect counts only at or above the finding's minimum size and when the Mann-Whitney U test (benchstat's) gives p<0.05 ("~" marks p≥0.05). "within ±X%" is an equivalence test: the 90% Hodges-Lehmann confidence interval of the difference lies inside ±X% of the before-median. Figures marked "by construction" follow from the configuration and decide nothing. The mechanism is what each fix must keep doing (find idle cpus, balance, keep tg_weight current): a fix whose claims hold but that does less of its job is "no (wins by not ...)". "At the seed's size" judges the finding's kernel-time simulation (contend simulate) at the seed's machine size: one deterministic run a side, its assumptions named; the pinned verdict is the one this machine earned.`

// Width is the widest line contend reproduce prints: its verdict table's,
// which everything else it prints wraps to.
const Width = 100

// reasonLines is how many lines a reason may take in the verdict table
// before it is cut with "…" (-v and the Markdown table have it whole).
const reasonLines = 2

// WriteText writes the verdicts for a terminal: the machine, one table of
// finding, verdict and reason, and the tally, on the first screen; with
// verbose, then each finding's seed figure, criterion, measurements,
// mechanism and simulation at the seed's size, with the assumptions named;
// without, a line saying where those are (md, the Markdown table, when
// written).
func WriteText(w io.Writer, e *Env, rows []Row, verbose bool, md string) {
	for _, l := range wrap("contend reproduce —", e.machine, Width, "  ") {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	writeVerdicts(w, rows)
	fmt.Fprintln(w)
	if !verbose {
		where := "add -v"
		if md != "" {
			where += ", or see the Markdown table " + md
		}
		for _, l := range wrap("", "Each finding's criterion, figures, mechanism and simulation with its assumptions: "+where+".", Width, "") {
			fmt.Fprintln(w, l)
		}
		return
	}
	for _, r := range rows {
		field := func(label, text string) { writeField(w, label, text) }
		field(fmt.Sprintf("%d. ", r.ID), r.Finding)
		field("   seed:      ", r.Seed)
		field("   criterion: ", r.Criterion)
		field("   measured:  ", r.Measured)
		field("   mechanism: ", r.Mechanism)
		field("   holds:     ", r.Verdict()+" — "+r.Why)
		if s := r.Simulated; s != nil {
			field("   at the seed's size (simulated): ", s.Size)
			field("      verdict:   ", s.Verdict()+" — "+s.Why)
			field("      criterion: ", s.Criterion)
			field("      simulated: ", s.Measured)
			for _, a := range s.Assumptions {
				field("      assumes:   ", a)
			}
		}
		fmt.Fprintln(w)
	}
	for _, l := range wrap("", legend, Width, "") {
		fmt.Fprintln(w, l)
	}
}

// writeField writes label and text wrapped to Width, the text's lines
// after the first indented under its start.
func writeField(w io.Writer, label, text string) {
	for _, l := range wrap(label, text, Width, strings.Repeat(" ", utf8.RuneCountInString(label))) {
		fmt.Fprintln(w, l)
	}
}

// writeVerdicts writes the verdict table and its tally.
func writeVerdicts(w io.Writer, rows []Row) {
	name := len("finding")
	for _, r := range rows {
		name = max(name, utf8.RuneCountInString(r.Short))
	}
	verdict := len(StandNA.Word())
	for s := StandYes; s <= StandNA; s++ {
		verdict = max(verdict, len(s.Word()))
	}
	lead := 2 + 2 + name + 2 + verdict + 2
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-utf8.RuneCountInString(s)) }
	fmt.Fprintf(w, "%2s  %s  %s  %s\n", "#", pad("finding", name), pad("verdict", verdict), "reason")
	for _, r := range rows {
		lines := wrap("", r.Line(), Width-lead, "")
		if len(lines) > reasonLines {
			lines = append(lines[:reasonLines-1], cut(strings.Join(lines[reasonLines-1:], " "), Width-lead))
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
		fmt.Fprintf(w, "%2d  %s  %s  %s\n", r.ID, pad(r.Short, name), pad(r.Standing.Word(), verdict), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", lead), l)
		}
	}
	for _, l := range wrap("", tally(rows), Width, "  ") {
		fmt.Fprintln(w, l)
	}
}

// wrap breaks lead+s into lines of at most width runes at the spaces of
// s, leading each line after the first with indent; lead is kept as it is
// (a label and its padding), and a word longer than a line is broken.
func wrap(lead, s string, width int, indent string) []string {
	var lines []string
	line := lead
	n, empty := utf8.RuneCountInString(line), true // runes in line; no word of s on it yet
	for _, word := range strings.Fields(s) {
		wn := utf8.RuneCountInString(word)
		if !empty && n+1+wn > width {
			lines = append(lines, line)
			line, n, empty = indent, utf8.RuneCountInString(indent), true
		}
		if !empty || (n > 0 && !strings.HasSuffix(line, " ")) {
			line, n = line+" ", n+1
		}
		for n+wn > width { // a word wider than a line: break it
			k := max(width-n, 1)
			r := []rune(word)
			lines = append(lines, line+string(r[:k]))
			word, wn = string(r[k:]), wn-k
			line, n = indent, utf8.RuneCountInString(indent)
		}
		line, n, empty = line+word, n+wn, false
	}
	if !empty {
		lines = append(lines, line)
	}
	return lines
}

// cut shortens s to width runes at a space, ending it with "…" where it
// was longer, so that no word is cut ("1.009× lo") and no factor loses
// its direction ("1.009×").
func cut(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	head := string(r[:width-2]) // room for " …"
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		head = head[:i]
	}
	// A factor keeps its direction or goes: "1.009× lower", never "1.009×".
	for strings.HasSuffix(head, "×") {
		i := strings.LastIndexByte(head, ' ')
		if i < 0 {
			break
		}
		head = head[:i]
	}
	return strings.TrimRight(head, " ") + " …"
}

// Markdown returns the verdicts as Markdown: the verdict table and its
// tally, then every finding in full, with its criterion under its title.
// raw names the results file the table was judged from.
func Markdown(e *Env, rows []Row, raw string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**contend reproduce** on %s\n\n", e.machine)
	esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	b.WriteString("| # | finding | verdict | reason |\n|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", r.ID, esc(r.Short), r.Standing.Word(), esc(r.Line()))
	}
	fmt.Fprintf(&b, "\n%s.\n\nEach finding in full:\n\n", tally(rows))
	b.WriteString("| # | finding | seed's figure | this machine | mechanism | holds here? | at the seed's size (simulated) |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		sim := "no simulation"
		if s := r.Simulated; s != nil {
			sim = fmt.Sprintf("**%s** on %s: %s<br>*criterion: %s*<br>%s<br>*assumes: %s*", s.Verdict(), esc(s.Size), esc(s.Why), esc(s.Criterion), esc(s.Measured), esc(strings.Join(s.Assumptions, "; ")))
		}
		fmt.Fprintf(&b, "| %d | %s<br>*criterion: %s* | %s | %s | %s | **%s**: %s | %s |\n",
			r.ID, esc(r.Finding), esc(r.Criterion), esc(r.Seed), esc(r.Measured), esc(r.Mechanism), r.Verdict(), esc(r.Why), sim)
	}
	fmt.Fprintf(&b, "\n%s Raw results: `%s` (benchstat reads it; `contend reproduce -from` judges it again).\n", legend, raw)
	return b.String()
}
