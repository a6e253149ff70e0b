package wakeup

import (
	"testing"

	"github.com/contend/contend/bench/ksim"
)

// cpu_util_cfs() as SIS_UTIL reads it: a cpu that runs throughout rises
// toward 1024 with PELT's 32 ms half-life, one idle throughout decays, and
// a burst read in the middle is counted once.
func TestCPUUtilCFS(t *testing.T) {
	k := newTestKernel(t, "v6.1", "llc4", 8)
	c := k.cpus[0]
	c.Enqueue(&k.addTask(0).Task)
	c.lastStart = 0
	k.now = ksim.LoadAvgPeriod * ksim.PeltPeriod // one half-life (32 periods of 1024·1024 ns), read mid-burst
	if got := k.cpuUtilCFS(c); got < 511 || got > 513 {
		t.Errorf("running for one half-life: util %.1f, want 512", got)
	}
	k.now *= 2
	c.util.Ran += k.now - c.lastStart // the burst ends (burstEnd's accounting)
	c.Deactivate()
	if got := k.cpuUtilCFS(c); got < 767 || got > 769 {
		t.Errorf("running for two half-lives: util %.1f, want 768 (the burst counted once)", got)
	}
	k.now += ksim.LoadAvgPeriod * ksim.PeltPeriod
	if got := k.cpuUtilCFS(c); got < 383 || got > 385 {
		t.Errorf("then idle for one: util %.1f, want 384", got)
	}
}

// update_idle_cpu_scan() runs on a periodic or idle balance of the LLC
// level of 6.1 only, and select_idle_cpu()'s budget follows it.
func TestSISUtilBudget(t *testing.T) {
	for _, tt := range []struct {
		policy string
		idle   ksim.IdleType
		level  int // 0: the LLC level (MC), 1: the package
		nr     int // IdleScan's budget after the balance
	}{
		{"v6.1", ksim.CPUNotIdle, 0, ksim.SISUtilNr(2)},
		{"v6.1", ksim.CPUIdle, 0, ksim.SISUtilNr(2)},
		{"v6.1", ksim.CPUNewlyIdle, 0, ksim.SISUtilNr(0)}, // not written: still the initial 0
		{"v6.1", ksim.CPUNotIdle, 1, ksim.SISUtilNr(0)},   // not the LLC's span
		{"llcstats", ksim.CPUNotIdle, 0, ksim.NoBudget},   // no SIS_UTIL on 4.13
	} {
		k := newTestKernel(t, tt.policy, "llc4", 8)
		for _, c := range k.cpus[:4] {
			c.util.Avg = 512 // half busy: x 512, y 674, 4·674/1024 = 2
		}
		k.updateIdleCPUScan(k.cpus[0].sd[tt.level], tt.idle)
		if _, nr := k.IdleScan(1); nr != tt.nr {
			t.Errorf("%s, idle type %d, level %d: budget %d, want %d", tt.policy, tt.idle, tt.level, nr, tt.nr)
		}
	}
}
