package loadavg

import (
	"math"
	"time"

	"github.com/contend/contend/counter"
)

// The load model of the loadavg scenario: one cfs_rq's tasks, their weights
// and a PELT-like running average, stepped once per en/dequeue event.

// laEpoch is the origin of the rq clock.
var laEpoch = time.Now()

const (
	// laTasks is the number of tasks per cfs_rq, a power of two so that
	// picking one is a mask.
	laTasks = 8
	// laLambda is PELT's decay rate per nanosecond: y^32 = 1/2 with a
	// period of 1024us, so load_avg closes ln2/32 of its distance to the
	// runnable weight per period.
	laLambda = math.Ln2 / (32 * 1024 * 1000)
	// Worker 0 takes its first error sample early, so that short runs
	// have one, then about every laSampleEvery×workers events.
	laFirstSample = 16
	laSampleEvery = 1024
)

// laWeights are the tasks' load weights, sched_prio_to_weight for nice -2, -1,
// 0, 0, 0, 0, 1, 2: unscaled, as avg.load_avg counts them.
var laWeights = [laTasks]int64{1586, 1277, 1024, 1024, 1024, 1024, 820, 655}

// Task states.
const (
	laQueued  = iota // runnable on this cfs_rq
	laBlocked        // asleep, its load still attached here
	laAway           // on another CPU, its load gone with it
)

// laModel is one cfs_rq's own load: its tasks, the sum of their weights and
// PELT's average of it. It lives inside the worker, on the worker's lines.
type laModel struct {
	load  float64 // avg.load_avg, unscaled
	run   int64   // sum of the queued tasks' weights: load.weight, unscaled
	att   int64   // sum of the attached (queued or blocked) tasks' weights
	last  int64   // clock of the last event, ns
	migAt uint64  // a dequeue migrates when 32 random bits fall below this
	state [laTasks]uint8
	carry [laTasks]float64 // the load an away task brings back
}

// init draws the tasks' starting states from the chain's steady state (an
// event leaves each state with the same probability, so a state's share is
// its share of visits: queued 1/2, blocked (1-m)/2, away m/2) and starts
// avg.load_avg where PELT would hold it: the attached weight times the queued
// share of attached time, 1/(2-m).
func (m *laModel) init(rng *uint64, mig int, now int64) {
	p := float64(mig) / 100
	m.migAt = uint64(mig) << 32 / 100 // 1<<32 at mig=100: always
	frac := 1 / (2 - p)
	for i := range m.state {
		u := float64(uint32(laNext(rng))) / (1 << 32)
		w := laWeights[i]
		switch {
		case u < 0.5:
			m.state[i] = laQueued
			m.run += w
			m.att += w
		case u < 0.5+(1-p)/2:
			m.state[i] = laBlocked
			m.att += w
		default:
			m.state[i] = laAway
			m.carry[i] = float64(w) * frac
		}
	}
	m.load = float64(m.att) * frac
	m.last = now
}

// step is one enqueue or dequeue at time now with random bits r. It returns
// the new avg.load_avg, load.weight (scaled) and whether the load went down
// because a task left (removed load).
func (m *laModel) step(now int64, r uint64) (loadAvg, weight int64, removed bool) {
	// PELT: avg.load_avg moves towards the runnable weight by
	// 1 - exp(-λ·dt). Gaps between events are well under a microsecond
	// (x ≈ 1e-6), where x - x²/2 is within x²/6 of it relatively (under
	// 2e-7 below the cut-off at x = 1e-3, 47us) for two multiplications
	// instead of an exponential; longer gaps (a preempted worker) take the
	// exponential.
	if dt := now - m.last; dt > 0 {
		x := float64(dt) * laLambda
		a := x * (1 - 0.5*x)
		if x > 1e-3 {
			a = -math.Expm1(-x)
		}
		m.load += (float64(m.run) - m.load) * a
	}
	m.last = now
	i := r >> 29 & (laTasks - 1) // bits 29-31; 32-63 decide migration
	w := laWeights[i]
	switch m.state[i] {
	case laQueued:
		m.run -= w
		if r>>32 >= m.migAt {
			m.state[i] = laBlocked
			break
		}
		// Dequeued, and its next wakeup is elsewhere: its share of
		// the attached load goes (in the kernel, as removed load at
		// this cfs_rq's next update).
		share := m.load
		if m.att > w {
			share = m.load * float64(w) / float64(m.att)
		}
		m.att -= w
		m.load -= share
		m.carry[i] = share
		m.state[i] = laAway
		removed = true
	case laBlocked:
		m.run += w
		m.state[i] = laQueued
	default: // laAway: migrated back, attach its load
		m.run += w
		m.att += w
		m.load += m.carry[i]
		m.state[i] = laQueued
	}
	if m.load < 0 || m.att == 0 {
		m.load = 0
	}
	return int64(m.load), counter.ScaleLoad(m.run), removed
}

// laSeed is splitmix64 of the worker's index: a distinct, non-zero xorshift
// state per worker.
func laSeed(index int) uint64 {
	z := uint64(index+1) * 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	if z == 0 {
		z = 1
	}
	return z
}

// laNext is xorshift64*.
func laNext(x *uint64) uint64 {
	*x ^= *x >> 12
	*x ^= *x << 25
	*x ^= *x >> 27
	return *x * 0x2545f4914f6cdd1d
}
