package wakeup

import "testing"

// A cpu going idle after short idle periods keeps its tick (menu: an idle
// expected shorter than a tick) and stays out of the nohz mask; its kept
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
		c.nohzIdle = k.stopTick(c)
	}
	if c.nohzIdle {
		t.Fatalf("after idles of a twentieth of a tick: tick stopped; want it kept")
	}
	k.now += tick
	j := k.jiffies()
	c.NextBalance = j
	k.tick()
	if c.nohzIdle {
		t.Errorf("after its first kept tick: cpu 1 in the nohz mask; want the tick kept (the 45 ms sample an outlier)")
	}
	if c.NextBalance <= j {
		t.Errorf("after its kept tick with rq->next_balance due: next_balance %d, want past jiffy %d (an idle pass)", c.NextBalance, j)
	}
	kept := 1
	for ; !c.nohzIdle && kept < 20; kept++ {
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
		d.nohzIdle = k.stopTick(d)
	}
	if !d.nohzIdle {
		t.Errorf("after idles of three ticks: tick kept; want it stopped at the entry")
	}
}
