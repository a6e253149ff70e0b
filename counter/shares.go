package counter

import "github.com/contend/contend/bench/ksim"

// The scheduler's load units (NICE_0_LOAD, scale_load(), scale_load_down())
// are ksim's (bench/ksim/pelt.go), the models' one declaration of them; the
// share limits, which only calc_group_shares() and the stores use, are
// here (kernel/sched/sched.h):
//
//	#define MIN_SHARES		(1UL <<  1)
//	#define MAX_SHARES		(1UL << 18)
const (
	// MinShares is MIN_SHARES, unscaled: the floor of calc_group_shares.
	MinShares = 2
	// MaxShares is scale_load(MAX_SHARES), the largest tg->shares
	// sched_group_set_shares accepts.
	MaxShares = (1 << 18) << ksim.SchedFixedpointShift
)

// CalcGroupShares is the arithmetic of the kernel's calc_group_shares(),
// given what it reads: tgShares is READ_ONCE(tg->shares) (scaled), tgLoad
// the value read from tg->load_avg, contrib this cfs_rq's
// tg_load_avg_contrib, weight its load.weight (scaled) and loadAvg its
// avg.load_avg. The kernel:
//
//	load = max(scale_load_down(cfs_rq->load.weight), cfs_rq->avg.load_avg);
//	tg_weight = atomic_long_read(&tg->load_avg);
//	/* Ensure tg_weight >= load */
//	tg_weight -= cfs_rq->tg_load_avg_contrib;
//	tg_weight += load;
//	shares = (tg_shares * load);
//	if (tg_weight)
//		shares /= tg_weight;
//	return clamp_t(long, shares, MIN_SHARES, tg_shares);
//
// Replacing this cfs_rq's stale contribution by its current load is what
// makes the answer right for the local CPU even when the shared counter
// lags; the rest of the group is only as fresh as tg->load_avg, which is
// the accuracy the write policies trade away. The floor is unscaled on
// purpose ("MIN_SHARES has to be unscaled here to support per-CPU
// partitioning of a group with small tg->shares value"). Division truncates
// toward zero, as C's does. A tgLoad read while other CPUs' updates are half
// done (PerNode, PerCPU) can make tg_weight small or negative; the clamp
// then returns tgShares or MinShares, as the kernel would.
func CalcGroupShares(tgShares, tgLoad, contrib, weight, loadAvg int64) int64 {
	load := max(ksim.ScaleLoadDown(weight), loadAvg)
	tgWeight := tgLoad - contrib + load
	shares := tgShares * load
	if tgWeight != 0 {
		shares /= tgWeight
	}
	return min(max(shares, MinShares), tgShares)
}
