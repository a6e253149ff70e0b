package reproduce

import (
	"fmt"
	"math"

	"github.com/contend/contend/internal/results"
)

// A finding is one claim of the seed threads, the experiments that test it
// and the rule that reads their results. Figures quoted in seed come from
// ../shared/seeds (see the digest in benchdata/README.md for where).
type finding struct {
	id          int
	title       string
	seed        string
	applies     func(e *Env) string // "" when it can run here, else why not
	experiments func(e *Env) []Experiment
	judge       func(e *Env, ev *results.Set) (measured, holds, why string)
}

// The units as benchfmt tidies them: ns/op becomes sec/op.
const secPerOp = "sec/op"

func always(*Env) string { return "" }

func needsContention(e *Env) string {
	if e.threads < 2 {
		return "one usable cpu: nothing to contend with"
	}
	return ""
}

func needsNodes(e *Env) string {
	if e.nodes < 2 {
		return "one NUMA node here, so per-node shards have nothing to separate; run with -fake-nodes 2 to exercise the code path (the split is fake: same caches, no remote memory)"
	}
	return needsContention(e)
}

func (e *Env) loadavg(variant string) Experiment {
	return Experiment{"loadavg", variant, e.threads, e.place}
}

// idleExperiments are finding 6's configurations: a 48-CPU LLC, 90% busy.
// The first two are all wakeups (the search before and after the mask); the
// last two have 10% wakeups, so CPUs enter and leave idle and write the mask.
func idleExperiments(e *Env) []Experiment {
	const llc = "busy=90/llc=48/tick=100"
	return []Experiment{
		{"idlemask", "update=none/scan=all/wake=100/" + llc, e.threads, e.place},
		{"idlemask", "update=laststate/scan=mask/wake=100/" + llc, e.threads, e.place},
		{"idlemask", "update=always/scan=mask/wake=10/" + llc, e.threads, e.place},
		{"idlemask", "update=laststate/scan=mask/wake=10/" + llc, e.threads, e.place},
	}
}

// nodemaskExperiments are finding 4's walks over 4 nodes: the full scan,
// PeterZ's bound, Yury's one-word path, and the bound with the one-word
// search chosen per walk.
func nodemaskExperiments() []Experiment {
	var xs []Experiment
	for _, it := range []string{"max", "nr_node_ids", "word", "nr_node_ids+word"} {
		xs = append(xs, Experiment{"nodemask", "iter=" + it + "/nodes=4", 1, "compact"})
	}
	return xs
}

// anyMissing reports whether an Experiment produced no result for a unit.
func anyMissing(stats ...*stat) bool {
	for _, s := range stats {
		if s == nil {
			return true
		}
	}
	return false
}

// ratio returns a/b of two summaries' centers.
func ratio(a, b *stat) float64 { return a.Center / b.Center }

// verdictOf words a comparison of a "before" and an "after" configuration
// where lower is better.
func faster(before, after *stat) (string, bool) {
	sig, p := significant(before, after)
	r := ratio(before, after)
	switch {
	case !sig:
		return fmt.Sprintf("~ (p=%.2f)", p), false
	case r > 1:
		return fmt.Sprintf("%.2f× faster (p=%.3f)", r, p), true
	default:
		return fmt.Sprintf("%.2f× slower (p=%.3f)", 1/r, p), false
	}
}

func ns(s *stat) string {
	return fmt.Sprintf("%.3g ns/op %s", s.Center*1e9, s.PctRangeString())
}

var missing = func() (string, string, string) {
	return "no results", "n/a here", "the Experiment produced no results (interrupted?)"
}

var findings = []finding{
	{
		id:      1,
		title:   "Rate-limiting update_tg_load_avg() to once per ms cuts shared-counter writes by orders of magnitude and speeds the contended path",
		seed:    "~10M → ~25k tg->load_avg updates in 5 s (≈400×); update_cfs_group+update_load_avg 13.75%+10.63% of cycles → 1–2% each; postgres_sysbench +21.2%, netperf UDP_RR +189% on a 224-CPU Sapphire Rapids (000, Aaron Lu)",
		applies: needsContention,
		experiments: func(e *Env) []Experiment {
			return []Experiment{e.loadavg("preset=base"), e.loadavg("preset=rate")}
		},
		judge: func(e *Env, ev *results.Set) (string, string, string) {
			bw, rw := e.get(ev, e.loadavg("preset=base"), "shared-writes/op"), e.get(ev, e.loadavg("preset=rate"), "shared-writes/op")
			bt, rt := e.get(ev, e.loadavg("preset=base"), secPerOp), e.get(ev, e.loadavg("preset=rate"), secPerOp)
			if anyMissing(bw, rw, bt, rt) {
				return missing()
			}
			cut := bw.Center / math.Max(rw.Center, 1e-12)
			speed, ok := faster(bt, rt)
			m := fmt.Sprintf("shared writes/event %.3g → %.3g (%.0f× fewer); ns/op %s → %s: %s", bw.Center, rw.Center, cut, ns(bt), ns(rt), speed)
			switch {
			case cut >= 100 && ok:
				return m, "yes", "the rate limit removes nearly every write to the shared line and the event gets cheaper"
			case cut >= 100:
				return m, "partly", fmt.Sprintf("writes drop as in the seed, but with %d workers the contended line is not what limits an event here", e.threads)
			default:
				return m, "no", "writes did not drop by two orders of magnitude"
			}
		},
	},
	{
		id:      2,
		title:   "With the rate limit in place, per-node counters and skipped reads add nothing measurable",
		seed:    "\"as long as ratelimit patch is there, adding those two other optimizations doesn't improve performance further\": UDP_RR 100% rate 28011 / rate+skip 27087 / rate+node 27337 (000, Aaron Lu, v2 data)",
		applies: needsContention,
		experiments: func(e *Env) []Experiment {
			return []Experiment{e.loadavg("preset=rate"), e.loadavg("preset=rate+node"), e.loadavg("preset=rate+skip")}
		},
		judge: func(e *Env, ev *results.Set) (string, string, string) {
			r := e.get(ev, e.loadavg("preset=rate"), secPerOp)
			n := e.get(ev, e.loadavg("preset=rate+node"), secPerOp)
			s := e.get(ev, e.loadavg("preset=rate+skip"), secPerOp)
			if anyMissing(r, n, s) {
				return missing()
			}
			nd, nok := faster(r, n)
			sd, sok := faster(r, s)
			m := fmt.Sprintf("rate %s; +node %s (%s); +skip %s (%s)", ns(r), ns(n), nd, ns(s), sd)
			// The seed's own spread between the three is about 3%: a gain
			// below 5% is "nothing further" in its sense.
			nGain, sGain := nok && ratio(r, n) > 1.05, sok && ratio(r, s) > 1.05
			switch {
			case !nGain && !sGain:
				return m, "yes", "neither addition gains more than 5% once writes are rate-limited"
			case nGain && sGain:
				return m, "no", "both additions still gain more than 5%: the rate-limited path is not yet free of the shared line"
			default:
				return m, "partly", "one addition still gains more than 5% on this machine"
			}
		},
	},
	{
		id:      3,
		title:   "Per-node counters make the write side node-local, but the read side sums every node",
		seed:    "\"the write side update_load_avg() will become local. The sad part is, the read side is still global\"; with per-node alone still ~7% / ~5% of cycles; node vs base: UDP_RR +48.4% (000, patch 2/4)",
		applies: needsNodes,
		experiments: func(e *Env) []Experiment {
			return []Experiment{e.loadavg("preset=base"), e.loadavg("preset=node")}
		},
		judge: func(e *Env, ev *results.Set) (string, string, string) {
			bw, nw := e.get(ev, e.loadavg("preset=base"), "shared-writes/op"), e.get(ev, e.loadavg("preset=node"), "shared-writes/op")
			br, nr := e.get(ev, e.loadavg("preset=base"), "read-lines/op"), e.get(ev, e.loadavg("preset=node"), "read-lines/op")
			bt, nt := e.get(ev, e.loadavg("preset=base"), secPerOp), e.get(ev, e.loadavg("preset=node"), secPerOp)
			if anyMissing(bw, nw, br, nr, bt, nt) {
				return missing()
			}
			speed, _ := faster(bt, nt)
			m := fmt.Sprintf("cross-node shared writes/event %.3g → %.3g; lines read/event %.3g → %.3g; ns/op %s → %s: %s",
				bw.Center, nw.Center, br.Center, nr.Center, ns(bt), ns(nt), speed)
			fake := ""
			if e.topo.IsFake() {
				fake = " (fake nodes: the trade is shown, not its NUMA cost)"
			}
			if nw.Center < bw.Center && nr.Center > br.Center {
				return m, "yes", "writes stay on the writer's node while every read touches one line per node" + fake
			}
			return m, "no", "the per-node store did not trade shared writes for wider reads here" + fake
		},
	},
	{
		id:      4,
		title:   "Bounding node iteration by nr_node_ids instead of MAX_NUMNODES saves scanning on ≤ 4 nodes",
		seed:    "\"distros have NODES_SHIFT=10 and actual machines typically only have <=4 nodes, this would save a factor of 256 scanning\" (000, PeterZ); Yury: it breaks small_const_nbits(); no timing in the seed",
		applies: always,
		experiments: func(e *Env) []Experiment {
			return nodemaskExperiments()
		},
		judge: func(e *Env, ev *results.Set) (string, string, string) {
			x := nodemaskExperiments()
			mx, nr, wd, hy := x[0], x[1], x[2], x[3]
			mb, nb := e.get(ev, mx, "bits-scanned/op"), e.get(ev, nr, "bits-scanned/op")
			mt, nt, wt, ht := e.get(ev, mx, secPerOp), e.get(ev, nr, secPerOp), e.get(ev, wd, secPerOp), e.get(ev, hy, secPerOp)
			if anyMissing(mb, nb, mt, nt, wt, ht) {
				return missing()
			}
			m := fmt.Sprintf("4 nodes: bits scanned %.0f → %.0f (%.0f×); ns/op %s → %s (%.1f×); one-word path %s (%.1f× more); nr_node_ids bound with the one-word search chosen per walk %s (%.1f× the full scan)",
				mb.Center, nb.Center, ratio(mb, nb), ns(mt), ns(nt), ratio(mt, nt), ns(wt), ratio(nt, wt), ns(ht), ratio(mt, ht))
			t := ratio(mt, nt)
			switch {
			case t >= 10:
				return m, "yes", "the scan shrinks by the seed's factor and the time follows"
			case t > 1:
				return m, "partly", fmt.Sprintf("the scanning shrinks %.0f×, but word-at-a-time search reads 64 bits per load and each found node costs a call, so time drops only %.1f×", ratio(mb, nb), t)
			default:
				return m, "no", "bounding the scan did not make the walk faster here"
			}
		},
	},
	{
		id:      5,
		title:   "Checking \"balance due and designated\" before the cmpxchg on sched_balance_running removes the flag contention",
		seed:    "7.8% of all cycles in sched_balance_domains() on the lock cmpxchg (99.39% of its samples) on a 2-socket Granite Rapids; after the fix it is gone from the profile and throughput +5% (002, Tim Chen)",
		applies: needsContention,
		experiments: func(e *Env) []Experiment {
			return []Experiment{
				{"balanceflag", "order=cmpxchg-first", e.threads, e.place},
				{"balanceflag", "order=check-first", e.threads, e.place},
			}
		},
		judge: func(e *Env, ev *results.Set) (string, string, string) {
			before := Experiment{"balanceflag", "order=cmpxchg-first", e.threads, e.place}
			after := Experiment{"balanceflag", "order=check-first", e.threads, e.place}
			bc, ac := e.get(ev, before, "cas/op"), e.get(ev, after, "cas/op")
			bb, ab := e.get(ev, before, "balances/op"), e.get(ev, after, "balances/op")
			bt, at := e.get(ev, before, secPerOp), e.get(ev, after, secPerOp)
			if anyMissing(bc, ac, bb, ab, bt, at) {
				return missing()
			}
			speed, ok := faster(bt, at)
			m := fmt.Sprintf("cmpxchg/tick %.3g → %.3g (%.0f× fewer); balances/tick %.3g vs %.3g; ns/op %s → %s: %s",
				bc.Center, ac.Center, bc.Center/math.Max(ac.Center, 1e-12), bb.Center, ab.Center, ns(bt), ns(at), speed)
			fewer := bc.Center >= 10*ac.Center
			switch {
			case fewer && ok:
				return m, "yes", "the same balancing work with a fraction of the cmpxchg attempts, and ticks get cheaper"
			case fewer:
				return m, "partly", fmt.Sprintf("attempts drop as in the seed, but at %d workers the flag's line is not the bottleneck", e.threads)
			default:
				return m, "no", "check-first did not remove most cmpxchg attempts"
			}
		},
	},
	{
		id:      6,
		title:   "A shared idle cpumask makes wakeup scans cheaper when most CPUs are busy, at the price of writes to a shared word",
		seed:    "uperf on 192 CPUs (4 sockets): +23% / +67% / +81% / +51% at 96 / 144 / 192 / 240 threads; write pressure \"80 idle entries/exits between two ticks\" mitigated by last_idle_state; hackbench -g 1 −45% with v5 on arm64 (003)",
		applies: always,
		experiments: func(e *Env) []Experiment {
			return idleExperiments(e)
		},
		judge: func(e *Env, ev *results.Set) (string, string, string) {
			x := idleExperiments(e)
			full, patch := x[0], x[1]       // wakeups only: the search
			always, laststate := x[2], x[3] // idle transitions too: the writes
			fs, ps := e.get(ev, full, "cpus-scanned/op"), e.get(ev, patch, "cpus-scanned/op")
			ft, pt := e.get(ev, full, secPerOp), e.get(ev, patch, secPerOp)
			aw, lw := e.get(ev, always, "mask-writes/op"), e.get(ev, laststate, "mask-writes/op")
			if anyMissing(fs, ps, ft, pt, aw, lw) {
				return missing()
			}
			speed, ok := faster(ft, pt)
			m := fmt.Sprintf("90%% busy, 48-CPU LLC: cpus scanned per wakeup %.3g (every CPU) → %.3g (idle mask); ns per wakeup %s → %s: %s; shared-mask writes per event: exact mask %.3g, last_idle_state filter %.3g (%.0f× fewer)",
				fs.Center, ps.Center, ns(ft), ns(pt), speed, aw.Center, lw.Center, aw.Center/math.Max(lw.Center, 1e-12))
			switch {
			case ps.Center < fs.Center && ok:
				return m, "yes", "the mask search visits fewer CPUs and wins when most are busy, and the filter keeps the shared writes down"
			case ps.Center < fs.Center:
				return m, "partly", "the mask search visits fewer CPUs, but the saving does not show in ns per wakeup here"
			default:
				return m, "no", "the mask search did not visit fewer CPUs"
			}
		},
	},
	{
		id:      7,
		title:   "Giving tg->load_avg a dedicated cache line removes false sharing with the fields every event reads",
		seed:    "no figure: \"made tg->load_avg stay in a dedicated cacheline to avoid any false sharing issue as discovered by Deng Pan\" (000 cover letter); the sched.h comment puts it in its own line",
		applies: needsContention,
		experiments: func(e *Env) []Experiment {
			return []Experiment{e.loadavg("preset=base"), e.loadavg("preset=base/store=falseshare")}
		},
		judge: func(e *Env, ev *results.Set) (string, string, string) {
			ded, fs := e.get(ev, e.loadavg("preset=base"), secPerOp), e.get(ev, e.loadavg("preset=base/store=falseshare"), secPerOp)
			if anyMissing(ded, fs) {
				return missing()
			}
			speed, ok := faster(fs, ded)
			m := fmt.Sprintf("ns/op shared line %s → dedicated line %s: %s", ns(fs), ns(ded), speed)
			if ok {
				return m, "yes", "the read-mostly fields stop missing once the counter has its own line"
			}
			return m, "no", fmt.Sprintf("with %d workers every event also writes the counter's line, so the extra misses on the shared fields do not show", e.threads)
		},
	},
}

// NumFindings returns how many findings a reproduce run judges.
func NumFindings() int { return len(findings) }
