package reproduce

import (
	"fmt"
	"io"
	"strings"
)

// legend says once how every figure and verdict was reached.
const legend = `Figures are medians over the runs. "× lower/higher" is the ratio of medians; an effect counts only at or above the finding's minimum size and when the Mann-Whitney U test (benchstat's) gives p<0.05 ("~" marks p≥0.05). "within ±X%" is an equivalence test: the 90% Hodges-Lehmann confidence interval of the difference lies inside ±X% of the before-median. Figures marked "by construction" follow from the configuration and decide nothing. The mechanism is what each fix must keep doing (find idle cpus, balance, keep tg_weight current): a fix whose claims hold but that does less of its job is "no (wins by not ...)". "At the seed's size" judges the finding's kernel-time simulation (contend simulate) at the seed's machine size: one deterministic run a side, its assumptions named; the pinned verdict is the one this machine earned.`

// WriteText writes the table for a terminal.
func WriteText(w io.Writer, e *Env, rows []Row) {
	fmt.Fprintf(w, "contend reproduce — %s\n\n", e.machine)
	for _, r := range rows {
		fmt.Fprintf(w, "%d. %s\n", r.ID, r.Finding)
		fmt.Fprintf(w, "   seed:      %s\n", r.Seed)
		fmt.Fprintf(w, "   criterion: %s\n", r.Criterion)
		fmt.Fprintf(w, "   measured:  %s\n", r.Measured)
		fmt.Fprintf(w, "   mechanism: %s\n", r.Mechanism)
		fmt.Fprintf(w, "   holds:     %s — %s\n", r.Verdict(), r.Why)
		if s := r.Simulated; s != nil {
			fmt.Fprintf(w, "   at the seed's size (simulated: %s): %s — %s\n", s.Size, s.Verdict(), s.Why)
			fmt.Fprintf(w, "      criterion: %s\n", s.Criterion)
			fmt.Fprintf(w, "      simulated: %s\n", s.Measured)
			for _, a := range s.Assumptions {
				fmt.Fprintf(w, "      assumes:   %s\n", a)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, legend)
}

// Markdown returns the table as Markdown, with the criterion of each finding
// under its title. raw names the results file the table was judged from.
func Markdown(e *Env, rows []Row, raw string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**contend reproduce** on %s\n\n", e.machine)
	b.WriteString("| # | finding | seed's figure | this machine | mechanism | holds here? | at the seed's size (simulated) |\n|---|---|---|---|---|---|---|\n")
	esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
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
