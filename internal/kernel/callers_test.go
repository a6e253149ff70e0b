package kernel

import (
	"strings"
	"testing"
)

func TestCallersOf(t *testing.T) {
	syms, err := ReadKallsyms(strings.NewReader(`ffffffff81000000 T update_load_avg
ffffffff81000400 t enqueue_entity
ffffffff81000800 T enqueue_task_fair
ffffffff81000c00 t dequeue_entity.isra.0
ffffffff81001000 T update_blocked_averages
ffffffff81001400 T task_tick_fair
`))
	if err != nil {
		t.Fatal(err)
	}
	site := Site{Kind: "tg-load-avg", Func: "update_load_avg", Off: 0x3ae, Inst: "lock add"}
	const at = 0xffffffff810003ae
	chains := [][]uint64{
		{at, 0xffffffff81000410, 0xffffffff81000810},
		{at, 0xffffffff81000410},
		{at, 0xffffffff81000c10},
		{at, 0xffffffff81001010},
		// A return address at a function's first byte is its call's,
		// one byte back: the function before (a call that ended it).
		{at, 0xffffffff81001400},
		{at},                         // no caller sampled
		{0x1000, 0xffffffff81000410}, // an address under every symbol: no caller read
	}
	c := CallersOf(site, chains, 3, syms)
	want := map[string]uint64{"enqueue_entity": 2, "dequeue_entity": 1, "update_blocked_averages": 2, "?": 2}
	if c.Sampled != uint64(len(chains)) || c.Lost != 3 || c.Site != "update_load_avg+0x3ae" {
		t.Fatalf("sampled %d, lost %d, site %q", c.Sampled, c.Lost, c.Site)
	}
	for fn, n := range want {
		if c.By[fn] != n {
			t.Errorf("%s: %d samples, want %d (all: %v)", fn, c.By[fn], n, c.By)
		}
	}
	if top := c.Top(); top[0] != "?" || top[1] != "enqueue_entity" {
		t.Errorf("Top = %v: most samples first, ties by name", top)
	}
}

func TestWritePaths(t *testing.T) {
	for _, tc := range []struct {
		site Site
		want string
	}{
		{Site{Func: "enqueue_task_fair", Via: "update_load_avg"}, "enqueue"},
		{Site{Func: "dequeue_entities", Via: "update_load_avg"}, "dequeue"},
		{Site{Func: "__dequeue_task", Via: "update_load_avg"}, "dequeue"},
		{Site{Func: "task_tick_fair", Via: "update_load_avg"}, "tick"},
		{Site{Func: "set_next_task_fair", Via: "update_load_avg"}, "switch"},
		{Site{Func: "__sched_balance_update_blocked_averages", Via: "update_load_avg"}, "blocked-entity"},
		{Site{Func: "__sched_balance_update_blocked_averages"}, "blocked"},
		{Site{Func: "update_blocked_averages"}, "blocked"},
		{Site{Func: "attach_entity_cfs_rq"}, OtherPath},
		{Site{Func: "propagate_entity_cfs_rq", Via: "update_load_avg"}, OtherPath},
		{Site{Func: "dequeue_entity.isra.0"}, "dequeue"},
	} {
		if got := SitePath(tc.site); got != tc.want {
			t.Errorf("SitePath(%s via %q) = %s, want %s", tc.site.Func, tc.site.Via, got, tc.want)
		}
	}
	if !SampledSite(Site{Kind: "tg-load-avg", Func: "update_load_avg.constprop.0"}) || SampledSite(Site{Kind: "tg-load-avg", Func: "enqueue_task_fair", Via: "update_load_avg"}) || SampledSite(Site{Kind: "tg-load-avg-limit", Func: "update_load_avg"}) {
		t.Error("SampledSite: only the tg->load_avg write in update_load_avg's own body")
	}
}

// TestRingLoss: the rings' own count of lost samples stands unless the
// breakpoint counted more hits than were sampled and said lost (a ring
// that filled writes no PERF_RECORD_LOST); samples from outside the
// counted window are no loss.
func TestRingLoss(t *testing.T) {
	for _, tc := range []struct {
		sampled, lost uint64
		counted       int64
		want          uint64
	}{
		{100, 0, 100, 0},
		{110, 0, 100, 0},  // the sampling window is the wider
		{70, 0, 100, 30},  // a full ring, silent
		{70, 10, 100, 30}, // a full ring, some said
		{70, 40, 100, 40}, // the rings said more
		{0, 0, -1, 0},     // no breakpoint count
	} {
		if got := RingLoss(tc.sampled, tc.lost, tc.counted); got != tc.want {
			t.Errorf("RingLoss(%d, %d, %d) = %d, want %d", tc.sampled, tc.lost, tc.counted, got, tc.want)
		}
	}
}
