package reproduce

import (
	"fmt"

	"github.com/contend/contend/bench/balanceflag"
	"github.com/contend/contend/bench/cpumask"
	"github.com/contend/contend/bench/idlemask"
	"github.com/contend/contend/bench/loadavg"
	"github.com/contend/contend/bench/rqlayout"
)

// The findings of the 2025–26 threads (listed in the engineers'
// /work/shared/anchors/2025-2026.md, outside the repository): newer than
// the seeds, with figures of their own, quoted in each finding's Seed.

// 11. root_domain's cpupri masks split per node and per LLC, and written
// with a byte store (K Prateek Nayak's user-space test, in review of Pan
// Deng's "sched/rt: Split cpupri_vec->cpumask to per NUMA node",
// https://lkml.iu.edu/2604.1/02171.html).
func cpumaskSplit(e *Env) *Finding {
	const (
		// "%cycles vs global mask operation": per-NUMA 32.9209 %,
		// per-LLC 1.2977 %, per-LLC u8 0.4930 % (2-socket Zen 3).
		nodeYes = 100 / 32.9209
		byteYes = 1.2977 / 0.4930
	)
	global, node := e.cpumask(cmGlobal), e.cpumask(cmNode)
	llc, llcByte := e.cpumask(cmLLC), e.cpumask(cmLLCByte)
	yes := []Claim{claim("ns per write", ns, Lower, llc, llcByte, byteYes)}
	partly := []Claim{claim("ns per write", ns, Lower, llc, llcByte, noticeable)}
	note := ""
	if e.nodes >= 2 {
		yes = append(yes, claim("ns per write", ns, Lower, global, node, nodeYes))
		partly = append(partly, claim("ns per write", ns, Lower, global, node, noticeable))
		note = fakeNote(e)
	} else {
		note = "the per-node split is n/a here: one NUMA node, so split=node is the global mask (line-writers shows it) and only the byte store is judged; run on two nodes, or with -fake-nodes 2 for the split's line without the interconnect"
	}
	return &Finding{
		ID:       11,
		Title:    "Splitting root_domain's cpupri mask per node, and writing it per LLC with a plain byte store, makes its writes cheaper",
		Short:    "cpupri mask per node, byte stores",
		seedSize: sz256,
		Seed:     "cycles in the mask operations, two threads per cpu yielding to each other, one setting and one clearing the cpu's bit: global mask 100 %, per NUMA node 32.9 %, per LLC 1.30 %, per LLC with a u8 store (no LOCK) 0.49 % (2-socket Zen 3, 128 threads and 8 LLCs per socket; K Prateek Nayak, 2026-04-09, in review of Pan Deng's cpupri series)",
		needs:    needsContention,
		Yes:      yes,
		Partly: [][]Claim{
			partly,
		},
		MechanismNote: "every variant makes the same writes, one per operation, and the run fails unless each worker's bit (or byte) matches the parity of its writes: no split or store can win by not writing",
		Shown: []Shown{
			shown("workers writing each mask line, per node", cpumask.LineWriters, global, node),
			shown("workers whose mask line another node writes, %", cpumask.CrossNode, global, node),
			shown("workers writing each mask line, per LLC", cpumask.LineWriters, global, llc),
			forReference("ns per write, global → per LLC (as many LLCs as the workers span)", ns, global, llc),
			forReference("ns per write, cpupri_vec's count off the mask's line", ns, e.cpumask(cmVecShared), e.cpumask(cmVecPadded)),
			forReference("ns per write, cpupri_vec padded → mask per node", ns, e.cpumask(cmVecPadded), e.cpumask(cmVecPerNode)),
		},
		Notes: map[string]string{Yes: note, Partly: note, No: note},
	}
}

// 12. struct rq's fields reordered by access group (Blake Jones,
// 89951fc1f820).
func rqReorder(e *Env) *Finding {
	// "4.6% reduction in scheduler cycles on Intel Haswell" and about 5 %
	// on Power11: the smaller, as a ratio of cycles before to after.
	const reorderYes = 1 / (1 - 0.046)
	before, after := e.rqlayout(rqBefore), e.rqlayout(rqAfter)
	return &Finding{
		ID:       12,
		Title:    "Grouping struct rq's pick_next fields on one line, away from the lock, makes __schedule() cheaper when remote cpus wake tasks onto the rq",
		Short:    "struct rq regrouped: cheaper picks",
		seedSize: szHSW,
		Seed:     "a fleet profile of rq fields: 50 % of cycles on __lock, 39 % on the pick_next fields (38 loads per store), 8 % on the clock fields; reordered, scheduler cycles −4.6 % on Haswell, about −5 % on Power11 (Blake Jones, 89951fc1f820, merged 2026-01)",
		needs:    needsContention,
		Yes:      []Claim{claim("ns per pick", ns, Lower, before, after, reorderYes)},
		Partly: [][]Claim{
			{claim("ns per pick", ns, Lower, before, after, small)},
		},
		Checks:        []Claim{claim("remote wakeups per pick", rqlayout.Wakeups, Agree, before, after, 0.10)},
		MechanismNote: "the same code on the same fields, laid out differently, and the run fails unless every wakeup was run or is still queued: the reorder cannot win by not waking",
		Shown: []Shown{
			shown("lines the pick reads", rqlayout.PickLines, before, after),
			shown("of them, lines a remote wakeup writes", rqlayout.WokenPickLines, before, after),
			forReference("loads spent waiting for a held rq lock, per pick", rqlayout.LockSpins, before, after),
		},
		Notes: map[string]string{
			No: fmt.Sprintf("at %d workers, each rq has one remote waker; the fleet's rqs had many, and a machine's other fields (cfs, rt, dl) between the lines the model leaves out", e.threads),
		},
	}
}

// 13. The rate limit reads the rq's clock instead of sched_clock_cpu()
// (Rik van Riel, 2026-05, https://lkml.iu.edu/2605.3/05726.html).
func rateLimitClock(e *Env) *Finding {
	// "about 20 % less cpu in sched_balance_update_blocked_averages" in
	// his synthetic test: the function holds update_tg_load_avg() and
	// more, so the same time taken out of update_tg_load_avg() alone is
	// at least a 20 % cut of it, 1/(1-0.2) = 1.25 as a ratio.
	const clockYes = 1 / (1 - 0.20)
	sched, rq := e.loadavg(laClockSched), e.loadavg(laClockRq)
	return &Finding{
		ID:    13,
		Title: "Reading the rq's cached clock instead of sched_clock_cpu() in update_tg_load_avg()'s rate limit makes the write path cheaper, writing as often",
		Short: "rate limit reads the rq clock",
		Seed:  "a production profile: nohz_idle_balance 75 % of a cpu, update_load_avg 35 %, sched_clock_cpu 17 %; reading the rq clock instead, about 20 % less cpu in sched_balance_update_blocked_averages in a synthetic test (Rik van Riel, 2026-05, v2)",
		needs: needsContention,
		Yes:   []Claim{claim(writeShare, loadavg.WritePath, Lower, sched, rq, clockYes)},
		Partly: [][]Claim{
			{claim(writeShare, loadavg.WritePath, Lower, sched, rq, noticeable)},
		},
		Checks: []Claim{loadMovesAgree(sched, rq)},
		Mechanism: []Guard{
			guard("writing tg->load_avg", "tg->load_avg writes per cpu per kernel second", loadavg.CfsRqWritesPerSec, NotBelow, sched, rq, 0.9),
			keepsTGWeight(sched, rq),
		},
		Shown: []Shown{
			forReference("tg->load_avg writes per cpu per kernel second, both levels' cfs_rqs", loadavg.CfsRqWritesPerSec, sched, rq),
			forReference("ns per event", ns, sched, rq),
		},
		Notes: map[string]string{
			No: "the model reaches update_tg_load_avg() from en/dequeues (on a migration's attach and detach, and once a PELT period), not from the nohz idle balancer's walk over many cgroups' cfs_rqs where his profile found sched_clock_cpu(), and the write path's timing (two clock reads around a sampled call) is a floor under both sides",
		},
	}
}

// 14. nohz.nr_cpus removed in favour of the mask's weight (Shrikanth
// Hegde, 5d86d542f68f).
func nohzNrCPUs(e *Env) *Finding {
	before, after := e.idlemaskNohz(imNohzCounter), e.idlemaskNohz(imNohzWeight)
	return &Finding{
		ID:       14,
		Title:    "Dropping nohz.nr_cpus, the atomic counter beside nohz.idle_cpus_mask, makes the tick-stop path cheaper",
		Short:    "nohz.nr_cpus dropped",
		seedSize: sz480,
		Seed:     "no figure: \"Remove nohz.nr_cpus and use weight of cpumask instead\", for systems with 480+ cpus, where every tick-stop entry and exit also incremented or decremented the one atomic counter (Shrikanth Hegde, series of 2026-01-12, merged as 5d86d542f68f)",
		needs:    needsContention,
		// No figure in the thread: the size is seed 000's line
		// between an effect and none.
		Yes: []Claim{claim("ns per event", ns, Lower, before, after, noticeable)},
		Partly: [][]Claim{
			{claim("ns per event", ns, Lower, before, after, small)},
		},
		// The first run of this finding had no tick stopped on either
		// side (at 100 events a tick): the fix must still track
		// tickless cpus, or it wins by not entering nohz at all.
		Mechanism: []Guard{guard("tracking tickless cpus", "nohz.idle_cpus_mask writes per event", idlemask.NohzWrites, Floor, before, after, 0.01)},
		simulate:  simNohz,
		Shown: []Shown{
			shown("locked writes to nohz.idle_cpus_mask and nohz.nr_cpus per event", idlemask.NohzWrites, before, after),
			forReference("idle-mask writes per event", idlemask.MaskWrites, before, after),
			shown("balanceflag: locked nohz writes per tick", balanceflag.NohzWrites, e.balanceflag(bfNohzCounter), e.balanceflag(bfNohzWeight)),
			forReference("balanceflag: ns per tick", ns, e.balanceflag(bfNohzCounter), e.balanceflag(bfNohzWeight)),
		},
		Notes: map[string]string{
			No: fmt.Sprintf("the counter's writes are one per tick stop and one per restart, a small part of an event; with %d workers few cpus write its line, where the commit's machines had 480 and more", e.threads),
		},
	}
}
