package wakeup

import "math"

// PELT for the wakeup model: per-task load averages and per-cpu sums of
// them, which bench/ksim (the shared scheduler model this package runs on
// for its clock, domains, intervals and event queue) does not have yet.
// Kernel code in all but name: it moves to ksim when a second model needs
// it.

// PELT: a task's load_avg is a geometric series over 1024 µs periods with
// y^32 = 1/2 (kernel/sched/pelt.c), which in continuous time is a half-life
// of 32 periods. A runnable task's average rises toward its weight (a nice-0
// task: NICE_0_LOAD scaled down, 1024); a sleeping one's decays toward 0.
const (
	peltHalfLife = 32 * 1024 * 1000 // ns
	nice0Load    = 1024             // scale_load_down(NICE_0_LOAD), and SCHED_CAPACITY_SCALE
)

// peltDecay is y^(dt/1024µs), from two tables rather than math.Exp2 (a
// quarter of a simulation's time): the exponent in 1/1024ths of a
// half-life, rounded down (32 µs steps, each 0.07% of decay, finer than
// PELT's own 1024 µs periods), and whole halvings up to 63, past which the
// average is 0 to within 1e-19.
func peltDecay(dt int64) float64 {
	if dt <= 0 {
		return 1
	}
	k := dt * 1024 / peltHalfLife
	if k >= 64*1024 {
		return 0
	}
	return decayFrac[k&1023] * decayWhole[k>>10]
}

var decayFrac, decayWhole = func() (f [1024]float64, w [64]float64) {
	for i := range f {
		f[i] = math.Exp2(-float64(i) / 1024)
	}
	for i := range w {
		w[i] = math.Ldexp(1, -i)
	}
	return f, w
}()

// A pelt is the sum of the load_avg of a set of tasks that are all
// runnable (they rise together toward n × 1024) or all blocked (they decay
// together): PELT is linear, so the sum of averages decays as one. A cpu
// keeps one of each: its runnable load (4.13's cfs_rq runnable_load_avg)
// and its blocked load (what 6.1's cfs_rq load_avg adds to it).
type pelt struct {
	sum      float64
	n        int // tasks in the set (the runnable set's growth target is n × 1024)
	at       int64
	runnable bool
}

// advance brings the sum to now.
func (p *pelt) advance(now int64) {
	d := peltDecay(now - p.at)
	p.at = now
	if p.runnable {
		top := float64(p.n) * nice0Load
		p.sum = top - (top-p.sum)*d
	} else {
		p.sum *= d
	}
}

// add puts a task whose average is la (at now) into the set.
func (p *pelt) add(now int64, la float64) {
	p.advance(now)
	p.sum += la
	p.n++
}

// remove takes it out again.
func (p *pelt) remove(now int64, la float64) {
	p.advance(now)
	p.sum = max(p.sum-la, 0)
	p.n--
	if p.n == 0 {
		p.sum = 0 // no rounding residue on an empty set
	}
}

// value is the sum at now.
func (p *pelt) value(now int64) float64 {
	p.advance(now)
	return p.sum
}
