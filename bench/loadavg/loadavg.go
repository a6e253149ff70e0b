package loadavg

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
	"github.com/contend/contend/benchname"
	"github.com/contend/contend/counter"
)

// The units the scenario reports beside ns/op.
var (
	SharedWrites = bench.Unit{Name: "shared-writes/op", Better: bench.Lower,
		Doc: "read-modify-writes of a counter line another worker also writes, per event"}
	Writes = bench.Unit{Name: "writes/op", Better: bench.Lower,
		Doc: "writes to tg->load_avg's storage, shared or not, per event"}
	ReadLines = bench.Unit{Name: "read-lines/op", Better: bench.Lower,
		Doc: "counter lines the read path touches, per event"}
	CfsRqWritesPerSec = bench.Unit{Name: "cfsrq-writes/kernel-sec", Better: bench.Lower,
		Doc: "tg->load_avg writes per cfs_rq per second of kernel time (the seed's ~10M per 5 s on 224 cpus is 8.9k)"}
	TGWeightErr = bench.Unit{Name: "tgweight-err-%", Better: bench.Lower,
		Doc: "mean relative error of the tg_weight calc_group_shares computes, against every cfs_rq's current load, per cent"}
	SharesErr = bench.Unit{Name: "shares-err-%", Better: bench.Lower,
		Doc: "mean relative error of the group entity's weight in effect after an event, per cent"}
	ErrSamples = bench.Unit{Name: "err-samples", Better: bench.Higher,
		Doc: "error samples behind the two err figures"}
	ErrRejected = bench.Unit{Name: "err-rejected", Better: bench.Lower,
		Doc: "error samples dropped because a peer's load moved while they were read (only with 3 or more workers)"}
	WritePath = bench.Unit{Name: "write-path-%", Better: bench.Lower,
		Doc: "share of worker time in update_tg_load_avg, timed on a sample of events (seed: update_load_avg 10.63% of cycles)"}
	ReadPath = bench.Unit{Name: "read-path-%", Better: bench.Lower,
		Doc: "share of worker time in calc_group_shares, timed on a sample of events (seed: update_cfs_group 13.75% of cycles)"}
	PathTime = bench.Unit{Name: "path-sec/op", Better: bench.Lower,
		Doc: "seconds per event in update_tg_load_avg and calc_group_shares, on the timed events"}
	LoadMoves = bench.Unit{Name: "load-moves/op", Better: bench.Check,
		Doc: "wakeups that moved a task's load to another worker's cfs_rq through cfs_rq->removed, per event"}
	IdlePct = bench.Unit{Name: "idle-slots-%", Better: bench.Check,
		Doc: "event slots in which a worker's cpu had no task to wake or put to sleep, per cent"}
	LocalSlots = bench.Unit{Name: "local-slots-%", Better: bench.Higher,
		Doc: "per-node slots whose page landed on their node, per cent"}
)

// The workload's defaults and limits.
const (
	// defaultGap is the seed's event rate: "during a 5s window, the
	// wakeup number is 14millions" on 224 CPUs is 12,500 wakeups per CPU
	// per second; each wakeup is an enqueue and, later, a dequeue, so
	// 25,000 events per CPU per second, one every 40us.
	defaultGap = 40 * time.Microsecond
	minGap     = time.Microsecond
	maxGap     = 100 * time.Millisecond
	// defaultMig is the seed's 11 million migrations per 14 million
	// wakeups: 79%.
	defaultMig = 79
	// defaultTasks is the group's tasks per CPU: sysbench with
	// nr_threads = nr_cpu drives as many postgres backends, 2 × 224 tasks
	// on 224 CPUs.
	defaultTasks = 2
	maxTasks     = 64
	// defaultHZ is CONFIG_HZ of x86_64's defconfig and the
	// server distributions: a tick every millisecond.
	defaultHZ = 1000
)

// scenarioKeys are the variant's keys, in canonical order, with extras among the
// stores. store, write, read and scan have no default: the preset decides
// them unless the variant gives them (parseLoadAvg).
func scenarioKeys(extras map[string]extraStore) []bench.Key {
	return []bench.Key{
		{Name: "preset", Default: "none", Domain: bench.OneOf(append([]string{"none"}, counter.Presets()...)...),
			Doc: "the seed's labels: v1 node, delay, skip (patches 2, 2+3, 2+3+4); v2 rate, rate+skip, rate+skip+node; store/write/read/scan beside one override its parts"},
		{Name: "store", Domain: bench.OneOf(storeNames(extras)...),
			Doc: "where tg->load_avg lives (falseshare: beside tg->shares, as before the dedicated line)"},
		{Name: "write", Domain: bench.Form("every|threshold=N|ratelimit[=D]|delay", writeWhere, canonValue("write", counter.ParseWrite)),
			Doc: "update_tg_load_avg: contrib/64, contrib/N, at most once per D, or patch 3 (removed load waits for the next update)"},
		{Name: "read", Domain: bench.Form("every|skip|onein=K", fmt.Sprintf("K 1..%d", counter.MaxOneIn), canonValue("read", counter.ParseRead)),
			Doc: "update_cfs_group on every event, patch 4 (none on the group entity's own en/dequeue), or one event in K by count (not the patch)"},
		{Name: "scan", Domain: bench.OneOf("bounded", "full"),
			Doc: "the per-node reader walks the node mask to nr_node_ids, or all MAX_NUMNODES bits (v1's for_each_node)"},
		{Name: "gap", Default: ktime.Format(defaultGap), Domain: bench.DurationRange(minGap, maxGap),
			Doc: "kernel time between two events on one cfs_rq (40us: 14M wakeups in 5 s on 224 cpus is 12.5k wakeups, 25k en/dequeues, per cpu per second)"},
		{Name: "pace", Default: "none", Domain: bench.OneOf("none", "kernel"),
			Doc: "none: events as fast as this machine runs them (the stress test); kernel: real local work until each event has taken gap of wall time"},
		{Name: "mig", Default: strconv.Itoa(defaultMig), Domain: bench.IntRange(0, 100),
			Doc: "percent of wakeups on another cpu than the task slept on (79: the seed's 11M migrations per 14M wakeups)"},
		{Name: "tasks", Default: strconv.Itoa(defaultTasks), Domain: bench.IntRange(1, maxTasks),
			Doc: "the group's tasks per cpu (2: sysbench's nr_cpu threads and as many postgres backends)"},
		{Name: "hz", Default: strconv.Itoa(defaultHZ), Domain: bench.OneOf("1000", "250"),
			Doc: "CONFIG_HZ: the tick's entity_tick() refreshes the group entity's weight (update_cfs_group) while a task of the group runs"},
		{Name: "work", Default: "0", Domain: bench.IntRange(0, 100_000),
			Doc: "extra local work (dependent arithmetic steps) per event"},
		{Name: "stride", Default: "line", Domain: bench.Form("line|BYTES", "BYTES a power of two from this machine's cache line to a page", canonStride),
			Doc: "distance between hot words: a cache line, or BYTES (128: a line pair against the adjacent-line prefetcher)"},
		{Name: "levels", Default: strconv.Itoa(defaultLevels), Domain: bench.IntRange(1, maxLevels),
			Doc: "task-group levels, each with its own tg->load_avg line: the tasks' group this many levels below the root (2: the seed's docker container under system.slice; 1: the group right under the root)"},
		{Name: "clock", Default: "none", OmitDefault: true, Domain: bench.OneOf("none", "sched_clock", "rq_clock"),
			Doc: "the clock the rate limit's 1 ms test reads, for its cost: none (the model's time alone, as before the key), sched_clock (the merged limit's sched_clock_cpu(): RDTSC), or rq_clock (Rik van Riel's 2026-05 patch: the rq's cached clock, a load); needs write=ratelimit"},
	}
}

// writeWhere is what write='s placeholders take: counter's bounds.
var writeWhere = fmt.Sprintf("N 1..%d, D %s..%s, %s if omitted", counter.MaxDivisor,
	benchname.FormatDuration(counter.MinPeriod), benchname.FormatDuration(counter.MaxPeriod), benchname.FormatDuration(counter.DefaultPeriod))

// canonValue makes a domain's canonical spelling from one of counter's
// parsers, which reads key's values: what it reads, written back by its
// String. Its errors start with the key and the value, which the domain's
// error names already, and an unknown value's lists the values, which the
// domain's syntax does: both are left to the domain.
func canonValue[T fmt.Stringer](key string, parse func(string) (T, error)) func(v string) (string, error) {
	return func(v string) (string, error) {
		x, err := parse(v)
		if errors.Is(err, counter.ErrUnknown) {
			return "", errors.New("unknown value")
		}
		if err != nil {
			return "", errors.New(strings.TrimPrefix(err.Error(), key+" "+strconv.Quote(v)+": "))
		}
		return x.String(), nil
	}
}

// canonStride reads stride=: line, or a byte count counter.ParseStride
// checks against this machine's line and page.
func canonStride(v string) (string, error) {
	if _, err := strconv.Atoi(v); err != nil && v != "line" {
		return "", errors.New("neither line nor a number of bytes")
	}
	return canonValue("stride", counter.ParseStride)(v)
}

func init() {
	var full []string
	for _, p := range counter.Presets() {
		full = append(full, "preset="+p)
	}
	full = append(full,
		"preset=base/store=falseshare", "store=percpu", "store=percpu/write=ratelimit",
		"preset=base/pace=kernel", "preset=rate/pace=kernel", "preset=rate+skip/pace=kernel",
		"preset=base/levels=1", "preset=rate/levels=1", "preset=base/levels=3", "preset=rate/levels=3",
		"preset=rate/pace=kernel/clock=sched_clock", "preset=rate/pace=kernel/clock=rq_clock")
	bench.Register(&bench.Spec{
		Name:       "loadavg",
		BenchName:  "LoadAvg",
		Summary:    "tg->load_avg on kernel time: en/dequeues with wakeup migrations write the group load (update_tg_load_avg) and read it (calc_group_shares)",
		Keys:       scenarioKeys(nil),
		HotSymbols: []string{"loadAvgEvents", "github.com/contend/contend/counter.(*CfsRq).updateTGLoadAvg", "github.com/contend/contend/counter.(*CfsRq).calcGroupShares"},
		Quick:      []string{"preset=base", "preset=rate"},
		Full:       full,
		Units: append([]bench.Unit{SharedWrites, Writes, ReadLines, CfsRqWritesPerSec, TGWeightErr, SharesErr, ErrSamples, ErrRejected,
			WritePath, ReadPath, PathTime, LoadMoves, IdlePct, LocalSlots, Reads}, LevelUnits()...), // per-level units: levels.go
		New:      func(variant string) (bench.Scenario, error) { return newLoadAvg(variant, nil) },
		Simulate: &bench.Simulation{Usage: SimUsage, Flags: SimFlags},
		Lab:      &bench.LabTest{Variant: "preset=base/store=atomic/write=every/read=every/scan=bounded/gap=40us/pace=none/mig=79/tasks=2/hz=1000/work=0/stride=line/levels=1"},
		Findings: []int{1, 2, 3, 7, 10, 13},
	})
}

// A extraStore makes a store from outside package counter for one run, such
// as the xsync.Counter reference the benchmarks add. lines is the number of
// lines one Sum reads. Such stores go through the counter.Store interface.
type extraStore func(env *bench.Env) (store counter.Store, lines int, err error)

// variantConfig is a parsed variant.
type variantConfig struct {
	preset string // the preset the store/write/read/scan parts match, or "none"
	store  string // storage name, counter's or an extra's
	v      counter.Variant
	extra  extraStore // non-nil for a store from outside package counter
	gap    time.Duration
	paced  bool
	hz     int
	mig    int
	tasks  int
	work   int
	stride counter.Stride
	levels int // task-group levels, the tasks' group's first (levels.go)
	clock  counter.ClockKind
}

// parseLoadAvg reads a variant. A preset sets store, write, read and scan;
// any of them given beside it overrides that part, and the canonical name
// then carries whichever preset the result matches, so one configuration
// has one name however it was spelt. It returns the canonical parameters
// beside the configuration.
func parseLoadAvg(variant string, extras map[string]extraStore) (*variantConfig, *bench.Params, error) {
	p, err := bench.ParseParams("loadavg", variant, scenarioKeys(extras))
	if err != nil {
		return nil, nil, err
	}
	c := &variantConfig{}
	c.v, _ = counter.Preset("base")
	if name := p.Get("preset"); name != "none" {
		c.v, _ = counter.Preset(name) // in the key's domain
	}
	c.store = c.v.Store.String()
	if s := p.Get("store"); s != "" {
		if mk, ok := extras[s]; ok {
			c.store, c.extra = s, mk
		} else {
			c.store = s
			c.v.Store, _ = counter.ParseStore(s)
		}
		if c.v.Store != counter.StorePerNode && p.Get("scan") == "" {
			c.v.FullScan = false // a preset's full scan goes with its per-node store
		}
	}
	// The domains have read write, read and stride; they parse again.
	if w := p.Get("write"); w != "" {
		c.v.Write, _ = counter.ParseWrite(w)
	}
	if r := p.Get("read"); r != "" {
		c.v.Read, _ = counter.ParseRead(r)
	}
	if s := p.Get("scan"); s != "" {
		c.v.FullScan = s == "full"
	}
	if c.v.FullScan && (c.extra != nil || c.v.Store != counter.StorePerNode) {
		return nil, nil, fmt.Errorf("loadavg: scan=full with store=%s: only store=pernode walks a node mask", c.store)
	}
	c.gap = p.Duration("gap")
	c.paced = p.Get("pace") == "kernel"
	c.mig = p.Int("mig")
	c.tasks = p.Int("tasks")
	c.hz = p.Int("hz")
	c.work = p.Int("work")
	c.levels = p.Int("levels")
	c.stride, _ = counter.ParseStride(p.Get("stride"))
	c.clock, _ = counter.ParseClock(p.Get("clock"))
	if c.clock != counter.ClockNone && c.v.Write.Kind != counter.WriteRateLimit {
		return nil, nil, fmt.Errorf("loadavg: clock=%s with write=%s: only the rate limit reads a clock", c.clock, c.v.Write)
	}
	if c.extra != nil && c.stride != 0 {
		return nil, nil, fmt.Errorf("loadavg: stride=%s with store=%s: that store lays out its own lines", c.stride, c.store)
	}
	c.preset = "none"
	if c.extra == nil {
		if name := counter.PresetOf(c.v); name != "" {
			c.preset = name
		}
	}
	scan := "bounded"
	if c.v.FullScan {
		scan = "full"
	}
	for _, kv := range [][2]string{{"preset", c.preset}, {"store", c.store}, {"write", c.v.Write.String()}, {"read", c.v.Read.String()}, {"scan", scan}} {
		if err := p.Set(kv[0], kv[1]); err != nil {
			return nil, nil, err
		}
	}
	return c, p, nil
}

// newLoadAvg builds the scenario; extras adds stores from outside package
// counter (benchmarks only).
func newLoadAvg(variant string, extras map[string]extraStore) (*loadAvg, error) {
	c, p, err := parseLoadAvg(variant, extras)
	if err != nil {
		return nil, err
	}
	return &loadAvg{cfg: c, name: p.String()}, nil
}

// touchOnNode runs a first touch on a thread pinned to a CPU of the node, for
// PerNode's fallback when mbind is refused.
func touchOnNode(t *affinity.Topology) counter.TouchFunc {
	return func(node int, touch func()) error {
		n := t.NodeByID(node)
		if n == nil {
			return fmt.Errorf("node %d is not online", node)
		}
		cpu := -1
		for c := range n.CPUs.All() {
			if t.AllowedCPUs.Test(c) {
				cpu = c
				break
			}
		}
		if cpu < 0 {
			return fmt.Errorf("node %d has no cpu this process may use", node)
		}
		return affinity.RunOn(cpu, touch)
	}
}

// storeNames lists the storages a variant may name: counter's, then the
// extras in name order.
func storeNames(extras map[string]extraStore) []string {
	return append(counter.StoreNames(), slices.Sorted(maps.Keys(extras))...)
}
