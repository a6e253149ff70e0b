package kernel

import (
	"strings"

	"github.com/contend/contend/internal/kernel/machine"
)

// addCauseProbes sets a kprobe on each cause's targets (undone by u) and
// returns the causes to count: Hits 0 for each set, -1 with Why for each
// that could not be (a target refused by tracefs names the refusal).
func addCauseProbes(u *machine.Undo, tfs *machine.Tracefs, probes []causeProbe) []Cause {
	var out []Cause
	for i, p := range probes {
		c := Cause{Name: p.cause, At: p.at, Hits: -1, Why: p.why}
		if len(p.targets) > 0 {
			c.Hits = 0
			var refused []string
			for k, t := range p.targets {
				if err := tfs.AddKprobe(u, causeEvent(i, k), t); err != nil {
					refused = append(refused, err.Error())
				}
			}
			if len(refused) > 0 {
				// A cause counted at some of its call sites only would
				// read low: count none of it.
				c.Hits, c.Why = -1, strings.Join(refused, "; ")
			}
		}
		out = append(out, c)
	}
	return out
}

// CauseHits returns the hits of the named cause, and whether it was
// counted.
func (c *Counted) CauseHits(name string) (int64, bool) {
	for _, x := range c.BalanceCauses {
		if x.Name == name && x.Hits >= 0 {
			return x.Hits, true
		}
	}
	return 0, false
}
