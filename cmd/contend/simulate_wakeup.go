package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/contend/contend/bench/idlemask"
	"github.com/contend/contend/bench/wakeup"
)

// simulators are the scenarios simulate replays besides loadavg, by name:
// each takes the arguments after the scenario's name.
var simulators = map[string]func(stdout io.Writer, args []string) error{
	"wakeup":   simulateWakeup,
	"idlemask": simulateIdleMask,
}

const simulateWakeupUsage = "wakeup [-cpus 4,8,16,32] [-topo s390|llcN] [-policies llcstats,basic,v6.1] [-threads 40] [-hz N] " +
	"[-think 8.8us] [-service 38us] [-statements 20] [-io 0] [-irq idle|cpu0|local] [-idlewake 20us] [-pull 10us] [-lbcost 5us] " +
	"[-duration 5s] [-warmup 3s] [-seed 1] [-json]"

// simulateWakeup runs the wakeup model (sysbench's clients and servers on a
// simulated 4.13 or 6.1 kernel) for each guest size and policy on one
// thread, on kernel time, and prints migrations per 5 s by cause beside
// seed 004's. The table's printing is bench/wakeup's (simtable.go).
func simulateWakeup(stdout io.Writer, args []string) error {
	fs := newFlags(stdout, "simulate", simulateWakeupUsage)
	cpus := fs.String("cpus", "4,8,16,32", "comma-separated guest `sizes` in vCPUs (seed 004 does not give its guest's)")
	topo := fs.String("topo", "s390", "guest `topology`: s390 (every vCPU its own core, no LLC domain: seed 004's guest) or llcN (x86 LLCs of N cpus)")
	policies := fs.String("policies", "", "comma-separated `policies`: llcstats (4.13 before the patch), basic (the patch), v6.1 (default: all)")
	threads := fs.Int("threads", 0, "sysbench client `threads`, each with a server thread (default 40)")
	hz := fs.Int("hz", 0, "CONFIG_HZ (default 100 on s390, 250 on llcN)")
	think := fs.Duration("think", 0, "mean client cpu time per statement (default 8.8µs)")
	service := fs.Duration("service", 0, "mean server cpu time per statement (default 38µs)")
	statements := fs.Int("statements", 0, "statements per transaction (default 20)")
	ioLat := fs.Duration("io", 0, "commit log flush latency, 0 for none")
	irq := fs.String("irq", "", "where I/O completions land: idle, cpu0 or local (default idle on s390, cpu0 on llcN)")
	idleWake := fs.Duration("idlewake", 0, "cost of waking an idle vCPU (default 20µs)")
	pull := fs.Duration("pull", 0, "cpu time a moved task's working set adds to its first run (default 10µs)")
	lbCost := fs.Duration("lbcost", 0, "one level's newidle balance cost (default 5µs)")
	duration := fs.Duration("duration", 0, "kernel time counted per run (default 5s, the seed's window)")
	warmup := fs.Duration("warmup", 0, "kernel time run before counting (default 3s)")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed replays the same runs")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("simulate wakeup: unexpected argument %q (usage: contend simulate %s)", pos[0], simulateWakeupUsage)
	}
	cfg := wakeup.SimConfig{Topology: *topo, Threads: *threads, HZ: *hz, Think: *think, Service: *service,
		Statements: *statements, IO: *ioLat, IRQ: *irq, IdleWake: *idleWake, Pull: *pull, LBCost: *lbCost,
		Duration: *duration, Warmup: *warmup, Seed: *seed}
	for _, f := range []struct {
		name string
		v    int
	}{{"threads", *threads}, {"hz", *hz}, {"statements", *statements}} {
		if flagSet(fs, f.name) && f.v < 1 {
			return fmt.Errorf("simulate wakeup: -%s %d: want a positive value", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"think", *think}, {"service", *service}, {"idlewake", *idleWake}, {"pull", *pull}, {"lbcost", *lbCost}, {"duration", *duration}} {
		if flagSet(fs, f.name) && f.v <= 0 {
			return fmt.Errorf("simulate wakeup: -%s %s: want a positive duration", f.name, f.v)
		}
	}
	if *ioLat < 0 {
		return fmt.Errorf("simulate wakeup: -io %s: want 0 or a positive duration", *ioLat)
	}
	if flagSet(fs, "warmup") && *warmup <= 0 {
		if *warmup < 0 {
			return fmt.Errorf("simulate wakeup: -warmup %s: want 0 or a positive duration", *warmup)
		}
		cfg.Warmup = -1 // SimConfig's zero is the default; -1 asks for none
	}
	for _, f := range strings.Split(*cpus, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("simulate wakeup: -cpus %q: %q is not a whole number", *cpus, f)
		}
		cfg.CPUs = append(cfg.CPUs, n)
	}
	if *policies != "" {
		cfg.Policies = strings.Split(*policies, ",")
	}
	tab, err := wakeup.Simulate(cfg)
	if err != nil {
		return err // one line, "simulate wakeup: ..."
	}
	if *asJSON {
		return writeJSON(stdout, tab.Rows)
	}
	return tab.WriteText(stdout)
}

const simulateIdleMaskUsage = "idlemask [-cpus 192] [-llc 48] [-busy 90] [-wake 10] [-entries 80] [-hz 1000] [-probe 50ns] [-duration 50ms] [-seed 1] [-json]"

// simulateIdleMask runs the idlemask model's update policies at seed 003's
// size on one thread, on kernel time, and prints the mask's writes and the
// searches' probes beside the seed's figures.
func simulateIdleMask(stdout io.Writer, args []string) error {
	fs := newFlags(stdout, "simulate", simulateIdleMaskUsage)
	cpus := fs.Int("cpus", 192, "virtual `cpus` (192: seed 003's 4-socket box)")
	llc := fs.Int("llc", 48, "`cpus` per LLC (48: a socket of 24 cores × 2 threads)")
	busy := fs.Int("busy", 90, "`percent` of non-wakeup events that find the cpu busy")
	wake := fs.Int("wake", 10, "`percent` of events that are wakeups")
	entries := fs.Int("entries", 80, "idle `entries` a cpu makes between two ticks (80: uperf's, seed 003)")
	hz := fs.Int("hz", 1000, "CONFIG_HZ: 1000 or 250")
	probe := fs.Duration("probe", 50*time.Nanosecond, "kernel time one runqueue probe adds to avg_scan_cost")
	duration := fs.Duration("duration", 50*time.Millisecond, "kernel time simulated per row")
	seed := fs.Uint64("seed", 1, "random `seed`: the same seed replays the same events")
	asJSON := fs.Bool("json", false, "print the rows as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("simulate idlemask: unexpected argument %q (usage: contend simulate %s)", pos[0], simulateIdleMaskUsage)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"cpus", *cpus}, {"llc", *llc}, {"entries", *entries}, {"hz", *hz}} {
		if f.v < 1 {
			return fmt.Errorf("simulate idlemask: -%s %d: want a positive value", f.name, f.v)
		}
	}
	if *probe <= 0 || *duration <= 0 {
		return fmt.Errorf("simulate idlemask: -probe %s, -duration %s: want positive durations", *probe, *duration)
	}
	cfg := idlemask.SimConfig{CPUs: *cpus, LLC: *llc, Busy: *busy, Wake: *wake, Entries: *entries, HZ: *hz,
		Probe: *probe, Duration: *duration, Seed: *seed}
	// SimConfig's zero is the default; -1 asks for 0.
	if *busy == 0 {
		cfg.Busy = -1
	}
	if *wake == 0 {
		cfg.Wake = -1
	}
	if *busy < 0 || *wake < 0 {
		return fmt.Errorf("simulate idlemask: -busy %d, -wake %d: want percentages in [0, 100]", *busy, *wake)
	}
	tab, err := idlemask.Simulate(cfg)
	if err != nil {
		return err // one line, "simulate idlemask: ..."
	}
	if *asJSON {
		return writeJSON(stdout, tab.Rows)
	}
	return tab.WriteText(stdout)
}
