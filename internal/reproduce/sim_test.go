package reproduce

import (
	"strings"
	"testing"
)

// simJudge decides as Finding.judge does: yes, else partly, else no, and a
// failed guard turns a yes or partly into no (wins by not ...).
func TestSimJudge(t *testing.T) {
	lower := func(b, a, min float64) simClaim {
		return simClaim{what: "x", before: b, after: a, kind: Lower, min: min}
	}
	kept := simClaim{what: "found", before: 30, after: 27, kind: NotBelow, min: 0.9, doing: "finding"}
	lost := simClaim{what: "found", before: 30, after: 26.9, kind: NotBelow, min: 0.9, doing: "finding"}
	for _, tt := range []struct {
		name      string
		yes       []simClaim
		partly    [][]simClaim
		guards    []simClaim
		want, why string
	}{
		{"yes at the minimum", []simClaim{lower(10, 1, 10)}, nil, []simClaim{kept}, "yes", "held"},
		{"under yes, at partly", []simClaim{lower(10, 1.01, 10)}, [][]simClaim{{lower(10, 1.01, 2)}}, nil, "partly", "short of yes"},
		{"under partly", []simClaim{lower(10, 6, 10)}, [][]simClaim{{lower(10, 6, 2)}}, nil, "no", "needs ≥10×"},
		{"opposite", []simClaim{lower(1, 10, 10)}, nil, nil, "no", "higher"},
		{"yes, but the guard fails", []simClaim{lower(10, 1, 10)}, nil, []simClaim{lost}, "no (wins by not finding)", "found"},
		{"partly, but the guard fails", []simClaim{lower(10, 2, 10)}, [][]simClaim{{lower(10, 2, 2)}}, []simClaim{lost}, "no (wins by not finding)", "needs ≥90%"},
		{"no stays no whatever the guard", []simClaim{lower(10, 9, 10)}, nil, []simClaim{lost}, "no", "short"},
		{"precondition below", []simClaim{{what: "share", after: 1.9, kind: AtLeast, min: 2}}, nil, nil, "no", "below 2"},
		{"error within slack", []simClaim{lower(10, 1, 10)}, nil, []simClaim{{what: "err", before: 1, after: 4.5, kind: NoWorseBy, min: 3.5, doing: "keeping"}}, "yes", ""},
		{"wait within its factor", []simClaim{lower(10, 1, 10)}, nil, []simClaim{{what: "wait", before: 8, after: 8.8, kind: NotAbove, min: 1.1, doing: "placing"}}, "yes", ""},
		{"wait past it", []simClaim{lower(10, 1, 10)}, nil, []simClaim{{what: "wait", before: 8, after: 8.875, kind: NotAbove, min: 1.1, doing: "placing"}}, "no (wins by not placing)", "allows ≤110%"},
		{"error past slack", []simClaim{lower(10, 1, 10)}, nil, []simClaim{{what: "err", before: 1, after: 4.625, kind: NoWorseBy, min: 3.5, doing: "keeping"}}, "no (wins by not keeping)", "allows 3.5"},
	} {
		v := &SimVerdict{}
		simJudge(v, tt.yes, tt.partly, tt.guards)
		if v.Verdict() != tt.want || !strings.Contains(v.Why, tt.why) {
			t.Errorf("%s: %s — %s; want %s (why containing %q)", tt.name, v.Verdict(), v.Why, tt.want, tt.why)
		}
		if !strings.HasPrefix(v.Criterion, "yes if ") || !strings.Contains(v.Criterion, "else no") {
			t.Errorf("%s: criterion %q", tt.name, v.Criterion)
		}
	}
}

// The simulations at the seeds' sizes run, judge, and name their
// assumptions; their verdicts are what the models say, asserted here as
// the review found them: the rate limit cuts writes by an order of
// magnitude, not the seed's 400×; v5's mask wins by not finding idle
// cpus; the flag's share at the reference setting is under the profile
// floor; dropping nohz.nr_cpus saves a transfer per tick restart, and the
// busy tick pays more.
func TestSimulatedVerdicts(t *testing.T) {
	e := testEnv()
	rows := e.judge(sampleSet{})
	// A fiftieth of the kernel time, the grid's quick corners: enough for
	// the models' counts to settle (their own tests hold them), small
	// enough for -race.
	e.Simulate(rows, 0.02)
	got := map[int]*SimVerdict{}
	for _, r := range rows {
		if r.Simulated != nil {
			got[r.ID] = r.Simulated
		}
	}
	for _, tt := range []struct {
		id        int
		want, has string
	}{
		{1, "partly", "no cap of the merged code"},
		{6, "no (wins by not finding idle cpus)", "found an idle cpu"},
		{8, "no", "below 2"},
		{9, NA, "not reproduced by this model"},
		{14, "yes", "cpumask_empty() now misses"},
	} {
		v := got[tt.id]
		if v == nil {
			t.Errorf("finding %d: no simulated verdict", tt.id)
			continue
		}
		delete(got, tt.id)
		if tt.id == 8 && (!strings.Contains(v.Measured, "skew_tick=1 at 100ns newidle=2") || !strings.Contains(v.Measured, "jitter 10µs at 200ns newidle=1")) {
			t.Errorf("finding 8 simulated: measured %q lacks the tick alignments beside the grid", v.Measured)
		}
		if v.Verdict() != tt.want || !strings.Contains(v.Why, tt.has) || len(v.Assumptions) == 0 || v.Size == "" {
			t.Errorf("finding %d simulated: %s — %s (size %q, %d assumptions); want %s, why containing %q", tt.id, v.Verdict(), v.Why, v.Size, len(v.Assumptions), tt.want, tt.has)
		}
	}
	for id, v := range got {
		t.Errorf("finding %d: unexpected simulated verdict %s", id, v.Verdict())
	}
}
