package ksim

// The newidle walk's proportional gate, from v6.19 (33cf66d88306,
// "sched/fair: Proportional newidle balance"; 9fe89f022c05 adds
// NI_RATE): sched_balance_newidle() throws a die per domain and runs the
// domain's pass in proportion to the passes' weighted success.

// NewidleDice is the die sched_balance_newidle() throws before domain b's
// newidle pass where k.NewidleRandom:
//
//	if (sched_feat(NI_RANDOM) && sd->newidle_ratio < 1024) {	// "< 1024": NI_RATE's commit
//		u32 d1k = sched_rng() % 1024;
//		weight = 1 + sd->newidle_ratio;
//		if (d1k > weight) {
//			update_newidle_stats(sd, 0);
//			continue;
//		}
//		weight = (1024 + weight/2) / weight;
//	}
//
// It reports the pass's weight (1 without the die) and whether the pass
// runs; a skipped pass has counted its call.
func (k Kernel) NewidleDice(b *Balance, rq *RQBalance, j int64, hz HZ) (weight int64, run bool) {
	if !k.NewidleRandom {
		return 1, true
	}
	b.startNewidle(j, hz)
	if k.NewidleRate && b.NewidleRatio >= 1024 {
		return 1, true
	}
	d1k := int64(rq.rng() % 1024)
	weight = 1 + b.NewidleRatio
	if d1k > weight {
		k.newidleStats(b, 0, j, hz)
		return 0, false
	}
	return (1024 + weight/2) / weight, true
}

// newidleStats is update_newidle_stats(sd, success):
//
//	sd->newidle_call++;
//	sd->newidle_success += success;
//	if (sd->newidle_call >= 1024) {
//		u64 now = sched_clock();				// NI_RATE's commit
//		s64 delta = now - sd->newidle_stamp;
//		sd->newidle_stamp = now;
//		int ratio = 0;
//		if (delta < 0)
//			delta = 0;
//		if (sched_feat(NI_RATE))
//			ratio = delta >> 22;
//		ratio += sd->newidle_success;
//		sd->newidle_ratio = min(1024, ratio);		// before it: = sd->newidle_success
//		sd->newidle_call /= 2;
//		sd->newidle_success /= 2;
//	}
//
// sched_clock() is the jiffy's start (the walks keep jiffies).
func (k Kernel) newidleStats(b *Balance, success, j int64, hz HZ) {
	b.startNewidle(j, hz)
	b.NewidleCall++
	b.NewidleSuccess += success
	if b.NewidleCall < 1024 {
		return
	}
	now := j * hz.TickNs()
	ratio := b.NewidleSuccess
	if k.NewidleRate {
		ratio += max(now-b.NewidleStamp, 0) >> 22
	}
	b.NewidleStamp = now
	b.NewidleRatio = min(1024, ratio)
	b.NewidleCall /= 2
	b.NewidleSuccess /= 2
}

// startNewidle starts the statistics as sd_init() does ("50% success
// rate"), at the domain's first newidle visit: the stamp is that visit's
// jiffy, where the kernel's is the domain's build.
func (b *Balance) startNewidle(j int64, hz HZ) {
	if b.newidleStarted {
		return
	}
	b.newidleStarted = true
	b.NewidleCall, b.NewidleSuccess, b.NewidleRatio, b.NewidleStamp = 512, 256, 512, j*hz.TickNs()
}

// rng is prandom_u32_state() of the CPU's state, as splitmix64: the
// kernel's generator (Tausworthe) is not the point, a uniform die per CPU
// is.
func (r *RQBalance) rng() uint64 {
	x := Mix(r.Rand)
	r.Rand += 0x9e3779b97f4a7c15
	return x
}

// Uniform is a 64-bit hash or random word as a draw in [0, 1), its top 53
// bits: the models' test of a share (u < share).
func Uniform(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// OtherCPU is a random word x as a cpu of n other than cpu, each as
// likely: the models' move to another cpu at random.
func OtherCPU(x uint64, cpu, n int) int {
	dst := int(x % uint64(n-1))
	if dst >= cpu {
		dst++
	}
	return dst
}

// Mix is splitmix64's step and finalizer: a bijection that spreads nearby
// inputs, the models' hash of a (seed, cpu, tick) for their draws.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
