package c2c

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
	"github.com/contend/contend/bench"
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
// hand back per-sample times. Measure therefore drives its own two pinned
// goroutines (see c2c_linux.go), with the runner's rules: pinning verified at
// both ends, GOMAXPROCS ≥ 3, no GC during the measurement.
//
// Pairs are described by topology class, nearest first, because a handful of
// pairs per class says almost everything an all-pairs matrix says and takes
// seconds instead of hours on a machine with hundreds of CPUs.

// A Mode is how the two threads hand the line over.
type Mode string

const (
	// ReadWrite: each side spins loading the line until the value says
	// it is its turn, then stores the next value. A transfer is a read miss
	// followed by an upgrade: the pattern of a flag or counter that one
	// CPU polls and another writes.
	ReadWrite Mode = "rw"
	// CAS: each side spins on compare-and-swap from the peer's value to
	// its own. Every attempt, failed or not, takes the line exclusive: the
	// pattern of sched_balance_running's cmpxchg and of lock acquisition.
	CAS Mode = "cas"
)

// Modes lists the modes in canonical order.
var Modes = []Mode{ReadWrite, CAS}

// ParseModes parses "rw", "cas", "all" or a comma-separated list of modes.
func ParseModes(s string) ([]Mode, error) {
	if s == "all" {
		return slices.Clone(Modes), nil
	}
	var modes []Mode
	for i, part := range strings.Split(s, ",") {
		m := Mode(part)
		if !slices.Contains(Modes, m) {
			return nil, fmt.Errorf("unknown c2c mode %q at position %d of %q (want rw, cas, all or a comma list)", part, i+1, s)
		}
		if slices.Contains(modes, m) {
			return nil, fmt.Errorf("c2c mode %q given twice in %q", part, s)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// A Class says how close two CPUs are. The classes are checked nearest
// first, so a pair belongs to the closest thing it shares.
type Class string

const (
	ClassSMT     Class = "smt"     // SMT siblings: one core, one L1
	ClassLLC     Class = "llc"     // different cores sharing a last-level cache
	ClassNode    Class = "node"    // same NUMA node, different LLC
	ClassPackage Class = "package" // same package, different node
	ClassCross   Class = "cross"   // different packages: over the socket interconnect
	ClassUnknown Class = "unknown" // sysfs did not say enough
)

// Classes lists the classes nearest first.
var Classes = []Class{ClassSMT, ClassLLC, ClassNode, ClassPackage, ClassCross, ClassUnknown}

// ClassOf returns the class of the pair a, b. A fake topology is
// classified by the real one it was split from: classes describe hardware,
// and fake nodes are not hardware.
func ClassOf(t *affinity.Topology, a, b int) Class {
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

// A Pair is two CPUs to measure; A pings first.
type Pair struct {
	A, B  int
	Class Class
}

// Selection says which pairs of a CPU set to measure.
type Selection string

const (
	All    Selection = "all"    // every pair: O(N²)
	Sample Selection = "sample" // a few pairs per class
	Auto   Selection = "auto"   // all up to AllPairsMax cpus, else sample
)

// AllPairsMax is the largest CPU count for which auto measures all pairs:
// 16 CPUs are 120 pairs, about ten seconds per mode with the default samples.
const AllPairsMax = 16

// A Plan is the pairs chosen from a CPU set.
type Plan struct {
	CPUs      []int
	Selection Selection // all or sample, never auto
	Pairs     []Pair
	// Total counts the pairs of each class in the whole set, measured or not.
	Total map[Class]int
}

// NewPlan chooses the pairs of cpus to measure. cpus must hold at least two
// distinct usable CPUs; perClass bounds the pairs per class when sampling.
// Sampled pairs are spread evenly over each class's pairs in CPU order, so
// they touch different cores, caches and sockets rather than the first few.
func NewPlan(t *affinity.Topology, cpus []int, sel Selection, perClass int) (*Plan, error) {
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
	case Auto:
		sel = Sample
		if len(list) <= AllPairsMax {
			sel = All
		}
	case All, Sample:
	default:
		return nil, fmt.Errorf("c2c plan: unknown pair selection %q (want all, sample, auto)", sel)
	}
	p := &Plan{CPUs: list, Selection: sel, Total: map[Class]int{}}
	byClass := map[Class][]Pair{}
	for i, a := range list {
		for _, b := range list[i+1:] {
			pr := Pair{A: a, B: b, Class: ClassOf(t, a, b)}
			p.Total[pr.Class]++
			if sel == All {
				p.Pairs = append(p.Pairs, pr)
			} else {
				byClass[pr.Class] = append(byClass[pr.Class], pr)
			}
		}
	}
	for _, c := range Classes {
		prs := byClass[c]
		k := min(perClass, len(prs))
		for i := range k {
			p.Pairs = append(p.Pairs, prs[i*len(prs)/k])
		}
	}
	return p, nil
}

// A Home says on which node the ping-pong line lives. On multi-socket
// machines the home node decides how far a transfer travels: AMD's
// directory lives with the memory, so a line homed on a third socket costs
// about twice as much as one homed at either end.
type Home struct {
	// Which is "first" (the pinging CPU's node), "second" (the answering
	// CPU's node) or "node" (Node, whatever the pair).
	Which string
	Node  int
}

// ParseHome parses first, second or a node id.
func ParseHome(s string) (Home, error) {
	switch s {
	case "first", "second":
		return Home{Which: s, Node: -1}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= nodemask.MaxNumNodes {
		return Home{}, fmt.Errorf("unknown c2c home %q (want first, second or a node id in [0, %d))", s, nodemask.MaxNumNodes)
	}
	return Home{Which: "node", Node: n}, nil
}

// String returns the home as ParseHome reads it.
func (h Home) String() string {
	if h.Which == "node" {
		return strconv.Itoa(h.Node)
	}
	if h.Which == "" {
		return "first"
	}
	return h.Which
}

// Config says how to measure one pair. Zero fields take the defaults.
type Config struct {
	Mode    Mode          // default rw
	Samples int           // measured samples, default 300
	Rounds  int           // round trips per sample, default 1000
	Warmup  int           // samples run and dropped first; default Samples/10, at least 1; negative: none
	Preheat time.Duration // ping-pong unmeasured this long first, so both cores reach full clock
	Home    Home          // default first
	// Stat names the statistic Result.NS holds: "median" (default) or
	// "min". Both are always recorded.
	Stat string
	// Context, if set, stops a measurement between samples.
	Context context.Context
}

// Defaults, chosen like core-to-core-latency's: a sample of 1000 round trips
// lasts 50-500 µs, long enough that two clock reads vanish, short enough that
// an interrupt spoils one sample rather than the median.
const (
	defaultSamples = 300
	defaultRounds  = 1000
	maxSamples     = 1 << 24
	maxRounds      = 1 << 30
)

// WithDefaults returns c with its zero fields set to the defaults, or an
// error naming the first bad field: the configuration a measurement really
// runs with.
func (c Config) WithDefaults() (Config, error) {
	if c.Mode == "" {
		c.Mode = ReadWrite
	}
	if !slices.Contains(Modes, c.Mode) {
		return c, fmt.Errorf("c2c: unknown mode %q (want rw, cas)", c.Mode)
	}
	if c.Samples == 0 {
		c.Samples = defaultSamples
	}
	if c.Rounds == 0 {
		c.Rounds = defaultRounds
	}
	if c.Samples < 1 || c.Samples > maxSamples {
		return c, fmt.Errorf("c2c: samples %d out of range [1, %d]", c.Samples, maxSamples)
	}
	if c.Rounds < 1 || c.Rounds > maxRounds {
		return c, fmt.Errorf("c2c: rounds %d out of range [1, %d]", c.Rounds, maxRounds)
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
		c.Home = Home{Which: "first", Node: -1}
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

// A Result is one pair's one-way handoff latency. Its JSON carries what a
// heatmap needs: cpu_a, cpu_b, ns and class.
type Result struct {
	CPUA     int     `json:"cpu_a"` // pings first
	CPUB     int     `json:"cpu_b"`
	Mode     Mode    `json:"mode"`
	Class    Class   `json:"class"`
	NS       float64 `json:"ns"`   // the statistic named by Stat
	Stat     string  `json:"stat"` // "median" or "min"
	MinNS    float64 `json:"min_ns"`
	MedianNS float64 `json:"median_ns"`
	Samples  int     `json:"samples"`
	Rounds   int     `json:"rounds"` // round trips per sample
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
func (r *Result) setStats(samples []float64, stat string) {
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

// A ClassSummary is one class's results in one mode.
type ClassSummary struct {
	Mode    Mode    `json:"mode"`
	Class   Class   `json:"class"`
	Pairs   int     `json:"pairs"`       // pairs measured
	Total   int     `json:"total_pairs"` // pairs of this class in the CPU set, 0 if unknown
	NS      float64 `json:"ns"`          // median over the pairs of their NS
	Stat    string  `json:"stat"`        // the statistic each pair's NS is
	MinNS   float64 `json:"min_ns"`      // lowest pair minimum
	MaxNS   float64 `json:"max_ns"`      // highest pair NS
	Example [2]int  `json:"example"`     // one measured pair
}

// Summarize groups results by mode and class, nearest class first.
// totals, if not nil, fills Total (NewPlan's Plan.Total).
func Summarize(rs []Result, totals map[Class]int) []ClassSummary {
	var out []ClassSummary
	for _, m := range Modes {
		for _, c := range Classes {
			var ns []float64
			s := ClassSummary{Mode: m, Class: c, MinNS: math.Inf(1), Total: totals[c]}
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

// A Floor is the handoff floor of a CPU set: what one line transfer
// between two of its CPUs costs. A contended result divided by NS is the
// number of line transfers an operation costs (handoffs/op), a figure that
// compares across machines.
type Floor struct {
	CPUs []int
	Mode Mode
	// NS is the expected one-way handoff between two distinct CPUs of the
	// set drawn at random: each class's median weighted by how many of the
	// set's pairs are of that class.
	NS float64
	// MinNS is the cheapest class's NS: the floor for workers placed as
	// close as the set allows.
	MinNS   float64
	Pairs   []Result
	Classes []ClassSummary
}

// Handoffs returns nsPerOp in units of the floor: line transfers per
// operation.
func (f *Floor) Handoffs(nsPerOp float64) float64 { return nsPerOp / f.NS }

// MeasureFloor measures the handoff floor of cpus for a sweep: one pair per
// class present in the set, with lighter defaults than the c2c command (100
// samples of 500 round trips, a few milliseconds per pair), in cfg.Mode. A set
// of one CPU has no floor and is an error.
func MeasureFloor(t *affinity.Topology, cpus []int, cfg Config) (*Floor, error) {
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
	plan, err := NewPlan(t, cpus, Sample, 1)
	if err != nil {
		return nil, err
	}
	f := &Floor{CPUs: plan.CPUs, Mode: cfg.Mode, MinNS: math.Inf(1)}
	for _, p := range plan.Pairs {
		r, err := Measure(t, p.A, p.B, cfg)
		if err != nil {
			return nil, err
		}
		f.Pairs = append(f.Pairs, *r)
	}
	f.Classes = Summarize(f.Pairs, plan.Total)
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

// BenchName is the benchmark name of a pair's result, without the
// -GOMAXPROCS suffix: the go test sub-benchmark name (mode, class) followed by
// the pair, so `benchstat -ignore cpu_a,cpu_b` folds the pairs of a class
// into samples of one configuration and compares it with go test output.
func BenchName(r *Result) string {
	return fmt.Sprintf("C2C/mode=%s/class=%s/cpu_a=%d/cpu_b=%d", r.Mode, r.Class, r.CPUA, r.CPUB)
}

// Record converts a pair's result to a benchmark-format result: ns/op is
// the median one-way handoff, min-ns/op the minimum, whatever r.Stat says,
// so that files compare with go test -bench C2C output. Iters is the number
// of handoffs measured.
func Record(r *Result, cfg []benchfmt.Config) *benchfmt.Result {
	return &benchfmt.Result{
		Config: slices.Clone(cfg),
		Name:   benchfmt.Name(fmt.Sprintf("%s-%d", BenchName(r), affinity.ProcsAtStart())),
		Iters:  2 * r.Samples * r.Rounds,
		Values: []benchfmt.Value{
			{Value: r.MedianNS, Unit: "ns/op"},
			{Value: r.MinNS, Unit: MinHandoff.Name},
		},
	}
}

// MinHandoff is the unit of Record's second figure: the fastest sample's one-way
// handoff.
var MinHandoff = bench.Unit{Name: "min-ns/op", Better: bench.Lower,
	Doc: "the fastest sample's one-way handoff, ns"}
