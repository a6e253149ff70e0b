package reproduce

import (
	"testing"

	"github.com/contend/contend/internal/fixture"
	"github.com/contend/contend/internal/results"
)

// A finding whose experiments left no results (an interrupted run, say) is
// reported as not measured, never judged on missing numbers.
func TestReproduceJudgesMissingResults(t *testing.T) {
	topo := fixture.Topology(t, fixture.AMD8Nodes)
	e := NewEnv(topo, false)
	rows := e.Judge(&results.Set{})
	if len(rows) != len(findings) {
		t.Fatalf("%d rows, want %d", len(rows), len(findings))
	}
	for _, r := range rows {
		if r.holds != "n/a here" || r.measured != "no results" {
			t.Errorf("finding %d on no results: measured %q, holds %q; want no results, n/a here", r.id, r.measured, r.holds)
		}
	}
}
