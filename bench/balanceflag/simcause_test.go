package balanceflag

import (
	"testing"
	"time"

	"github.com/contend/contend/bench/ksim"
)

// TestSimulatePassesByCause splits the periodic walks of the lab's
// oracle-2n guest (4 cpus, 2 nodes of 2, HZ 250, busy about 61 %) by what
// runs them: a busy cpu's own tick, or the nohz balancer on an idle cpu's
// behalf. The kernel's structure bounds both: trigger_load_balance() raises
// SCHED_SOFTIRQ at most once a tick, on a cpu whose tick runs, and
// _nohz_idle_balance() walks each idle cpu at most once a kick, at most one
// kick a jiffy (nohz.next_balance), so no cpu walks more than HZ times a
// second. A model run at the wrong HZ (the 1000 the simulation defaults to,
// which the oracle's rows once got) breaks none of these per tick, but
// makes four times the ticks: the bound per second is what catches it.
// And the nohz balancer runs only in a tick where some LLC has two busy
// cpus (nohz_balancer_kick()'s nr_busy_cpus > 1). newidle 1 is what the
// oracle feeds for the lab's pipe pairs (a newidle walk every busy tick).
func TestSimulatePassesByCause(t *testing.T) {
	for _, tc := range []struct{ busy, newidle int }{{61, 0}, {62, 0}, {61, 1}, {62, 1}} {
		busy := tc.busy
		cfg, err := SimConfig{CPUs: 4, Sockets: 2, SNC: 1, SMT: 1, HZ: 250, Busy: busy, Newidle: tc.newidle,
			CAS: 100 * time.Nanosecond, Duration: time.Second, Orders: []string{"cmpxchg-first"}}.checked()
		if err != nil {
			t.Fatal(err)
		}
		s := newSim(cfg, ksim.SerializeFirst)
		onBehalf := make([]int64, cfg.CPUs)
		last := make([]int64, cfg.CPUs)
		s.onNohz = func(j int64, _, cpu int) {
			two := false
			for llc := 0; llc < cfg.CPUs; llc += cfg.CPUs / cfg.Sockets {
				if !idleAt(cfg.Seed, busy, llc, j) && !idleAt(cfg.Seed, busy, llc+1, j) {
					two = true
				}
			}
			if !two {
				t.Errorf("busy %d: the nohz balancer walked cpu %d in tick %d, with no LLC of two busy cpus to kick it", busy, cpu, j)
			}
			if last[cpu] == j {
				t.Errorf("busy %d: cpu %d walked twice by the nohz balancer in tick %d", busy, cpu, j)
			}
			last[cpu] = j
			onBehalf[cpu]++
		}
		s.run()
		var busyTicks, idleTicks, own, nohz, walks int64
		for cpu := range s.cpus {
			c := &s.cpus[cpu]
			var b int64
			for j := int64(1); j <= s.ticks; j++ {
				if !idleAt(cfg.Seed, cfg.Busy, cpu, j) {
					b++
				}
			}
			busyTicks += b
			idleTicks += s.ticks - b
			if c.softirqs > s.ticks {
				t.Errorf("busy %d: cpu %d walked %d times in %d ticks", busy, cpu, c.softirqs, s.ticks)
			}
			if mine := c.softirqs - onBehalf[cpu]; mine > b || onBehalf[cpu] > s.ticks-b {
				t.Errorf("busy %d: cpu %d: %d own walks in %d busy ticks, %d on its behalf in %d idle ones", busy, cpu, mine, b, onBehalf[cpu], s.ticks-b)
			}
			own += c.softirqs - onBehalf[cpu]
			nohz += onBehalf[cpu]
			walks += c.softirqs
		}
		sec := cfg.Duration.Seconds()
		if perCPU := float64(walks) / sec / float64(cfg.CPUs); perCPU > float64(cfg.HZ) {
			t.Errorf("busy %d: %.0f walks per cpu per second, more than HZ=%d", busy, perCPU, cfg.HZ)
		}
		t.Logf("busy %d, newidle %d: %.0f walks/s: %.0f busy ticks' own (of %.0f busy ticks/s), %.0f nohz on behalf (of %.0f idle ticks/s, %.0f kicks/s)",
			busy, tc.newidle, float64(walks)/sec, float64(own)/sec, float64(busyTicks)/sec, float64(nohz)/sec, float64(idleTicks)/sec, float64(s.nohzRuns)/sec)
	}
}
