package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// svgText parses an SVG document as XML and returns the text of its <text>
// elements, one per line.
func svgText(t *testing.T, data []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var texts []string
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse as XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		}
	}
	return strings.Join(texts, "\n")
}

func TestPlotSVG(t *testing.T) {
	dir := t.TempDir()
	c2c := filepath.Join(dir, "cpupairs.txt")
	err := os.WriteFile(c2c, []byte("cpu: Test CPU\ntopology: fake-2\n"+
		"BenchmarkC2C/cpu_a=0/cpu_b=1 10 40 ns/op\nBenchmarkC2C/cpu_a=1/cpu_b=0 10 44 ns/op\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	nothreads := filepath.Join(dir, "nothreads.txt")
	err = os.WriteFile(nothreads, []byte(strings.Repeat("BenchmarkX/mode=a 10 40 ns/op\nBenchmarkX/mode=b 10 44 ns/op\n", 6)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // in the SVG's text
	}{
		{"curves", []string{res("new.txt")}, []string{
			"throughput, all threads (ops/s) against threads, one panel per benchmark",
			"LoadAvg write=ratelimit place=spread",
			"AMD EPYC 9B14 96-Core Processor · topology real · nodes 2",
			"store=global", "store=pernode", "threads",
			"bar is the 95% confidence interval of the median"}},
		{"curves ns/op", []string{"-unit", "ns/op", res("fake2.txt")}, []string{"ns/op against threads", "topology fake-2"}},
		{"curves custom unit", []string{"-unit", "cas/op", "-filter", "/store:global", res("old.txt")}, []string{"cas/op against threads", "LoadAvg store=global write=ratelimit place=spread"}},
		{"curves forced log", []string{"-scale", "log", res("new.txt")}, []string{"throughput, all threads (ops/s) (log)", "logarithmic"}},
		{"dots", []string{"-style", "dots", res("new.txt")}, []string{"by variant, a dot per threads", "threads=4", "Each dot is the median"}},
		{"go test file", []string{res("gotest.txt")}, []string{"by variant, a dot per threads", "AtomicAdd place=compact", "AMD EPYC · topology real", "line=shared/work=0", "threads=2"}},
		{"one thread count", []string{"-filter", "/threads:1", res("new.txt")}, []string{"by variant at threads=1"}},
		{"no thread counts", []string{nothreads}, []string{"throughput, all threads (ops/s) by variant, one panel per benchmark", "mode=a", "mode=b"}},
		{"heatmap", []string{res("c2c.txt")}, []string{"C2C mode=rw: median ns/op for each pair of cpus, a × b", "AMD EPYC 9B14", "topology real", "41", "114"}},
		{"heatmap cpu_a", []string{c2c}, []string{"C2C: median ns/op for each pair of cpus, cpu_a × cpu_b", "Test CPU · topology fake-2"}},
		// contend c2c -bench output: one panel per mode, not per class.
		{"contend c2c", []string{res("c2c-real.txt")}, []string{
			"C2C: median ns/op for each pair of cpus, cpu_a × cpu_b", "C2C mode=rw", "C2C mode=cas", "AMD EPYC · topology fake-2 · nodes 2"}},
		{"contend c2c one mode", []string{"-filter", "/mode:cas", "-unit", "min-ns/op", res("c2c-real.txt")}, []string{"C2C mode=cas: median min-ns/op for each pair of cpus, cpu_a × cpu_b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "plot.svg")
			var stdout, stderr bytes.Buffer
			args := append([]string{"plot", "-o", out}, tc.args...)
			if err := run(&stdout, &stderr, args); err != nil {
				t.Fatalf("contend %s: %v", strings.Join(args, " "), err)
			}
			if !strings.HasPrefix(stdout.String(), "wrote "+out) {
				t.Errorf("stdout = %q, want it to say it wrote %s", stdout.String(), out)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			text := svgText(t, data)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("SVG text does not mention %q; it has:\n%s", w, text)
				}
			}
		})
	}
}

func TestPlotPNG(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(&stdout, &stderr, []string{"plot", "-format", "both", "-o", filepath.Join(dir, "scaling"), res("old.txt")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "scaling.svg")); err != nil {
		t.Error(err)
	}
	f, err := os.Open(filepath.Join(dir, "scaling.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("scaling.png: %v", err)
	}
	// One panel: 8 in wide at 120 dpi, as tall as its plot, legend and
	// text need.
	if b := img.Bounds(); b.Dx() != 8*120 || b.Dy() < 4*120 || b.Dy() > 8*120 {
		t.Errorf("scaling.png is %v, want 960 px wide (8 in at 120 dpi) and 480 to 960 px tall", b.Size())
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	words := filepath.Join(dir, "words.txt")
	if err := os.WriteFile(words, []byte("BenchmarkX/threads=many 1 2 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inf := filepath.Join(dir, "inf.txt")
	if err := os.WriteFile(inf, []byte("BenchmarkX/threads=1 1 2 ns/op\nBenchmarkX/threads=Inf 1 2 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.svg")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no file", []string{"plot"}, []string{"plot: want one results file, got 0 arguments"}},
		{"missing file", []string{"plot", "-o", out, res("nope.txt")}, []string{"plot: open testdata/results/nope.txt"}},
		{"malformed", []string{"plot", "-o", out, res("bad-missing.txt")}, []string{"plot: testdata/results/bad-missing.txt:3: missing measurements"}},
		{"no results", []string{"plot", "-o", out, res("empty.txt")}, []string{"empty.txt: no benchmark results"}},
		{"unknown unit", []string{"plot", "-o", out, "-unit", "B/op", res("new.txt")}, []string{"plot: -unit B/op: no result measures it", "ops/s"}},
		{"ops/s without ns/op", []string{"plot", "-o", out, "-unit", "ops/s", "-filter", ".unit:cas/op", res("new.txt")}, []string{"-unit ops/s: needs ns/op results"}},
		{"unknown x", []string{"plot", "-o", out, "-x", "cpus", res("new.txt")}, []string{"plot: -x cpus: no result has name key /cpus", "name keys: /store"}},
		{"x not a number", []string{"plot", "-o", out, words}, []string{"words.txt:1: -x threads: value \"many\" is not a number"}},
		{"x not finite", []string{"plot", "-o", out, inf}, []string{"inf.txt:2: -x threads: value \"Inf\" is not a number"}},
		{"a and b missing", []string{"plot", "-o", out, "-a", "src", res("new.txt")}, []string{"-a src -b b: the results carry no such pair"}},
		{"bad filter", []string{"plot", "-o", out, "-filter", "(", res("new.txt")}, []string{"plot: -filter \"(\""}},
		{"filter matches nothing", []string{"plot", "-o", out, "-filter", "/store:none", res("new.txt")}, []string{"no results match"}},
		{"bad extension", []string{"plot", "-o", filepath.Join(dir, "x.jpg"), res("new.txt")}, []string{"unknown extension \".jpg\""}},
		{"bad format", []string{"plot", "-format", "pdf", "-o", out, res("new.txt")}, []string{"-format \"pdf\": want svg, png or both"}},
		{"bad scale", []string{"plot", "-scale", "cubic", "-o", out, res("new.txt")}, []string{"plot: -scale \"cubic\": want auto, linear, log"}},
		{"bad style", []string{"plot", "-style", "pie", "-o", out, res("new.txt")}, []string{"plot: -style \"pie\": want auto, curves, dots"}},
		{"curves without threads", []string{"plot", "-style", "curves", "-o", out, res("c2c.txt"), "-a", "x", "-b", "y"}, []string{"-a x -b y"}},
		{"format mismatch", []string{"plot", "-format", "png", "-o", out, res("new.txt")}, []string{"does not match -format png"}},
		{"unwritable", []string{"plot", "-o", filepath.Join(notDir, "x.svg"), res("new.txt")}, []string{"plot: -o: writing " + filepath.Join(notDir, "x.svg")}},
		{"output is a directory", []string{"plot", "-o", dir + "/sub.svg", res("new.txt")}, []string{"sub.svg is a directory"}},
	} {
		if err := os.MkdirAll(filepath.Join(dir, "sub.svg"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) { badRun(t, tc.args, tc.want...) })
	}
	// Nothing above may leave an output or a temporary file behind.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if n := e.Name(); n != "file" && n != "words.txt" && n != "inf.txt" && n != "sub.svg" {
			t.Errorf("failed runs left %s in the output directory", n)
		}
	}
}

// TestPlotKeepsOutput checks that a failed run leaves an existing plot as it
// was, and that a successful one replaces it whole, keeping its mode.
func TestPlotKeepsOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "scaling.svg")
	if err := os.WriteFile(out, []byte("previous plot"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	for _, bad := range [][]string{
		{"plot", "-o", out, res("bad-iters.txt")},
		{"plot", "-o", out, "-unit", "nope/op", res("new.txt")},
	} {
		if err := run(&stdout, &stderr, bad); err == nil {
			t.Fatalf("contend %s: no error", strings.Join(bad, " "))
		}
		if data, _ := os.ReadFile(out); string(data) != "previous plot" {
			t.Fatalf("contend %s failed but changed %s to %.40q", strings.Join(bad, " "), out, data)
		}
	}
	if err := run(&stdout, &stderr, []string{"plot", "-o", out, res("new.txt")}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 1000 || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s after a good run: %d bytes, mode %v; want a whole plot with mode 0600", out, fi.Size(), fi.Mode().Perm())
	}
}
