package counter

import (
	"testing"

	"github.com/contend/contend/bench/ksim"
)

// TestCalcGroupShares checks the kernel's arithmetic against cases worked
// by hand: load = max(scale_load_down(weight), avg), tg_weight = tg_load -
// contrib + load, shares = tg_shares*load/tg_weight clamped to
// [MIN_SHARES, tg_shares].
func TestCalcGroupShares(t *testing.T) {
	const tgShares = ksim.Nice0Load // 1048576
	tests := []struct {
		name                                   string
		tgShares, tgLoad, contrib, weight, avg int64
		want                                   int64
	}{
		{"alone: the whole group's weight", tgShares, 1024, 1024, ksim.Nice0Load, 1024, tgShares},
		{"one of two equal cfs_rqs", tgShares, 2048, 1024, ksim.Nice0Load, 1024, tgShares / 2},
		{"one of four equal cfs_rqs", tgShares, 4096, 1024, ksim.Nice0Load, 1024, tgShares / 4},
		// 1048576*1024/3072 = 349525.33
		{"a third, truncated", tgShares, 3072, 1024, ksim.Nice0Load, 1024, 349525},
		// The local contribution is stale (512) but the current load (1024)
		// replaces it: tg_weight = 2048 - 512 + 1024 = 2560;
		// 1048576*1024/2560 = 419430.4.
		{"stale contrib replaced by load", tgShares, 2048, 512, ksim.Nice0Load, 1024, 419430},
		// weight beats a decayed average: load = max(1024, 300) = 1024.
		{"weight beats avg", tgShares, 2048, 1024, ksim.Nice0Load, 300, tgShares / 2},
		// avg beats a small weight: scale_load_down(1024) = max(2, 1) = 2,
		// load = max(2, 700) = 700, tg_weight = 1400 - 700 + 700 = 1400.
		{"avg beats a small weight", tgShares, 1400, 700, 1024, 700, tgShares / 2},
		// The kernel comment's example: tg->shares = scale_load(15), 8 CPUs
		// each with one nice-0 task: 15*1024*1/8 = 1920, above MIN_SHARES.
		{"small group split 8 ways", ksim.ScaleLoad(15), 8192, 1024, ksim.Nice0Load, 1024, 1920},
		// Lower clamp: nothing runnable here, load 0, shares 0 -> MIN_SHARES.
		{"idle cfs_rq clamps to MIN_SHARES", tgShares, 10000, 0, 0, 0, MinShares},
		// Lower clamp via a tiny non-zero share: 2048*2/100000 = 0 -> 2.
		{"tiny share clamps to MIN_SHARES", ksim.ScaleLoad(2), 100000, 0, 1, 0, MinShares},
		// tg_weight 0: no division, shares = tg_shares*0 = 0 -> MIN_SHARES.
		{"zero tg_weight", tgShares, 500, 500, 0, 0, MinShares},
		// Upper clamp: the shared counter lags far behind this cfs_rq's
		// contribution; tg_weight = 100 - 1024 + 1024 = 100 and
		// 1048576*1024/100 = 10737418 > tg_shares.
		{"lagging tg load clamps to tg_shares", tgShares, 100, 1024, ksim.Nice0Load, 1024, tgShares},
		// A torn per-node read below zero: tg_weight = -5000 + 1024 < 0,
		// shares negative -> MIN_SHARES.
		{"negative tg_weight clamps to MIN_SHARES", tgShares, -5000, 0, ksim.Nice0Load, 1024, MinShares},
		// Upper clamp with the largest group weight the kernel allows:
		// 2^28 * 1024 fits easily in int64.
		{"max shares alone", MaxShares, 1024, 1024, ksim.Nice0Load, 1024, MaxShares},
	}
	for _, tt := range tests {
		got := CalcGroupShares(tt.tgShares, tt.tgLoad, tt.contrib, tt.weight, tt.avg)
		if got != tt.want {
			t.Errorf("%s: CalcGroupShares(%d, %d, %d, %d, %d) = %d, want %d",
				tt.name, tt.tgShares, tt.tgLoad, tt.contrib, tt.weight, tt.avg, got, tt.want)
		}
	}
}
