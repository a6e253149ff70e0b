package main

import (
	"testing"

	"golang.org/x/perf/benchunit"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/c2c"
	"github.com/contend/contend/internal/sweep"
)

// untidyPending are units known to be untidy whose owners are renaming
// them; each must go from this list when its rename lands. (A unit here
// still fails the test if it is tidy or gone: the list may not go stale.)
var untidyPending = map[string]string{}

// TestUnitsAreTidy: benchfmt rewrites a unit containing "ns" or "MB"
// (hold-ns/op → hold-sec/op, scaled) only when the value is non-zero,
// because it keeps the raw unit whenever the tidied value equals the raw
// one. A metric that is sometimes 0 then lands in two benchstat tables
// with the wrong n each. So every unit contend writes must already be in
// benchunit's tidy form — except ns/op, go test's own unit, whose value is
// an elapsed time over operations and never 0 (NaN without operations,
// which the reader refuses).
func TestUnitsAreTidy(t *testing.T) {
	units := map[string]string{
		sweep.Handoffs.Name: "contend sweep",
		c2c.MinHandoff.Name: "contend c2c -bench",
	}
	for _, u := range bench.RunUnits {
		units[u.Name] = "the runner"
	}
	for _, s := range bench.Specs() {
		for _, u := range s.Units {
			units[u.Name] = "scenario " + s.Name
		}
	}
	if len(units) < 10 {
		t.Fatalf("only %d units: are the scenarios registered?", len(units))
	}
	for u, who := range units {
		_, tidy := benchunit.Tidy(1, u)
		_, pending := untidyPending[u]
		switch {
		case tidy == u && pending:
			t.Errorf("%s (%s) is tidy now: remove it from untidyPending", u, who)
		case tidy != u && pending:
			t.Logf("%s (%s) is untidy (benchfmt makes it %s when non-zero): %s", u, who, tidy, untidyPending[u])
		case tidy != u:
			t.Errorf("%s (%s) is not tidy: benchfmt reads it as %s when non-zero and as %s when 0, two benchstat tables", u, who, tidy, u)
		}
	}
	for u := range untidyPending {
		if _, ok := units[u]; !ok {
			t.Errorf("untidyPending lists %s, which nothing writes now: remove it", u)
		}
	}
	if _, tidy := benchunit.Tidy(1, "ns/op"); tidy != "sec/op" {
		t.Errorf("ns/op tidies to %s, want sec/op", tidy)
	}
}
