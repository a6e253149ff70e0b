package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Every format prints each figure in the unit the results file wrote it in,
// with the value the default format (and -json) gives: ns/op in ns, a rate
// per kernel second as it is (cas/kernel-sec 17.6 once read 1.76e+10
// cas/kernel-ns), seconds as seconds; and marks the cells of disturbed and
// unconverged runs as the text tables do.
func TestFormatsKeepFileUnits(t *testing.T) {
	rep := compareReport(t, false, "old=testdata/units-old.txt", "new=testdata/units-new.txt")
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	// The file's unit of each tidied unit, and the factor between them.
	fileUnits := map[string]struct {
		unit  string
		scale float64
	}{"sec/op": {"ns/op", 1e9}, "cas/kernel-sec": {"cas/kernel-sec", 1}, "p50-sec": {"p50-sec", 1}}
	type cellJSON struct {
		Unit, Row, Col string
		Center         float64
	}
	var cells []cellJSON
	dec := json.NewDecoder(&js)
	for dec.More() {
		var c cellJSON
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		cells = append(cells, c)
	}
	if len(cells) != 12 {
		t.Fatalf("%d JSON cells, want 2 threads × 3 units × 2 files", len(cells))
	}
	for _, f := range Formats[1:] { // the text format is the one held to
		var b strings.Builder
		if err := rep.WriteFormat(&b, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, bad := range []string{"kernel-ns", "p50-ns", "sec/op"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: prints %q, a unit no file wrote:\n%s", f, bad, out)
			}
		}
		for _, c := range cells {
			fu := fileUnits[c.Unit]
			threads := "threads=1"
			if strings.Contains(c.Row, "threads=2") {
				threads = "threads=2"
			}
			line := lineWith(out, fmt.Sprintf("%s %s", threads, fu.unit))
			if line == "" {
				t.Errorf("%s: no line for %s %s:\n%s", f, c.Row, fu.unit, out)
				continue
			}
			if want := mailNumber(c.Center * fu.scale); !strings.Contains(line, want) {
				t.Errorf("%s: %s %s in %s: line %q lacks the median %s", f, c.Row, fu.unit, c.Col, line, want)
			}
		}
		// new's threads=1 never converged, new's threads=2 holds a
		// disturbed run; old's cells are clean.
		for _, tc := range []struct{ row, note string }{
			{"threads=1 ns/op", "never converged"}, {"threads=2 ns/op", "disturbed runs"},
		} {
			mark := markOf(out, tc.note)
			if mark == "" {
				t.Errorf("%s: no footnote saying %q:\n%s", f, tc.note, out)
				continue
			}
			if line := lineWith(out, tc.row); strings.Count(line, mark) != 1 {
				t.Errorf("%s: line %q: want the new cell marked %s once (%s)", f, line, mark, tc.note)
			}
		}
	}
}

// -fail-on's lines speak the file's units too: ns/op in ns, p50-sec in s.
func TestRegressionsKeepFileUnits(t *testing.T) {
	rep := compareReport(t, false, "old=testdata/units-old.txt", "new=testdata/units-new.txt")
	regs := rep.Regressions(5)
	if len(regs) != 4 {
		t.Fatalf("%d regressions, want ns/op and p50-sec at 1 and 2 threads: %v", len(regs), regs)
	}
	for _, r := range regs {
		s := r.String()
		switch {
		case strings.HasSuffix(r.Metric, " ns/op"):
			if r.Base < 10 || r.Base > 1000 {
				t.Errorf("%s: base %v, want nanoseconds", s, r.Base)
			}
		case strings.HasSuffix(r.Metric, " p50-sec"):
			if r.Base > 1e-6 {
				t.Errorf("%s: base %v, want seconds", s, r.Base)
			}
		default:
			t.Errorf("%s: unit not the file's", s)
		}
	}
}

// lineWith returns the first line of s holding sub.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// markOf returns the superscript of the footnote that says note.
func markOf(s, note string) string {
	for _, l := range strings.Split(s, "\n") {
		if m, rest, ok := strings.Cut(l, " "); ok && strings.Contains(rest, note) && strings.Trim(m, "¹²³⁴⁵⁶⁷⁸⁹⁰") == "" && m != "" {
			return m
		}
	}
	return ""
}
