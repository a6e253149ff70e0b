package kernel

import (
	"fmt"
	"strings"
)

// The balancer's passes by cause: which cpu's tick asked for each, and
// whether it was a cpu balancing itself or the nohz balancer balancing an
// idle cpu whose tick is stopped. v6.1's fair.c and v6.12's (where v6.10
// renamed run_rebalance_domains and rebalance_domains sched_balance_*)
// share the shape:
//
//	sched_balance_softirq()          SCHED_SOFTIRQ, raised by a busy tick
//	                                 (rq->next_balance due) or by the
//	                                 nohz kick's IPI (nohz_csd_func)
//	  nohz_idle_balance()            this rq's nohz kick flags, taken
//	    _nohz_idle_balance(flags)    the walk: for each cpu of
//	                                 nohz.idle_cpus_mask still idle, and
//	                                 due, with NOHZ_BALANCE_KICK:
//	      sched_balance_domains(rq, CPU_IDLE)   a pass on its behalf
//	  (else) sched_balance_domains(this_rq, idle)   the cpu's own pass
//	nohz_run_idle_balance(cpu)       do_idle(): _nohz_idle_balance(rq,
//	                                 NOHZ_STATS_KICK), blocked load only,
//	                                 set up by nohz_newidle_balance()
//	kick_ilb(flags)                  a busy tick's nohz_balancer_kick()
//	                                 choosing to kick (stats-only too)
//	nohz_csd_func()                  the kick's IPI on the chosen cpu
//	nohz_balance_enter_idle(cpu)     a tick stopped in idle: the cpu
//	                                 leaves its LLC's nr_busy_cpus (the
//	                                 kick's reason) until its next busy
//	                                 tick's nohz_balance_exit_idle()
//
// Each is counted by a kprobe where kallsyms has the function (a static
// function the compiler inlined has none; GCC's clones, name.isra.0, are
// taken) and tracefs accepts the probe. The passes on an idle cpu's
// behalf are counted at _nohz_idle_balance's direct calls of the pass
// (found by disassembly, as the sites are), so the cpus' own passes are
// the passes less those.

// A Cause is one of the balancer's per-cause probes and its hits over the
// counted run: Hits -1 where it could not be set, and Why says why.
type Cause struct {
	Name string `json:"cause"`            // a key of CauseWhat
	At   string `json:"at,omitempty"`     // what the kprobe is on: func, or func+off for a call
	Hits int64  `json:"hits"`             // -1: not counted
	Why  string `json:"why,omitempty"`    // why not counted
	Miss int64  `json:"missed,omitempty"` // hits kprobe_profile says the probe missed
}

// CauseWhat says what each cause counts, in the order they are reported.
var CauseWhat = []struct{ Name, What string }{
	{"softirq", "SCHED_SOFTIRQ runs: sched_balance_softirq / run_rebalance_domains"},
	{"nohz-walk", "_nohz_idle_balance calls: the nohz balancer's walks, and nohz_run_idle_balance's blocked-load-only ones"},
	{"nohz-softirq", "nohz_idle_balance calls (from every softirq; it walks when this rq was kicked and is idle)"},
	{"nohz-run-idle", "nohz_run_idle_balance calls (do_idle; it walks, stats only, when nohz_newidle_balance set NOHZ_NEWILB_KICK)"},
	{"nohz-newidle", "nohz_newidle_balance calls (the newidle walk's end)"},
	{"kick", "kick_ilb calls: a busy tick's nohz_balancer_kick kicking, stats-only kicks too"},
	{"kick-ipi", "nohz_csd_func calls: kicks that reached the chosen idle cpu (a kick whose flags it already has sends none)"},
	{"tick-stop", "nohz_balance_enter_idle calls: a cpu's tick stopped in idle, out of its LLC's nr_busy_cpus until its next busy tick"},
	// The idle loop's asks of the tick (idle.go): without a cpuidle
	// driver, one or the other per iteration from f4c31b07b136, only the
	// ask before it; with one, the governor's choice.
	{"idle-stop-asks", "tick_nohz_idle_stop_tick calls: the idle loop asking to stop the tick (without a cpuidle driver: every iteration before f4c31b07b136, from it those after an iteration the tick ended or with the tick stopped; with one, the governor's choice)"},
	{"idle-retains", "tick_nohz_idle_retain_tick calls: the idle loop keeping the tick (without a cpuidle driver: none before f4c31b07b136, from it an idle's first iteration and those no tick ended, the tick running; with one, the governor's choice)"},
	// The ticks that fire, and those that find the cpu idle: the
	// idle pattern at the tick instants, which is what a model that draws
	// each cpu idle or busy per tick stands for (busy-% is a time share,
	// and a stopped tick fires none).
	{"tick", "sched_tick calls (scheduler_tick before v6.10): every tick that fires, busy or idle; a cpu whose tick is stopped fires none"},
	{"idle-tick", "task_tick_idle calls: ticks that fire while the cpu runs its idle task (sched_tick's curr->sched_class->task_tick, the idle class's)"},
	{"on-behalf", "passes _nohz_idle_balance runs for an idle cpu: its calls of the pass function"},
}

// causeFuncs are the functions each function-entry cause is probed at,
// under every name they have had.
var causeFuncs = map[string][]string{
	"softirq":        {"sched_balance_softirq", "run_rebalance_domains"},
	"nohz-walk":      {"_nohz_idle_balance"},
	"nohz-softirq":   {"nohz_idle_balance"},
	"nohz-run-idle":  {"nohz_run_idle_balance"},
	"nohz-newidle":   {"nohz_newidle_balance"},
	"kick":           {"kick_ilb"},
	"kick-ipi":       {"nohz_csd_func"},
	"tick-stop":      {"nohz_balance_enter_idle"},
	"idle-stop-asks": {"tick_nohz_idle_stop_tick"},
	"idle-retains":   {"tick_nohz_idle_retain_tick"},
	"tick":           {"sched_tick", "scheduler_tick"},
	"idle-tick":      {"task_tick_idle"},
}

// causeProbe is where one cause's kprobe goes, or why it cannot.
type causeProbe struct {
	cause   string
	targets []string // kprobe targets: a function, or func+off (one per call site)
	at      string
	why     string
}

// causeProbes finds where each cause can be counted on this kernel.
// balanceFn is the pass's function (sched_balance_domains or
// rebalance_domains), "" where kallsyms has neither.
func causeProbes(in Input, balanceFn string) ([]causeProbe, error) {
	var out []causeProbe
	for _, c := range CauseWhat {
		p := causeProbe{cause: c.Name}
		if c.Name == "on-behalf" {
			calls, why, err := callsOf(in, "_nohz_idle_balance", balanceFn)
			if err != nil {
				return nil, err
			}
			p.targets, p.why = calls, why
			p.at = strings.Join(calls, ",")
			out = append(out, p)
			continue
		}
		names := causeFuncs[c.Name]
		for _, n := range names {
			if sym, _, ok := in.Syms.Func(n); ok {
				p.targets, p.at = []string{sym.Name}, sym.Name
				break
			}
		}
		if p.targets == nil {
			p.why = "not in kallsyms (inlined): " + strings.Join(names, ", ")
		}
		out = append(out, p)
	}
	return out, nil
}

// callsOf finds host's direct calls of callee (kprobe targets
// "host+off"), or says why there are none.
func callsOf(in Input, host, callee string) ([]string, string, error) {
	if callee == "" {
		return nil, "kallsyms has no pass function (sched_balance_domains, rebalance_domains)", nil
	}
	sym, size, ok := in.Syms.Func(host)
	if !ok {
		return nil, host + " is not in kallsyms", nil
	}
	dst, _, ok := in.Syms.Func(callee)
	if !ok {
		return nil, callee + " is not in kallsyms", nil
	}
	code := make([]byte, size)
	if err := in.Mem.ReadAt(code, sym.Addr); err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", sym.Name, err)
	}
	insts, _ := decode(code)
	var calls []string
	for _, i := range insts {
		if t, ok := callTarget(sym.Addr, i); ok && t == dst.Addr {
			calls = append(calls, fmt.Sprintf("%s+%#x", sym.Name, i.off))
		}
	}
	if len(calls) == 0 {
		return nil, fmt.Sprintf("%s has no direct call of %s (inlined into it?)", sym.Name, dst.Name), nil
	}
	return calls, "", nil
}

// causeEvent is the kprobe event name of cause i's k-th target.
func causeEvent(i, k int) string { return fmt.Sprintf("contend_c%d_%d", i, k) }

// readCauses fills each counted cause's hits from a run's per-probe hits.
func readCauses(causes []Cause, hits, missed map[string]uint64) {
	for i := range causes {
		c := &causes[i]
		if c.Hits < 0 {
			continue
		}
		c.Hits, c.Miss = 0, 0
		for k := 0; ; k++ {
			n, ok := hits[causeEvent(i, k)]
			if !ok {
				break
			}
			c.Hits += int64(n)
			c.Miss += int64(missed[causeEvent(i, k)])
		}
	}
}
