// Package benchtest is what every scenario package's tests and benchmarks
// share: the topology they run on, a TestMain that heads go test -bench
// output with the configuration lines contend's own results files carry, the
// thread ladder and placements a benchmark iterates, and checks every
// scenario's tests make.
//
// # Environment
//
// Custom -test flags do not survive go test ./... across packages, so the
// machine-dependent choices come from the environment:
//
//   - CONTEND_FAKE_NODES=K runs on a fake K-node split of this machine; the
//     topology line then says fake-K.
//   - CONTEND_THREADS=1,56,112,224 (or "max", or "ladder") sets the worker
//     counts; see Threads. The default climbs 1, 2, 4, … to every usable
//     CPU, and one node's worth.
//   - CONTEND_PLACE=compact,spread,cross sets the placements; see Places.
//     The default is compact, plus spread and cross on two or more nodes.
package benchtest

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/resultfmt"
)

// Lock the main goroutine to the main thread so that no worker can ever be
// handed the main thread: its affinity mask is the process's, and a locked
// goroutine that exits on it wedges it instead of destroying it.
func init() { runtime.LockOSThread() }

// Main is a scenario package's TestMain: when benchmarks run, it prints the
// same configuration lines contend sweep writes, and the Unit lines of every
// registered scenario and of extra, so that go test -bench output and sweep
// files compare with benchstat. Then it runs the tests.
func Main(m *testing.M, extra ...bench.Unit) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		t, err := Topology()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, c := range resultfmt.Provenance(t) {
			if c.Key == "goos" || c.Key == "goarch" || c.Key == "cpu" {
				continue // go test prints these itself
			}
			fmt.Printf("%s: %s\n", c.Key, c.Value)
		}
		for _, u := range resultfmt.AllUnits(extra...) {
			fmt.Printf("Unit %s %s=%s\n", u.OrigUnit, u.Key, u.Value)
		}
	}
	os.Exit(m.Run())
}

// Topology returns the machine's topology, or its fake split when
// CONTEND_FAKE_NODES is set.
var Topology = sync.OnceValues(func() (*affinity.Topology, error) {
	t, err := affinity.Host()
	if err != nil {
		return nil, err
	}
	if s := os.Getenv("CONTEND_FAKE_NODES"); s != "" {
		k, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("CONTEND_FAKE_NODES=%q: not a node count", s)
		}
		return t.Fake(k)
	}
	return t, nil
})

// HostCPUs returns the topology and n CPUs placed compactly, skipping the
// test when the machine has fewer usable CPUs.
func HostCPUs(tb testing.TB, n int) (*affinity.Topology, []int) {
	tb.Helper()
	topo, err := Topology()
	if err != nil {
		tb.Fatal(err)
	}
	cpus, err := affinity.Placement{Policy: affinity.Compact}.Assign(topo, n, false)
	if err != nil {
		tb.Skipf("need %d usable cpus: %v", n, err)
	}
	return topo, cpus
}

// New builds a scenario of a registered spec or fails the test.
func New(tb testing.TB, name, variant string) bench.Scenario {
	tb.Helper()
	spec, err := bench.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := spec.New(variant)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Run runs s on threads workers placed by place for b.N operations and
// reports ns/op as elapsed time over completed operations, the scenario's
// metrics and the workers' fairness. It skips, saying why, when the machine
// cannot host the placement.
func Run(b *testing.B, s bench.Scenario, threads int, place string) *bench.Result {
	b.Helper()
	p, err := affinity.ParsePlacement(place)
	if err != nil {
		b.Fatal(err)
	}
	return run(b, s, threads, p)
}

// run is Run at a parsed placement.
func run(b *testing.B, s bench.Scenario, threads int, p affinity.Placement) *bench.Result {
	b.Helper()
	t, err := Topology()
	if err != nil {
		b.Fatal(err)
	}
	if usable := t.AllowedCPUs.Weight(); threads > usable {
		b.Skipf("threads=%d: more than the %d usable cpus of this machine (not run oversubscribed)", threads, usable)
	}
	cpus, err := p.Assign(t, threads, false)
	if err != nil {
		b.Skipf("placement does not fit this machine: %v", err)
	}
	b.ResetTimer()
	res, err := bench.Run(s, bench.Config{Topology: t, CPUs: cpus, Ops: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(res.NsPerOp(), "ns/op")
	for _, m := range res.Metrics {
		b.ReportMetric(GoTestValue(m))
	}
	for _, m := range res.RunMetrics() {
		b.ReportMetric(GoTestValue(m))
	}
	for _, w := range res.Warnings() {
		b.Logf("disturbed: %s", w)
	}
	return res
}

// GoTestValue returns a metric as b.ReportMetric should print it. go test
// prints a value below 0.001 with seven decimals, so a latency of 25 ns in
// seconds would print as 0.0000000; a time unit (one with "sec" in its
// numerator, as every time unit contend writes has) is reported in
// nanoseconds under the same name with "ns" for "sec", which benchfmt (and so
// benchstat and contend) reads back as the seconds unit, the one contend's
// own results files carry. benchfmt renames only non-zero values, so a zero
// keeps the seconds unit: 0 seconds loses no digits.
func GoTestValue(m bench.Metric) (float64, string) {
	if m.Value == 0 {
		return m.Value, m.Unit.Name
	}
	num, den, hasDen := strings.Cut(m.Unit.Name, "/")
	parts := strings.Split(num, "-")
	found := false
	for i, p := range parts {
		if p == "sec" {
			parts[i], found = "ns", true
		}
	}
	if !found {
		return m.Value, m.Unit.Name
	}
	unit := strings.Join(parts, "-")
	if hasDen {
		unit += "/" + den
	}
	return m.Value * 1e9, unit
}

// Bare is the bare half of a scenario's BenchmarkRunner: loop(b.N), the
// scenario's hot loop called directly, on the thread pinned to the cpu the
// runner's compact placement gives one worker, with setup before the timer.
// The other half runs the same loop through the runner (Run), and the two
// ns/op are the runner's overhead.
func Bare(b *testing.B, setup func() (loop func(n int))) {
	b.Helper()
	_, cpus := HostCPUs(b, 1)
	undo, err := affinity.Pin(cpus[0])
	if err != nil {
		b.Fatal(err)
	}
	defer undo()
	loop := setup()
	b.ResetTimer()
	loop(b.N)
}
