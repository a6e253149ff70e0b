package counter

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestClockSameDecisions: the clock the rate limit reads costs what it
// costs and decides nothing, so the same events write the same times
// under every clock.
func TestClockSameDecisions(t *testing.T) {
	writes := map[ClockKind][]int64{}
	for _, k := range []ClockKind{ClockNone, ClockSched, ClockRq} {
		a := newAtomic(t)
		rq := newRq(t, a, "ratelimit=1ms", "every")
		rq.SetClock(k)
		for now := t0; now < t0+int64(20*time.Millisecond); now += int64(70 * time.Microsecond) {
			rq.updateRqClock(now)
			rq.avg.LoadAvg = uint64(1000 + (now/int64(time.Microsecond))%3000)
			if rq.updateTGLoadAvg(now) {
				writes[k] = append(writes[k], now)
			}
		}
		if len(writes[k]) == 0 {
			t.Fatalf("clock=%s: no writes", k)
		}
	}
	for _, k := range []ClockKind{ClockSched, ClockRq} {
		if got, want := writes[k], writes[ClockNone]; len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
			t.Errorf("clock=%s wrote %d times (%v…), clock=none %d (%v…)", k, len(got), got[:1], len(want), want[:1])
		}
	}
}

// TestClockReads: rq_clock loads the word the event's update_rq_clock()
// stored, shared by every level; sched_clock reads the cycle counter; none
// reads nothing; and only the rate limit reads a clock at all.
func TestClockReads(t *testing.T) {
	stores := newAtomics(t, 2)
	rq, err := NewCfsRqPath(stores, WritePolicy{Kind: WriteRateLimit}, ReadPolicy{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	rq.SetClock(ClockRq)
	if rq.rqClock == nil || rq.parent.rqClock != rq.rqClock {
		t.Fatal("the levels do not share one rq clock word")
	}
	rq.Init(t0)
	rq.Enqueue(t0+12345, newTask(t))
	if *rq.rqClock != t0+12345 {
		t.Errorf("rq clock = %d after an event at %d", *rq.rqClock, t0+12345)
	}
	rq.clockSink = 0
	rq.updateTGLoadAvg(t0 + 12345)
	if rq.clockSink != t0+12345 {
		t.Errorf("rq_clock read %d, want the stored %d", rq.clockSink, t0+12345)
	}

	rq.SetClock(ClockSched)
	rq.clockSink = 0
	rq.updateTGLoadAvg(t0 + 99999)
	if rq.clockSink == 0 {
		t.Error("sched_clock read nothing (a cycle counter of 0?)")
	}

	rq.SetClock(ClockNone)
	rq.clockSink = 0
	rq.updateRqClock(t0)
	rq.updateTGLoadAvg(t0 + 99999)
	if rq.clockSink != 0 || rq.rqClock != nil {
		t.Errorf("clock=none read a clock: sink %d", rq.clockSink)
	}

	every := newRq(t, newAtomic(t), "every", "every")
	every.SetClock(ClockSched)
	every.updateTGLoadAvg(t0)
	if every.clockSink != 0 {
		t.Error("write=every read the clock, which only the rate limit reads")
	}
}

func TestParseClock(t *testing.T) {
	for _, k := range []ClockKind{ClockNone, ClockSched, ClockRq} {
		if got, err := ParseClock(k.String()); err != nil || got != k {
			t.Errorf("ParseClock(%q) = %v, %v, want %v", k.String(), got, err, k)
		}
	}
	for _, s := range []string{"", "tsc", "sched_clock_cpu", "RQ_CLOCK"} {
		_, err := ParseClock(s)
		if !errors.Is(err, ErrUnknown) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "valid: none, sched_clock, rq_clock") {
			t.Errorf("ParseClock(%q) error = %v, want one line listing the clocks", s, err)
		}
	}
}

func FuzzParseClock(f *testing.F) {
	for _, s := range []string{"none", "sched_clock", "rq_clock", "", "tsc", "rq_clock "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseClock(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("ParseClock(%q): error of several lines: %q", s, err)
			}
			return
		}
		if k.String() != s {
			t.Errorf("ParseClock(%q) = %v, which prints as %q", s, k, k.String())
		}
	})
}
