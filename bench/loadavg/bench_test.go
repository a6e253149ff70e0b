package loadavg

import (
	"fmt"
	"math/bits"
	"runtime"
	"testing"
	"time"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/benchtest"
	"github.com/contend/contend/counter"
)

// xsyncStore is xsync.Counter, the Go ecosystem's striped counter, as a
// reference tg->load_avg. It lives here, in test code, so that the project
// itself does not depend on it; the scenario drives it through the
// counter.Store interface, one indirect call per write and read.
type xsyncStore struct{ c *xsync.Counter }

func (x xsyncStore) AddAt(cpu, node int, d int64) { x.c.Add(d) }
func (x xsyncStore) Sum() int64                   { return x.c.Value() }
func (x xsyncStore) ReadMostly() int64            { return counter.NiceZeroLoad }
func (x xsyncStore) Layout() counter.Layout       { return counter.Layout{} }
func (x xsyncStore) Close() error                 { return nil }
func (x xsyncStore) String() string               { return "xsync" }

// newXsyncStore makes the reference store. Its Value reads every stripe;
// xsync makes nextPowOf2(min(GOMAXPROCS, NumCPU)) of them (util.go,
// parallelism), which is what read-lines/op counts.
func newXsyncStore(env *bench.Env) (counter.Store, int, error) {
	n := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	return xsyncStore{xsync.NewCounter()}, 1 << bits.Len(uint(n-1)), nil
}

// laBenchStores are the stores benchmarks add to the scenario's own.
var laBenchStores = map[string]laExtraStore{"xsync": newXsyncStore}

// newBenchLoadAvg builds a loadavg scenario that also knows the reference
// stores.
func newBenchLoadAvg(tb testing.TB, variant string) *loadAvg {
	tb.Helper()
	s, err := newLoadAvg(variant, laBenchStores)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkLoadAvg is tg->load_avg hammered by every worker, one worker per
// CPU, one operation per en/dequeue event. The sub-benchmarks are:
//
//   - the thread's table: every preset (base, node, delay, skip, rate,
//     rate+node, rate+skip);
//   - write-heavy storages: every event moves a task between CPUs (mig=100),
//     so write=every writes on every event, read on every event or one in
//     1024, for atomic, falseshare, pernode, percpu and the xsync.Counter
//     reference, at work=0;
//   - local work between events (work=100, 1000), where contention fades;
//   - the node-mask walk (scan=full) and the line-pair stride (stride=128);
//
// each at every worker count and placement of benchtest.Configs: 1, 2, 4, …
// up to every usable CPU, compact, and spread and cross where there are two
// nodes (CONTEND_THREADS and CONTEND_PLACE override them).
//
// go test matches -bench patterns one name element at a time, and every key
// is an element, so select by position (empty elements match anything) or by
// the leading preset:
//
//	go test -run '^$' -bench 'LoadAvg/^preset=(base|rate)$' -count 10 ./bench | tee la.txt
//	go test -run '^$' -bench 'LoadAvg//store=(atomic|percpu|xsync)///mig=100' -count 10 ./bench | tee wh.txt
//
// The preset key names the store/write/read triple, so compare presets with
// those keys ignored, and storages with the preset ignored:
//
//	benchstat -col /preset -ignore /store,/write,/read -filter '/threads:2' la.txt
//	benchstat -col /store -ignore /preset -row /read -filter '/threads:2' wh.txt
func BenchmarkLoadAvg(b *testing.B) {
	cfgs := benchtest.Configs(b, 1)
	run := func(variant string) { benchtest.Each(b, newBenchLoadAvg(b, variant), cfgs) }
	for _, p := range counter.Presets() {
		run("preset=" + p)
	}
	for _, store := range []string{"atomic", "falseshare", "pernode", "percpu", "xsync"} {
		for _, read := range []string{"every", "skip=1024"} {
			run(fmt.Sprintf("store=%s/write=every/read=%s/mig=100/work=0", store, read))
		}
	}
	for _, p := range []string{"base", "rate"} {
		for _, work := range []int{100, 1000} {
			run(fmt.Sprintf("preset=%s/work=%d", p, work))
		}
	}
	run("preset=node/scan=full")
	run("preset=rate+node/scan=full")
	run("preset=base/stride=128")
	run("store=atomic/write=every/read=skip=1024/mig=100/stride=128")
	run("store=percpu/write=every/read=skip=1024/mig=100/stride=128")
}

// BenchmarkLoadAvgClock is the cost of the clock read every event pays, the
// scenario's rq clock: time.Since on the monotonic clock.
func BenchmarkLoadAvgClock(b *testing.B) {
	var sum int64
	for b.Loop() {
		sum += int64(time.Since(laEpoch))
	}
	laClockSink = sum
}

var laClockSink int64
