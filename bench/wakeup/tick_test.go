package wakeup

import "testing"

// A cpu going idle after short idle periods keeps its tick (menu: an idle
// expected shorter than a tick) and keeps it (tickStopped unset); its kept
// tick balances it as CPU_IDLE when rq->next_balance is due; menu learns
// each tick wakeup as 45 ms, which get_typical_interval() drops as an
// outlier while any of the short idles is left among the last eight, so
// the tick stops at the eighth kept tick. Long idle periods stop the tick
// at the idle entry.
func TestTickStop(t *testing.T) {
	k := newTestKernel(t, "v6.1", "s390", 4)
	tick := k.hz.TickNs()
	c := k.cpus[1]
	// Short idle periods: each idle entry learns the one before.
	for i := range 20 {
		k.now = int64(i+1) * tick / 10
		c.lastStart = k.now - tick/20
		k.stopIdleTick(c, k.stopTick(c))
	}
	if c.tickStopped {
		t.Fatalf("after idles of a twentieth of a tick: tick stopped; want it kept")
	}
	k.now += tick
	j := k.jiffies()
	c.NextBalance = j
	k.tick()
	if c.tickStopped {
		t.Errorf("after its first kept tick: cpu 1 stopped its tick; want the tick kept (the 45 ms sample an outlier)")
	}
	if c.NextBalance <= j {
		t.Errorf("after its kept tick with rq->next_balance due: next_balance %d, want past jiffy %d (an idle pass)", c.NextBalance, j)
	}
	kept := 1
	for ; !c.tickStopped && kept < 20; kept++ {
		k.now += tick
		k.tick()
	}
	if kept != 8 {
		t.Errorf("the tick stopped at kept tick %d, want 8 (when all eight intervals are tick wakeups)", kept)
	}
	// Long idle periods: the entry stops the tick.
	d := k.cpus[2]
	for range 20 {
		k.now += 3 * tick
		d.lastStart = k.now - tick/100
		k.stopIdleTick(d, k.stopTick(d))
	}
	if !d.tickStopped {
		t.Errorf("after idles of three ticks: tick kept; want it stopped at the entry")
	}
}

// A cpu that stopped its tick stays in the nohz mask, and out of its
// LLC's nr_busy_cpus, while it runs a task, until its first busy tick
// (nohz_balancer_kick()'s nohz_balance_exit_idle(): "At the first busy
// tick after returning from idle, we will update the busy stats"); its
// own tick runs again from the task's start (tickStopped unset).
func TestNohzMaskFirstBusyTick(t *testing.T) {
	k := newTestKernel(t, "v6.1", "llc4", 4)
	c := k.cpus[1]
	if !k.nohz.Stopped(1) || !c.tickStopped {
		t.Fatalf("at boot cpu 1 outside the nohz mask or ticking; want the cpus idle, ticks stopped")
	}
	k.Start(k.NewTask(1))
	k.runNext(c)
	if c.Curr == nil || c.tickStopped {
		t.Fatalf("after runNext: cpu 1 curr %v, tick stopped %v; want a task running, the tick restarted", c.Curr, c.tickStopped)
	}
	if busy, _ := k.nohz.NrBusy(1); !k.nohz.Stopped(1) || busy != 0 {
		t.Errorf("running before its first tick: in mask %v, nr_busy_cpus %d; want in the mask, 0", k.nohz.Stopped(1), busy)
	}
	k.now += k.hz.TickNs()
	k.tick()
	if busy, _ := k.nohz.NrBusy(1); k.nohz.Stopped(1) || busy != 1 {
		t.Errorf("after its first busy tick: in mask %v, nr_busy_cpus %d; want out of the mask, 1", k.nohz.Stopped(1), busy)
	}
}

// 4.13 takes a cpu out of its LLC's nr_busy_cpus at every idle entry
// (tick_nohz_idle_enter()'s set_cpu_sd_state_idle(), before 00357f5ec5d6),
// 6.1 only when the tick stops (nohz_balance_enter_idle()).
func TestNrBusyAtIdleEntry(t *testing.T) {
	for _, policy := range []string{"llcstats", "v6.1"} {
		k := newTestKernel(t, policy, "llc4", 4)
		c := k.cpus[1]
		k.Start(k.NewTask(1))
		k.runNext(c)
		k.now += k.hz.TickNs()
		k.tick()
		if busy, _ := k.nohz.NrBusy(1); busy != 1 {
			t.Fatalf("%s: after cpu 1's busy tick nr_busy_cpus %d, want 1", policy, busy)
		}
		c.Deactivate() // its task blocks
		k.runNext(c)
		want := 1
		if policy == "llcstats" || c.tickStopped {
			want = 0
		}
		if busy, _ := k.nohz.NrBusy(1); busy != want {
			t.Errorf("%s: after cpu 1's idle entry (tick stopped %v) nr_busy_cpus %d, want %d", policy, c.tickStopped, busy, want)
		}
	}
}
