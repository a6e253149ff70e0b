package reproduce

import (
	"fmt"
	"strings"
)

// Every configuration a finding runs, in one place: when a scenario renames a
// preset or a key, this file changes and the findings do not. TestExperiments
// checks that each one is a variant its scenario accepts, so a rename fails a
// test rather than leaving a finding with "no results".

// An Experiment is one configuration a finding needs.
type Experiment struct {
	Scenario, Variant string
	Threads           int
	Place             string
	// Label names the experiment in criteria and tables ("rate",
	// "check-first"): the part of the variant that sets it apart.
	Label string
	// contended marks an experiment sized by the Env (its worker count and
	// placement): EnvFromResults reads those back from a file's results
	// for such experiments.
	contended bool
}

// x is a contended experiment at the Env's worker count and placement.
func (e *Env) x(scenario, variant, label string) Experiment {
	return Experiment{Scenario: scenario, Variant: variant, Threads: e.threads, Place: e.place, Label: label, contended: true}
}

// tg->load_avg (seed 000), on kernel time. The presets are the thread's
// labels: base, node (v1's patch 2 alone, with for_each_node over
// MAX_NUMNODES), and the v2 series, where rate is the rate limit on base and
// skip and node are cumulative on it. Unpaced, events come as fast as the
// machine runs them (for ns per event); paced, each takes the seed's 40us of
// wall time, so the share of time in the hot path reads as a profile's
// share of cycles.
func (e *Env) loadavg(v string) Experiment {
	return e.x("loadavg", v, strings.TrimPrefix(v, "preset="))
}

func (e *Env) loadavgPaced(v string) Experiment {
	return e.x("loadavg", v+"/pace=kernel", strings.TrimPrefix(v, "preset=")+", paced")
}

const (
	laBase         = "preset=base"
	laNode         = "preset=node"
	laRate         = "preset=rate"
	laRateSkip     = "preset=rate+skip"
	laRateSkipNode = "preset=rate+skip+node"
	laFalseShare   = "preset=base/store=falseshare"
)

// sched_balance_running (seed 002), ticks back to back (the stress mode,
// for ns per tick) or paced at the kernel's HZ (for the share of time on the
// flag, comparable with a profile's share of cycles), on a machine balanced
// as the seed's was (bfMachine).
func (e *Env) balanceflag(v string) Experiment {
	return e.x("balanceflag", v+"/pace=off"+e.bfMachine(), strings.TrimPrefix(v, "order="))
}

func (e *Env) balanceflagPaced(v string) Experiment {
	return e.x("balanceflag", v+"/pace=on"+e.bfMachine(), strings.TrimPrefix(v, "order=")+", paced")
}

// bfMachine is the seed's machine as well as this one can stand for it
// (issue 23): its OLTP load, a tenth of the cpus idle in a tick (busy=90),
// balancing with the idle interval, and busy ones newly idle every other
// tick (newidle=2); and, where this machine has nodes, its two SD_SERIALIZE
// levels (2 sockets of SNC-2 nodes of 128 cpus: the socket's level and the
// machine's), with the workers spread over the nodes' first cpus. On one
// node the domains keep the default's single NUMA level.
func (e *Env) bfMachine() string {
	const load = "/busy=90/newidle=2"
	if e.nodes < 2 {
		return load
	}
	span := max(512, (e.threads+255)/256*256) // whole sockets of 256 holding every worker
	return fmt.Sprintf("/span=%d/group=128/snc=2", span) + load
}

const (
	bfBefore = "order=cmpxchg-first" // before 3324b2180c17
	bfAfter  = "order=check-first"   // after it
)

// The per-LLC idle cpumask (seed 003), on a 48-CPU LLC (the seed's 24 cores
// × 2 threads per socket) kept 90% busy, 10% of events wakeups, with the
// SIS_PROP budget of the seed's kernel. The search compared is the kernel
// before the patch against v5 as posted (tickstop), the variant the seed's
// uperf figures were measured with; the last_idle_state filter is isolated
// by the same tick-cleared mask with and without it.
// Every idlemask experiment runs with select_idle_sibling()'s shortcuts
// (early=on), as the kernel does; idlemaskNoEarly is the same without them,
// every wakeup scanning, shown beside.
func (e *Env) idlemask(x labelled) Experiment {
	return e.x("idlemask", x.variant+"/sis=prop/busy=90/wake=10/llc=48/tick=100/early=on", x.label)
}

func (e *Env) idlemaskNoEarly(x labelled) Experiment {
	return e.x("idlemask", x.variant+"/sis=prop/busy=90/wake=10/llc=48/tick=100/early=off", x.label+", early=off")
}

// idlemaskSMT is the same on cores of two threads (smt=2), as the seed's
// machine: select_idle_core() scans the LLC before the mask, select_idle_smt()
// after it. Shown beside; the judged pair stays smt=1, the model the
// recorded results were measured with.
func (e *Env) idlemaskSMT(x labelled) Experiment {
	return e.x("idlemask", x.variant+"/sis=prop/busy=90/wake=10/llc=48/tick=100/early=on/smt=2", x.label+", smt=2")
}

// labelled is a variant with the short name tables give it.
type labelled struct{ label, variant string }

var (
	imScanAll    = labelled{"no mask", "update=none/scan=all"}
	imScanMask   = labelled{"v5 mask", "update=tickstop/scan=mask"}
	imNoFilter   = labelled{"update=tick", "update=tick/scan=mask"}
	imLastState  = labelled{"update=laststate", "update=laststate/scan=mask"}
	imExactWrite = labelled{"update=always", "update=always/scan=mask"}
)

// nohz.nr_cpus (5d86d542f68f) on v5's tick-stop path, the counter beside
// the mask before and the mask alone after, at 90 % busy with one event
// per tick: every idle period lasts a tick or more, so the governor stops
// the tick (at the idlemask experiments' 100 events a tick an idle period
// is a few hundredths of a tick, and no tick is ever stopped).
func (e *Env) idlemaskNohz(x labelled) Experiment {
	return e.x("idlemask", x.variant+"/sis=prop/busy=90/wake=10/llc=48/tick=1", x.label)
}

// The same pair in balanceflag's ticks, on the seed's machine after the
// flag's fix.
const (
	bfNohzCounter = bfAfter + "/nohz=counter"
	bfNohzWeight  = bfAfter + "/nohz=weight"
)

var (
	imNohzCounter = labelled{"nohz.nr_cpus", "update=tickstop/scan=mask/nohz=counter"}
	imNohzWeight  = labelled{"mask weight", "update=tickstop/scan=mask/nohz=weight"}
)

// for_each_node over 4 possible nodes with MAX_NUMNODES 1024 (seed 000,
// PeterZ): one worker, nothing shared, so the walk's own cost shows.
func nodemask(iter string) Experiment {
	return Experiment{Scenario: "nodemask", Variant: "iter=" + iter + "/nodes=4", Threads: 1, Place: "compact", Label: iter}
}

const (
	nmMax       = "max"              // before
	nmLoopBound = "loopbound"        // PeterZ's diff as posted: the loop's bound only
	nmBounded   = "nr_node_ids"      // the searches bounded too
	nmWord      = "word"             // Yury's small_const_nbits() one-word path
	nmHybrid    = "nr_node_ids+word" // the bound, with the one-word search when it fits
)

// Wakeup migrations (seed 004): the kernel model's schedule of sysbench
// oltp's clients and server threads on the seed's guest topology (s390x
// without the topology facility: every vCPU its own core, DIE alone, no
// sd_llc), before the patch (wake=llcstats: 4.13's wake_affine_llc()) and
// with it (wake=basic), replayed on the pinned workers, one vCPU each, with
// a 256-line working set per task. pairs=40 is sysbench's thread count,
// PeterZ's smallest in the seed where the patch helped; bench/wakeup's
// sim.go says where each of the model's other defaults comes from.
func (e *Env) wakeup(x labelled) Experiment {
	return e.x("wakeup", x.variant+"/topo=s390/pairs=40/lines=256", x.label)
}

var (
	wkBefore = labelled{"pre-patch", "wake=llcstats"}
	wkAfter  = labelled{"patched", "wake=basic"}
)

// root_domain's cpupri masks (Pan Deng's series, K Prateek Nayak's test,
// 2026-04): every worker sets and clears its bit as fast as it can, his
// worst case of one write per switch.
func (e *Env) cpumask(x labelled) Experiment {
	return e.x("cpumask", x.variant+"/work=0", x.label)
}

var (
	cmGlobal     = labelled{"global mask", "split=global/store=lock/vec=off"}
	cmNode       = labelled{"per-node masks", "split=node/store=lock/vec=off"}
	cmLLC        = labelled{"per-LLC masks", "split=llc/store=lock/vec=off"}
	cmLLCByte    = labelled{"per-LLC bytes", "split=llc/store=byte/vec=off"}
	cmVecShared  = labelled{"cpupri_vec", "split=global/store=lock/vec=shared"}
	cmVecPadded  = labelled{"cpupri_vec padded", "split=global/store=lock/vec=padded"}
	cmVecPerNode = labelled{"cpupri_vec per node", "split=node/store=lock/vec=padded"}
)

// struct rq before and after Blake Jones's reorder (89951fc1f820): every
// worker schedules on its own rq and wakes onto the next one every 16
// picks (the commit's 38:1 load:store ratio on the pick_next fields).
func (e *Env) rqlayout(layout string) Experiment {
	return e.x("rqlayout", "layout="+layout+"/picks=16/work=0", layout+" the reorder")
}

const (
	rqBefore = "before"
	rqAfter  = "after"
)

// The rate limit's own clock (Rik van Riel, 2026-05): the merged rate
// limit's sched_clock_cpu() against the rq's cached clock, on the rate
// preset, unpaced, so that the write path's share reads its cost.
const (
	laClockSched = laRate + "/clock=sched_clock"
	laClockRq    = laRate + "/clock=rq_clock"
)
