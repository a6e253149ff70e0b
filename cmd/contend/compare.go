package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/contend/contend/internal/report"
	"github.com/contend/contend/internal/results"
)

func init() {
	register(&command{
		name:    "compare",
		summary: "compare results files as benchstat does: medians, 95% confidence intervals, deltas with p-values, geomeans",
		run:     compareCmd,
	})
}

const compareUsage = "[-format text|lkp|seed|markdown] [-fail-on PCT] [-row KEYS] [-col KEYS] [-filter EXPR] [-unit UNITS] [-alpha 0.05] [-full-names] [-json] old.txt new.txt [more.txt ...] | ab.txt"

func compareCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "compare", compareUsage)
	var sf statFlags
	sf.register(fs, ".fullname", ".file")
	alpha := fs.Float64("alpha", 0.05, "consider a difference significant if p < `α`")
	asJSON := fs.Bool("json", false, "print the cells as JSON, one object per line (median, interval, samples, delta and p against the first column, disturbed runs)")
	format := fs.String("format", "text", "layout: text (benchstat's tables), lkp (the 0-day robot's comparison), seed (the seeds' mail style) or markdown")
	var failOn percentFlag
	fs.Var(&failOn, "fail-on", "exit non-zero when a metric whose direction is known got worse by more than `PCT` per cent (5 or 5%), printing just those metrics (for CI); judged only on columns measured in one session, interleaved round by round (contend ab, or one sweep's configurations): by the median of the per-round changes and a sign test over the rounds at α over the number of metrics gated (α 0.01 unless -alpha is given; the run figures, latency quantiles and the workers' spread, only if -unit names them)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("compare: want results files (usage: contend compare %s)", compareUsage)
	}
	if !(*alpha > 0 && *alpha < 1) {
		return fmt.Errorf("compare: -alpha %v: want a level between 0 and 1", *alpha)
	}
	if err := sf.check(fs.Name()); err != nil {
		return err
	}
	f, err := report.ParseFormat(*format)
	if err != nil {
		return fmt.Errorf("compare: -format: %w", err)
	}
	if len(pos) == 1 && sf.col == ".file" && !flagSet(fs, "col") && pos[0] != "-" {
		// One contend ab file compares its sides.
		if ab, err := isABFile(pos[0]); err != nil {
			return fmt.Errorf("compare: %w", err)
		} else if ab {
			sf.col = abColumns
		}
	}
	if len(pos) == 1 && sf.col == ".file" {
		return errors.New("compare: want at least two results files to compare, one file of contend ab, or -col KEYS to compare within one")
	}
	rs, err := readResults(stderr, "compare", pos)
	if err != nil {
		return err
	}
	sessions := rs.Sessions()
	paired := len(sessions) == 1 && sessions[0] != ""
	if !paired && len(pos) > 1 && !flagSet(fs, "fail-on") { // -fail-on says it on stdout
		fmt.Fprintln(stderr, driftNote(sessions))
	}
	o := sf.opts(*alpha, true)
	o.Paired = paired
	rep, err := report.Build(rs, o)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if flagSet(fs, "fail-on") {
		gateAlpha := *alpha
		if !flagSet(fs, "alpha") {
			gateAlpha = failOnAlpha
		}
		return failOnRegressions(stdout, rep, float64(failOn), gateAlpha, sessions)
	}
	if *asJSON {
		return rep.WriteJSON(stdout)
	}
	if err := rep.WriteFormat(stdout, f); err != nil {
		return err
	}
	if paired && f == report.FormatText {
		// What the rounds say, which the unpaired tables cannot.
		fmt.Fprintln(stdout)
		return rep.WritePaired(stdout)
	}
	return nil
}

// failOnAlpha is -fail-on's family-wise level where -alpha is not given:
// at most one A/A run in a hundred fails, whatever the noise (fewer where
// the noise is small against the threshold), a CI job's false alarm.
const failOnAlpha = 0.01

// abColumns are the columns of a contend ab file: its sides, old first.
const abColumns = results.SideKey + "@(old new)"

// isABFile reports whether path is a results file of contend ab (its
// results carry the side key).
func isABFile(path string) (bool, error) {
	rs, err := results.Read([]string{path})
	if err != nil {
		return false, err
	}
	return rs.Results[0].GetConfig(results.SideKey) != "", nil
}

// driftNote is the one line compare says of columns not measured in one
// session.
func driftNote(sessions []string) string {
	var which string
	switch {
	case len(sessions) == 1:
		which = "the results carry no session id (go test output, or a file older than sessions)"
	default:
		var named []string
		for _, s := range sessions {
			if s == "" {
				s = "none"
			}
			named = append(named, s)
		}
		which = "they come from sessions " + strings.Join(named, ", ")
	}
	return "compare: not measured in one session (" + which + "): run-to-run drift of the host cannot be told from change, so -fail-on fails on none of it; contend ab measures old and new interleaved in one session"
}

// failOnRegressions is compare -fail-on: it prints the metrics that the
// paired comparison of one interleaved session shows worse by more than
// pct (report.Gate), and fails if there are any. Columns from different
// sessions are not judged: it says why in one line (driftNote) and passes.
func failOnRegressions(w io.Writer, rep *report.Report, pct, alpha float64, sessions []string) error {
	g := rep.Gate(pct, alpha)
	switch {
	case !g.Paired:
		fmt.Fprintln(w, driftNote(sessions))
		return nil
	case g.Metrics == 0:
		fmt.Fprintf(w, "compare: -fail-on %g%%: no compared metric has a known direction (Unit ... better=)\n", pct)
		return nil
	case g.Pairs < g.NeedPairs:
		return fmt.Errorf("compare: -fail-on: %d rounds pair the fewest-sampled metric; showing one of %d metrics worse needs p < %.2g (α %g over the metrics), which takes at least %d rounds: run contend ab -count %d, or gate fewer metrics (-unit ns/op)",
			g.Pairs, g.Metrics, g.Level, alpha, g.NeedPairs, g.NeedPairs)
	}
	how := fmt.Sprintf("paired by round in session %s: %d metrics, %d+ rounds each, sign test at p < %.2g", sessions[0], g.Metrics, g.Pairs, g.Level)
	if len(g.Regressions) == 0 {
		fmt.Fprintf(w, "compare: no metric got worse by more than %g%% (%s)\n", pct, how)
		return nil
	}
	for _, r := range g.Regressions {
		fmt.Fprintln(w, r)
	}
	return fmt.Errorf("compare: %d metrics got worse by more than %g%% (%s)", len(g.Regressions), pct, how)
}

// A percentFlag is a flag's percentage of 0 or more, written as CI scripts
// and people write one: 5, 2.5, or with its sign, 5%.
type percentFlag float64

func (p *percentFlag) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) }

func (p *percentFlag) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 1) {
		// flag prefixes: invalid value "5x" for flag -fail-on:
		return errors.New("want a percentage of 0 or more, such as 5 or 5%")
	}
	*p = percentFlag(math.Abs(v)) // -0 is 0
	return nil
}

// statFlags are the flags compare and table share.
type statFlags struct {
	row, col, filter, ignore, unit string
	confidence                     float64
	fullNames                      bool
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
	fs.StringVar(&f.unit, "unit", "", "show only these `UNITS` (comma-separated, e.g. ns/op,cas/op; default all but the disturbance figures lost-%, wait-%, steal-%, preempt/s, which mark the cells of disturbed runs instead, worker-cv-% and max-sec)")
	fs.Float64Var(&f.confidence, "confidence", 0.95, "confidence `level` of the ± ranges")
	fs.BoolVar(&f.fullNames, "full-names", false, "label rows with whole benchmark names (default: only the keys that vary; the shared ones are listed once above the tables)")
}

func (f *statFlags) check(cmd string) error {
	if !(f.confidence > 0 && f.confidence < 1) {
		return fmt.Errorf("%s: -confidence %v: want a level between 0 and 1", cmd, f.confidence)
	}
	return nil
}

func (f *statFlags) opts(alpha float64, compare bool) report.Options {
	return report.Options{Row: f.row, Col: f.col, Filter: f.filter, Ignore: f.ignore, Units: f.unit,
		Alpha: alpha, Confidence: f.confidence, Compare: compare, FullNames: f.fullNames}
}

// readResults reads the results files of command cmd, saying on stderr,
// one line each, what it read past (a last line cut mid-write, left out).
func readResults(stderr io.Writer, cmd string, paths []string) (*results.Set, error) {
	rs, err := results.Read(paths)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	for _, w := range rs.Warnings {
		fmt.Fprintf(stderr, "%s: %s\n", cmd, w)
	}
	return rs, nil
}
