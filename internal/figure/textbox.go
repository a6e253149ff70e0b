package figure

import (
	"math"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// A textBox is where one piece of text landed on the canvas: the rectangle
// of its glyphs (from the descent to the ascent), after every transform.
type textBox struct {
	text   string
	rect   vg.Rectangle
	layout bool // drawn by the Figure's layout (titles, legends, caption), not inside a plot
}

// recorder passes everything through to the canvas underneath and notes
// where each string was drawn. gonum/plot centres a title on its canvas
// whatever its width, so a long title starts at a negative x and is cut
// off; nothing in a Figure may be drawn outside the canvas, and the tests
// check that with these boxes rather than by looking at pictures.
type recorder struct {
	vg.Canvas
	m     affine
	stack []affine
	texts []textBox
	areas []vg.Rectangle // the data areas of the plots, as Render laid them out
	// layout is set while the Figure draws its own text.
	layout bool
}

func newRecorder(c vg.Canvas) *recorder { return &recorder{Canvas: c, m: identity} }

func (r *recorder) Translate(pt vg.Point) {
	r.m = r.m.mul(affine{1, 0, 0, 1, float64(pt.X), float64(pt.Y)})
	r.Canvas.Translate(pt)
}

func (r *recorder) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	r.m = r.m.mul(affine{c, s, -s, c, 0, 0})
	r.Canvas.Rotate(rad)
}

func (r *recorder) Scale(x, y float64) {
	r.m = r.m.mul(affine{x, 0, 0, y, 0, 0})
	r.Canvas.Scale(x, y)
}

func (r *recorder) Push() {
	r.stack = append(r.stack, r.m)
	r.Canvas.Push()
}

func (r *recorder) Pop() {
	if n := len(r.stack); n > 0 {
		r.m, r.stack = r.stack[n-1], r.stack[:n-1]
	}
	r.Canvas.Pop()
}

func (r *recorder) FillString(f font.Face, pt vg.Point, text string) {
	if text != "" && f.Font.Size > 0 {
		e := f.Extents()
		lo := vg.Point{X: pt.X, Y: pt.Y - e.Descent}
		hi := vg.Point{X: pt.X + f.Width(text), Y: pt.Y + e.Ascent}
		box := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))},
			Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
		for _, p := range [4]vg.Point{lo, hi, {X: lo.X, Y: hi.Y}, {X: hi.X, Y: lo.Y}} {
			q := r.m.apply(p)
			box.Min.X, box.Min.Y = min(box.Min.X, q.X), min(box.Min.Y, q.Y)
			box.Max.X, box.Max.Y = max(box.Max.X, q.X), max(box.Max.Y, q.Y)
		}
		r.texts = append(r.texts, textBox{text, box, r.layout})
	}
	r.Canvas.FillString(f, pt, text)
}

// affine maps (x, y) to (a·x + c·y + e, b·x + d·y + f), as PDF and cairo
// matrices do.
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{1, 0, 0, 1, 0, 0}

// mul returns m·n: n applied first, as a transform appended to a canvas's
// current one is.
func (m affine) mul(n affine) affine {
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) apply(p vg.Point) vg.Point {
	x, y := float64(p.X), float64(p.Y)
	return vg.Point{X: vg.Length(m.a*x + m.c*y + m.e), Y: vg.Length(m.b*x + m.d*y + m.f)}
}
