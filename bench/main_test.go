package bench

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/contend/contend/affinity"
)

// Lock the main goroutine to the main thread so that no worker can ever be
// handed the main thread: its affinity mask is the process's, and a locked
// goroutine that exits on it wedges it instead of destroying it.
func init() { runtime.LockOSThread() }

// TestMain prints the same configuration lines contend sweep writes, so that go
// test -bench output and sweep files compare with benchstat.
//
// CONTEND_FAKE_NODES=K runs the benchmarks on a fake K-node split of this
// machine; the topology line then says fake-K.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		t, err := testTopology()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, c := range Provenance(t) {
			if c.Key == "goos" || c.Key == "goarch" || c.Key == "cpu" {
				continue // go test prints these itself
			}
			fmt.Printf("%s: %s\n", c.Key, c.Value)
		}
		for _, u := range append(AllUnits(), C2CUnits()...) {
			fmt.Printf("Unit %s better=%s\n", u.OrigUnit, u.Value)
		}
	}
	os.Exit(m.Run())
}

var testTopology = sync.OnceValues(func() (*affinity.Topology, error) {
	t, err := affinity.Host()
	if err != nil {
		return nil, err
	}
	if s := os.Getenv("CONTEND_FAKE_NODES"); s != "" {
		k, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("CONTEND_FAKE_NODES=%q: %w", s, err)
		}
		return t.Fake(k)
	}
	return t, nil
})

// runB runs s on threads workers placed by place for b.N operations and
// reports ns/op as elapsed time over completed operations, the scenario's
// metrics and the workers' fairness. It skips, saying why, when the machine
// cannot host the placement.
func runB(b *testing.B, s Scenario, threads int, place string) *Result {
	b.Helper()
	t, err := testTopology()
	if err != nil {
		b.Fatal(err)
	}
	p, err := affinity.ParsePlacement(place)
	if err != nil {
		b.Fatal(err)
	}
	cpus, err := p.Assign(t, threads, false)
	if err != nil {
		b.Skipf("placement does not fit this machine: %v", err)
	}
	b.ResetTimer()
	res, err := Run(s, Config{Topology: t, CPUs: cpus, Ops: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(res.NsPerOp(), "ns/op")
	for _, m := range res.Metrics {
		b.ReportMetric(m.Value, m.Unit)
	}
	_, _, cv := res.Fairness()
	b.ReportMetric(100*cv, "worker-cv-%")
	return res
}

// benchName is the sub-benchmark name of one configuration.
func benchName(s Scenario, threads int, place string) string {
	return fmt.Sprintf("%s/threads=%d/place=%s", s.Variant(), threads, place)
}

// mustNew builds a scenario from a registered spec or fails the test.
func mustNew(tb testing.TB, name, variant string) Scenario {
	tb.Helper()
	spec, err := Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := spec.New(variant)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
