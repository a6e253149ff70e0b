package figure

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// A curveSet is a file's results gathered for curves or dot plots: by
// benchmark (a panel each), then by variant (a series each), then by thread
// count (a point each).
type curveSet struct {
	m      measure
	xKey   string // "/threads"; "" when the results carry none
	groups []*group
	xs     []float64 // every x value, ascending
}

// A group is one benchmark's variants: one panel.
type group struct {
	bench  string // "LoadAvg"
	common string // name parts all its variants share, for the panel title
	series []*series
}

// A series is one variant's points, in ascending x.
type series struct {
	label  string
	points []point
}

// gatherCurves projects the results as benchstat would (the x key out of
// the full name, which is then the variant) and summarizes each cell.
func gatherCurves(picked []*benchfmt.Result, xKey string, m measure) (*curveSet, error) {
	pts, err := collectPoints(picked, xKey, m)
	if err != nil {
		return nil, err
	}
	if len(pts.names) == 0 {
		what := "any result"
		if xKey != "" {
			what = "a result with " + xKey
		}
		return nil, fmt.Errorf("no %s measures %s", what, m.unit)
	}
	cs := &curveSet{m: m, xKey: xKey, xs: pts.xs}
	for _, b := range pts.benches {
		cs.groups = append(cs.groups, pts.group(b))
	}
	return cs, nil
}

// curvePoints are a file's samples of one measure by variant (the full
// name without the x key) and x, before they are summarized.
type curvePoints struct {
	samples map[curveCell][]float64
	benchOf map[string]string // each variant's benchmark
	names   []string          // the variants, in the order first seen
	benches []string          // the benchmarks, in the order first seen
	xs      []float64         // every x value, ascending, once each
}

// A curveCell is one variant at one x: a point of a curve.
type curveCell struct {
	name string
	x    float64
}

// collectPoints reads each picked result's value of m into its variant's
// cell at its x (the value of xKey, "" for none); a result without m, or
// without the x key, is no point.
func collectPoints(picked []*benchfmt.Result, xKey string, m measure) (*curvePoints, error) {
	var parser benchproc.ProjectionParser
	var xBy *benchproc.Projection
	if xKey != "" {
		var err error
		if xBy, err = parser.Parse(xKey, nil); err != nil {
			return nil, err
		}
	}
	seriesBy, err := parser.Parse(".fullname", nil)
	if err != nil {
		return nil, err
	}
	pts := &curvePoints{samples: map[curveCell][]float64{}, benchOf: map[string]string{}}
	for _, r := range picked {
		v, ok := m.get(r)
		if !ok {
			continue
		}
		x := 0.0
		if xBy != nil {
			xs := xBy.Project(r).Get(xBy.Fields()[0])
			if xs == "" {
				continue // this result has no thread count: not a point on a curve
			}
			if x, ok = keyNumber(xs); !ok {
				file, line := r.Pos()
				return nil, fmt.Errorf("%s:%d: -x %s: value %q is not a number", file, line, xKey[1:], xs)
			}
		}
		name := seriesBy.Project(r).StringValues()
		if _, seen := pts.benchOf[name]; !seen {
			b := string(r.Name.Base())
			pts.benchOf[name] = b
			pts.names = append(pts.names, name)
			if !slices.Contains(pts.benches, b) {
				pts.benches = append(pts.benches, b)
			}
		}
		c := curveCell{name, x}
		pts.samples[c] = append(pts.samples[c], v)
		pts.xs = append(pts.xs, x)
	}
	slices.Sort(pts.xs)
	pts.xs = slices.Compact(pts.xs)
	return pts, nil
}

// group returns benchmark b's panel: a series per variant, a point per x
// it has samples at, labelled by what sets the variants apart.
func (pts *curvePoints) group(b string) *group {
	g := &group{bench: b}
	var gnames []string
	for _, n := range pts.names {
		if pts.benchOf[n] != b {
			continue
		}
		s := &series{}
		for _, x := range pts.xs {
			if vals := pts.samples[curveCell{n, x}]; len(vals) > 0 {
				s.points = append(s.points, summarizePoint(x, vals))
			}
		}
		g.series = append(g.series, s)
		gnames = append(gnames, n)
	}
	labels, common := shortLabels(gnames)
	for i, s := range g.series {
		s.label = labels[i]
	}
	if len(g.series) == 1 {
		// One variant: its name is the panel's, and its label says
		// what it is rather than repeating the benchmark.
		g.series[0].label = strings.TrimPrefix(strings.TrimPrefix(common, b), " ")
		if g.series[0].label == "" {
			g.series[0].label = b
		}
	}
	g.common = common
	return g
}

// maxSeries is the most variants a panel of curves shows: beyond it the
// colours and dashes no longer tell lines apart, and a dot plot reads better.
const maxSeries = 10

// dotsFor says whether the set is drawn as dot plots: asked for, or too
// few thread counts for a curve (a line through one or two points says
// little), or more variants than lines can be told apart.
func (cs *curveSet) dotsFor(style string) bool {
	switch style {
	case "dots":
		return true
	case "curves":
		return false
	}
	if len(cs.xs) < 3 {
		return true
	}
	return slices.ContainsFunc(cs.groups, func(g *group) bool { return len(g.series) > maxSeries })
}

// curvesFigure draws every benchmark of picked in a panel of its own.
func curvesFigure(picked []*benchfmt.Result, xKey string, f Options) (*Figure, error) {
	m, err := newMeasure(picked, cmp.Or(f.Unit, "ops/s"))
	if err != nil {
		return nil, err
	}
	cs, err := gatherCurves(picked, xKey, m)
	if err != nil {
		return nil, err
	}
	if f.Style == "curves" && xKey == "" {
		return nil, fmt.Errorf("-style curves: the results have no %s to draw curves against", "/"+f.X)
	}
	dots := cs.dotsFor(f.Style)
	fig := &Figure{subtitle: machine(picked)}
	fig.cols, fig.width = cs.grid(dots)
	_, colW := fig.columns(len(cs.groups))
	lines, log := 0, false
	for _, g := range cs.groups {
		var pn *panel
		if dots {
			pn = cs.dotPanel(g, f.Scale, colW)
		} else {
			pn = cs.curvePanel(g, f.Scale)
		}
		log = log || pn.plot.X.Scale == (plot.LogScale{}) && dots || pn.plot.Y.Scale == (plot.LogScale{}) && !dots
		fig.panels = append(fig.panels, pn)
		lines += len(g.series)
	}
	fig.title, fig.What = cs.describe(dots, lines)
	fig.caption = cs.caption(dots, log)
	return fig, nil
}

// grid chooses the columns and width of the figure: two columns of panels
// when there are several, unless a dot plot's variant labels need the
// whole width.
func (cs *curveSet) grid(dots bool) (cols int, width vg.Length) {
	if len(cs.groups) == 1 {
		return 1, 8 * vg.Inch
	}
	if dots {
		sty := plot.New().Y.Tick.Label
		for _, g := range cs.groups {
			for _, s := range g.series {
				if sty.Width(s.label) > 2.2*vg.Inch {
					return 1, 10 * vg.Inch
				}
			}
		}
	}
	return 2, 11 * vg.Inch
}

// describe returns the figure's title and the "wrote" line's words.
func (cs *curveSet) describe(dots bool, lines int) (title, what string) {
	x := strings.TrimPrefix(cs.xKey, "/")
	panels := plural(len(cs.groups), "panel")
	switch {
	case !dots:
		return fmt.Sprintf("%s against %s, one panel per benchmark", cs.m.label, x),
			fmt.Sprintf("%s vs %s, %s, %s", cs.m.unit, x, panels, plural(lines, "line"))
	case x == "":
		title = fmt.Sprintf("%s by variant", cs.m.label)
	case len(cs.xs) == 1:
		title = fmt.Sprintf("%s by variant at %s=%s", cs.m.label, x, fmtX(cs.xs[0]))
	default:
		title = fmt.Sprintf("%s by variant, a dot per %s", cs.m.label, x)
	}
	return title + ", one panel per benchmark", fmt.Sprintf("%s by variant, %s, %s", cs.m.unit, panels, plural(lines, "variant"))
}

// caption says what the marks are, and where they are not what they seem.
func (cs *curveSet) caption(dots, log bool) string {
	var ns []int
	noCI := false
	for _, g := range cs.groups {
		for _, s := range g.series {
			for _, p := range s.points {
				if !slices.Contains(ns, p.n) {
					ns = append(ns, p.n)
				}
				noCI = noCI || !p.hasCI()
			}
		}
	}
	slices.Sort(ns)
	runs := fmt.Sprintf("%d runs", ns[0])
	if len(ns) > 1 {
		runs = fmt.Sprintf("%d to %d runs", ns[0], ns[len(ns)-1])
	}
	if ns[len(ns)-1] == 1 {
		runs = "1 run"
	}
	mark := "Each point"
	if dots {
		mark = "Each dot"
	}
	s := fmt.Sprintf("%s is the median of %s; its bar is the 95%% confidence interval of the median (distribution-free, as benchstat computes it).", mark, runs)
	if noCI {
		s += " No bar: fewer than 6 runs, too few to bound a median at 95%."
	}
	if log {
		s += " Axes marked (log) are logarithmic: equal distances are equal ratios."
	}
	return s
}

func fmtX(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// okabeIto is Okabe and Ito's colour-blind-safe set, without its yellow,
// which is too light on white.
var okabeIto = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
}

func colorOf(i int) color.Color { return okabeIto[i%len(okabeIto)] }

// valueRange returns the smallest and largest of the points' values and
// interval ends (the ends where finite).
func valueRange(ps []point) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		lo, hi = min(lo, p.center), max(hi, p.center)
		if p.hasCI() {
			lo, hi = min(lo, p.lo), max(hi, p.hi)
		}
	}
	return lo, hi
}

// valueAxis sets up the axis the values are read on: logarithmic when asked
// or, for "auto", when the values span more than a factor of 30 (a linear
// axis would flatten the small ones against zero); linear from zero
// otherwise, when every value is positive. It returns the label suffix.
func valueAxis(ax *plot.Axis, ps []point, scale string) {
	lo, hi := valueRange(ps)
	log := scale == "log" || scale != "linear" && lo > 0 && hi/lo > 30
	if log && lo > 0 {
		ax.Scale = plot.LogScale{}
		ax.Tick.Marker = logTicks{}
		ax.Min, ax.Max = lo/1.15, hi*1.15
		ax.Label.Text += " (log)"
		return
	}
	ax.Tick.Marker = siTicks{}
	// From zero when every value is positive, so that lengths compare;
	// a little room beyond the largest bar end so it does not touch the
	// frame.
	base := min(lo, 0)
	ax.Min, ax.Max = base, hi+0.05*(hi-base)
	if lo < 0 {
		ax.Min = lo - 0.05*(hi-lo)
	}
	if ax.Max <= ax.Min {
		ax.Max = ax.Min + 1
	}
}

// allPoints returns every point of a group.
func (g *group) allPoints() []point {
	var ps []point
	for _, s := range g.series {
		ps = append(ps, s.points...)
	}
	return ps
}

func (g *group) title() string {
	if g.common == "" {
		return g.bench
	}
	return g.common
}

// curvePanel draws a group as scaling curves: value against x, a line per
// variant, each point with its confidence bar.
func (cs *curveSet) curvePanel(g *group, scale string) *panel {
	p := plot.New()
	x := strings.TrimPrefix(cs.xKey, "/")
	p.X.Label.Text = x
	p.Y.Label.Text = cs.m.label
	p.Add(plotter.NewGrid())
	pn := &panel{title: g.title(), plot: p, height: 3.2 * vg.Inch}
	for i, s := range g.series {
		xys := make(plotter.XYs, len(s.points))
		errs := make(plotter.YErrors, len(s.points))
		for j, pt := range s.points {
			xys[j] = plotter.XY{X: pt.x, Y: pt.center}
			errs[j].Low, errs[j].High = pt.bar()
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue // cannot happen: the values are finite
		}
		line.Color, line.Dashes = colorOf(i), plotutil.Dashes(i/len(okabeIto))
		line.Width = vg.Points(1.5)
		points.Color, points.Shape = colorOf(i), plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(errXYs{xys, errs})
		if err == nil {
			bars.Color = colorOf(i)
			p.Add(bars)
		}
		p.Add(line, points)
		pn.legend = append(pn.legend, legendEntry{s.label, []plot.Thumbnailer{line, points}})
	}
	valueAxis(&p.Y, g.allPoints(), scale)
	// Thread counts usually double; a log axis spaces them evenly. A
	// margin either side keeps the end points and labels off the frame.
	lo, hi := cs.xs[0], cs.xs[len(cs.xs)-1]
	if lo > 0 && hi/lo >= 8 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/math.Pow(hi/lo, 0.04), hi*math.Pow(hi/lo, 0.04)
	} else {
		margin := max(0.04*(hi-lo), 0.5)
		p.X.Min, p.X.Max = lo-margin, hi+margin
	}
	ticks := make([]plot.Tick, len(cs.xs))
	for i, x := range cs.xs {
		ticks[i] = plot.Tick{Value: x, Label: fmtX(x)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	return pn
}

type errXYs struct {
	plotter.XYs
	plotter.YErrors
}

type xerrXYs struct {
	plotter.XYs
	plotter.XErrors
}

// dotPanel draws a group as a dot plot: a row per variant, top to bottom in
// the file's order, its label on the axis; a dot per x value with its
// confidence bar, the dots of one row a little apart so bars do not
// overlap. colW is the panel's width, which the labels may take less than
// half of.
func (cs *curveSet) dotPanel(g *group, scale string, colW vg.Length) *panel {
	p := plot.New()
	p.X.Label.Text = cs.m.label
	n := len(g.series)
	rowY := func(i int) float64 { return float64(n - 1 - i) }
	sty := p.Y.Tick.Label
	ticks := make([]plot.Tick, n)
	for i, s := range g.series {
		ticks[i] = plot.Tick{Value: rowY(i), Label: shorten(sty, s.label, 0.45*colW)}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	p.Y.Padding = 0
	grid := plotter.NewGrid()
	grid.Horizontal.Color = color.Gray{Y: 0xe4}
	p.Add(grid)
	pn := &panel{title: g.title(), plot: p, height: 0.75*vg.Inch + vg.Length(n)*0.24*vg.Inch}
	k := len(cs.xs)
	for j, x := range cs.xs {
		off := 0.0
		if k > 1 {
			off = 0.5 * (float64(j)/float64(k-1) - 0.5) // within ±0.25 of the row
		}
		var xys plotter.XYs
		var errs plotter.XErrors
		for i, s := range g.series {
			for _, pt := range s.points {
				if pt.x != x {
					continue
				}
				xys = append(xys, plotter.XY{X: pt.center, Y: rowY(i) - off})
				lo, hi := pt.bar()
				errs = append(errs, struct{ Low, High float64 }{lo, hi})
			}
		}
		if len(xys) == 0 {
			continue
		}
		dots, err := plotter.NewScatter(xys)
		if err != nil {
			continue
		}
		dots.Color, dots.Shape = colorOf(j), plotutil.Shape(j)
		dots.Radius = vg.Points(3)
		if bars, err := plotter.NewXErrorBars(xerrXYs{xys, errs}); err == nil {
			bars.Color = colorOf(j)
			p.Add(bars)
		}
		p.Add(dots)
		if k > 1 {
			pn.legend = append(pn.legend, legendEntry{fmt.Sprintf("%s=%s", strings.TrimPrefix(cs.xKey, "/"), fmtX(x)), []plot.Thumbnailer{dots}})
		}
	}
	valueAxis(&p.X, g.allPoints(), scale)
	return pn
}
