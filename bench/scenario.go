package bench

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/contend/contend/affinity"
)

// A Scenario is one contended data structure and the event loop that hammers
// it. The runner owns threads, pinning, timing and stopping; the scenario owns
// the hot loop, so the runner's only indirect calls are two per batch of
// about 50 µs: Run(k-1), then a timed Run(1) (see Latency).
type Scenario interface {
	// Variant returns the scenario's configuration as key=value parts joined
	// by "/", e.g. "store=pernode/write=ratelimit/read=every".
	Variant() string
	// Start prepares the shared state for the workers described by env.
	// It runs once, on an unpinned thread, before any worker starts.
	Start(env *Env) error
	// Worker returns the state of one worker. It runs on the worker's own
	// pinned thread, so memory it allocates and touches first lands on the
	// worker's node.
	Worker(w WorkerInfo) (Worker, error)
	// Finish runs after every worker has stopped. It adds the scenario's own
	// metrics to res (per operation, see Result.AddMetric).
	Finish(res *Result) error
}

// A Noter is a scenario with facts about a run that are not metrics, such as
// where its memory landed; the command line prints them beside the results.
type Noter interface {
	Notes() []string
}

// A Worker runs a scenario's hot loop.
type Worker interface {
	// Run performs exactly n operations.
	Run(n int)
}

// Env describes a run to the scenario.
type Env struct {
	Topology *affinity.Topology
	CPUs     []int // CPU of each worker
	Nodes    []int // node of each worker (fake nodes on a fake topology)
}

// WorkerInfo identifies one worker to the scenario.
type WorkerInfo struct {
	Index   int // 0 ≤ Index < Workers
	Workers int
	CPU     int
	Node    int
}

// A Spec describes a scenario to the command line, sweeps and benchmarks.
type Spec struct {
	// Name is the scenario's name on the command line ("loadavg").
	Name string
	// BenchName is the name after "Benchmark" in results: the name of the
	// go test benchmark function that runs the same scenario ("LoadAvg"),
	// so that sweep files and go test files compare.
	BenchName string
	// Summary is a one-line description.
	Summary string
	// Keys are the variant keys in canonical order, each declared once
	// with its default and domain (see Key); the constructor parses with
	// the same list (ParseParams).
	Keys []Key
	// Quick lists the variants a quick sweep runs.
	Quick []string
	// Full lists the variants a full sweep runs (the seeds' experiments).
	Full []string
	// Units lists every unit the scenario reports beside ns/op. The
	// first is its headline, the figure a reader judges a variant by
	// beside time (shared writes, cmpxchg, bits scanned): sweep's summary
	// shows it at the largest thread count.
	Units []Unit
	// Package is the import path of the scenario's package, where its
	// Benchmark functions live; Register fills it in. Results files carry
	// it as go test does (the "pkg:" line), so that a sweep's results and
	// go test's group together in plain benchstat.
	Package string
	// HotSymbols are the functions the hot loop spends its time in, each a
	// named //go:noinline function, for perf annotate
	// (scripts/perf-annotate.sh reads them from contend list -json). A name
	// without a "/" is in the scenario's package ("balanceTicks",
	// "(*worker).takeFlag"), and Register qualifies it with Package, as
	// the binary's symbol table spells it; a name in another package is
	// given whole ("github.com/contend/contend/counter.(*CfsRq).calcGroupShares").
	HotSymbols []string
	// MinWorkers is the smallest sensible worker count (1 unless the
	// scenario needs partners, like a ping-pong).
	MinWorkers int
	// New builds a scenario from a variant: key=value parts joined by "/".
	// Missing keys take their defaults; unknown keys and values are errors
	// that list what is valid.
	New func(variant string) (Scenario, error)

	// What else the scenario takes part in, each declared here so that
	// no list outside the registry needs an edit when a scenario comes
	// (see registry.go; bench/all's TestSpecPieces fails on a spec that
	// declares neither a piece nor why it has none).

	// Simulate, for a scenario with a kernel-time simulation, is contend
	// simulate NAME; NoSimulate, otherwise, says why it has none.
	Simulate   *Simulation
	NoSimulate string
	// Lab is what the QEMU lab's tests step runs of the scenario's
	// benchmark in a guest; NoLab, otherwise, says why a guest never
	// runs it.
	Lab   *LabTest
	NoLab string
	// Findings are the ids of contend reproduce's findings that run the
	// scenario (internal/reproduce keeps their claims, and its
	// TestFindingsRegistered checks the ids both ways); NoFindings,
	// otherwise, says why no finding does.
	Findings   []int
	NoFindings string
}

var (
	registryMu sync.Mutex
	registry   = map[string]*Spec{}
)

// Register makes a scenario available by name, as database/sql drivers make
// themselves available: each scenario package calls it from an init
// function, and a program that wants every scenario imports
// github.com/contend/contend/bench/all for its side effects. Registering a
// name twice, a spec without a name, a benchmark name, keys or a
// constructor, or a key whose default is not in its domain (Key), is a
// programming error and panics.
func Register(s *Spec) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if s == nil || s.Name == "" || s.BenchName == "" || s.New == nil || len(s.Keys) == 0 {
		panic("bench: Register of an incomplete spec")
	}
	if err := checkKeys(s.Keys); err != nil {
		panic("bench: Register " + s.Name + ": " + err.Error())
	}
	if _, dup := registry[s.Name]; dup {
		panic("bench: scenario registered twice: " + s.Name)
	}
	if s.MinWorkers == 0 {
		s.MinWorkers = 1
	}
	if s.Package == "" {
		s.Package = callerPackage()
	}
	hot := make([]string, len(s.HotSymbols))
	for i, sym := range s.HotSymbols {
		if !strings.Contains(sym, "/") {
			sym = s.Package + "." + sym
		}
		hot[i] = sym
	}
	s.HotSymbols = hot
	registry[s.Name] = s
}

// Lookup returns the scenario called name.
func Lookup(name string) (*Spec, error) {
	registryMu.Lock()
	s, ok := registry[name]
	registryMu.Unlock()
	if ok {
		return s, nil
	}
	return nil, fmt.Errorf("unknown scenario %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// Names returns the registered scenario names in order.
func Names() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Specs returns every registered scenario, in name order.
func Specs() []*Spec {
	var specs []*Spec
	for _, n := range Names() {
		s, _ := Lookup(n)
		specs = append(specs, s)
	}
	return specs
}

// callerPackage returns the import path of the package whose init function
// called Register: the function name of Register's caller is
// "<import path>.init.0" (or a func literal inside it).
func callerPackage() string {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return ""
	}
	name := runtime.FuncForPC(pc).Name()
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return name[:slash+1+dot]
}

// ConfigName names one configuration of a scenario as go test names its
// sub-benchmark: the variant, the worker count and the placement
// ("preset=rate/.../threads=2/place=compact"). Results files add the
// benchmark's name before it and the -GOMAXPROCS suffix after.
func ConfigName(variant string, threads int, place string) string {
	return fmt.Sprintf("%s/threads=%d/place=%s", variant, threads, place)
}
