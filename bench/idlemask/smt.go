package idlemask

import (
	"sync/atomic"

	"github.com/contend/contend/bench"
)

// SMT (smt=2): the seed's machine has two hardware threads a core, and on
// such a machine select_idle_sibling() of v5.11 looks for a whole idle core
// before select_idle_cpu() runs, and for an idle sibling of the target
// after it fails:
//
//	i = select_idle_core(p, sd, target);
//	if ((unsigned)i < nr_cpumask_bits)
//		return i;
//	i = select_idle_cpu(p, sd, target);
//	if ((unsigned)i < nr_cpumask_bits)
//		return i;
//	i = select_idle_smt(p, sd, target);
//	if ((unsigned)i < nr_cpumask_bits)
//		return i;
//	return target;
//
// select_idle_core() is gated by sd_llc_shared->has_idle_cores, a word
// every CPU of the LLC writes: set by __update_idle_core() when a CPU
// switches to idle and finds its sibling idle too, cleared by a
// select_idle_core() that found no idle core. Its scan is the LLC's span
// (not the idle mask), with no SIS_PROP budget and no avg_scan_cost: it
// probes a core's threads until one is busy, and every core of the LLC
// until one is wholly idle. The model's cores are CPUs 2k and 2k+1 of the
// simulated LLC (the kernel numbers siblings apart, 0 and 96 on the seed's
// box; only which CPUs pair up matters here). In the kernel
// has_idle_cores shares sd_llc_shared's first line with the mask's first
// word; here it has a line of its own, so its writes do not disturb the
// mask's (the model understates that traffic).

// imIdleCores is sd_llc_shared->has_idle_cores, alone on its line.
type imIdleCores struct {
	_    [bench.LinePad]byte
	flag atomic.Uint32
	_    [bench.LinePad - 4]byte
}

// sibling is the other hardware thread of CPU c's core (smt=2).
func sibling(c int) int { return c ^ 1 }

// updateIdleCore is __update_idle_core() at CPU c's switch to idle:
//
//	if (test_idle_cores(core, true))
//		goto unlock;
//	for_each_cpu(cpu, cpu_smt_mask(core)) {
//		if (cpu == core)
//			continue;
//		if (!available_idle_cpu(cpu))
//			goto unlock;
//	}
//	set_idle_cores(core, 1);
func (w *imWorker) updateIdleCore(c int) {
	if w.idleCores.flag.Load() != 0 {
		return
	}
	if w.rqs[sibling(c)].state.Load() != imIdle {
		return
	}
	w.idleCores.flag.Store(1)
	w.coreWrites++
}

// selectIdleCore is v5.11's select_idle_core(): nothing unless
// has_idle_cores is set; then every core of the LLC's span (AND the
// task's allowed CPUs) from the target's, each core's threads probed until
// one is busy, and the first wholly idle core returned (its first thread:
// the core the loop is at). A scan that finds none clears has_idle_cores:
// "Failed to find an idle core; stop looking for one." It returns the CPU
// and the runqueues it probed.
func (w *imWorker) selectIdleCore(target int) (cpu, probes int) {
	if w.idleCores.flag.Load() == 0 {
		return -1, 0
	}
	for i := range w.scratch {
		w.scratch[i] = w.span[i] & w.allowed[i]
	}
	n := int(w.width)
	for i := range n {
		core := (target + i) % n
		if w.scratch[core/64]>>(core%64)&1 == 0 {
			continue // a thread of a core already looked at
		}
		idle := true
		for _, c := range [2]int{core &^ 1, core | 1} {
			if c >= n {
				continue
			}
			probes++
			if w.rqs[c].state.Load() != imIdle {
				idle = false
				break
			}
		}
		// cpumask_andnot(cpus, cpus, cpu_smt_mask(core));
		for _, c := range [2]int{core &^ 1, core | 1} {
			w.scratch[c/64] &^= 1 << (c % 64)
		}
		if idle {
			return core, probes
		}
	}
	w.idleCores.flag.Store(0)
	w.coreWrites++
	return -1, probes
}

// smtSibling is select_idle_smt() (smt=2) after select_idle_cpu() found
// nothing: the target's sibling, if it is idle (the target itself is busy,
// or a shortcut or the scan would have taken it).
func (w *imWorker) smtSibling(target int) int {
	if !w.smt {
		return -1
	}
	s := sibling(target)
	if s >= int(w.width) || w.allowed[s/64]>>(s%64)&1 == 0 {
		return -1
	}
	w.probes++
	if w.rqs[s].state.Load() == imIdle {
		return s
	}
	return -1
}
