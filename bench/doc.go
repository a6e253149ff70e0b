// Package bench runs contended data structures on pinned workers and measures
// them: the runner, and what every scenario shares. The scenarios themselves
// live in packages of their own below this one (bench/loadavg,
// bench/balanceflag, ...), and register here as database/sql drivers do.
//
// # The data path
//
// A measurement goes through these steps, in this order:
//
//  1. Topology. affinity.Host reads the machine from sysfs: nodes, CPUs,
//     last-level caches, SMT siblings, the CPUs this process may use
//     (affinity.Topology; Fake splits one node into K labelled fake ones).
//  2. Placement. An affinity.Placement (compact, spread, cross, smt, or a CPU
//     list) turns a worker count into one CPU per worker.
//  3. Scenario. A registered Spec builds a Scenario from a variant, key=value
//     parts joined by "/" (ParseParams reads them with the scenario's
//     declared Keys); Start prepares the shared state once, unpinned.
//  4. Pinned workers. Run starts one goroutine per CPU; each locks its OS
//     thread, pins it with sched_setaffinity and proves where it runs
//     (affinity.Pin), then asks the scenario for its Worker on that thread,
//     so that memory it touches first lands on its node. GOMAXPROCS is
//     raised to workers+1 so no two spinning workers share a P.
//  5. Batches. All workers are released together by a spin barrier. Each
//     reads what the kernel has accounted to its thread (run time,
//     run-queue wait, context switches), then calls its Worker's Run(n) in
//     batches that grow to about 50 µs — two indirect calls per batch, the
//     hot loop inside the scenario — whose last operation runs alone, as
//     Run(1), between two clock reads (the second is the batch's end time)
//     into a latency histogram, and checks between batches that it is still
//     on its CPU (RDTSCP's TSC_AUX, an rseq area's cpu_id, or getcpu), and
//     reaches a safe point the Go scheduler can stop it at (see safePoint).
//     The first worker to finish its share stops them all: fixed work per
//     worker would leave stragglers running uncontended. Each then reads its
//     thread's accounting again.
//     Garbage is collected before the first worker starts, and the
//     collector is off until the last has stopped.
//  6. Result. Elapsed time over operations completed by all workers is
//     ns/op, the inverse of the machine's throughput. Result.Workers says
//     what share of its interval each worker had its CPU and what took the
//     rest (another task, the hypervisor, its own thread asleep); a worker
//     that lost more than 2% makes the run disturbed (Result.Warnings).
//     RunMetrics adds the runner's figures to every result
//     (worker-min/max-%, p50/p99/p99.9/max-sec, lost-%, wait-%, steal-%,
//     preempt/s); Finish adds the scenario's own metrics
//     (Result.AddMetric), each a Unit the scenario declared once.
//  7. Results file. bench/resultfmt names the configuration as go test
//     names its sub-benchmark (LoadAvg/<variant>/threads=N/place=P-GOMAXPROCS),
//     writes it in the Go benchmark format with the machine's provenance as
//     configuration lines and Unit better= metadata; internal/results makes
//     it durable before the next run, so benchstat reads sweeps and go test
//     output alike.
//
// # Adding a variant key
//
// A key is one declaration, a Key in the scenario's key list (the list its
// Spec.Keys and its constructor's ParseParams share), in the place its part
// should take in the canonical name:
//
//	{Name: "sync", Default: "off", Domain: bench.OneOf("off", "on"),
//		Doc: "WF_SYNC wakeups: the waker is about to sleep"},
//
// The Domain is OneOf (a choice; Params.Index maps it onto the scenario's
// own enumeration), IntRange, DurationRange (spelt canonically: "0.5ms" is
// "500us"), Or of those ("auto|2..8192"), or Form, a grammar of the
// scenario's own, declared with what its placeholders take, and a function
// that returns a value's canonical spelling or why it is not one. Every
// refused value's error is written from the domain, naming the key, the
// value, why, and the values as contend list shows them, so the two never
// disagree (cmd/contend's TestKeyErrorsNameTheirDomain walks every key).
// The constructor then reads the value
// (Params.Get, Index, Int, Duration) and keeps only the rules that span
// keys (balanceflag's group a multiple of smt; loadavg's preset, whose parts
// it sets with Params.Set so the name says what runs). Parsing, the
// one-line errors, defaults, the canonical name (Params.String, the
// scenario's Variant), contend list and the README table's check all follow
// from the declaration, and Register panics on a default outside its
// domain, so a typo fails every test of the package.
//
// A new key spelt out at its default adds a part to every benchmark name of
// the scenario, so results recorded before it no longer compare by name
// with those after. Declare it OmitDefault, with the default being what the
// model did before the key, and no name changes: its part appears only off
// the default. Otherwise say so in the commit, and only then regenerate
// bench/all/testdata/variants.golden (go test ./bench/all -run
// TestVariantNames -update), which otherwise fails. A new value of an
// existing key renames nothing. Add the key to the README's row for the
// scenario (a test checks each key is there), and its good and bad values
// to the scenario's variant test.
//
// # Adding a scenario
//
// A scenario is one package; to add one called foo, these files change (a
// test fails until each does):
//
//   - bench/foo/doc.go: the package comment is the model — what the kernel
//     does, what is real (the shared lines, at full speed) and what is
//     modelled (on kernel time: the scheduler around the line is
//     bench/ksim's, the model every simulation shares — clock, HZ,
//     domains, balance intervals per kernel version, the driver — and
//     pacing is bench/ktime's), and how each metric is computed. go doc
//     shows it.
//   - bench/foo/foo.go: the Unit variables, the variant's Keys, an init
//     function calling Register with a Spec (name, BenchName "Foo",
//     Summary, Keys, Quick and Full variants, Units, HotSymbols, New), the
//     Scenario and its Worker, whose Run is the hot loop (no allocation)
//     in named //go:noinline functions, the HotSymbols that
//     scripts/perf-annotate.sh annotates (bench/all's TestHotSymbols checks
//     each is in the binary, declared noinline). The same Spec declares
//     the pieces the rest of the house reads from the registry, each or
//     why it has none (registry.go; bench/all's TestSpecPieces fails on a
//     spec that declares neither, and on a package not named foo):
//     Simulate, a Simulation whose flags contend simulate foo parses, or
//     NoSimulate; Lab, the variant the QEMU lab's tests step runs in a
//     guest, or NoLab; Findings, the ids of contend reproduce's findings
//     that run it, or NoFindings (internal/reproduce's
//     TestFindingsRegistered checks them against the findings).
//   - bench/foo/bench_test.go: BenchmarkFoo, usually one call of
//     benchtest.Ladder, which climbs the machine's worker counts and
//     placements.
//   - bench/foo/main_test.go: func TestMain(m *testing.M) { benchtest.Main(m) }.
//   - bench/foo/foo_test.go: the model's tests (benchtest.StartUnpinned drives
//     workers without threads), bad variants (benchtest.CheckVariants), a
//     fuzz target for the variant parser with a corpus in testdata/fuzz.
//   - bench/all/all.go: one blank import, so the command line and sweeps
//     know the scenario (bench/all's TestSpecPackages finds every package
//     under bench/ that calls Register and fails on one not imported);
//     TestEverySpec, TestSpecKeys and TestHotSymbols then check its names,
//     keys, units and hot functions.
//   - bench/all/testdata/variants.golden: the canonical names of its
//     variants (go test ./bench/all -run TestVariantNames -update, then read
//     the diff: only the new scenario's lines may change).
//   - README.md: a row in the scenario table naming every key and metric
//     (cmd/contend's TestREADMEScenarioTable checks it against the
//     registry).
//   - cmd/contend/doc.go: the scenario's name in list's paragraph (the same
//     test).
//   - internal/vmlab/topology/topology.go: the scenario's name in one matrix
//     guest's Tests, where its Lab test runs (vmlab's TestTestsCovered
//     fails until a guest runs it).
//
// What the registry cannot know stays by hand: a finding's claims, which
// live in internal/reproduce (the scenario only names their ids), and which
// of the lab's topologies run its lab test where not all do
// (internal/vmlab/topology/topology.go's Tests lists). Nothing else
// changes: contend list, run, sweep, table, compare, plot and simulate, the
// lab's tests step and the perf scripts find the scenario through the
// registry.
package bench
