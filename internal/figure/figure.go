package figure

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Options choose what a figure shows, as contend plot's flags do.
type Options struct {
	Filter string // benchproc filter of the results plotted
	Unit   string // the plotted unit; "" for the default (ops/s, or ns/op for a heatmap)
	X      string // name key of the thread counts (curves' x axis, dot plots' dots)
	XSet   bool   // X was asked for: an error if no result has it, rather than one dot per variant
	A, B   string // name keys of a heatmap's rows and columns
	ABSet  bool   // A and B were asked for: no fallback to cpu_a, cpu_b
	Scale  string // value axis: "auto" (or ""), "linear" or "log"
	Style  string // "auto" (or ""), "curves" or "dots"
}

// A Figure is what contend plot draws: a header that says what is shown and
// where it was measured, a grid of panels (small multiples: one per
// scenario, or one heatmap per variant), each with its title above and its
// legend below, and a caption that says what the marks mean. Every piece of
// text is measured and wrapped (or shortened) to the width it has, so none
// is drawn outside the canvas or over the data, however long the benchmark
// names.
type Figure struct {
	title    string // first header line
	subtitle string // the machine
	caption  string // what points and bars are
	panels   []*panel
	cols     int       // panels per row
	width    vg.Length // of the whole figure
	What     string    // what it shows, in words, for the "wrote" line
}

// A panel is one plot of a Figure.
type panel struct {
	title  string
	plot   *plot.Plot
	height vg.Length // of the plot, axes included
	legend []legendEntry
	bar    *plot.Plot // a heatmap's colour bar, drawn to the plot's right
}

// A legendEntry is one line of a legend: a label and the marks it stands
// for, drawn as a thumbnail.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

const (
	margin    = 0.15 * vg.Inch
	colGap    = 0.35 * vg.Inch
	rowGap    = 0.3 * vg.Inch
	thumbW    = 0.3 * vg.Inch
	legendGap = 0.25 * vg.Inch // between legend columns
	barW      = 1.1 * vg.Inch  // a heatmap's colour bar and its labels
	dpi       = 120
)

// styles are the Figure's fonts: gonum/plot's default face, in a few
// sizes, the machine line and the caption in grey.
type styles struct{ title, subtitle, panel, legend, caption text.Style }

func newStyles() styles {
	base := plot.New().Title.TextStyle
	base.XAlign, base.YAlign = draw.XLeft, draw.YTop
	size := func(pt vg.Length, c color.Color) text.Style {
		s := base
		s.Font.Size, s.Color = pt, c
		return s
	}
	grey := color.Gray{Y: 0x40}
	return styles{title: size(13, base.Color), subtitle: size(10, grey), panel: size(11, base.Color),
		legend: size(9, base.Color), caption: size(9, grey)}
}

// lineHeight is the distance from one line of text in sty to the next.
func lineHeight(sty text.Style) vg.Length { return sty.FontExtents().Height * 1.1 }

// wrap breaks s into lines no wider than width, at spaces where it can and
// after a "/" or anywhere in a word that is wider than a line by itself.
func wrap(sty text.Style, s string, width vg.Length) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			next := word
			if line != "" {
				next = line + " " + word
			}
			if sty.Width(next) <= width {
				line = next
				continue
			}
			if line != "" {
				lines = append(lines, line)
			}
			// A word wider than the line is broken where it fits.
			for sty.Width(word) > width {
				cut := breakAt(sty, word, width)
				lines = append(lines, word[:cut])
				word = word[cut:]
			}
			line = word
		}
		lines = append(lines, line)
	}
	return lines
}

// breakAt returns where to break word so that its head fits width: after
// the last "/" or "," that fits, else after the last character that does.
func breakAt(sty text.Style, word string, width vg.Length) int {
	fit := 0
	for i := range word {
		if i > 0 && sty.Width(word[:i]) > width {
			break
		}
		fit = i
	}
	if fit == 0 {
		_, n := utf8.DecodeRuneInString(word)
		return n
	}
	if j := strings.LastIndexAny(word[:fit], "/,"); j > 0 {
		return j + 1
	}
	return fit
}

// shorten returns s, or as much of its start as fits width with "…"
// after it.
func shorten(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	rs := []rune(s)
	for n := len(rs) - 1; n > 0; n-- {
		if t := string(rs[:n]) + "…"; sty.Width(t) <= width {
			return t
		}
	}
	return "…"
}

// A placed piece of a Figure's layout.
type cellLayout struct {
	x, w        vg.Length // left edge and width
	top         vg.Length // top of the title
	title       []string
	plotTop     vg.Length
	plotH       vg.Length
	legendTop   vg.Length
	legendCols  int
	legendColW  vg.Length
	legendLabel []string
}

type layout struct {
	height   vg.Length
	title    []string
	subtitle []string
	caption  []string
	cells    []cellLayout
}

// columns returns how many of n panels a row holds and how wide each is.
func (fig *Figure) columns(n int) (cols int, colW vg.Length) {
	cols = max(1, min(fig.cols, n))
	return cols, (fig.width - 2*margin - vg.Length(cols-1)*colGap) / vg.Length(cols)
}

// layout measures everything and places it top-down.
func (fig *Figure) layout(st styles) layout {
	var l layout
	inner := fig.width - 2*margin
	l.title = wrap(st.title, fig.title, inner)
	l.subtitle = wrap(st.subtitle, fig.subtitle, inner)
	l.caption = wrap(st.caption, fig.caption, inner)
	y := margin + vg.Length(len(l.title))*lineHeight(st.title) + vg.Length(len(l.subtitle))*lineHeight(st.subtitle) + rowGap/2

	cols, colW := fig.columns(len(fig.panels))
	l.cells = make([]cellLayout, len(fig.panels))
	for row := 0; row*cols < len(fig.panels); row++ {
		first, last := row*cols, min((row+1)*cols, len(fig.panels))
		var titleH, plotH, legendH vg.Length
		for i := first; i < last; i++ {
			pn, c := fig.panels[i], &l.cells[i]
			c.x, c.w = margin+vg.Length(i-first)*(colW+colGap), colW
			c.title = wrap(st.panel, pn.title, colW)
			titleH = max(titleH, vg.Length(len(c.title))*lineHeight(st.panel))
			plotH = max(plotH, pn.height)
			c.legendCols, c.legendColW, c.legendLabel = legendColumns(st.legend, pn.legend, colW)
			rows := (len(pn.legend) + c.legendCols - 1) / c.legendCols
			legendH = max(legendH, vg.Length(rows)*lineHeight(st.legend))
		}
		for i := first; i < last; i++ {
			c := &l.cells[i]
			c.top = y
			c.plotTop = y + titleH + 0.05*vg.Inch
			c.plotH = plotH
			c.legendTop = c.plotTop + plotH + 0.05*vg.Inch
		}
		y += titleH + 0.05*vg.Inch + plotH
		if legendH > 0 {
			y += 0.05*vg.Inch + legendH
		}
		y += rowGap
	}
	y += vg.Length(len(l.caption)) * lineHeight(st.caption)
	l.height = y + margin
	return l
}

// legendColumns lays a legend out in as many columns as its widest entry
// allows in width, shortening any entry wider than width by itself.
func legendColumns(sty text.Style, entries []legendEntry, width vg.Length) (cols int, colW vg.Length, labels []string) {
	if len(entries) == 0 {
		return 1, width, nil
	}
	textW := width - thumbW - sty.Width(" ")
	for _, e := range entries {
		s := shorten(sty, e.label, textW)
		labels = append(labels, s)
		colW = max(colW, thumbW+sty.Width(" "+s))
	}
	cols = max(1, min(len(entries), int((width+legendGap)/(colW+legendGap))))
	return cols, colW, labels
}

// Render draws the Figure in format, svg or png. gonum/plot panics on some
// degenerate inputs (an empty colour range, a log axis through zero); the
// Figure code avoids the ones we know, and any other is reported as an
// error rather than a crash.
func (fig *Figure) Render(format string) ([]byte, error) {
	data, _, err := fig.render(format)
	return data, err
}

// render draws the Figure and returns, besides the encoded picture, what
// the recorder saw: where every string and every data area landed.
func (fig *Figure) render(format string) (data []byte, rec *recorder, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, rec, err = nil, nil, fmt.Errorf("drawing %s: %v", format, r)
		}
	}()
	st := newStyles()
	lay := fig.layout(st)
	w, h := fig.width, lay.height
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "svg":
		c = vgsvg.New(w, h)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
	default:
		return nil, nil, fmt.Errorf("unknown format %q", format)
	}
	rec = newRecorder(c)
	dc := draw.NewCanvas(rec, w, h)
	dc.SetColor(color.White) // SVG is transparent otherwise, unreadable on a dark page
	dc.Fill(dc.Rectangle.Path())
	fig.draw(dc, st, lay, rec)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, nil, fmt.Errorf("encoding %s: %w", format, err)
	}
	return buf.Bytes(), rec, nil
}

// draw draws the laid-out Figure on dc; y in the layout counts down from
// the top, the canvas's up from the bottom.
func (fig *Figure) draw(dc draw.Canvas, st styles, lay layout, rec *recorder) {
	top := dc.Max.Y
	at := func(y vg.Length) vg.Length { return top - y }
	rec.layout = true
	// lines draws text from y down, returning where the next line goes.
	lines := func(sty text.Style, y vg.Length, ss []string) vg.Length {
		for _, s := range ss {
			dc.FillText(sty, vg.Point{X: margin, Y: at(y)}, s)
			y += lineHeight(sty)
		}
		return y
	}
	lines(st.subtitle, lines(st.title, margin, lay.title), lay.subtitle)
	for i, pn := range fig.panels {
		c := lay.cells[i]
		pt := st.panel
		pt.XAlign = draw.XCenter
		for j, s := range c.title {
			dc.FillText(pt, vg.Point{X: c.x + c.w/2, Y: at(c.top + vg.Length(j)*lineHeight(st.panel))}, s)
		}
		area := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.x, Y: at(c.plotTop + c.plotH)},
			Max: vg.Point{X: c.x + c.w, Y: at(c.plotTop)},
		}}
		rec.layout = false
		if pn.bar != nil {
			plotC := draw.Crop(area, 0, -barW, 0, 0)
			pn.plot.Draw(plotC)
			data := pn.plot.DataCanvas(plotC)
			rec.areas = append(rec.areas, data.Rectangle)
			// The bar spans the heatmap's data area, beside it.
			bc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: area.Max.X - barW + 0.2*vg.Inch, Y: data.Min.Y},
				Max: vg.Point{X: area.Max.X, Y: data.Max.Y},
			}}
			pn.bar.Draw(bc)
		} else {
			pn.plot.Draw(area)
			rec.areas = append(rec.areas, pn.plot.DataCanvas(area).Rectangle)
		}
		rec.layout = true
		fig.drawLegend(dc, st.legend, pn, c, at)
	}
	lines(st.caption, lay.height-margin-vg.Length(len(lay.caption))*lineHeight(st.caption), lay.caption)
}

// drawLegend draws a panel's legend below its plot, row by row.
func (fig *Figure) drawLegend(dc draw.Canvas, sty text.Style, pn *panel, c cellLayout, at func(vg.Length) vg.Length) {
	sty.YAlign = draw.YCenter
	lh := lineHeight(sty)
	// Centre the block of columns under the plot.
	used := vg.Length(c.legendCols)*c.legendColW + vg.Length(c.legendCols-1)*legendGap
	left := c.x + max(0, (c.w-used)/2)
	for i, e := range pn.legend {
		col, row := i%c.legendCols, i/c.legendCols
		x := left + vg.Length(col)*(c.legendColW+legendGap)
		mid := at(c.legendTop + (vg.Length(row)+0.5)*lh)
		icon := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: mid - lh/2 + 1},
			Max: vg.Point{X: x + thumbW, Y: mid + lh/2 - 1},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(&icon)
		}
		dc.FillText(sty, vg.Point{X: x + thumbW + sty.Width(" "), Y: mid}, c.legendLabel[i])
	}
}
