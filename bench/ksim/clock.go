package ksim

import "fmt"

// A Clock is one CPU's clock in nanoseconds of kernel time. It is not safe
// for concurrent use: each CPU (each worker) owns one, as each CPU owns its
// rq clock.
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

// NsecPerSec is NSEC_PER_SEC.
const NsecPerSec = 1_000_000_000

// HZ is CONFIG_HZ, the scheduler tick's rate. The kernel offers 100, 250,
// 300 and 1000 (kernel/Kconfig.hz); the seeds' machines run 1000 or 250.
type HZ int

// Check says what is wrong with hz, if anything: it must be one of the
// kernel's choices.
func (hz HZ) Check() error {
	switch hz {
	case 100, 250, 300, 1000:
		return nil
	}
	return fmt.Errorf("hz %d: want 100, 250, 300 or 1000 (CONFIG_HZ)", int(hz))
}

// TickNs is TICK_NSEC, "(NSEC_PER_SEC + HZ/2) / HZ" (include/vdso/jiffies.h),
// the length of one tick in nanoseconds: 1000000 at HZ=1000, 4000000 at 250.
func (hz HZ) TickNs() int64 { return (NsecPerSec + int64(hz)/2) / int64(hz) }

// Jiffies is the jiffies count at kernel time t ns (t ≥ 0), counting from a
// boot at time 0: the number of whole ticks that have passed.
func (hz HZ) Jiffies(t int64) int64 { return t / hz.TickNs() }

// TickTime is when tick j fires, in ns of kernel time: every CPU's tick at
// the same instant, as with skew_tick=0 (the default).
func (hz HZ) TickTime(j int64) int64 { return j * hz.TickNs() }

// Ticks is how many ticks fire in d nanoseconds of kernel time.
func (hz HZ) Ticks(d int64) int64 { return d / hz.TickNs() }

// MsecsToJiffies is msecs_to_jiffies() (include/linux/jiffies.h) for a
// non-negative m: rounded up. Where HZ divides 1000 that is
// "(m + (MSEC_PER_SEC / HZ) - 1) / (MSEC_PER_SEC / HZ)"; for HZ=300 the
// kernel's multiply-and-shift computes the same ceiling of m·HZ/1000.
func (hz HZ) MsecsToJiffies(m int64) int64 {
	if 1000%int64(hz) == 0 {
		per := 1000 / int64(hz)
		return (m + per - 1) / per
	}
	return (m*int64(hz) + 999) / 1000
}

// PerSecond converts a count over span nanoseconds of kernel time into a
// rate per kernel second; 0 for an empty span.
func PerSecond(count, span int64) float64 {
	if span <= 0 {
		return 0
	}
	return float64(count) * 1e9 / float64(span)
}
