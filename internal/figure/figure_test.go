package figure

import (
	"bytes"
	"cmp"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/contend/contend/internal/results"
)

// manyVariants writes a results file of one benchmark with n variants whose
// names are long, at the given thread counts, six runs each: what a full
// sweep of a scenario with many keys looks like.
func manyVariants(t *testing.T, n int, threads ...int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: AMD EPYC 9B14 96-Core Processor                \ncpu_family: 25\ncpu_model: 17\ncpu_stepping: 1\ntopology: real\nnodes: 2\n")
	for v := range n {
		for _, th := range threads {
			for run := range 6 {
				ns := float64(10+v*7) * float64(th) * (1 + 0.01*float64(run))
				fmt.Fprintf(&b, "BenchmarkIdleMask/update=%s/scan=%s/sis=prop/busy=%d/wake=10/llc=48/tick=%d/hz=1000/threads=%d/place=compact-8 1000 %g ns/op\n",
					[]string{"always", "laststate", "tickstop", "none"}[v%4], []string{"mask", "all"}[v/4%2], 50+v, 100+v/8, th, ns)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "many.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// longNames writes a file whose benchmark name and configuration are longer
// than any figure is wide: every title must wrap, every label shorten.
func longNames(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("cpu: " + strings.Repeat("Very Long Processor Name ", 12) + "\ntopology: fake-2\n")
	long := strings.Repeat("x", 300)
	for _, th := range []int{1, 2, 4, 8, 16} {
		for v := range 3 {
			for range 6 {
				fmt.Fprintf(&b, "Benchmark%s/key=%d%s/threads=%d-2 10 %d ns/op\n", long, v, long, th, 10*th+v)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "long.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFigureFitsCanvas renders figures of every results fixture, of this
// machine's quick sweep, of a many-variant file and of absurdly long names
// as PNG, and checks what a reader would: the picture is the size the
// layout says; every piece of text — titles, legend entries, tick and axis
// labels, the caption — lies inside the canvas; the figure's own text
// (titles, legends, caption) neither overlaps itself nor covers a plot's
// data; every legend entry is drawn; and the caption says what the bars
// are.
func TestFigureFitsCanvas(t *testing.T) {
	full := filepath.Join("..", "..", "benchdata", "2026-11-29-epyc2-kvm-real-sweep-full.txt")
	// Rasterizing is slow under -race (seconds for the full sweep), so the
	// larger figures are drawn as SVG: the layout, and so every text box the
	// recorder checks, is the same in both formats.
	tests := []struct {
		name    string
		file    string
		opts    Options
		panels  int
		want    []string // in some text of the figure
		notWant []string
		svg     bool
	}{
		{"curves", res("new.txt"), Options{}, 1,
			[]string{"LoadAvg write=ratelimit place=spread", "store=global", "store=pernode", "95% confidence interval", "against threads"}, []string{"(log)"}, false},
		{"curves ns/op", res("fake2.txt"), Options{Unit: "ns/op"}, 1, []string{"topology fake-2", "ns/op"}, nil, false},
		{"go test file", res("gotest.txt"), Options{}, 1, []string{"AtomicAdd place=compact", "line=shared/work=0"}, nil, false},
		{"heatmap", res("c2c.txt"), Options{}, 1, []string{"C2C mode=rw: median ns/op for each pair of cpus, a × b", "41", "114"}, nil, false},
		{"heatmap panels", res("c2c-real.txt"), Options{}, 2, []string{"C2C mode=rw", "C2C mode=cas"}, nil, true},
		// contend sweep -quick: one thread count, six scenarios.
		{"quick sweep", filepath.Join("testdata", "quick-sweep.txt"), Options{}, 6,
			[]string{"by variant at threads=2", "AtomicAdd", "Nodemask", "iter=nr_node_ids+word", "Each dot is the median of 6 runs", "(family 25 model 1 stepping 1)"}, nil, false},
		{"quick sweep log", filepath.Join("testdata", "quick-sweep.txt"), Options{Scale: "log"}, 6, []string{"(log)", "logarithmic"}, nil, true},
		{"many variants", "many", Options{}, 1, []string{"a dot per threads", "threads=8"}, nil, false},
		{"many variants as curves", "many", Options{Style: "curves"}, 1, []string{"against threads"}, nil, true},
		{"long names", "long", Options{}, 1, []string{"…"}, nil, false},
		{"full sweep", full, Options{}, 5, []string{"IdleMask llc=48 place=compact", "threads=1", "threads=2"}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := tc.file
			switch path {
			case "many":
				path = manyVariants(t, 40, 1, 2, 4, 8)
			case "long":
				path = longNames(t)
			}
			rs, err := results.Read([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			opts := tc.opts
			opts.Filter = "*"
			opts.X, opts.A, opts.B = "threads", "a", "b"
			fig, err := New(rs, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(fig.panels) != tc.panels {
				t.Errorf("%d panels, want %d", len(fig.panels), tc.panels)
			}
			format := "png"
			if tc.svg {
				format = "svg"
			}
			data, rec, err := fig.render(format)
			if err != nil {
				t.Fatal(err)
			}
			if format == "png" {
				checkPNG(t, data, fig.width, fig.layout(newStyles()).height)
			}
			checkText(t, fig, rec)
			all := ""
			for _, b := range rec.texts {
				all += b.text + "\n"
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("no text contains %q; the figure has:\n%s", w, all)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(all, w) {
					t.Errorf("a text contains %q", w)
				}
			}
			if testing.Verbose() && os.Getenv("CONTEND_KEEP_PLOTS") != "" {
				out := filepath.Join(os.Getenv("CONTEND_KEEP_PLOTS"), strings.ReplaceAll(tc.name, " ", "-")+"."+format)
				if err := os.WriteFile(out, data, 0o644); err == nil {
					t.Logf("kept %s", out)
				}
			}
		})
	}
}

// checkPNG decodes the picture and checks its size against the layout's, at
// the figure's 120 dpi.
func checkPNG(t *testing.T, data []byte, w, h vg.Length) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	px := func(l vg.Length) int { return int(math.Ceil(l.Dots(dpi) - 1e-6)) }
	if b := img.Bounds(); abs(b.Dx()-px(w)) > 1 || abs(b.Dy()-px(h)) > 1 {
		t.Errorf("PNG is %v, want %d×%d px (%.1f×%.1f in at %d dpi)", b.Size(), px(w), px(h), w/vg.Inch, h/vg.Inch, dpi)
	}
	if h > 60*vg.Inch {
		t.Errorf("figure is %.0f in tall", h/vg.Inch)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// checkText checks where the recorder saw text land.
func checkText(t *testing.T, fig *Figure, rec *recorder) {
	t.Helper()
	const slack = 0.5 // points: anti-aliasing, not layout
	h := fig.layout(newStyles()).height
	canvas := vg.Rectangle{Max: vg.Point{X: fig.width, Y: h}}
	inside := func(r, in vg.Rectangle) bool {
		return r.Min.X >= in.Min.X-slack && r.Min.Y >= in.Min.Y-slack && r.Max.X <= in.Max.X+slack && r.Max.Y <= in.Max.Y+slack
	}
	overlap := func(a, b vg.Rectangle) bool {
		return a.Min.X < b.Max.X-slack && b.Min.X < a.Max.X-slack && a.Min.Y < b.Max.Y-slack && b.Min.Y < a.Max.Y-slack
	}
	var mine []textBox
	for _, b := range rec.texts {
		if !inside(b.rect, canvas) {
			t.Errorf("text %q at %v lies outside the %v canvas", b.text, b.rect, canvas.Max)
		}
		if b.layout {
			mine = append(mine, b)
		}
	}
	for i, a := range mine {
		for _, b := range mine[i+1:] {
			if overlap(a.rect, b.rect) {
				t.Errorf("texts %q %v and %q %v overlap", a.text, a.rect, b.text, b.rect)
			}
		}
		for _, area := range rec.areas {
			if overlap(a.rect, area) {
				t.Errorf("text %q %v covers a plot's data area %v", a.text, a.rect, area)
			}
		}
	}
	// Every legend entry is drawn, whole or shortened with "…".
	for _, pn := range fig.panels {
		for _, e := range pn.legend {
			found := false
			for _, b := range mine {
				short, cut := strings.CutSuffix(b.text, "…")
				if b.text == e.label || cut && strings.HasPrefix(e.label, short) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("legend entry %q is not drawn", e.label)
			}
		}
	}
	if len(rec.areas) != len(fig.panels) {
		t.Errorf("%d data areas for %d panels", len(rec.areas), len(fig.panels))
	}
}

func TestWrapAndShorten(t *testing.T) {
	sty := newStyles().legend
	width := sty.Width("0123456789")
	for _, s := range []string{
		"short",
		"a few words that need more than one line to fit",
		strings.Repeat("x", 55),
		"LoadAvg/preset=rate+skip/store=atomic/write=ratelimit/read=skip",
		"",
	} {
		lines := wrap(sty, s, width)
		if strings.Join(strings.Fields(strings.Join(lines, "")), "") != strings.Join(strings.Fields(s), "") {
			t.Errorf("wrap(%q) = %q: lost or gained text", s, lines)
		}
		for _, l := range lines {
			if sty.Width(l) > width {
				t.Errorf("wrap(%q): line %q is wider than %v", s, l, width)
			}
		}
		if got := shorten(sty, s, width); sty.Width(got) > width || got != s && !strings.HasSuffix(got, "…") {
			t.Errorf("shorten(%q) = %q", s, got)
		}
	}
	if got := wrap(sty, "LoadAvg/preset=rate+skip", sty.Width("LoadAvg/pres")); got[0] != "LoadAvg/" {
		t.Errorf("wrap breaks a long name at %q, want after the /", got[0])
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string // labelled ticks
	}{
		{3e6, 2e8, "5M 10M 20M 50M 100M 200M"},
		{1e6, 5e9, "1M 10M 100M 1G"},
		{110, 190, "110 190"},
		{0, 10, ""},
	} {
		var got []string
		for _, tk := range (logTicks{}).Ticks(tc.min, tc.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("logTicks(%g, %g) labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

// TestValueAxis: auto goes logarithmic only where the values span more than
// 30×; linear starts at zero with room above the largest bar.
func TestValueAxis(t *testing.T) {
	pts := func(vs ...float64) []point {
		var ps []point
		for _, v := range vs {
			ps = append(ps, point{center: v, lo: v * 0.9, hi: v * 1.1, n: 6})
		}
		return ps
	}
	for _, tc := range []struct {
		scale string
		ps    []point
		log   bool
	}{
		{"auto", pts(1e6, 2e6), false},
		{"auto", pts(1e6, 1.4e9), true},
		{"linear", pts(1e6, 1.4e9), false},
		{"log", pts(1e6, 2e6), true},
		{"log", pts(0, 2e6), false}, // a zero has no logarithm
	} {
		p := plot.New()
		valueAxis(&p.Y, tc.ps, tc.scale)
		if log := p.Y.Scale == (plot.LogScale{}); log != tc.log {
			t.Errorf("valueAxis(%s, %v): log %v, want %v", tc.scale, tc.ps, log, tc.log)
		}
		if !tc.log && (p.Y.Min != 0 || p.Y.Max <= tc.ps[len(tc.ps)-1].hi) {
			t.Errorf("valueAxis(%s): linear range [%g, %g], want from 0 past %g", tc.scale, p.Y.Min, p.Y.Max, tc.ps[len(tc.ps)-1].hi)
		}
	}
}

func TestAffine(t *testing.T) {
	// Translate then rotate a quarter turn: (1, 0) lands at (10, 21).
	m := identity.mul(affine{1, 0, 0, 1, 10, 20}).mul(affine{0, 1, -1, 0, 0, 0})
	if got := m.apply(vg.Point{X: 1, Y: 0}); math.Abs(float64(got.X-10)) > 1e-9 || math.Abs(float64(got.Y-21)) > 1e-9 {
		t.Errorf("apply = %v, want (10, 21)", got)
	}
}

func TestFigureOptionErrors(t *testing.T) {
	newRS, err := results.Read([]string{res("new.txt")})
	if err != nil {
		t.Fatal(err)
	}
	parse := func(data string) *results.Set {
		rs, err := results.Parse(strings.NewReader(data), "x.txt")
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	for _, tc := range []struct {
		rs   *results.Set
		opts Options
		want string
	}{
		{newRS, Options{Scale: "cubic"}, `-scale "cubic": want auto, linear, log`},
		{newRS, Options{Style: "bars"}, `-style "bars": want auto, curves, dots`},
		{newRS, Options{X: "cpus", XSet: true}, "-x cpus: no result has name key /cpus"},
		{newRS, Options{X: "cpus", Style: "curves"}, "-style curves: the results have no /cpus to draw curves against"},
		{newRS, Options{A: "x", B: "y", ABSet: true}, "-a x -b y: the results carry no such pair of name keys"},
		{newRS, Options{Filter: "/store:none"}, `no results match -filter "/store:none"`},
		{newRS, Options{Filter: "/store:("}, `-filter "/store:(": syntax error`},
		{newRS, Options{Unit: "allocs/op"}, "-unit allocs/op: no result measures it (units: ns/op shared-writes/op cas/op worker-cv-% ops/s)"},
		{parse("BenchmarkX/threads=two 10 5 ns/op\n"), Options{}, `x.txt:1: -x threads: value "two" is not a number`},
		{parse("BenchmarkC2C/a=0/b=one 10 5 ns/op\n"), Options{}, `x.txt:1: b value "one" is not a cpu number`},
		{parse("BenchmarkC2C/a=NaN/b=1 10 5 ns/op\n"), Options{}, `x.txt:1: a value "NaN" is not a cpu number`},
	} {
		tc.opts.Filter = cmp.Or(tc.opts.Filter, "*")
		tc.opts.X = cmp.Or(tc.opts.X, "threads")
		tc.opts.A, tc.opts.B = cmp.Or(tc.opts.A, "a"), cmp.Or(tc.opts.B, "b")
		if _, err := New(tc.rs, tc.opts); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want %s", tc.opts, err, tc.want)
		}
	}
	fig, err := New(newRS, Options{Filter: "*", X: "threads"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fig.Render("gif"); err == nil || err.Error() != `unknown format "gif"` {
		t.Errorf(`Render("gif") = %v, want unknown format "gif"`, err)
	}
}
