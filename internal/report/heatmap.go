package report

import (
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
// heatmaps: the median of unit for every (a, b) pair, one panel per variant.
func heatmapFigure(picked []*benchfmt.Result, aKey, bKey, unit string) (*Figure, error) {
	if unit == "" {
		unit = "ns/op"
	}
	m, err := newMeasure(picked, unit)
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
	if attrs := pairAttributes(picked, aKey, bKey); len(attrs) > 0 {
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
	for _, r := range picked {
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
	fig := &Figure{w: 7 * vg.Inch, h: 6 * vg.Inch,
		What: fmt.Sprintf("%s heatmap, %d×%d cpus, %s", m.unit, len(as), len(bs), plural(len(panels), "panel"))}
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
		title := fmt.Sprintf("%s: median %s, %s × %s\n%s", common, m.unit, aKey[1:], bKey[1:], machine(picked))
		if len(panels) > 1 {
			title = fmt.Sprintf("%s %s: median %s, %s × %s\n%s", common, labels[i], m.unit, aKey[1:], bKey[1:], machine(picked))
		}
		fig.panels = append(fig.panels, heatPanel(g, lo, hi, title, aKey[1:], bKey[1:], m.unit))
	}
	return fig, nil
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
