package wakeup

import (
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// The idle loop's rule reaches the wakeup model's idle cpus
// (ksim.IdleLoop): without a cpuidle driver, before f4c31b07b136 an idle
// cpu stops its tick at once and balances itself from no tick of its
// own; from it, it keeps its idle's first tick and balances CPU_IDLE
// there, so it runs more idle passes.
func TestIdleTickRule(t *testing.T) {
	idlePasses := func(r ksim.IdleTickRule) float64 {
		tab, err := Simulate(SimConfig{CPUs: []int{8}, Topology: "llc4", Policies: []string{"v6.1"}, Threads: 4,
			Duration: time.Second, Warmup: -1, IdleTick: r})
		if err != nil {
			t.Fatal(err)
		}
		return tab.Rows[0].Balances[0]
	}
	if stop, after := idlePasses(ksim.IdleTickStop), idlePasses(ksim.IdleTickAfterTick); !(stop < 0.9*after) {
		t.Errorf("CPU_IDLE passes per 5 s: %.0f stopping at every idle entry, %.0f after the idle's first tick: want fewer", stop, after)
	}
}
