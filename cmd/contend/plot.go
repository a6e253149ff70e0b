package main

// contend plot: pictures of a results file, drawn with gonum.org/v1/plot.
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
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

func init() {
	register(&command{
		name:    "plot",
		summary: "draw scaling curves (value vs threads per variant) or a core-to-core heatmap as SVG/PNG",
		run:     plotCmd,
	})
}

const plotUsage = "[-o out.svg] [-format svg|png|both] [-unit ops/s|ns/op|UNIT] [-x threads] [-a a] [-b b] [-filter EXPR] results.txt"

type plotFlags struct {
	out, format, unit, x, a, b, filter string
}

func plotCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "plot", plotUsage)
	var f plotFlags
	fs.StringVar(&f.out, "o", "", "output `file`, .svg or .png (default: the results file's name with .svg)")
	fs.StringVar(&f.format, "format", "", "output `format`: svg, png or both (default: from -o's extension)")
	fs.StringVar(&f.unit, "unit", "", "plotted `unit`: ops/s (throughput, the curves' default), ns/op (the heatmap's default) or any unit in the file")
	fs.StringVar(&f.x, "x", "threads", "name `key` on the curves' x axis")
	fs.StringVar(&f.a, "a", "a", "name `key` of a heatmap's rows (the first cpu of a pair); cpu_a is tried when a is absent")
	fs.StringVar(&f.b, "b", "b", "name `key` of a heatmap's columns (the second cpu); cpu_b is tried when b is absent")
	fs.StringVar(&f.filter, "filter", "*", "plot only results matching the benchstat filter `EXPR`, e.g. /place:spread")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("plot: want one results file, got %d arguments (usage: contend plot %s)", len(pos), plotUsage)
	}
	outs, err := f.outputs(pos[0])
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	rs, err := readResults(pos)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	fig, err := f.figure(rs, flagSet(fs, "a") || flagSet(fs, "b"))
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	// Render everything before writing anything, so that a failure leaves
	// every existing output as it was.
	data := make([][]byte, len(outs))
	for i, o := range outs {
		if data[i], err = render(fig, o.format); err != nil {
			return fmt.Errorf("plot: %w", err)
		}
	}
	for i, o := range outs {
		if err := writeFileAtomic(o.path, data[i]); err != nil {
			return fmt.Errorf("plot: -o: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s (%s)\n", o.path, fig.what)
	}
	return nil
}

type output struct{ path, format string }

// outputs resolves -o and -format into the files to write.
func (f *plotFlags) outputs(input string) ([]output, error) {
	ext := strings.ToLower(filepath.Ext(f.out))
	stem := strings.TrimSuffix(f.out, filepath.Ext(f.out))
	if f.out == "" {
		if input == "-" {
			return nil, errors.New("-o: needed when reading standard input")
		}
		stem, ext = strings.TrimSuffix(input, filepath.Ext(input)), ""
	}
	switch f.format {
	case "":
		switch ext {
		case ".svg", ".png":
			return []output{{f.out, ext[1:]}}, nil
		case "":
			return []output{{stem + ".svg", "svg"}}, nil
		}
		return nil, fmt.Errorf("-o %s: unknown extension %q (want .svg or .png, or set -format)", f.out, ext)
	case "svg", "png":
		if ext != "" && ext != "."+f.format {
			return nil, fmt.Errorf("-o %s: does not match -format %s", f.out, f.format)
		}
		return []output{{stem + "." + f.format, f.format}}, nil
	case "both":
		if ext != "" && ext != ".svg" && ext != ".png" {
			stem = f.out
		}
		return []output{{stem + ".svg", "svg"}, {stem + ".png", "png"}}, nil
	}
	return nil, fmt.Errorf("-format %q: want svg, png or both", f.format)
}

// A figure is one or more plots stacked vertically, each panel w×h.
type figure struct {
	panels []panel
	w, h   vg.Length
	what   string // for the "wrote" line
}

type panel struct {
	plot   *plot.Plot
	bar    *plot.Plot   // a heatmap's color bar, drawn to the panel's right
	legend *plot.Legend // the curves' legend, drawn to the panel's right where it hides no data
}

func (f *plotFlags) figure(rs *resultSet, abSet bool) (*figure, error) {
	filter, err := benchproc.NewFilter(f.filter)
	if err != nil {
		return nil, fmt.Errorf("-filter %q: %w", f.filter, oneLine(err))
	}
	var results []*benchfmt.Result
	for _, r := range rs.results {
		r = r.Clone()
		if ok, _ := filter.Apply(r); ok && len(r.Values) > 0 {
			results = append(results, r)
		}
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("no results match -filter %q", f.filter)
	}
	keys := rs.nameKeys()
	a, b := "/"+f.a, "/"+f.b
	if !abSet && !slices.Contains(keys, a) && slices.Contains(keys, "/cpu_a") {
		a, b = "/cpu_a", "/cpu_b"
	}
	if slices.Contains(keys, a) && slices.Contains(keys, b) {
		return heatmapFigure(results, a, b, f.unit)
	}
	if abSet {
		return nil, fmt.Errorf("-a %s -b %s: the results carry no such pair of name keys (name keys: %s)", f.a, f.b, listOrNone(keys))
	}
	x := "/" + f.x
	if !slices.Contains(keys, x) {
		return nil, fmt.Errorf("-x %s: no result has name key %s (name keys: %s)", f.x, x, listOrNone(keys))
	}
	return curvesFigure(results, x, f.unit)
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
func newMeasure(results []*benchfmt.Result, unit string) (measure, error) {
	units := unitNames(results)
	have := func(u string) bool {
		return slices.ContainsFunc(units, func(x string) bool { return tidyUnit(x) == tidyUnit(u) })
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

func curvesFigure(results []*benchfmt.Result, xKey, unit string) (*figure, error) {
	if unit == "" {
		unit = "ops/s"
	}
	m, err := newMeasure(results, unit)
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
	for _, r := range results {
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
	p.Title.Text = fmt.Sprintf("%s: %s vs %s\n%s", common, m.unit, xKey[1:], machine(results))
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
	return &figure{panels: []panel{{plot: p, legend: &legend}}, w: 9 * vg.Inch, h: 5 * vg.Inch,
		what: fmt.Sprintf("%s vs %s, %s", m.unit, xKey[1:], plural(len(series), "line"))}, nil
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
func machine(results []*benchfmt.Result) string {
	get := func(key string) string {
		var vals []string
		for _, r := range results {
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

func heatmapFigure(results []*benchfmt.Result, aKey, bKey, unit string) (*figure, error) {
	if unit == "" {
		unit = "ns/op"
	}
	m, err := newMeasure(results, unit)
	if err != nil {
		return nil, err
	}
	var parser benchproc.ProjectionParser
	aBy, err := parser.Parse(aKey, nil)
	if err != nil {
		return nil, err
	}
	bBy, err := parser.Parse(bKey, nil)
	if err != nil {
		return nil, err
	}
	// Keys that describe the pair rather than the experiment (contend
	// c2c's class=llc|node|cross) must not split the matrix into one
	// panel per class: project them away from the panel name.
	if attrs := pairAttributes(results, aKey, bKey); len(attrs) > 0 {
		if _, err := parser.Parse(strings.Join(attrs, ","), nil); err != nil {
			return nil, err
		}
	}
	panelBy, err := parser.Parse(".fullname", nil)
	if err != nil {
		return nil, err
	}
	type cell struct {
		panel benchproc.Key
		a, b  float64
	}
	samples := map[cell][]float64{}
	var panels []benchproc.Key
	var as, bs []float64
	num := func(r *benchfmt.Result, key, s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			file, line := r.Pos()
			return 0, fmt.Errorf("%s:%d: %s value %q is not a cpu number", file, line, key[1:], s)
		}
		return v, nil
	}
	for _, r := range results {
		v, ok := m.get(r)
		sa, sb := aBy.Project(r).StringValues(), bBy.Project(r).StringValues()
		if !ok || sa == "" || sb == "" {
			continue
		}
		a, err := num(r, aKey, sa)
		if err != nil {
			return nil, err
		}
		b, err := num(r, bKey, sb)
		if err != nil {
			return nil, err
		}
		pk := panelBy.Project(r)
		panels = appendKey(panels, pk)
		as, bs = append(as, a), append(bs, b)
		samples[cell{pk, a, b}] = append(samples[cell{pk, a, b}], v)
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("no result has %s, %s and %s", aKey, bKey, m.unit)
	}
	slices.Sort(as)
	slices.Sort(bs)
	as, bs = slices.Compact(as), slices.Compact(bs)
	// Pairs measured once each way round (c2c measures a < b) still make
	// a square matrix with its diagonal in place: when the two sides
	// share cpus, both axes carry all of them.
	if slices.ContainsFunc(as, func(a float64) bool { _, ok := slices.BinarySearch(bs, a); return ok }) {
		as = slices.Compact(slices.Sorted(slices.Values(append(as, bs...))))
		bs = as
	}
	names := make([]string, len(panels))
	for i, pk := range panels {
		names[i] = pk.StringValues()
	}
	labels, common := shortLabels(names)
	fig := &figure{w: 7 * vg.Inch, h: 6 * vg.Inch,
		what: fmt.Sprintf("%s heatmap, %d×%d cpus, %s", m.unit, len(as), len(bs), plural(len(panels), "panel"))}
	for i, pk := range panels {
		g := &grid{as: as, bs: bs, z: make([]float64, len(as)*len(bs))}
		lo, hi := math.Inf(1), math.Inf(-1)
		for r, a := range as {
			for c, b := range bs {
				z := math.NaN()
				if vals := samples[cell{pk, a, b}]; len(vals) > 0 {
					z = summarizePoint(0, vals).center
					lo, hi = min(lo, z), max(hi, z)
				}
				g.z[r*len(bs)+c] = z
			}
		}
		if lo == hi { // one value throughout: give the palette a range
			lo, hi = lo-0.5, hi+0.5
		}
		title := fmt.Sprintf("%s: median %s, %s × %s\n%s", common, m.unit, aKey[1:], bKey[1:], machine(results))
		if len(panels) > 1 {
			title = fmt.Sprintf("%s %s: median %s, %s × %s\n%s", common, labels[i], m.unit, aKey[1:], bKey[1:], machine(results))
		}
		fig.panels = append(fig.panels, heatPanel(g, lo, hi, title, aKey[1:], bKey[1:], m.unit))
	}
	return fig, nil
}

// pairAttributes returns the name keys, other than the pair's own, whose
// value is fixed by the pair: one value for every (a, b) but several
// overall. mode=rw|cas varies within a pair and makes panels; class does not.
func pairAttributes(results []*benchfmt.Result, aKey, bKey string) []string {
	type pair struct{ a, b string }
	vals := map[string]map[pair]map[string]bool{} // key → pair → values
	var keys []string
	for _, r := range results {
		_, parts := r.Name.Parts()
		kv := map[string]string{}
		for _, p := range parts {
			if k, v, ok := strings.Cut(string(p), "="); ok && k[0] == '/' {
				kv[k] = v
			}
		}
		pr := pair{kv[aKey], kv[bKey]}
		for k, v := range kv {
			if k == aKey || k == bKey {
				continue
			}
			if vals[k] == nil {
				vals[k] = map[pair]map[string]bool{}
				keys = append(keys, k)
			}
			if vals[k][pr] == nil {
				vals[k][pr] = map[string]bool{}
			}
			vals[k][pr][v] = true
		}
	}
	var attrs []string
	for _, k := range keys {
		all := map[string]bool{}
		perPair := true
		for _, vs := range vals[k] {
			perPair = perPair && len(vs) == 1
			for v := range vs {
				all[v] = true
			}
		}
		if perPair && len(all) > 1 {
			attrs = append(attrs, k)
		}
	}
	return attrs
}

// grid is a heatmap's matrix: row r is a = as[r], column c is b = bs[c],
// placed at integer positions so that cpu numbers with gaps (0, 1, 64, 65)
// still make square cells; the tick labels carry the real numbers.
type grid struct {
	as, bs []float64
	z      []float64
}

func (g *grid) Dims() (c, r int)   { return len(g.bs), len(g.as) }
func (g *grid) Z(c, r int) float64 { return g.z[r*len(g.bs)+c] }
func (g *grid) X(c int) float64    { return float64(c) }
func (g *grid) Y(r int) float64    { return float64(r) }

func heatPanel(g *grid, lo, hi float64, title, aName, bName, unit string) panel {
	cm := latencyMap()
	cm.SetMin(lo)
	cm.SetMax(hi)
	h := plotter.NewHeatMap(g, cm.Palette(255))
	h.Min, h.Max = lo, hi
	h.NaN = color.White // pairs not measured, such as a cpu with itself

	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = bName
	p.Y.Label.Text = aName
	p.Add(h)
	p.X.Tick.Marker = indexTicks(g.bs)
	p.Y.Tick.Marker = indexTicks(g.as)
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}} // a=0 at the top, as a matrix reads
	p.X.Padding, p.Y.Padding = 0, 0

	// Print the values in the cells while they are big enough to read.
	if len(g.as) <= 16 && len(g.bs) <= 16 {
		var xys plotter.XYs
		var texts []string
		var styles []text.Style
		for r := range g.as {
			for c := range g.bs {
				z := g.Z(c, r)
				if math.IsNaN(z) {
					continue
				}
				xys = append(xys, plotter.XY{X: float64(c), Y: float64(r)})
				texts = append(texts, strconv.FormatFloat(z, 'f', 0, 64))
				bg, _ := cm.At(z)
				st := p.X.Tick.Label
				st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
				st.Color = contrast(bg)
				styles = append(styles, st)
			}
		}
		if labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts}); err == nil {
			labels.TextStyle = styles
			p.Add(labels)
		}
	}

	bar := plot.New()
	bar.HideX()
	bar.Y.Padding = 0
	bar.Title.Text = unit
	bar.Y.Tick.Marker = siTicks{}
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	return panel{plot: p, bar: bar}
}

// latencyMap is a sequential, perceptually uniform color map: latency has
// an order but no meaningful midpoint, so a diverging map would invent one.
// It is Kindlmann's map (black, purple, blue, green, yellow) without its
// white end, which is kept for the pairs that were not measured.
func latencyMap() palette.ColorMap {
	cs := moreland.Kindlmann().Palette(16).Colors()
	cm, err := moreland.NewLuminance(cs[:14])
	if err != nil {
		return moreland.Kindlmann() // cannot happen: the controls are Kindlmann's own, in order
	}
	return cm
}

// indexTicks labels integer positions with the cpu numbers they stand for,
// thinned so that a 192-cpu axis stays legible.
func indexTicks(vals []float64) plot.Ticker {
	step := max(1, len(vals)/24)
	var ts []plot.Tick
	for i, v := range vals {
		label := ""
		if i%step == 0 {
			label = strconv.FormatFloat(v, 'g', -1, 64)
		}
		ts = append(ts, plot.Tick{Value: float64(i), Label: label})
	}
	return plot.ConstantTicks(ts)
}

// contrast picks black or white text for a cell's background.
func contrast(bg color.Color) color.Color {
	if bg == nil {
		return color.Black
	}
	r, g, b, _ := bg.RGBA()
	if 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) > 0.5*0xffff {
		return color.Black
	}
	return color.White
}

// render draws the figure in format. gonum/plot panics on some degenerate
// inputs (an empty color range, a log axis through zero); the figure code
// avoids the ones we know, and any other is reported as an error rather
// than a crash.
func render(fig *figure, format string) (data []byte, err error) {
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
