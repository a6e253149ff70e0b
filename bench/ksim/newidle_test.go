package ksim

import "testing"

// TestNewidleDice: without NI_RANDOM every pass runs; with it a domain
// starts at sd_init()'s 50 % and, never pulling, falls by half each 512
// calls; with NI_RATE the calls' spacing keeps the ratio up, and at 1024
// the die is not thrown.
func TestNewidleDice(t *testing.T) {
	const hz = HZ(250)
	runs := func(k Kernel, calls int, every int64) (ran int, b Balance) {
		rq := RQBalance{Rand: 7}
		for i := range calls {
			j := int64(i) * every / 1000 // every: thousandths of a jiffy between calls
			if _, run := k.NewidleDice(&b, &rq, j, hz); run {
				ran++
				if k.NewidleRandom {
					k.newidleStats(&b, 0, j, hz)
				}
			}
		}
		return ran, b
	}
	if ran, _ := runs(Mainline, 1000, 1000); ran != 1000 {
		t.Errorf("without NI_RANDOM: %d of 1000 passes ran", ran)
	}
	random := Mainline
	random.NewidleRandom = true
	ran, b := runs(random, 512, 1000)
	if ran < 200 || ran > 312 || b.NewidleRatio != 256 || b.NewidleCall != 512 {
		t.Errorf("NI_RANDOM, first 512 calls: %d ran (want about half), ratio %d (want 256: the start's 256 successes), calls %d", ran, b.NewidleRatio, b.NewidleCall)
	}
	if ran, b := runs(random, 20000, 1000); ran > 1000 || b.NewidleRatio > 8 {
		t.Errorf("NI_RANDOM, 20000 calls never pulling: %d ran, ratio %d; want the ratio near 0", ran, b.NewidleRatio)
	}
	rate := random
	rate.NewidleRate = true
	// 512 calls 8 ms apart: 4.1 s, >> 22 is 976, plus the successes.
	if _, b := runs(rate, 1024, 2000); b.NewidleRatio < 900 {
		t.Errorf("NI_RATE, calls 8 ms apart: ratio %d, want near 1024", b.NewidleRatio)
	}
	// Calls a tick apart (4 ms): 512 of them take 2 s, ratio about 488;
	// a pass runs about half the time.
	if ran, b := runs(rate, 20000, 1000); b.NewidleRatio < 400 || b.NewidleRatio > 560 || ran < 8000 || ran > 12000 {
		t.Errorf("NI_RATE, calls a tick apart: ratio %d, %d of 20000 ran; want about 488 and half", b.NewidleRatio, ran)
	}
}

// A success counts weighted by the die's odds, so the ratio follows the
// success rate whatever share of passes ran: every pass pulling keeps it
// near 800, where (1024 + w/2) / w rounds the weight down to 1 and a
// pass runs (1 + ratio) / 1024 of the time.
func TestNewidleSuccessWeight(t *testing.T) {
	k := Mainline
	k.NewidleRandom = true
	var b Balance
	rq := RQBalance{Rand: 3}
	for i := range 40000 {
		if w, run := k.NewidleDice(&b, &rq, int64(i), 250); run {
			k.newidleStats(&b, w, int64(i), 250) // every pass pulls
		}
	}
	if b.NewidleRatio < 700 {
		t.Errorf("every pass pulling: ratio %d, want about 800", b.NewidleRatio)
	}
}
