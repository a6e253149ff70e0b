package reproduce

import (
	"strings"
	"testing"
)

// The verdict-rule tests judge finding 9's claims on made-up samples: the
// model's own gate (does it reach the seed's order at all?) is tested here.
func init() { wakeupGap = func(int) string { return "" } }

// On the seed's guest topology the kernel model does not reach ~27K → ~2K,
// so finding 9 is not run, and says so as the model's gap, with its
// figures, never as a "no".
func TestWakeupModelGap(t *testing.T) {
	// Two vCPUs, as a 2-cpu machine's reproduce asks: the gap is the
	// model's at any size, and each vCPU costs the simulation 8 s of
	// kernel time.
	why := wakeupModelGap(2)
	for _, want := range []string{"not reproduced by this model", "2 vCPUs", "migrations per 5 s", "Missing from the model"} {
		if !strings.Contains(why, want) {
			t.Errorf("wakeupModelGap(2) = %q, want it to say %q", why, want)
		}
	}
	if strings.Contains(why, "\n") {
		t.Errorf("wakeupModelGap(2) is more than one line: %q", why)
	}
	if again := wakeupModelGap(2); again != why {
		t.Errorf("wakeupModelGap(2) changed between calls: %q, then %q", why, again)
	}
}
