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
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// heatmapFigure draws matrix results, such as core-to-core latencies, as
// heatmaps: the median of the unit for every (a, b) pair, one panel per
// variant.
func heatmapFigure(picked []*benchfmt.Result, aKey, bKey string, f Options) (*Figure, error) {
	m, err := newMeasure(picked, cmp.Or(f.Unit, "ns/op"))
	if err != nil {
		return nil, err
	}
	mx, err := gatherMatrix(picked, aKey, bKey, m)
	if err != nil {
		return nil, err
	}
	as, bs := mx.axes()
	names := make([]string, len(mx.panels))
	for i, pk := range mx.panels {
		names[i] = pk.StringValues()
	}
	labels, common := shortLabels(names)
	a, b := aKey[1:], bKey[1:]
	fig := &Figure{
		title:    fmt.Sprintf("%s: median %s for each pair of cpus, %s × %s", common, m.unit, a, b),
		subtitle: machine(picked),
		caption:  fmt.Sprintf("Each cell is the median of its runs; white cells were not measured (a cpu with itself, or a pair left out). Darker is lower %s.", m.unit),
		cols:     1, width: 8 * vg.Inch,
		What: fmt.Sprintf("%s heatmap, %d×%d cpus, %s", m.unit, len(as), len(bs), plural(len(mx.panels), "panel")),
	}
	for i, pk := range mx.panels {
		g, lo, hi := mx.grid(pk, as, bs)
		title := common
		if len(mx.panels) > 1 {
			title = common + " " + labels[i]
		}
		fig.panels = append(fig.panels, heatPanel(g, lo, hi, title, a, b, m.unit))
	}
	return fig, nil
}

// A matrix is the samples of matrix results, by panel (the variant) and
// cpu pair.
type matrix struct {
	panels  []benchproc.Key
	samples map[matrixCell][]float64
	as, bs  []float64 // every a and b seen, unsorted
}

type matrixCell struct {
	panel benchproc.Key
	a, b  float64
}

// gatherMatrix projects the results into panels (the full name without the
// pair and the pair's attributes) and cells.
func gatherMatrix(picked []*benchfmt.Result, aKey, bKey string, m measure) (*matrix, error) {
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
	if attrs := pairAttributes(picked, aKey, bKey); len(attrs) > 0 {
		if _, err := parser.Parse(strings.Join(attrs, ","), nil); err != nil {
			return nil, err
		}
	}
	panelBy, err := parser.Parse(".fullname", nil)
	if err != nil {
		return nil, err
	}
	mx := &matrix{samples: map[matrixCell][]float64{}}
	for _, r := range picked {
		v, ok := m.get(r)
		sa, sb := aBy.Project(r).StringValues(), bBy.Project(r).StringValues()
		if !ok || sa == "" || sb == "" {
			continue
		}
		a, aok := keyNumber(sa)
		b, bok := keyNumber(sb)
		if !aok || !bok {
			key, s := aKey, sa
			if aok {
				key, s = bKey, sb
			}
			file, line := r.Pos()
			return nil, fmt.Errorf("%s:%d: %s value %q is not a cpu number", file, line, key[1:], s)
		}
		pk := panelBy.Project(r)
		if !slices.Contains(mx.panels, pk) {
			mx.panels = append(mx.panels, pk)
		}
		mx.as, mx.bs = append(mx.as, a), append(mx.bs, b)
		c := matrixCell{pk, a, b}
		mx.samples[c] = append(mx.samples[c], v)
	}
	if len(mx.panels) == 0 {
		return nil, fmt.Errorf("no result has %s, %s and %s", aKey, bKey, m.unit)
	}
	return mx, nil
}

// axes returns the rows' and the columns' cpus, ascending. Pairs measured
// once each way round (c2c measures a < b) still make a square matrix with
// its diagonal in place: when the two sides share cpus, both axes carry
// all of them.
func (mx *matrix) axes() (as, bs []float64) {
	as = slices.Compact(slices.Sorted(slices.Values(mx.as)))
	bs = slices.Compact(slices.Sorted(slices.Values(mx.bs)))
	if slices.ContainsFunc(as, func(a float64) bool { _, ok := slices.BinarySearch(bs, a); return ok }) {
		as = slices.Compact(slices.Sorted(slices.Values(append(as, bs...))))
		bs = as
	}
	return as, bs
}

// grid returns one panel's matrix of medians and their range.
func (mx *matrix) grid(pk benchproc.Key, as, bs []float64) (g *grid, lo, hi float64) {
	g = &grid{as: as, bs: bs, z: make([]float64, len(as)*len(bs))}
	lo, hi = math.Inf(1), math.Inf(-1)
	for r, a := range as {
		for c, b := range bs {
			z := math.NaN()
			if vals := mx.samples[matrixCell{pk, a, b}]; len(vals) > 0 {
				z = summarizePoint(0, vals).center
				lo, hi = min(lo, z), max(hi, z)
			}
			g.z[r*len(bs)+c] = z
		}
	}
	if lo == hi { // one value throughout: give the palette a range
		lo, hi = lo-0.5, hi+0.5
	}
	return g, lo, hi
}

// pairAttributes returns the name keys, other than the pair's own, whose
// value is fixed by the pair: one value for every (a, b) but several
// overall. mode=rw|cas varies within a pair and makes panels; class does not.
func pairAttributes(picked []*benchfmt.Result, aKey, bKey string) []string {
	type pair struct{ a, b string }
	vals := map[string]map[pair]map[string]bool{} // key → pair → values
	var keys []string
	for _, r := range picked {
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

// heatPanel draws one matrix with its colour bar, the values printed in
// the cells while they are big enough to read.
func heatPanel(g *grid, lo, hi float64, title, aName, bName, unit string) *panel {
	cm := latencyMap()
	cm.SetMin(lo)
	cm.SetMax(hi)
	h := plotter.NewHeatMap(g, cm.Palette(255))
	h.Min, h.Max = lo, hi
	h.NaN = color.White // pairs not measured, such as a cpu with itself

	p := plot.New()
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
	// The matrix's cells stay about square: the data area is the panel's
	// width less the axis and the colour bar.
	return &panel{title: title, plot: p, bar: bar, height: 6 * vg.Inch}
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
