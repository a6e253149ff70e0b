// Package ktime runs scenario models on kernel time against the wall clock:
// pacing and timed shares. The kernel clock itself, HZ and jiffies are
// bench/ksim's, the scheduler model every simulation shares.
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

	"github.com/contend/contend/bench/ksim"
	"github.com/contend/contend/benchname"
)

// A Clock is one worker's clock in nanoseconds of kernel time: the kernel
// model's clock, bench/ksim's, which this package paces against the wall.
type Clock = ksim.Clock

// PerSecond converts a count over span nanoseconds of kernel time into a
// rate per kernel second; 0 for an empty span (ksim.PerSecond).
func PerSecond(count, span int64) float64 { return ksim.PerSecond(count, span) }

// Format writes d in the largest whole unit, in ASCII ("500us", not
// Duration.String's "500µs"), as every benchmark name spells a duration
// (benchname.FormatDuration, which counter shares without importing bench).
func Format(d time.Duration) string { return benchname.FormatDuration(d) }
