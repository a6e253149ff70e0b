package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/nodemask"
)

// Core-to-core latency (c2c) is the physical floor under every contended
// number: the time one cache line takes to move from one CPU to another. Two
// pinned threads ping-pong a single line and the one-way handoff latency is
// the time of a batch of round trips divided by twice their number (a clock
// read per handoff would cost more than the handoff). Each pair yields many
// such samples; we keep the minimum (the machine's best case) and the median
// (what a contended structure meets), and always say which one a figure is.
//
// It is not a Scenario: a scenario runs N workers for a fixed share of
// operations and stops them all at the first finisher, while a ping-pong is
// exactly two threads in lockstep that must agree on when to stop and must
// hand back per-sample times. MeasureC2C therefore drives its own two pinned
// goroutines (see c2c_linux.go), with the runner's rules: pinning verified at
// both ends, GOMAXPROCS ≥ 3, no GC during the measurement.
//
// Pairs are described by topology class, nearest first, because a handful of
// pairs per class says almost everything an all-pairs matrix says and takes
// seconds instead of hours on a machine with hundreds of CPUs.

// A C2CMode is how the two threads hand the line over.
type C2CMode string

const (
	// C2CReadWrite: each side spins loading the line until the value says
	// it is its turn, then stores the next value. A transfer is a read miss
	// followed by an upgrade: the pattern of a flag or counter that one
	// CPU polls and another writes.
	C2CReadWrite C2CMode = "rw"
	// C2CCAS: each side spins on compare-and-swap from the peer's value to
	// its own. Every attempt, failed or not, takes the line exclusive: the
	// pattern of sched_balance_running's cmpxchg and of lock acquisition.
	C2CCAS C2CMode = "cas"
)

// C2CModes lists the modes in canonical order.
var C2CModes = []C2CMode{C2CReadWrite, C2CCAS}

// ParseC2CModes parses "rw", "cas", "all" or a comma-separated list of modes.
func ParseC2CModes(s string) ([]C2CMode, error) {
	if s == "all" {
		return slices.Clone(C2CModes), nil
	}
	var modes []C2CMode
	for i, part := range strings.Split(s, ",") {
		m := C2CMode(part)
		if !slices.Contains(C2CModes, m) {
			return nil, fmt.Errorf("unknown c2c mode %q at position %d of %q (want rw, cas, all or a comma list)", part, i+1, s)
		}
		if slices.Contains(modes, m) {
			return nil, fmt.Errorf("c2c mode %q given twice in %q", part, s)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// A C2CClass says how close two CPUs are. The classes are checked nearest
// first, so a pair belongs to the closest thing it shares.
type C2CClass string

const (
	ClassSMT     C2CClass = "smt"     // SMT siblings: one core, one L1
	ClassLLC     C2CClass = "llc"     // different cores sharing a last-level cache
	ClassNode    C2CClass = "node"    // same NUMA node, different LLC
	ClassPackage C2CClass = "package" // same package, different node
	ClassCross   C2CClass = "cross"   // different packages: over the socket interconnect
	ClassUnknown C2CClass = "unknown" // sysfs did not say enough
)

// C2CClasses lists the classes nearest first.
var C2CClasses = []C2CClass{ClassSMT, ClassLLC, ClassNode, ClassPackage, ClassCross, ClassUnknown}

// C2CClassOf returns the class of the pair a, b. A fake topology is
// classified by the real one it was split from: classes describe hardware,
// and fake nodes are not hardware.
func C2CClassOf(t *affinity.Topology, a, b int) C2CClass {
	if t.Real != nil {
		t = t.Real
	}
	if a < 0 || b < 0 || a >= len(t.CPUs) || b >= len(t.CPUs) || a == b {
		return ClassUnknown
	}
	ca, cb := &t.CPUs[a], &t.CPUs[b]
	switch {
	case ca.Siblings.Test(b):
		return ClassSMT
	case ca.LLC >= 0 && ca.LLC == cb.LLC:
		return ClassLLC
	case ca.Node >= 0 && ca.Node == cb.Node:
		return ClassNode
	case ca.Package >= 0 && ca.Package == cb.Package:
		return ClassPackage
	case ca.Package >= 0 && cb.Package >= 0:
		return ClassCross
	}
	return ClassUnknown
}

// A C2CPair is two CPUs to measure; A pings first.
type C2CPair struct {
	A, B  int
	Class C2CClass
}

// C2CSelection says which pairs of a CPU set to measure.
type C2CSelection string

const (
	C2CAll    C2CSelection = "all"    // every pair: O(N²)
	C2CSample C2CSelection = "sample" // a few pairs per class
	C2CAuto   C2CSelection = "auto"   // all up to C2CAllPairsMax cpus, else sample
)

// C2CAllPairsMax is the largest CPU count for which auto measures all pairs:
// 16 CPUs are 120 pairs, about ten seconds per mode with the default samples.
const C2CAllPairsMax = 16

// A C2CPlan is the pairs chosen from a CPU set.
type C2CPlan struct {
	CPUs      []int
	Selection C2CSelection // all or sample, never auto
	Pairs     []C2CPair
	// Total counts the pairs of each class in the whole set, measured or not.
	Total map[C2CClass]int
}

// PlanC2C chooses the pairs of cpus to measure. cpus must hold at least two
// distinct usable CPUs; perClass bounds the pairs per class when sampling.
// Sampled pairs are spread evenly over each class's pairs in CPU order, so
// they touch different cores, caches and sockets rather than the first few.
func PlanC2C(t *affinity.Topology, cpus []int, sel C2CSelection, perClass int) (*C2CPlan, error) {
	set := nodemask.BitmapOf()
	for i, c := range cpus {
		if err := t.CheckCPU(c); err != nil {
			return nil, fmt.Errorf("c2c plan: cpu %d (position %d): %w", c, i+1, err)
		}
		set.Set(c)
	}
	list := set.Bits()
	if len(list) < 2 {
		return nil, fmt.Errorf("c2c plan: need at least 2 distinct cpus, got %d (%s)", len(list), set)
	}
	if perClass < 1 {
		return nil, fmt.Errorf("c2c plan: pairs per class %d: need at least 1", perClass)
	}
	switch sel {
	case C2CAuto:
		sel = C2CSample
		if len(list) <= C2CAllPairsMax {
			sel = C2CAll
		}
	case C2CAll, C2CSample:
	default:
		return nil, fmt.Errorf("c2c plan: unknown pair selection %q (want all, sample, auto)", sel)
	}
	p := &C2CPlan{CPUs: list, Selection: sel, Total: map[C2CClass]int{}}
	byClass := map[C2CClass][]C2CPair{}
	for i, a := range list {
		for _, b := range list[i+1:] {
			pr := C2CPair{A: a, B: b, Class: C2CClassOf(t, a, b)}
			p.Total[pr.Class]++
			if sel == C2CAll {
				p.Pairs = append(p.Pairs, pr)
			} else {
				byClass[pr.Class] = append(byClass[pr.Class], pr)
			}
		}
	}
	for _, c := range C2CClasses {
		prs := byClass[c]
		k := min(perClass, len(prs))
		for i := range k {
			p.Pairs = append(p.Pairs, prs[i*len(prs)/k])
		}
	}
	return p, nil
}

// A C2CHome says on which node the ping-pong line lives. On multi-socket
// machines the home node decides how far a transfer travels: AMD's
// directory lives with the memory, so a line homed on a third socket costs
// about twice as much as one homed at either end.
type C2CHome struct {
	// Which is "first" (the pinging CPU's node), "second" (the answering
	// CPU's node) or "node" (Node, whatever the pair).
	Which string
	Node  int
}

// ParseC2CHome parses first, second or a node id.
func ParseC2CHome(s string) (C2CHome, error) {
	switch s {
	case "first", "second":
		return C2CHome{Which: s, Node: -1}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= nodemask.MaxNumNodes {
		return C2CHome{}, fmt.Errorf("unknown c2c home %q (want first, second or a node id in [0, %d))", s, nodemask.MaxNumNodes)
	}
	return C2CHome{Which: "node", Node: n}, nil
}

// String returns the home as ParseC2CHome reads it.
func (h C2CHome) String() string {
	if h.Which == "node" {
		return strconv.Itoa(h.Node)
	}
	if h.Which == "" {
		return "first"
	}
	return h.Which
}

// C2CConfig says how to measure one pair. Zero fields take the defaults.
type C2CConfig struct {
	Mode    C2CMode       // default rw
	Samples int           // measured samples, default 300
	Rounds  int           // round trips per sample, default 1000
	Warmup  int           // samples run and dropped first; default Samples/10, at least 1; negative: none
	Preheat time.Duration // ping-pong unmeasured this long first, so both cores reach full clock
	Home    C2CHome       // default first
	// Stat names the statistic C2CResult.NS holds: "median" (default) or
	// "min". Both are always recorded.
	Stat string
	// Context, if set, stops a measurement between samples.
	Context context.Context
}

// Defaults, chosen like core-to-core-latency's: a sample of 1000 round trips
// lasts 50-500 µs, long enough that two clock reads vanish, short enough that
// an interrupt spoils one sample rather than the median.
const (
	c2cDefaultSamples = 300
	c2cDefaultRounds  = 1000
	c2cMaxSamples     = 1 << 24
	c2cMaxRounds      = 1 << 30
)

// WithDefaults returns c with its zero fields set to the defaults, or an
// error naming the first bad field: the configuration a measurement really
// runs with.
func (c C2CConfig) WithDefaults() (C2CConfig, error) {
	if c.Mode == "" {
		c.Mode = C2CReadWrite
	}
	if !slices.Contains(C2CModes, c.Mode) {
		return c, fmt.Errorf("c2c: unknown mode %q (want rw, cas)", c.Mode)
	}
	if c.Samples == 0 {
		c.Samples = c2cDefaultSamples
	}
	if c.Rounds == 0 {
		c.Rounds = c2cDefaultRounds
	}
	if c.Samples < 1 || c.Samples > c2cMaxSamples {
		return c, fmt.Errorf("c2c: samples %d out of range [1, %d]", c.Samples, c2cMaxSamples)
	}
	if c.Rounds < 1 || c.Rounds > c2cMaxRounds {
		return c, fmt.Errorf("c2c: rounds %d out of range [1, %d]", c.Rounds, c2cMaxRounds)
	}
	switch {
	case c.Warmup == 0:
		c.Warmup = max(1, c.Samples/10)
	case c.Warmup < 0:
		c.Warmup = -1 // stays "none", so that defaults applied twice agree
	}
	if c.Preheat < 0 {
		return c, fmt.Errorf("c2c: negative preheat %v", c.Preheat)
	}
	if c.Home.Which == "" {
		c.Home = C2CHome{Which: "first", Node: -1}
	}
	if c.Stat == "" {
		c.Stat = "median"
	}
	if c.Stat != "median" && c.Stat != "min" {
		return c, fmt.Errorf("c2c: unknown statistic %q (want median, min)", c.Stat)
	}
	if c.Context == nil {
		c.Context = context.Background()
	}
	return c, nil
}

// A C2CResult is one pair's one-way handoff latency. Its JSON carries what a
// heatmap needs: cpu_a, cpu_b, ns and class.
type C2CResult struct {
	CPUA     int      `json:"cpu_a"` // pings first
	CPUB     int      `json:"cpu_b"`
	Mode     C2CMode  `json:"mode"`
	Class    C2CClass `json:"class"`
	NS       float64  `json:"ns"`   // the statistic named by Stat
	Stat     string   `json:"stat"` // "median" or "min"
	MinNS    float64  `json:"min_ns"`
	MedianNS float64  `json:"median_ns"`
	Samples  int      `json:"samples"`
	Rounds   int      `json:"rounds"` // round trips per sample
	// HomeNode is the node the line was asked to live on, in the
	// topology's numbering; HomeReal is false on a fake topology, whose
	// nodes hold no memory of their own.
	HomeNode int  `json:"home_node"`
	HomeReal bool `json:"home_real"`
	// MemNode is the node the kernel says holds the line's page
	// (get_mempolicy), -1 when it would not say.
	MemNode int `json:"mem_node"`
	// Placed says how the page was put there: "mbind" or "first-touch".
	Placed string `json:"placed"`
	// Checks counts on-CPU checks that passed, both ends together.
	Checks int64 `json:"checks"`
}

// setStats computes a result's statistics from per-sample one-way latencies.
func (r *C2CResult) setStats(samples []float64, stat string) {
	s := slices.Clone(samples)
	sort.Float64s(s)
	r.MinNS = s[0]
	if n := len(s); n%2 == 1 {
		r.MedianNS = s[n/2]
	} else {
		r.MedianNS = (s[n/2-1] + s[n/2]) / 2
	}
	r.Stat = stat
	r.NS = r.MedianNS
	if stat == "min" {
		r.NS = r.MinNS
	}
}

// A C2CClassSummary is one class's results in one mode.
type C2CClassSummary struct {
	Mode    C2CMode  `json:"mode"`
	Class   C2CClass `json:"class"`
	Pairs   int      `json:"pairs"`       // pairs measured
	Total   int      `json:"total_pairs"` // pairs of this class in the CPU set, 0 if unknown
	NS      float64  `json:"ns"`          // median over the pairs of their NS
	Stat    string   `json:"stat"`        // the statistic each pair's NS is
	MinNS   float64  `json:"min_ns"`      // lowest pair minimum
	MaxNS   float64  `json:"max_ns"`      // highest pair NS
	Example [2]int   `json:"example"`     // one measured pair
}

// SummarizeC2C groups results by mode and class, nearest class first.
// totals, if not nil, fills Total (PlanC2C's C2CPlan.Total).
func SummarizeC2C(rs []C2CResult, totals map[C2CClass]int) []C2CClassSummary {
	var out []C2CClassSummary
	for _, m := range C2CModes {
		for _, c := range C2CClasses {
			var ns []float64
			s := C2CClassSummary{Mode: m, Class: c, MinNS: math.Inf(1), Total: totals[c]}
			for _, r := range rs {
				if r.Mode != m || r.Class != c {
					continue
				}
				if len(ns) == 0 {
					s.Example = [2]int{r.CPUA, r.CPUB}
					s.Stat = r.Stat
				}
				ns = append(ns, r.NS)
				s.MinNS = min(s.MinNS, r.MinNS)
				s.MaxNS = max(s.MaxNS, r.NS)
			}
			if len(ns) == 0 {
				continue
			}
			s.Pairs = len(ns)
			s.NS = median(ns)
			out = append(out, s)
		}
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// A C2CFloor is the handoff floor of a CPU set: what one line transfer
// between two of its CPUs costs. A contended result divided by NS is the
// number of line transfers an operation costs (handoffs/op), a figure that
// compares across machines.
type C2CFloor struct {
	CPUs []int
	Mode C2CMode
	// NS is the expected one-way handoff between two distinct CPUs of the
	// set drawn at random: each class's median weighted by how many of the
	// set's pairs are of that class.
	NS float64
	// MinNS is the cheapest class's NS: the floor for workers placed as
	// close as the set allows.
	MinNS   float64
	Pairs   []C2CResult
	Classes []C2CClassSummary
}

// Handoffs returns nsPerOp in units of the floor: line transfers per
// operation.
func (f *C2CFloor) Handoffs(nsPerOp float64) float64 { return nsPerOp / f.NS }

// HandoffFloor measures the handoff floor of cpus for a sweep: one pair per
// class present in the set, with lighter defaults than the c2c command (100
// samples of 500 round trips, a few milliseconds per pair), in cfg.Mode. A set
// of one CPU has no floor and is an error.
func HandoffFloor(t *affinity.Topology, cpus []int, cfg C2CConfig) (*C2CFloor, error) {
	if cfg.Samples == 0 {
		cfg.Samples = 100
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = 500
	}
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	plan, err := PlanC2C(t, cpus, C2CSample, 1)
	if err != nil {
		return nil, err
	}
	f := &C2CFloor{CPUs: plan.CPUs, Mode: cfg.Mode, MinNS: math.Inf(1)}
	for _, p := range plan.Pairs {
		r, err := MeasureC2C(t, p.A, p.B, cfg)
		if err != nil {
			return nil, err
		}
		f.Pairs = append(f.Pairs, *r)
	}
	f.Classes = SummarizeC2C(f.Pairs, plan.Total)
	var sum float64
	var n int
	for _, c := range f.Classes {
		sum += c.NS * float64(c.Total)
		n += c.Total
		f.MinNS = min(f.MinNS, c.NS)
	}
	f.NS = sum / float64(n)
	return f, nil
}

// C2CBenchName is the benchmark name of a pair's result, without the
// -GOMAXPROCS suffix: the go test sub-benchmark name (mode, class) followed by
// the pair, so `benchstat -ignore cpu_a,cpu_b` folds the pairs of a class
// into samples of one configuration and compares it with go test output.
func C2CBenchName(r *C2CResult) string {
	return fmt.Sprintf("C2C/mode=%s/class=%s/cpu_a=%d/cpu_b=%d", r.Mode, r.Class, r.CPUA, r.CPUB)
}

// C2CRecord converts a pair's result to a benchmark-format result: ns/op is
// the median one-way handoff, min-ns/op the minimum, whatever r.Stat says,
// so that files compare with go test -bench C2C output. Iters is the number
// of handoffs measured.
func C2CRecord(r *C2CResult, cfg []benchfmt.Config) *benchfmt.Result {
	return &benchfmt.Result{
		Config: slices.Clone(cfg),
		Name:   benchfmt.Name(fmt.Sprintf("%s-%d", C2CBenchName(r), procsAtStart)),
		Iters:  2 * r.Samples * r.Rounds,
		Values: []benchfmt.Value{
			{Value: r.MedianNS, Unit: "ns/op"},
			{Value: r.MinNS, Unit: "min-ns/op"},
		},
	}
}

// C2CUnits is the unit metadata of C2CRecord's custom unit.
func C2CUnits() []*benchfmt.UnitMetadata {
	return []*benchfmt.UnitMetadata{unitMeta("min-ns/op", "lower")}
}
