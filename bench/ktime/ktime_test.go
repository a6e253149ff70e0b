package ktime

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	var c Clock
	c.Set(5)
	if got := c.Advance(40_000); got != 40_005 || c.Now() != 40_005 {
		t.Errorf("Advance: now %d, want 40005", c.Now())
	}
	if got := PerSecond(22, int64(time.Second)); got != 22 {
		t.Errorf("PerSecond(22, 1s) = %v, want 22", got)
	}
	if got := PerSecond(1, int64(time.Millisecond)); got != 1000 {
		t.Errorf("PerSecond(1, 1ms) = %v, want 1000", got)
	}
	if got := PerSecond(5, 0); got != 0 {
		t.Errorf("PerSecond over no time = %v, want 0", got)
	}
}

func TestPacer(t *testing.T) {
	var off Pacer
	start := Wall()
	off.Wait(start, int64(time.Hour)) // off: returns at once
	p := Pacer{On: true}
	start = Wall()
	p.Wait(start, int64(200*time.Microsecond))
	if d := Wall() - start; d < int64(200*time.Microsecond) {
		t.Errorf("paced wait returned after %dns, want at least 200us", d)
	}
}

func TestShare(t *testing.T) {
	s := Share{Every: 4}
	timed := 0
	for range 16 {
		if s.Due() {
			timed++
			s.Add(25, 100)
		}
	}
	if timed != 4 {
		t.Errorf("timed %d of 16 events at Every=4, want 4", timed)
	}
	var all Share
	all.Merge(&s)
	all.Merge(&Share{path: 0, whole: 100, n: 1})
	pct, n := all.Percent()
	if n != 5 || pct != 20 {
		t.Errorf("Percent() = %v%%, %d samples; want 20%%, 5", pct, n)
	}
	var none Share
	if pct, n := none.Percent(); pct != 0 || n != 0 {
		t.Errorf("empty Share = %v, %d; want 0, 0", pct, n)
	}
}
