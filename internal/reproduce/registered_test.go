package reproduce

import (
	"slices"
	"sort"
	"testing"

	"github.com/contend/contend/bench"
)

// TestFindingsRegistered: the findings each scenario declares
// (bench.Spec.Findings) are exactly the findings whose experiments run it,
// and a scenario no finding runs says why (NoFindings). A finding added
// here without its scenario's declaration, or a scenario that claims a
// finding it is not in, fails.
func TestFindingsRegistered(t *testing.T) {
	runs := map[string][]int{} // scenario → ids of the findings that run it
	ids := map[int]bool{}
	for _, e := range []*Env{testEnv(), {threads: 64, place: "compact", nodes: 1}} {
		for _, f := range findings(e) {
			ids[f.ID] = true
			for _, m := range f.measures() {
				if !slices.Contains(runs[m.X.Scenario], f.ID) {
					runs[m.X.Scenario] = append(runs[m.X.Scenario], f.ID)
				}
			}
		}
	}
	for name, fs := range runs {
		if _, err := bench.Lookup(name); err != nil {
			t.Errorf("findings %v run %s: %v", fs, name, err)
		}
	}
	for _, s := range bench.Specs() {
		got := slices.Clone(s.Findings)
		sort.Ints(got)
		want := runs[s.Name]
		sort.Ints(want)
		if !slices.Equal(got, want) {
			t.Errorf("scenario %s declares findings %v; the findings that run it are %v", s.Name, got, want)
		}
		if len(want) > 0 && s.NoFindings != "" {
			t.Errorf("scenario %s says no finding runs it (%q), but %v do", s.Name, s.NoFindings, want)
		}
		for _, id := range s.Findings {
			if !ids[id] {
				t.Errorf("scenario %s declares finding %d, which does not exist", s.Name, id)
			}
		}
	}
}
