package counter

import (
	"fmt"
	"strings"
)

// A ClockKind is the clock update_tg_load_avg()'s rate limit reads, with
// its real cost in the hot path (Rik van Riel, 2026-05,
// https://lkml.iu.edu/2605.3/05726.html). The time the test compares is
// the model's kernel time either way, the now of the event, which both
// kernel clocks would give to within the event's own length; only the
// instructions differ.
type ClockKind int

const (
	// ClockNone reads no clock: the model's kernel time alone, what the
	// model did before the clock had a cost.
	ClockNone ClockKind = iota
	// ClockSched is the merged rate limit, "now = sched_clock_cpu(cpu)":
	// on x86 with a stable TSC native_sched_clock()'s RDTSC and
	// cycles_2_ns()'s multiply, shift and offset; on arm64 the arch
	// timer's ISB and CNTVCT_EL0 read (schedclock_*.s).
	ClockSched
	// ClockRq is the patch, the runqueue's cached clock: a load of the
	// word update_rq_clock() stored at the event's start (Enqueue,
	// Dequeue, Tick, UpdateBlocked store it, under ClockSched too, as the
	// kernel's update_rq_clock() runs either way).
	ClockRq
)

var clockNames = [...]string{ClockNone: "none", ClockSched: "sched_clock", ClockRq: "rq_clock"}

func (k ClockKind) String() string {
	if k >= 0 && int(k) < len(clockNames) {
		return clockNames[k]
	}
	return fmt.Sprintf("clock(%d)", int(k))
}

// ParseClock parses none, sched_clock or rq_clock.
func ParseClock(s string) (ClockKind, error) {
	for k, n := range clockNames {
		if s == n {
			return ClockKind(k), nil
		}
	}
	return 0, fmt.Errorf("clock %q: %w (valid: %s)", s, ErrUnknown, strings.Join(clockNames[:], ", "))
}

// cyc2ns is x86's per-cpu struct cyc2ns_data: the TSC-to-ns scale that
// cycles_2_ns() applies, ns = offset + cyc * mul >> shift. The values are
// a 2.5 GHz TSC's; they change nothing but the arithmetic's operands.
type cyc2ns struct {
	mul    uint64
	shift  uint
	offset int64
}

var defaultCyc2ns = cyc2ns{mul: 6710886, shift: 24, offset: 0} // 0.4 ns per cycle

// SetClock makes the rate limit of this cfs_rq and its ancestors read
// clock k, all levels one rq's: they share its cached clock word.
func (rq *CfsRq) SetClock(k ClockKind) {
	var word *int64
	if k != ClockNone {
		word = new(int64)
	}
	for c := rq; c != nil; c = c.parent {
		c.clock, c.rqClock, c.c2n = k, word, defaultCyc2ns
	}
}

// updateRqClock is update_rq_clock() at an event's start: the store
// rq_clock() later loads. Without a clock it does nothing.
func (rq *CfsRq) updateRqClock(now int64) {
	if rq.rqClock != nil {
		*rq.rqClock = now
	}
}

// readClock is the rate limit's clock read, for its cost: the value is
// folded into clockSink, never compared (see ClockKind).
func (rq *CfsRq) readClock() {
	switch rq.clock {
	case ClockSched:
		cyc := schedClockCycles()
		rq.clockSink ^= rq.c2n.offset + int64(cyc*rq.c2n.mul>>rq.c2n.shift)
	case ClockRq:
		rq.clockSink ^= *rq.rqClock
	}
}
