package report

import (
	"bytes"
	"cmp"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/internal/results"
)

// res names one of the results fixtures, which live with the reader.
func res(name string) string { return filepath.Join("..", "results", "testdata", "results", name) }

func TestWriteConfig(t *testing.T) {
	rs, err := results.Read([]string{res("old.txt"), res("new.txt"), res("fake2.txt")})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeConfig(&b, rs.Results, map[string]bool{"date": true})
	for _, want := range []string{"cpu: AMD EPYC 9B14 96-Core Processor\n", "topology: real | fake-2\n", "contend: 0a1b2c3d4e5f | 6a7b8c9d0e1f\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("writeConfig output lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "date") {
		t.Errorf("writeConfig printed the ignored, differing date:\n%s", b.String())
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		delta  string
		better int
		want   string
	}{
		{"-31.14%", -1, "better"},
		{"+12.00%", -1, "worse"},
		{"-31.14%", 1, "worse"},
		{"+12.00%", 1, "better"},
		{"~", -1, ""},
		{"?", -1, ""},
		{"0.00%", 1, ""},
		{"-5.00%", 0, ""},
	} {
		if got := verdict(tc.delta, tc.better); got != tc.want {
			t.Errorf("verdict(%q, %d) = %q, want %q", tc.delta, tc.better, got, tc.want)
		}
	}
}

func TestGeomean(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{2, 8}, 4},
		{[]float64{5}, 5},
	} {
		if got := geomean(tc.xs); got < tc.want*(1-1e-12) || got > tc.want*(1+1e-12) {
			t.Errorf("geomean(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	for _, xs := range [][]float64{nil, {1, 0}, {2, -1}} {
		if got := geomean(xs); got == got { // not NaN
			t.Errorf("geomean(%v) = %v, want NaN", xs, got)
		}
	}
}

// TestTextTable checks the layout rules the golden files rely on: ± signs
// line up, numbers right-align, headers centre over their columns, the label
// column fits the longest label, and no line ends in spaces.
func TestTextTable(t *testing.T) {
	tt := textTable{
		groups: [][]subCol{{{right: true}, {margin: " ± ", right: true}}},
		header: [][]headCell{{{group: 0, span: 2, text: "head"}}},
		body: []textRow{
			{label: "a", cells: [][]string{{"1.5n", "3%"}}},
			{label: "longer", cells: [][]string{{"100.0n", "12%"}}},
			{label: "empty"},
		},
	}
	var b strings.Builder
	if err := tt.write(&b); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"       │     head     │\n" +
		"a          1.5n ±  3%\n" +
		"longer   100.0n ± 12%\n" +
		"empty\n"
	if b.String() != want {
		t.Errorf("textTable.write:\ngot:\n%s\nwant:\n%s", b.String(), want)
	}
}

// FuzzReadResults feeds arbitrary bytes through everything in this package
// that reads a results file: the reader, compare's statistics and text
// layout (package figure's FuzzFigure does the same for the plots). Whatever
// the input, nothing may panic; an error is one line naming the file; a
// success holds finite values that survive a benchfmt write and re-read; a
// last line cut mid-write (no newline) is left out with one warning line
// naming the file and line, so the results are those of the whole lines.
func FuzzReadResults(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "results", "testdata", "results", "*.txt"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := results.Parse(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "fuzz.txt") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is not one line naming fuzz.txt", msg)
			}
			return
		}
		if len(rs.Results) == 0 {
			t.Fatal("no error and no results")
		}
		for _, w := range rs.Warnings {
			if !strings.HasPrefix(w, "fuzz.txt:") || strings.Contains(w, "\n") {
				t.Fatalf("warning %q is not one line naming fuzz.txt and a line", w)
			}
		}
		if i := bytes.LastIndexByte(data, '\n'); len(bytes.TrimSpace(data[i+1:])) > 0 {
			whole, err := results.Parse(bytes.NewReader(data[:i+1]), "fuzz.txt")
			if err != nil || len(whole.Results) != len(rs.Results) || len(rs.Warnings) == 0 {
				t.Fatalf("a cut last line: %d results, warnings %q; the whole lines alone give %v, %v", len(rs.Results), rs.Warnings, whole, err)
			}
		}
		var buf bytes.Buffer
		w := benchfmt.NewWriter(&buf)
		for _, r := range rs.Results {
			for _, v := range r.Values {
				if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
					t.Fatalf("accepted a non-finite %s value", v.Unit)
				}
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		again, err := results.Parse(&buf, "again.txt")
		if err != nil || len(again.Results) != len(rs.Results) {
			t.Fatalf("rewritten results read back as %v, %v; want %d results\n%s", again, err, len(rs.Results), buf.Bytes())
		}
		for _, compare := range []bool{false, true} {
			rep, err := Build(rs, Options{Row: ".fullname", Col: ".file", Filter: "*", Ignore: "date",
				Alpha: 0.05, Confidence: 0.95, Compare: compare})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if err := rep.WriteText(io.Discard); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestDifferingKeys(t *testing.T) {
	rs, err := results.Read([]string{res("old.txt"), res("new.txt"), res("fake2.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(differingKeys(rs.Results), " "); got != "topology contend date" {
		t.Errorf("differingKeys(old, new, fake2) = %q", got)
	}
	rs, err = results.Read([]string{res("new.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if got := differingKeys(rs.Results); len(got) != 0 {
		t.Errorf("differingKeys of one file = %q, want none", got)
	}
}

// tableUnits returns the units of a report's tables, in order.
func tableUnits(rep *Report) string {
	var us []string
	for _, t := range rep.tables {
		us = append(us, t.unit)
	}
	return strings.Join(us, " ")
}

// Tables leave bench.DetailUnits out unless asked for by name or unless
// nothing else is left, and mark the cells whose samples include a
// disturbed run, by lost-%, even where lost-% is not shown.
func TestBuildUnits(t *testing.T) {
	rs, err := results.Read([]string{res("disturbed.txt")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		filter, units string
		want          string
	}{
		{"*", "", "sec/op worker-min/max-% p50-sec p99-sec p99.9-sec"},
		{"*", "lost-%,ns/op", "sec/op lost-%"},
		{".unit:(lost-% OR preempt/s)", "", "lost-% preempt/s"},
		{".unit:(lost-% OR ns/op)", "", "sec/op"},
	} {
		rep, err := Build(rs, Options{Row: ".fullname", Col: ".file", Filter: tc.filter, Units: tc.units, Confidence: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		if got := tableUnits(rep); got != tc.want {
			t.Errorf("-filter %q -unit %q: tables of %s, want %s", tc.filter, tc.units, got, tc.want)
		}
		for _, tb := range rep.tables {
			for k, c := range tb.cells {
				want := 0
				if strings.Contains(keyLabel(k.row), "line=shared/work=0/threads=2") {
					want = 2 // lost 23.4% and 41.1%
				}
				if c.disturbed != want || (want > 0) != slices.Contains(c.notes, errDisturbed) {
					t.Errorf("-filter %q: %s %s: %d disturbed samples (notes %q), want %d", tc.filter, tb.unit, keyLabel(k.row), c.disturbed, c.notes, want)
				}
			}
		}
	}
}

// Bad options are one-line errors naming the option and what is valid.
func TestBuildErrors(t *testing.T) {
	rs, err := results.Read([]string{res("new.txt")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Row: "/threads@bogus"}, `-row "/threads@bogus": syntax error: unknown order "bogus" at character 10`},
		{Options{Col: "/thread"}, "-col: no result has key /thread (name keys: /store /write /threads /place /gomaxprocs; config keys: goos goarch cpu"},
		{Options{Filter: "/store:none"}, `no results match -filter "/store:none"`},
		{Options{Filter: "/store:none", Units: "ns/op"}, `no results match -filter "/store:none" and -unit "ns/op"`},
		{Options{Units: "allocs/op"}, "-unit allocs/op: no result measures it (units: ns/op shared-writes/op cas/op worker-cv-%)"},
		{Options{Ignore: "("}, `-ignore "(": syntax error`},
		{Options{Filter: "/store:("}, `-filter "/store:(": syntax error`},
	} {
		o := tc.opts
		o.Row, o.Col, o.Filter = cmp.Or(o.Row, ".fullname"), cmp.Or(o.Col, ".file"), cmp.Or(o.Filter, "*")
		_, err := Build(rs, o)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Build(%+v) = %v, want one line starting %s", tc.opts, err, tc.want)
		}
	}
}
