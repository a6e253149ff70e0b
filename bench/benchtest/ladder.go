package benchtest

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/contend/contend/affinity"
	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/configlist"
)

// A Config is one worker count and placement a benchmark runs at.
type Config struct {
	Threads int
	Place   affinity.Placement
}

// Threads returns the worker counts benchmarks run on t: CONTEND_THREADS when
// set, else the default ladder, bench.ThreadLadder.
//
// CONTEND_THREADS is a thread list as contend sweep's -threads reads it
// (bench/configlist): counts separated by commas ("1,56,112,224"), where
// "max" is every usable CPU and "ladder" the default. A count above the
// usable CPUs is kept: the benchmark then skips it and says why, rather
// than run it oversubscribed.
func Threads(t *affinity.Topology) ([]int, error) {
	s, ok := os.LookupEnv("CONTEND_THREADS")
	if !ok || s == "" {
		return bench.ThreadLadder(t), nil
	}
	ns, err := configlist.ParseThreads(s, t)
	if err != nil {
		return nil, fmt.Errorf("CONTEND_THREADS=%q: %w", s, err)
	}
	return ns, nil
}

// Places returns the placements benchmarks run on t: CONTEND_PLACE when set
// (a placement list as contend sweep's -place reads it, bench/configlist:
// policies separated by commas, cpu lists set apart by ";"), else compact,
// plus spread and cross where t has two or more nodes with usable CPUs
// (CONTEND_FAKE_NODES=2 makes them appear on a one-node machine).
func Places(t *affinity.Topology) ([]affinity.Placement, error) {
	if s := os.Getenv("CONTEND_PLACE"); s != "" {
		ps, err := configlist.ParsePlaces(s)
		if err != nil {
			return nil, fmt.Errorf("CONTEND_PLACE=%q: %w", s, err)
		}
		return ps, nil
	}
	places := []affinity.Placement{{Policy: affinity.Compact}}
	if t.UsableNodes() >= 2 {
		places = append(places, affinity.Placement{Policy: affinity.Spread}, affinity.Placement{Policy: affinity.Cross})
	}
	return places, nil
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
	compact := slices.ContainsFunc(places, func(p affinity.Placement) bool { return p.Policy == affinity.Compact })
	for _, n := range threads {
		if n < minWorkers {
			continue
		}
		for _, p := range places {
			if n == 1 && p.Policy != affinity.Compact && p.Policy != affinity.List && compact {
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
		b.Run(bench.ConfigName(s.Variant(), c.Threads, c.Place.String()), func(b *testing.B) {
			run(b, s, c.Threads, c.Place)
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
