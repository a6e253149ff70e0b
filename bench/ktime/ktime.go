// Package ktime runs scenario models on kernel time.
//
// A model whose clock is "one event" compresses the kernel's milliseconds
// into this machine's nanoseconds: a 1 ms rate limit that in the kernel
// spans 25 events spans ten thousand here, PELT decays between events that
// come 70 ns apart, and every "per second" figure is off by the same factor.
// The shared-line traffic a scenario exists to measure must stay real and
// run at full speed; everything the kernel does on a clock — PELT periods,
// ticks, balance intervals, rate limits, "per second" — must instead run on
// a Clock that advances by the time the kernel would have spent between two
// events, whatever this hardware took.
//
// Two modes follow from that. Unpaced, the default, is a stress test: events
// come as fast as the machine can run them, on kernel time, so the counts
// (writes per kernel second, staleness) mean what the kernel's mean while
// the contention is as heavy as it can be made. Paced (a Pacer) adds real
// local work after each event until the wall clock has moved by the event's
// kernel gap, so a worker runs at the kernel's event rate and the share of
// its time spent in a hot path (a Share) is comparable with a profile's
// share of cycles.
package ktime

import (
	"time"

	"github.com/contend/contend/benchname"
)

// A Clock is one worker's clock in nanoseconds of kernel time. It is not
// safe for concurrent use: each worker owns one, as each CPU owns its rq
// clock.
type Clock struct {
	now int64
}

// Now returns the clock's time in nanoseconds.
func (c *Clock) Now() int64 { return c.now }

// Set sets the clock to t.
func (c *Clock) Set(t int64) { c.now = t }

// Advance moves the clock forward by d nanoseconds and returns the new time.
func (c *Clock) Advance(d int64) int64 {
	c.now += d
	return c.now
}

// PerSecond converts a count over span nanoseconds of kernel time into a
// rate per kernel second; 0 for an empty span.
func PerSecond(count, span int64) float64 {
	if span <= 0 {
		return 0
	}
	return float64(count) * 1e9 / float64(span)
}

// Format writes d in the largest whole unit, in ASCII ("500us", not
// Duration.String's "500µs"), as every benchmark name spells a duration
// (benchname.FormatDuration, which counter shares without importing bench).
func Format(d time.Duration) string { return benchname.FormatDuration(d) }
