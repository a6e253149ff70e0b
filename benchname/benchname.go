// Package benchname spells the values that go into benchmark names, for
// every package that writes one: bench's declared variant keys, bench/ktime's
// kernel-time figures and counter's write policies (ratelimit=500us).
//
// It sits below all of them and imports nothing of contend's, so that
// counter, a data-structure library, can spell a duration exactly as a
// scenario's variant key does without importing the runner (bench/ktime
// imports bench). One spelling per value matters: benchstat groups results
// by the name's bytes, so "500us" and "0.5ms" would be two benchmarks.
package benchname

import (
	"strconv"
	"time"
)

// FormatDuration writes d in the largest whole unit, in ASCII ("500us", not
// Duration.String's "500µs"), so that benchmark names stay grep-able and
// never end in -<digits> (which benchstat reads as a GOMAXPROCS suffix).
func FormatDuration(d time.Duration) string {
	switch {
	case d != 0 && d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d != 0 && d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	case d != 0 && d%time.Microsecond == 0:
		return strconv.FormatInt(int64(d/time.Microsecond), 10) + "us"
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}
