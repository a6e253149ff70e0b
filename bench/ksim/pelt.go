package ksim

import (
	"math"
	"math/bits"
)

// PELT, the kernel's per-entity load tracking (kernel/sched/pelt.c,
// kernel/sched/sched-pelt.h), load signal only: util and runnable are left
// out because no model reads them. This is the one PELT of the models:
// counter's cfs_rqs (the real data structures of the pinned runs) keep
// their sums in SchedAvg, and the float models (bench/wakeup) decay their
// per-task averages by Decay, which is decay_load() in continuous time.
//
// Time is in nanoseconds of the cfs_rq's clock. PELT counts it in units of
// 1024ns ("us", pelt.c's "Use 1024ns as the unit of measurement") and
// periods of 1024 such units (PeltPeriod, 1.048576 ms, "A period is 1024us
// (~1ms)"); a sum is decayed by y per period with y^32 = 1/2. Decay
// happens in whole periods only: between two period boundaries a sum only
// grows, and the average (sum / divider) is recomputed only when a
// boundary is crossed. That is what "decayed" means in update_load_avg(),
// and so when update_tg_load_avg() is called.

// The scheduler's load units on a 64-bit kernel (kernel/sched/sched.h).
// Weights (load.weight, tg->shares) carry SCHED_FIXEDPOINT_SHIFT extra bits
// of resolution; PELT averages (avg.load_avg, tg->load_avg) do not:
//
//	# define NICE_0_LOAD_SHIFT	(SCHED_FIXEDPOINT_SHIFT + SCHED_FIXEDPOINT_SHIFT)
//	# define scale_load(w)		((w) << SCHED_FIXEDPOINT_SHIFT)
//	#define NICE_0_LOAD		(1L << NICE_0_LOAD_SHIFT)
//
// A nice-0 task has load.weight Nice0Load and, when always runnable,
// avg.load_avg Nice0LoadDown (1024).
const (
	// SchedFixedpointShift is SCHED_FIXEDPOINT_SHIFT (include/linux/sched.h).
	SchedFixedpointShift = 10
	// Nice0LoadShift is the 64-bit NICE_0_LOAD_SHIFT.
	Nice0LoadShift = 2 * SchedFixedpointShift
	// Nice0Load is NICE_0_LOAD, scale_load(1024): a nice-0 task's
	// load.weight and the tg->shares a new group gets.
	Nice0Load = 1 << Nice0LoadShift
	// Nice0LoadDown is scale_load_down(NICE_0_LOAD) = 1024: a nice-0
	// task's weight as PELT sees it (se_weight()), the load_avg it tends
	// to when always runnable, and SCHED_CAPACITY_SCALE.
	Nice0LoadDown = Nice0Load >> SchedFixedpointShift

	// LoadAvgMax is LOAD_AVG_MAX (sched-pelt.h), the largest a load_sum per
	// unit of load can grow: 1024 * Σ y^n.
	LoadAvgMax = 47742
	// PeltMinDivider is PELT_MIN_DIVIDER (pelt.h): LOAD_AVG_MAX - 1024.
	PeltMinDivider = LoadAvgMax - 1024
	// PeltPeriod is one PELT period in nanoseconds: 1024 units of 1024ns.
	PeltPeriod = 1024 << 10
)

// ScaleLoad is scale_load(): unscaled weight to scaled.
func ScaleLoad(w int64) int64 { return w << SchedFixedpointShift }

// ScaleLoadDown is the 64-bit scale_load_down(), which keeps a non-zero
// weight from rounding to zero:
//
//	unsigned long __w = (w);
//	if (__w)
//		__w = max(2UL, __w >> SCHED_FIXEDPOINT_SHIFT);
func ScaleLoadDown(w int64) int64 {
	if w != 0 {
		w = max(2, w>>SchedFixedpointShift)
	}
	return w
}

// runnableAvgYNInv is runnable_avg_yN_inv from sched-pelt.h: y^n scaled by
// 2^32 - 1, n < LoadAvgPeriod. Copied, not computed, so that decay rounds as
// the kernel's does; TestPeltTable checks it against the formula.
var runnableAvgYNInv = [LoadAvgPeriod]uint32{
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6,
	0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85,
	0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
	0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
	0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
	0x85aac367, 0x82cd8698,
}

// SchedAvg is struct sched_avg, load half. For a task's sched_entity the
// sum counts time on the run queue (load 1 while queued) and the average is
// weight × sum / divider; for a cfs_rq the sum counts the queued weight and
// the average is sum / divider.
type SchedAvg struct {
	LastUpdateTime uint64 // ns; 0 on an entity means "migrated, attach me"
	LoadSum        uint64
	PeriodContrib  uint32 // units of 1024ns into the current period
	LoadAvg        uint64
}

// DecayLoad is decay_load(): val × y^n, with y^32 = 1/2 taken by shifts.
func DecayLoad(val, n uint64) uint64 {
	if n > LoadAvgPeriod*63 {
		return 0
	}
	if n >= LoadAvgPeriod {
		val >>= n / LoadAvgPeriod
		n %= LoadAvgPeriod
	}
	return mulU64U32Shr32(val, runnableAvgYNInv[n])
}

// mulU64U32Shr32 is mul_u64_u32_shr(a, mul, 32), with the 96-bit product.
func mulU64U32Shr32(a uint64, mul uint32) uint64 {
	hi, lo := bits.Mul64(a, uint64(mul))
	return hi<<32 | lo>>32
}

// accumulatePeltSegments is __accumulate_pelt_segments(): what a load of 1
// adds over d1 (the rest of the last period), periods-1 full periods and d3
// (the current period so far).
func accumulatePeltSegments(periods uint64, d1, d3 uint32) uint32 {
	c1 := uint32(DecayLoad(uint64(d1), periods))
	c2 := LoadAvgMax - uint32(DecayLoad(LoadAvgMax, periods)) - 1024
	return c1 + c2 + d3
}

// accumulateSum is accumulate_sum(), load only. delta is in 1024ns units.
// It returns the number of period boundaries crossed.
func (sa *SchedAvg) accumulateSum(delta, load uint64) uint64 {
	contrib := uint32(delta) // no period crossed: delta < 1024
	delta += uint64(sa.PeriodContrib)
	periods := delta / 1024
	if periods != 0 {
		sa.LoadSum = DecayLoad(sa.LoadSum, periods)
		delta %= 1024
		if load != 0 {
			contrib = accumulatePeltSegments(periods, 1024-sa.PeriodContrib, uint32(delta))
		}
	}
	sa.PeriodContrib = uint32(delta)
	if load != 0 {
		sa.LoadSum += load * uint64(contrib)
	}
	return periods
}

// UpdateLoadSum is ___update_load_sum(): bring the sum to now with load
// applied since the last update. It reports whether a period boundary was
// crossed, the kernel's "decayed".
func (sa *SchedAvg) UpdateLoadSum(now, load uint64) bool {
	delta := now - sa.LastUpdateTime
	if int64(delta) < 0 {
		// The clock went backwards (a cfs_rq's clock after migration
		// between CPUs whose clocks differ): restart from now.
		sa.LastUpdateTime = now
		return false
	}
	delta >>= 10
	if delta == 0 {
		return false
	}
	sa.LastUpdateTime += delta << 10
	return sa.accumulateSum(delta, load) != 0
}

// Crossed is whether an update at now would find a period boundary
// crossed since the last one: ___update_load_sum()'s "delta >>= 10",
// then accumulate_sum()'s "delta += sa->period_contrib; periods = delta /
// 1024;" not 0 (the kernel tick trace's kernel.TickRecord.LeafCrossed,
// in the model's own clock).
func (sa *SchedAvg) Crossed(now uint64) bool {
	delta := now - sa.LastUpdateTime
	return int64(delta) >= 0 && delta>>10 > 0 && delta>>10+uint64(sa.PeriodContrib) >= 1024
}

// Divider is get_pelt_divider().
func (sa *SchedAvg) Divider() uint64 {
	return PeltMinDivider + uint64(sa.PeriodContrib)
}

// UpdateLoadAvg is ___update_load_avg(), load only: weight is the entity's
// weight (unscaled, se_weight()), 1 for a cfs_rq.
func (sa *SchedAvg) UpdateLoadAvg(weight uint64) {
	sa.LoadAvg = weight * sa.LoadSum / sa.Divider()
}

// Decay is decay_load()'s factor in continuous time, y^(dt/PeltPeriod)
// with y^LOAD_AVG_PERIOD = 1/2, for models that keep PELT averages as
// floats over arbitrary spans (bench/wakeup's per-task load_avg and its
// per-cpu sums) rather than a SchedAvg per entity: the same half-life of
// LOAD_AVG_PERIOD periods of PeltPeriod, without the whole-period steps.
// TestDecayMatchesDecayLoad holds it to DecayLoad at whole periods. It is
// taken from two tables rather than math.Exp2 (a quarter of a wakeup
// simulation's time): the exponent in 1/1024ths of a half-life (33 µs
// steps) and whole halvings up to 63, past which the average is 0 to
// within 1e-19 (decay_load() gives 0 past LOAD_AVG_PERIOD*63 periods).
// What is left of dt below one 1/1024th step, r of a step, is
// interpolated: 2^(-r/1024) to second order, whose error is under 1e-10
// a call. Without it the exponent was rounded down while the callers move
// their timestamps to now, so a set updated more often than every 33 µs
// never decayed (TestDecayContinuous).
func Decay(dt int64) float64 {
	if dt <= 0 {
		return 1
	}
	if dt >= 64*peltHalfLife {
		return 0
	}
	x := dt * 1024
	k := x / peltHalfLife
	rem := x - k*peltHalfLife
	// a = ln 2 · r / 1024, r = rem / peltHalfLife in [0, 1).
	a := float64(rem) * (math.Ln2 / 1024 / peltHalfLife)
	return decayFrac[k&1023] * decayWhole[k>>10] * (1 - a + a*a/2)
}

// peltHalfLife is LOAD_AVG_PERIOD periods, in ns.
const peltHalfLife = LoadAvgPeriod * PeltPeriod

var decayFrac, decayWhole = func() (f [1024]float64, w [64]float64) {
	for i := range f {
		f[i] = math.Exp2(-float64(i) / 1024)
	}
	for i := range w {
		w[i] = math.Ldexp(1, -i)
	}
	return f, w
}()

// A PeltSet is the sum of the load_avg of a set of tasks that are all
// runnable (they rise together toward n × Nice0LoadDown) or all blocked
// (they decay together), in Decay's continuous time: PELT is linear, so
// the sum of averages decays as one. The float models keep one of each
// per cpu: its runnable load (4.13's cfs_rq runnable_load_avg) and its
// blocked load (what 6.1's cfs_rq load_avg adds to it).
type PeltSet struct {
	Sum      float64
	N        int   // tasks in the set (the runnable set's growth target is N × Nice0LoadDown)
	At       int64 // ns, when Sum was last brought up to date
	Runnable bool
}

// Advance brings the sum to now.
func (p *PeltSet) Advance(now int64) {
	d := Decay(now - p.At)
	p.At = now
	if p.Runnable {
		top := float64(p.N) * Nice0LoadDown
		p.Sum = top - (top-p.Sum)*d
	} else {
		p.Sum *= d
	}
}

// Add puts a task whose average is la (at now) into the set.
func (p *PeltSet) Add(now int64, la float64) {
	p.Advance(now)
	p.Sum += la
	p.N++
}

// Remove takes it out again.
func (p *PeltSet) Remove(now int64, la float64) {
	p.Advance(now)
	p.Sum = max(p.Sum-la, 0)
	p.N--
	if p.N == 0 {
		p.Sum = 0 // no rounding residue on an empty set
	}
}

// Value is the sum at now.
func (p *PeltSet) Value(now int64) float64 {
	p.Advance(now)
	return p.Sum
}
