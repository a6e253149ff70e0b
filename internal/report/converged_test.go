package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/contend/contend/internal/results"
)

// A cell whose sweep's adaptive rounds ran out before their target carries
// a note in the tables (text and JSON) and a mark in the summary; a
// converged cell carries neither.
func TestUnconvergedCells(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkAtomicAdd/threads=1/place=compact-2\t1000\t%d ns/op\n", 10+i%2)
		fmt.Fprintf(&b, "BenchmarkAtomicAdd/threads=2/place=compact-2\t1000\t%d ns/op\n", 10+5*i)
	}
	b.WriteString("# rounds: AtomicAdd/threads=1/place=compact-2 rounds=6 ci=1.5% target=2% converged\n")
	b.WriteString("# rounds: AtomicAdd/threads=2/place=compact-2 rounds=6 ci=50% target=2% not-converged\n")
	rs, err := results.Parse(strings.NewReader(b.String()), "sweep.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{Row: "/threads", Col: ".file", Filter: "*", Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "never converged"); n != 1 {
		t.Errorf("%d never-converged notes, want one (the footnote of threads=2):\n%s", n, text.String())
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	if len(lines) != 2 || strings.Contains(lines[0], `"unconverged"`) || !strings.Contains(lines[1], `"unconverged":true`) {
		t.Errorf("JSON cells: want threads=1 without and threads=2 with unconverged:\n%s", js.String())
	}
	var sum strings.Builder
	if err := WriteSummary(&sum, rs, SummaryOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "²") || !strings.Contains(sum.String(), "² 1 cell never converged") {
		t.Errorf("summary lacks the never-converged mark:\n%s", sum.String())
	}
}
