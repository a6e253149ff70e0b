package counter

import "math/bits"

// PELT, the kernel's per-entity load tracking (kernel/sched/pelt.c,
// sched-pelt.h), for the load signal only: util and runnable are left out
// because nothing on the tg->load_avg paths reads them.
//
// Time is in nanoseconds of the cfs_rq's clock. PELT counts it in units of
// 1024ns ("us") and periods of 1024 such units (1.048576 ms, "~1ms"); a
// sum is decayed by y per period with y^32 = 1/2. Decay happens in whole
// periods only: between two period boundaries a sum only grows, and the
// average (sum / divider) is recomputed only when a boundary is crossed.
// That is what "decayed" means in update_load_avg(), and so when
// update_tg_load_avg() is called.
const (
	// LoadAvgPeriod is LOAD_AVG_PERIOD: the half-life in periods.
	LoadAvgPeriod = 32
	// LoadAvgMax is LOAD_AVG_MAX, the largest a load_sum per unit of load
	// can grow: 1024 * Σ y^n.
	LoadAvgMax = 47742
	// PeltMinDivider is PELT_MIN_DIVIDER.
	PeltMinDivider = LoadAvgMax - 1024
	// PeltPeriod is one PELT period in nanoseconds: 1024 units of 1024ns.
	PeltPeriod = 1024 << 10
)

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

// decayLoad is decay_load(): val × y^n, with y^32 = 1/2 taken by shifts.
func decayLoad(val, n uint64) uint64 {
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
	c1 := uint32(decayLoad(uint64(d1), periods))
	c2 := LoadAvgMax - uint32(decayLoad(LoadAvgMax, periods)) - 1024
	return c1 + c2 + d3
}

// accumulateSum is accumulate_sum(), load only. delta is in 1024ns units.
// It returns the number of period boundaries crossed.
func (sa *SchedAvg) accumulateSum(delta, load uint64) uint64 {
	contrib := uint32(delta) // no period crossed: delta < 1024
	delta += uint64(sa.PeriodContrib)
	periods := delta / 1024
	if periods != 0 {
		sa.LoadSum = decayLoad(sa.LoadSum, periods)
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

// updateLoadSum is ___update_load_sum(): bring the sum to now with load
// applied since the last update. It reports whether a period boundary was
// crossed, the kernel's "decayed".
func (sa *SchedAvg) updateLoadSum(now, load uint64) bool {
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

// divider is get_pelt_divider().
func (sa *SchedAvg) divider() uint64 {
	return PeltMinDivider + uint64(sa.PeriodContrib)
}

// updateLoadAvg is ___update_load_avg(), load only: weight is the entity's
// weight (unscaled), 1 for a cfs_rq.
func (sa *SchedAvg) updateLoadAvg(weight uint64) {
	sa.LoadAvg = weight * sa.LoadSum / sa.divider()
}

// subPositive is sub_positive(): subtract, clamping at zero.
func subPositive(x *uint64, y uint64) {
	if *x > y {
		*x -= y
	} else {
		*x = 0
	}
}
