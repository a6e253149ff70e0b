package reproduce

import (
	"strings"
	"testing"
)

// The simulations at the seeds' sizes run, judge, and name their
// assumptions; their verdicts are what the models say, asserted here as
// the review found them: the rate limit cuts writes by an order of
// magnitude, not the seed's 400×; v5's mask probes fewer runqueues but, at
// this short a run, stacks its wakees past the wait guard (at the full
// budget it is inside: 7.97 → 8.75 µs); the wakeup model reaches figure 1
// on no topology; the flag's share at the reference setting is under the profile
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
		{6, "no (wins by not placing woken tasks on idle cpus)", "µs waited per wakeup"},
		{8, "no", "below 2"},
		{9, NA, "not reproduced by this model on any topology"},
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
