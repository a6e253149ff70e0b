package counter

// The scheduler's load units on a 64-bit kernel (kernel/sched/sched.h).
// Weights (load.weight, tg->shares) carry SCHED_FIXEDPOINT_SHIFT extra bits
// of resolution; PELT averages (avg.load_avg, tg->load_avg) do not:
//
//	# define NICE_0_LOAD_SHIFT	(SCHED_FIXEDPOINT_SHIFT + SCHED_FIXEDPOINT_SHIFT)
//	# define scale_load(w)		((w) << SCHED_FIXEDPOINT_SHIFT)
//	#define NICE_0_LOAD		(1L << NICE_0_LOAD_SHIFT)
//	#define MIN_SHARES		(1UL <<  1)
//	#define MAX_SHARES		(1UL << 18)
//
// We use the 64-bit values because the thread's machines (SPR, ICL, CSL)
// and ours are 64-bit. A nice-0 task has load.weight NiceZeroLoad and, when
// always runnable, avg.load_avg 1024.
const (
	SchedFixedpointShift = 10
	NiceZeroLoadShift    = 2 * SchedFixedpointShift
	// NiceZeroLoad is NICE_0_LOAD, scale_load(1024): a nice-0 task's
	// load.weight and the tg->shares a new group gets.
	NiceZeroLoad = 1 << NiceZeroLoadShift
	// MinShares is MIN_SHARES, unscaled: the floor of calc_group_shares.
	MinShares = 2
	// MaxShares is scale_load(MAX_SHARES), the largest tg->shares
	// sched_group_set_shares accepts.
	MaxShares = (1 << 18) << SchedFixedpointShift
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
	load := max(ScaleLoadDown(weight), loadAvg)
	tgWeight := tgLoad - contrib + load
	shares := tgShares * load
	if tgWeight != 0 {
		shares /= tgWeight
	}
	return min(max(shares, MinShares), tgShares)
}
