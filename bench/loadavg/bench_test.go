package loadavg

import (
	"fmt"
	"testing"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/bench/ktime"
	"github.com/contend/contend/counter"
	"github.com/contend/contend/counter/xsyncref"
)

// newXsyncStore makes the reference store, xsync.Counter.
func newXsyncStore(env *bench.Env) (counter.Store, int, error) {
	return xsyncref.New(), xsyncref.Lines(), nil
}

// benchStores are the stores benchmarks add to the scenario's own.
var benchStores = map[string]extraStore{"xsync": newXsyncStore}

// newBenchLoadAvg builds a loadavg scenario that also knows the reference
// stores.
func newBenchLoadAvg(tb testing.TB, variant string) *loadAvg {
	tb.Helper()
	s, err := newLoadAvg(variant, benchStores)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkLoadAvg is tg->load_avg hammered by every worker, one worker per
// CPU, one operation per en/dequeue event on kernel time. The
// sub-benchmarks are:
//
//   - the seed's tables: every preset (base; v1 node, delay, skip; v2
//     rate, rate+skip, rate+skip+node), unpaced (the stress test), and
//     base, rate and rate+skip paced at the kernel's event rate, where
//     write-path-% and read-path-% compare with the seed's profile;
//   - base and rate with no migrations (mig=0), which shows what the
//     wakeup handoff costs;
//   - write-heavy storages: every wakeup migrates (mig=100), write=every,
//     reads on every event or one in 1024, for atomic, falseshare,
//     pernode, percpu and the xsync.Counter reference;
//   - local work between events (work=100, 1000), where contention fades;
//   - the dedicated line against false sharing (store=falseshare), and
//     the line-pair stride (stride=128);
//   - base and rate with the tasks' group right under the root (levels=1,
//     one contended line: the model before the hierarchy; unpaced and
//     paced) and one level deeper (levels=3), beside the default's two;
//
// each at every worker count and placement of benchtest.Configs: 1, 2, 4, …
// up to every usable CPU, compact, and spread and cross where there are two
// nodes (CONTEND_THREADS and CONTEND_PLACE override them).
//
// go test matches -bench patterns one name element at a time, and every key
// is an element, so select by position (empty elements match anything) or by
// the leading preset:
//
//	go test -run '^$' -bench 'LoadAvg/^preset=(base|rate)$' -count 10 ./bench/loadavg | tee la.txt
//	go test -run '^$' -bench 'LoadAvg/^preset=(base|rate)$/////pace=kernel' -count 5 ./bench/loadavg | tee paced.txt
//	go test -run '^$' -bench 'LoadAvg//store=(atomic|percpu|xsync)/////mig=100' -count 10 ./bench/loadavg | tee wh.txt
//	CONTEND_THREADS=2 go test -run '^$' -bench 'LoadAvg/^preset=base$////////////levels=[12]$' -count 6 ./bench/loadavg | tee levels.txt
//
// The preset key names the store/write/read/scan parts, so compare presets
// with those keys ignored, and storages with the preset ignored:
//
//	benchstat -col /preset -ignore /store,/write,/read,/scan -filter '/threads:2' la.txt
//	benchstat -col /store -ignore /preset -row /read -filter '/threads:2' wh.txt
func BenchmarkLoadAvg(b *testing.B) {
	cfgs := benchtest.Configs(b, 1)
	run := func(variant string) { benchtest.Each(b, newBenchLoadAvg(b, variant), cfgs) }
	for _, p := range counter.Presets() {
		run("preset=" + p)
	}
	for _, p := range []string{"base", "rate", "rate+skip"} {
		run("preset=" + p + "/pace=kernel")
	}
	// No wakeup migrates: what the handoff itself costs, and the writes
	// that are left (period crossings only).
	for _, p := range []string{"base", "rate"} {
		run("preset=" + p + "/mig=0")
	}
	for _, store := range []string{"atomic", "falseshare", "pernode", "percpu", "xsync"} {
		for _, read := range []string{"every", "onein=1024"} {
			run(fmt.Sprintf("store=%s/write=every/read=%s/mig=100", store, read))
		}
	}
	for _, p := range []string{"base", "rate"} {
		for _, work := range []int{100, 1000} {
			run(fmt.Sprintf("preset=%s/work=%d", p, work))
		}
	}
	for _, p := range []string{"base", "rate"} {
		run("preset=" + p + "/levels=1")
		run("preset=" + p + "/pace=kernel/levels=1")
		run("preset=" + p + "/levels=3")
	}
	run("preset=base/store=falseshare")
	run("preset=base/stride=128")
	run("store=atomic/write=every/read=onein=1024/mig=100/stride=128")
	run("store=percpu/write=every/read=onein=1024/mig=100/stride=128")
}

// BenchmarkLoadAvgClock is the cost of the wall clock read that pacing and
// the path timing pay (ktime.Wall, the monotonic clock through the vDSO);
// the model's own clock is an add.
func BenchmarkLoadAvgClock(b *testing.B) {
	var sum int64
	for b.Loop() {
		sum += ktime.Wall()
	}
	clockSink = sum
}

var clockSink int64
