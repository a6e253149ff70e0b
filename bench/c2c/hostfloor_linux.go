package c2c

import (
	"errors"
	"fmt"
	"time"

	"github.com/contend/contend/affinity"
)

// HostCASHandoff is this machine's cost of one contended cmpxchg, for a
// model that prices a line handoff (contend simulate balanceflag's -cas):
// the handoff floor of its allowed CPUs in cas mode (MeasureFloor, the
// sweep's floor: one pair per topology class, a few milliseconds a pair),
// and a note saying where it came from.
func HostCASHandoff() (time.Duration, string, error) {
	t, err := affinity.Host()
	if err != nil {
		return 0, "", err
	}
	cpus := t.AllowedCPUs.Bits()
	if len(cpus) < 2 {
		return 0, "", errors.New("one usable cpu here, no handoff to measure; give it (e.g. 150ns)")
	}
	f, err := MeasureFloor(t, cpus, Config{Mode: CAS})
	if err != nil {
		return 0, "", fmt.Errorf("measuring the handoff: %w", err)
	}
	d := time.Duration(f.NS + 0.5)
	return d, fmt.Sprintf("this machine's cas handoff floor (c2c.MeasureFloor over cpus %s, %d pairs: %.1f ns expected, %.1f ns nearest class)",
		t.AllowedCPUs, len(f.Pairs), f.NS, f.MinNS), nil
}
