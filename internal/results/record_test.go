package results_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/internal/results"
)

// unitLines writes metadata as a results file writes it.
func unitLines(t *testing.T, us []*benchfmt.UnitMetadata) []string {
	t.Helper()
	var b bytes.Buffer
	w := benchfmt.NewWriter(&b)
	for _, u := range us {
		if err := w.Write(u); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// A result's Unit lines and a sweep's are written alike: one line per unit,
// sorted, better= for a cost, role=check for a fairness check; a result's
// are among the sweep's.
func TestUnits(t *testing.T) {
	_, res := jsonResult()
	check := bench.Unit{Name: "balances/op", Better: bench.Check}
	res.AddMetric(check, 3)
	got := unitLines(t, results.Units(res))
	want := []string{
		"Unit balances/op role=check",
		"Unit lost-% better=lower",
		"Unit max-sec better=lower",
		"Unit p50-sec better=lower",
		"Unit p99-sec better=lower",
		"Unit p99.9-sec better=lower",
		"Unit preempt/s better=lower",
		"Unit shared-writes/op better=lower",
		"Unit steal-% better=lower",
		"Unit wait-% better=lower",
		"Unit worker-cv-% better=lower",
		"Unit worker-min/max-% better=higher",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Units =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	all := unitLines(t, results.AllUnits(check))
	if !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Errorf("AllUnits is not one sorted line per unit:\n%s", strings.Join(all, "\n"))
	}
	for _, l := range got {
		if !slices.Contains(all, l) {
			t.Errorf("AllUnits lacks %q", l)
		}
	}
}
