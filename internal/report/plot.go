package report

// Pictures of a results file (contend plot), drawn with gonum.org/v1/plot.
//
// Two kinds, chosen by what the file holds:
//
//   - Scaling curves: a value against thread count, one line per variant,
//     each point the median of its samples with a 95% confidence bar. The
//     default value is throughput, 1/(sec/op): contend's ns/op is elapsed
//     time over all workers' operations, so its inverse is the whole
//     machine's operations per second, the number that collapses when a
//     cache line starts bouncing between sockets.
//   - A heatmap, for matrix results whose names carry a CPU pair
//     (BenchmarkC2C/mode=rw/a=0/b=1): median ns/op for every a×b, one panel
//     per remaining variant. Core-to-core latency is read off a matrix: the
//     blocks along the diagonal are the sockets (or LLCs), the bright
//     off-diagonal blocks the interconnect.
//
// Every title carries the machine (the cpu configuration line) and the
// topology (real, or fake-K when the nodes were a split of a smaller
// machine), because a curve without them cannot be compared with anything.

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/contend/contend/internal/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A Figure is one or more plots stacked vertically, each panel w×h.
type Figure struct {
	panels []panel
	w, h   vg.Length
	What   string // what it shows, in words, for the "wrote" line
}

type panel struct {
	plot   *plot.Plot
	bar    *plot.Plot   // a heatmap's color bar, drawn to the panel's right
	legend *plot.Legend // the curves' legend, drawn to the panel's right where it hides no data
}

// FigureOptions choose what a figure shows, as contend plot's flags do.
type FigureOptions struct {
	Filter string // benchproc filter of the results plotted
	Unit   string // the plotted unit; "" for the default (ops/s, or ns/op for a heatmap)
	X      string // name key on the curves' x axis
	A, B   string // name keys of a heatmap's rows and columns
	ABSet  bool   // A and B were asked for: no fallback to cpu_a, cpu_b
}

// NewFigure draws rs: a heatmap when the results carry a pair of CPU name
// keys, scaling curves otherwise.
func NewFigure(rs *results.Set, f FigureOptions) (*Figure, error) {
	filter, err := benchproc.NewFilter(f.Filter)
	if err != nil {
		return nil, fmt.Errorf("-filter %q: %w", f.Filter, OneLine(err))
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
		return heatmapFigure(picked, a, b, f.Unit)
	}
	if f.ABSet {
		return nil, fmt.Errorf("-a %s -b %s: the results carry no such pair of name keys (name keys: %s)", f.A, f.B, listOrNone(keys))
	}
	x := "/" + f.X
	if !slices.Contains(keys, x) {
		return nil, fmt.Errorf("-x %s: no result has name key %s (name keys: %s)", f.X, x, listOrNone(keys))
	}
	return curvesFigure(picked, x, f.Unit)
}

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

// A point is the summary of one cell's samples.
type point struct{ x, center, lo, hi float64 }

func summarizePoint(x float64, vals []float64) point {
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(vals, &benchmath.DefaultThresholds), 0.95)
	return point{x, s.Center, s.Lo, s.Hi}
}

func curvesFigure(picked []*benchfmt.Result, xKey, unit string) (*Figure, error) {
	if unit == "" {
		unit = "ops/s"
	}
	m, err := newMeasure(picked, unit)
	if err != nil {
		return nil, err
	}
	var parser benchproc.ProjectionParser
	xBy, err := parser.Parse(xKey, nil)
	if err != nil {
		return nil, err
	}
	seriesBy, err := parser.Parse(".fullname", nil)
	if err != nil {
		return nil, err
	}
	type cell struct {
		series benchproc.Key
		x      float64
	}
	samples := map[cell][]float64{}
	var series []benchproc.Key
	for _, r := range picked {
		v, ok := m.get(r)
		if !ok {
			continue
		}
		xs := xBy.Project(r).Get(xBy.Fields()[0])
		if xs == "" {
			continue // this result has no thread count: not a point on a curve
		}
		x, err := strconv.ParseFloat(xs, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			file, line := r.Pos()
			return nil, fmt.Errorf("%s:%d: -x %s: value %q is not a number", file, line, xKey[1:], xs)
		}
		s := seriesBy.Project(r)
		series = appendKey(series, s)
		samples[cell{s, x}] = append(samples[cell{s, x}], v)
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("no result has both %s and %s", xKey, m.unit)
	}
	names := make([]string, len(series))
	for i, s := range series {
		names[i] = s.StringValues()
	}
	labels, common := shortLabels(names)

	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s vs %s\n%s", common, m.unit, xKey[1:], machine(picked))
	p.X.Label.Text = xKey[1:]
	p.Y.Label.Text = m.label
	p.Y.Tick.Marker = siTicks{}
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	var allX []float64
	allPositive := true
	for i, s := range series {
		var pts []point
		for c, vals := range samples {
			if c.series == s {
				pts = append(pts, summarizePoint(c.x, vals))
			}
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
		xys := make(plotter.XYs, len(pts))
		errs := make(plotter.YErrors, len(pts))
		for j, pt := range pts {
			xys[j] = plotter.XY{X: pt.x, Y: pt.center}
			if !math.IsInf(pt.lo, 0) && !math.IsInf(pt.hi, 0) {
				errs[j].Low, errs[j].High = pt.center-pt.lo, pt.hi-pt.center
			}
			allX = append(allX, pt.x)
			allPositive = allPositive && pt.x > 0 && pt.center >= 0
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", names[i], err)
		}
		line.Color, line.Dashes = plotutil.Color(i), plotutil.Dashes(i/7)
		points.Color, points.Shape = plotutil.Color(i), plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(errXYs{xys, errs})
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", names[i], err)
		}
		bars.Color = plotutil.Color(i)
		p.Add(line, points, bars)
		legend.Add(labels[i], line, points)
	}
	slices.Sort(allX)
	allX = slices.Compact(allX)
	// Thread counts usually double; a log axis spaces them evenly. A
	// margin either side keeps the end points and labels off the frame.
	lo, hi := allX[0], allX[len(allX)-1]
	if allPositive && hi/lo >= 8 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/math.Pow(hi/lo, 0.04), hi*math.Pow(hi/lo, 0.04)
	} else {
		margin := max(0.04*(hi-lo), 0.5)
		p.X.Min, p.X.Max = lo-margin, hi+margin
	}
	if allPositive {
		p.Y.Min = 0
	}
	ticks := make([]plot.Tick, len(allX))
	for i, x := range allX {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	return &Figure{panels: []panel{{plot: p, legend: &legend}}, w: 9 * vg.Inch, h: 5 * vg.Inch,
		What: fmt.Sprintf("%s vs %s, %s", m.unit, xKey[1:], plural(len(series), "line"))}, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

type errXYs struct {
	plotter.XYs
	plotter.YErrors
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

// machine is the title line that says where results come from.
func machine(picked []*benchfmt.Result) string {
	get := func(key string) string {
		var vals []string
		for _, r := range picked {
			if v := r.GetConfig(key); v != "" && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			return "unknown"
		}
		return strings.Join(vals, " | ")
	}
	s := fmt.Sprintf("%s · topology %s", get("cpu"), get("topology"))
	if n := get("nodes"); n != "unknown" {
		s += " · nodes " + n
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

// render draws the Figure in format. gonum/plot panics on some degenerate
// inputs (an empty color range, a log axis through zero); the Figure code
// avoids the ones we know, and any other is reported as an error rather
// than a crash.
func (fig *Figure) Render(format string) (data []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("drawing %s: %v", format, r)
		}
	}()
	w, h := fig.w, fig.h*vg.Length(len(fig.panels))
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "svg":
		c = vgsvg.New(w, h)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120))}
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	dc := draw.New(c)
	dc.SetColor(color.White) // SVG is transparent otherwise, unreadable on a dark page
	dc.Fill(dc.Rectangle.Path())
	for i, pn := range fig.panels {
		top := dc.Max.Y - fig.h*vg.Length(i)
		pc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Min.X, Y: top - fig.h}, Max: vg.Point{X: dc.Max.X, Y: top}}}
		switch {
		case pn.bar != nil:
			const barW = 1.2 * vg.Inch
			pn.plot.Draw(draw.Crop(pc, 0, -barW, 0, 0))
			bc := draw.Crop(pc, pc.Max.X-pc.Min.X-barW+0.25*vg.Inch, -0.2*vg.Inch, 0, 0)
			bc.Min.Y += 0.55 * vg.Inch // line the bar up with the heatmap's data area
			bc.Max.Y -= 0.45 * vg.Inch
			pn.bar.Draw(bc)
		case pn.legend != nil:
			r := pn.legend.Rectangle(pc)
			legW := r.Max.X - r.Min.X + 0.3*vg.Inch
			pn.plot.Draw(draw.Crop(pc, 0, -legW, 0, 0))
			lc := draw.Crop(pc, pc.Max.X-pc.Min.X-legW+0.15*vg.Inch, 0, 0, -0.6*vg.Inch)
			pn.legend.Draw(lc)
		default:
			pn.plot.Draw(pc)
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}
