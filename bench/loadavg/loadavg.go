package loadavg

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ktime"
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
	// laDefaultGap is the seed's event rate: "during a 5s window, the
	// wakeup number is 14millions" on 224 CPUs is 12,500 wakeups per CPU
	// per second; each wakeup is an enqueue and, later, a dequeue, so
	// 25,000 events per CPU per second, one every 40us.
	laDefaultGap = 40 * time.Microsecond
	laMinGap     = time.Microsecond
	laMaxGap     = 100 * time.Millisecond
	// laDefaultMig is the seed's 11 million migrations per 14 million
	// wakeups: 79%.
	laDefaultMig = 79
	// laDefaultTasks is the group's tasks per CPU: sysbench with
	// nr_threads = nr_cpu drives as many postgres backends, 2 × 224 tasks
	// on 224 CPUs.
	laDefaultTasks = 2
	laMaxTasks     = 64
	// laDefaultHZ is CONFIG_HZ of x86_64's defconfig and the
	// server distributions: a tick every millisecond.
	laDefaultHZ = 1000
)

func init() {
	var full []string
	for _, p := range counter.Presets() {
		full = append(full, "preset="+p)
	}
	full = append(full,
		"preset=base/store=falseshare", "store=percpu", "store=percpu/write=ratelimit",
		"preset=base/pace=kernel", "preset=rate/pace=kernel", "preset=rate+skip/pace=kernel")
	bench.Register(&bench.Spec{
		Name:      "loadavg",
		BenchName: "LoadAvg",
		Summary:   "tg->load_avg on kernel time: en/dequeues with wakeup migrations write the group load (update_tg_load_avg) and read it (calc_group_shares)",
		Keys: []string{
			"preset=none|" + strings.Join(counter.Presets(), "|") + "   the seed's labels: v1 node, delay, skip (patches 2, 2+3, 2+3+4); v2 rate, rate+skip, rate+skip+node; store/write/read/scan beside one override its parts",
			"store=atomic|falseshare|pernode|percpu   where tg->load_avg lives (falseshare: beside tg->shares, as before the dedicated line)",
			"write=every|threshold=N|ratelimit[=D]|delay   update_tg_load_avg: contrib/64, contrib/N (1..1048576), at most once per D (1us..1s, default 1ms), or patch 3 (removed load waits for the next update)",
			"read=every|skip|onein=K   update_cfs_group on every event, patch 4 (none on the group entity's own en/dequeue), or one event in K by count (not the patch)",
			"scan=bounded|full   the per-node reader walks the node mask to nr_node_ids, or all MAX_NUMNODES bits (v1's for_each_node)",
			"gap=D      kernel time between two events on one cfs_rq, 1us..100ms (default 40us: 14M wakeups in 5 s on 224 cpus is 12.5k wakeups, 25k en/dequeues, per cpu per second)",
			"pace=none|kernel   none: events as fast as this machine runs them (the stress test); kernel: real local work until each event has taken gap of wall time",
			"mig=N      percent of wakeups on another cpu than the task slept on, 0..100 (79: the seed's 11M migrations per 14M wakeups)",
			"tasks=N    the group's tasks per cpu, 1..64 (2: sysbench's nr_cpu threads and as many postgres backends)",
			"hz=1000|250   CONFIG_HZ: the tick's entity_tick() refreshes the group entity's weight (update_cfs_group) while a task of the group runs",
			"work=N     extra local work (dependent arithmetic steps) per event, 0..100000",
			"stride=line|128   distance between hot words: a cache line, or a line pair against the adjacent-line prefetcher",
		},
		Quick: []string{"preset=base", "preset=rate"},
		Full:  full,
		Units: []bench.Unit{SharedWrites, Writes, ReadLines, CfsRqWritesPerSec, TGWeightErr, SharesErr, ErrSamples, ErrRejected,
			WritePath, ReadPath, PathTime, LoadMoves, IdlePct, LocalSlots},
		New: func(variant string) (bench.Scenario, error) { return newLoadAvg(variant, nil) },
	})
}

// A laExtraStore makes a store from outside package counter for one run, such
// as the xsync.Counter reference the benchmarks add. lines is the number of
// lines one Sum reads. Such stores go through the counter.Store interface.
type laExtraStore func(env *bench.Env) (store counter.Store, lines int, err error)

// laConfig is a parsed variant.
type laConfig struct {
	preset string // the preset the store/write/read/scan parts match, or "none"
	store  string // storage name, counter's or an extra's
	v      counter.Variant
	extra  laExtraStore // non-nil for a store from outside package counter
	gap    time.Duration
	paced  bool
	hz     int
	mig    int
	tasks  int
	work   int
	stride counter.Stride
}

func (c *laConfig) String() string {
	pace := "none"
	if c.paced {
		pace = "kernel"
	}
	// counter's own form after its store=, which may be an extra's here.
	_, policy, _ := strings.Cut(c.v.String(), "/")
	return fmt.Sprintf("preset=%s/store=%s/%s/gap=%s/pace=%s/mig=%d/tasks=%d/hz=%d/work=%d/stride=%s",
		c.preset, c.store, policy, ktime.Format(c.gap), pace, c.mig, c.tasks, c.hz, c.work, c.stride)
}

// parseLoadAvg reads a variant. A preset sets store, write, read and scan;
// any of them given beside it overrides that part, and the canonical name
// then carries whichever preset the result matches, so one configuration
// has one name however it was spelt.
func parseLoadAvg(variant string, extras map[string]laExtraStore) (*laConfig, error) {
	p, err := bench.ParseParams("loadavg", variant,
		"preset=none", "store=", "write=", "read=", "scan=", "gap="+ktime.Format(laDefaultGap), "pace=none",
		"mig="+fmt.Sprint(laDefaultMig), "tasks="+fmt.Sprint(laDefaultTasks), "hz="+fmt.Sprint(laDefaultHZ), "work=0", "stride=line")
	if err != nil {
		return nil, err
	}
	c := &laConfig{}
	c.v, _ = counter.Preset("base")
	if name := p.Get("preset"); name != "none" {
		if c.v, err = counter.Preset(name); err != nil {
			return nil, fmt.Errorf("loadavg: preset %q: %w (valid: none, %s)", name, counter.ErrUnknown, strings.Join(counter.Presets(), ", "))
		}
	}
	c.store = c.v.Store.String()
	if s := p.Get("store"); s != "" {
		if mk, ok := extras[s]; ok {
			c.store, c.extra = s, mk
		} else if c.v.Store, err = counter.ParseStore(s); err != nil {
			return nil, fmt.Errorf("loadavg: store %q: %w (valid: %s)", s, counter.ErrUnknown, strings.Join(laStoreNames(extras), ", "))
		} else {
			c.store = s
		}
		if c.v.Store != counter.StorePerNode && p.Get("scan") == "" {
			c.v.FullScan = false // a preset's full scan goes with its per-node store
		}
	}
	if w := p.Get("write"); w != "" {
		if c.v.Write, err = counter.ParseWrite(w); err != nil {
			return nil, fmt.Errorf("loadavg: %w", err)
		}
	}
	if r := p.Get("read"); r != "" {
		if c.v.Read, err = counter.ParseRead(r); err != nil {
			return nil, fmt.Errorf("loadavg: %w", err)
		}
	}
	if s := p.Get("scan"); s != "" {
		scan, err := p.Choice("scan", "bounded", "full")
		if err != nil {
			return nil, err
		}
		c.v.FullScan = scan == "full"
	}
	if c.v.FullScan && (c.extra != nil || c.v.Store != counter.StorePerNode) {
		return nil, fmt.Errorf("loadavg: scan=full with store=%s: only store=pernode walks a node mask", c.store)
	}
	if c.gap, err = ktime.ParseDuration("gap", p.Get("gap"), laMinGap, laMaxGap); err != nil {
		return nil, fmt.Errorf("loadavg: %w", err)
	}
	pace, err := p.Choice("pace", "none", "kernel")
	if err != nil {
		return nil, err
	}
	c.paced = pace == "kernel"
	if c.mig, err = p.Int("mig", 0, 100); err != nil {
		return nil, err
	}
	if c.tasks, err = p.Int("tasks", 1, laMaxTasks); err != nil {
		return nil, err
	}
	hz, err := p.Choice("hz", "1000", "250")
	if err != nil {
		return nil, err
	}
	c.hz = 1000
	if hz == "250" {
		c.hz = 250
	}
	if c.work, err = p.Int("work", 0, 100_000); err != nil {
		return nil, err
	}
	if c.stride, err = counter.ParseStride(p.Get("stride")); err != nil {
		return nil, fmt.Errorf("loadavg: %w", err)
	}
	if c.extra != nil && c.stride != 0 {
		return nil, fmt.Errorf("loadavg: stride=%s with store=%s: that store lays out its own lines", c.stride, c.store)
	}
	c.preset = "none"
	if c.extra == nil {
		if name := counter.PresetOf(c.v); name != "" {
			c.preset = name
		}
	}
	return c, nil
}

// newLoadAvg builds the scenario; extras adds stores from outside package
// counter (benchmarks only).
func newLoadAvg(variant string, extras map[string]laExtraStore) (*loadAvg, error) {
	c, err := parseLoadAvg(variant, extras)
	if err != nil {
		return nil, err
	}
	return &loadAvg{cfg: c, name: c.String()}, nil
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

// laStoreNames lists the storages a variant may name, extras included, for
// error messages.
func laStoreNames(extras map[string]laExtraStore) []string {
	names := []string{"atomic", "falseshare", "pernode", "percpu"}
	for n := range extras {
		names = append(names, n)
	}
	slices.Sort(names[4:])
	return names
}
