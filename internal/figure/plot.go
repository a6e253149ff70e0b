package figure

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"

	"github.com/contend/contend/internal/results"
)

// scaleNames and styleNames are the values Options.Scale and Style take.
var (
	scaleNames = []string{"auto", "linear", "log"}
	styleNames = []string{"auto", "curves", "dots"}
)

// New draws rs: a heatmap when the results carry a pair of CPU name
// keys, scaling curves or dot plots otherwise.
func New(rs *results.Set, f Options) (*Figure, error) {
	if f.Scale != "" && !slices.Contains(scaleNames, f.Scale) {
		return nil, fmt.Errorf("-scale %q: want %s", f.Scale, strings.Join(scaleNames, ", "))
	}
	if f.Style != "" && !slices.Contains(styleNames, f.Style) {
		return nil, fmt.Errorf("-style %q: want %s", f.Style, strings.Join(styleNames, ", "))
	}
	filter, err := benchproc.NewFilter(f.Filter)
	if err != nil {
		return nil, fmt.Errorf("-filter %q: %w", f.Filter, results.OneLine(err))
	}
	var picked []*benchfmt.Result
	for _, r := range rs.Results {
		r = r.Clone()
		if ok, _ := filter.Apply(r); ok && len(r.Values) > 0 {
			picked = append(picked, r)
		}
	}
	if len(picked) == 0 {
		return nil, fmt.Errorf("no results match -filter %q", f.Filter)
	}
	keys := rs.NameKeys()
	a, b := "/"+f.A, "/"+f.B
	if !f.ABSet && !slices.Contains(keys, a) && slices.Contains(keys, "/cpu_a") {
		a, b = "/cpu_a", "/cpu_b"
	}
	if slices.Contains(keys, a) && slices.Contains(keys, b) {
		return heatmapFigure(picked, a, b, f)
	}
	if f.ABSet {
		return nil, fmt.Errorf("-a %s -b %s: the results carry no such pair of name keys (name keys: %s)", f.A, f.B, listOrNone(keys))
	}
	x := "/" + f.X
	if !slices.Contains(keys, x) {
		if f.XSet {
			return nil, fmt.Errorf("-x %s: no result has name key %s (name keys: %s)", f.X, x, listOrNone(keys))
		}
		x = "" // no thread counts: one dot per variant
	}
	return curvesFigure(picked, x, f)
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}
