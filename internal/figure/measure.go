package figure

// What a panel plots, whatever its kind: the value a result is worth on
// the value axis (a measure) and the median with its interval (a point),
// the labels that name variants and the machine, and the value axis's
// ticks.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"

	"github.com/contend/contend/internal/results"
)

// A measure extracts the plotted values of one result.
type measure struct {
	label string // axis label
	unit  string // as shown: ops/s, ns/op, cas/op
	get   func(r *benchfmt.Result) (float64, bool)
}

// newMeasure resolves -unit. Values come back in the unit as written
// (ns/op, not the tidied sec/op); ops/s is derived from sec/op unless the
// file measures it itself.
func newMeasure(picked []*benchfmt.Result, unit string) (measure, error) {
	units := results.UnitNames(picked)
	have := func(u string) bool {
		return slices.ContainsFunc(units, func(x string) bool { return results.TidyUnit(x) == results.TidyUnit(u) })
	}
	if unit == "ops/s" && !have("ops/s") {
		if !have("sec/op") {
			return measure{}, fmt.Errorf("-unit ops/s: needs ns/op results (units: %s)", strings.Join(units, " "))
		}
		return measure{label: "throughput, all threads (ops/s)", unit: "ops/s", get: func(r *benchfmt.Result) (float64, bool) {
			v, ok := r.Value("sec/op")
			return 1 / v, ok && v > 0
		}}, nil
	}
	if !have(unit) {
		extra := ""
		if have("sec/op") {
			extra = " ops/s"
		}
		return measure{}, fmt.Errorf("-unit %s: no result measures it (units: %s%s)", unit, strings.Join(units, " "), extra)
	}
	factor, tidy := benchunit.Tidy(1, unit)
	return measure{label: unit, unit: unit, get: func(r *benchfmt.Result) (float64, bool) {
		v, ok := r.Value(tidy)
		return v / factor, ok
	}}, nil
}

// A point is the summary of one cell's samples: the median and its 95%
// confidence interval (infinite where too few samples bound it), and n.
type point struct {
	x, center, lo, hi float64
	n                 int
}

func summarizePoint(x float64, vals []float64) point {
	s := results.Summarize(vals, nil, nil, 0.95)
	return point{x, s.Center, s.Lo, s.Hi, len(vals)}
}

// hasCI reports whether the point's interval is finite: benchmath cannot
// bound a median at 95% with fewer than 6 samples.
func (p point) hasCI() bool { return !math.IsInf(p.lo, 0) && !math.IsInf(p.hi, 0) }

// bar returns the point's error bar, how far it reaches below and above the
// median: its confidence interval, or nothing where that is unbounded.
func (p point) bar() (low, high float64) {
	if !p.hasCI() {
		return 0, 0
	}
	return p.center - p.lo, p.hi - p.center
}

// keyNumber parses a name key's value (a thread count, a cpu) as a finite
// number.
func keyNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// shortLabels drops from each benchmark name the parts every name shares
// (the benchmark, -GOMAXPROCS, a key with one value throughout), so the
// legend shows only what tells the lines apart; the shared parts come back
// joined for the title.
func shortLabels(names []string) (labels []string, common string) {
	split := make([][]string, len(names))
	for i, n := range names {
		base, parts := benchfmt.Name(n).Parts()
		split[i] = append([]string{string(base)}, bytesToStrings(parts)...)
	}
	shared := func(part string) bool {
		for _, s := range split {
			if !slices.Contains(s, part) {
				return false
			}
		}
		return true
	}
	var commons []string
	for _, part := range split[0] {
		if shared(part) && !strings.HasPrefix(part, "-") {
			commons = append(commons, strings.TrimPrefix(part, "/"))
		}
	}
	for i, s := range split {
		var keep []string
		for _, part := range s {
			if !shared(part) {
				keep = append(keep, strings.TrimPrefix(part, "/"))
			}
		}
		if len(keep) == 0 {
			keep = []string{names[i]}
		}
		labels = append(labels, strings.Join(keep, "/"))
	}
	return labels, strings.Join(commons, " ")
}

func bytesToStrings(bs [][]byte) []string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = string(b)
	}
	return s
}

// machine is the header line that says where results come from: the cpu
// (with CPUID's family, model and stepping when the file has them), the
// topology and the node count, the kernel and contend's commit.
func machine(picked []*benchfmt.Result) string {
	get := func(key string) string {
		var vals []string
		for _, r := range picked {
			if v := strings.TrimSpace(r.GetConfig(key)); v != "" && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			return "unknown"
		}
		return strings.Join(vals, " | ")
	}
	cpu := get("cpu")
	if fam := get("cpu_family"); fam != "unknown" {
		cpu += fmt.Sprintf(" (family %s model %s stepping %s)", fam, get("cpu_model"), get("cpu_stepping"))
	}
	s := fmt.Sprintf("%s · topology %s", cpu, get("topology"))
	if n := get("nodes"); n != "unknown" {
		s += " · nodes " + n
	}
	for _, k := range []string{"kernel", "contend"} {
		if v := get(k); v != "unknown" {
			s += " · " + k + " " + v
		}
	}
	return s
}

// siTicks labels an axis 0, 50M, 100M rather than 1e+08.
type siTicks struct{}

func (siTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = siLabel(ts[i].Value)
		}
	}
	return ts
}

// logTicks marks a log axis at 1, 2 and 5 times each power of ten, labelled
// in SI units; over more than three decades only the powers are labelled.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	wide := hi-lo > 3
	var ts []plot.Tick
	for e := lo; e <= hi; e++ {
		p := math.Pow(10, e)
		for _, m := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9} {
			v := m * p
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || !wide && (m == 2 || m == 5) {
				t.Label = siLabel(v)
			}
			ts = append(ts, t)
		}
	}
	if labelled := slices.ContainsFunc(ts, func(t plot.Tick) bool { return t.Label != "" }); !labelled {
		// Less than a factor of two: label the ends.
		ts = append(ts, plot.Tick{Value: min, Label: siLabel(min)}, plot.Tick{Value: max, Label: siLabel(max)})
	}
	return ts
}

func siLabel(v float64) string {
	for _, p := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}} {
		if math.Abs(v) >= p.f {
			return strconv.FormatFloat(v/p.f, 'g', 4, 64) + p.s
		}
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
