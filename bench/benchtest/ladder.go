package benchtest

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
)

// A Config is one worker count and placement a benchmark runs at.
type Config struct {
	Threads int
	Place   string
}

// Threads returns the worker counts benchmarks run on t: CONTEND_THREADS when
// set, else the default ladder, bench.ThreadLadder.
//
// CONTEND_THREADS is a comma-separated list of counts ("1,56,112,224"),
// "max" (every usable CPU) or "ladder" (the default). A count above the
// usable CPUs is kept: the benchmark then skips it and says why, rather
// than run it oversubscribed.
func Threads(t *affinity.Topology) ([]int, error) {
	s, ok := os.LookupEnv("CONTEND_THREADS")
	if !ok || s == "" {
		return bench.ThreadLadder(t), nil
	}
	return ParseThreads(s, t)
}

// ParseThreads reads a CONTEND_THREADS value for topology t.
func ParseThreads(s string, t *affinity.Topology) ([]int, error) {
	switch s {
	case "ladder":
		return bench.ThreadLadder(t), nil
	case "max":
		return []int{t.AllowedCPUs.Weight()}, nil
	}
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("CONTEND_THREADS=%q: %q is not a positive worker count (want counts like 1,2,8, or max, or ladder)", s, f)
		}
		if !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	return ns, nil
}

// Places returns the placements benchmarks run on t: CONTEND_PLACE when set
// (a comma-separated list of policies: compact, spread, cross, smt), else
// compact, plus spread and cross where t has two or more nodes with usable
// CPUs (CONTEND_FAKE_NODES=2 makes them appear on a one-node machine).
func Places(t *affinity.Topology) ([]string, error) {
	if s := os.Getenv("CONTEND_PLACE"); s != "" {
		return ParsePlaces(s)
	}
	places := []string{string(affinity.Compact)}
	if t.UsableNodes() >= 2 {
		places = append(places, string(affinity.Spread), string(affinity.Cross))
	}
	return places, nil
}

// ParsePlaces reads a CONTEND_PLACE value.
func ParsePlaces(s string) ([]string, error) {
	var ps []string
	for _, f := range strings.Split(s, ",") {
		p, err := affinity.ParsePlacement(strings.TrimSpace(f))
		if err != nil || p.Policy == affinity.List {
			return nil, fmt.Errorf("CONTEND_PLACE=%q: %q is not a placement policy (want compact, spread, cross, smt)", s, f)
		}
		if !slices.Contains(ps, p.String()) {
			ps = append(ps, p.String())
		}
	}
	return ps, nil
}

// Configs returns the worker counts and placements a benchmark of a scenario
// needing at least minWorkers workers runs on this machine: every count of
// Threads from minWorkers up, at every placement of Places that differs from
// compact at that count (one worker is placed alike by every policy). An
// unreadable topology or a malformed CONTEND_THREADS or CONTEND_PLACE fails
// the benchmark with a one-line error.
func Configs(b *testing.B, minWorkers int) []Config {
	b.Helper()
	t, err := Topology()
	if err != nil {
		b.Fatal(err)
	}
	cfgs, err := configs(t, minWorkers)
	if err != nil {
		b.Fatal(err)
	}
	return cfgs
}

// configs is Configs on topology t.
func configs(t *affinity.Topology, minWorkers int) ([]Config, error) {
	threads, err := Threads(t)
	if err != nil {
		return nil, err
	}
	places, err := Places(t)
	if err != nil {
		return nil, err
	}
	var cfgs []Config
	for _, n := range threads {
		if n < minWorkers {
			continue
		}
		for _, p := range places {
			if n == 1 && p != string(affinity.Compact) && slices.Contains(places, string(affinity.Compact)) {
				continue
			}
			cfgs = append(cfgs, Config{n, p})
		}
	}
	return cfgs, nil
}

// Each runs s as a sub-benchmark at every config, named as contend's results
// files name it without the benchmark function and the -N suffix
// (<variant>/threads=N/place=P).
func Each(b *testing.B, s bench.Scenario, cfgs []Config) {
	b.Helper()
	for _, c := range cfgs {
		b.Run(bench.ConfigName(s.Variant(), c.Threads, c.Place), func(b *testing.B) {
			Run(b, s, c.Threads, c.Place)
		})
	}
}

// Ladder runs every variant of the registered scenario name at every config
// Configs returns for it: the whole of most scenarios' Benchmark function.
func Ladder(b *testing.B, name string, variants []string) {
	b.Helper()
	spec, err := bench.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	cfgs := Configs(b, spec.MinWorkers)
	for _, v := range variants {
		Each(b, New(b, name, v), cfgs)
	}
}
