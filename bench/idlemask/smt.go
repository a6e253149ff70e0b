package idlemask

import (
	"sync/atomic"

	"github.com/contend/contend/bench"
	"github.com/contend/contend/bench/ksim"
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

// hasIdleCores is sd_llc_shared->has_idle_cores, alone on its line.
type hasIdleCores struct {
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
func (w *worker) updateIdleCore(c int) {
	if w.idleCores.flag.Load() != 0 {
		return
	}
	if w.rqs[sibling(c)].state.Load() != rqIdle {
		return
	}
	w.idleCores.flag.Store(1)
	w.coreWrites++
}

// idleCore is select_idle_core() (ksim.SelectIdleCore) on the LLC's span
// AND the task's allowed CPUs, gated by has_idle_cores, which a scan that
// finds no idle core clears. It returns the CPU and the runqueues it
// probed.
func (w *worker) idleCore(target int) (cpu, probes int) {
	if w.idleCores.flag.Load() == 0 {
		return -1, 0
	}
	for i := range w.scratch {
		w.scratch[i] = w.span[i] & w.allowed[i]
	}
	cpu, probes = ksim.SelectIdleCore(w.scratch, w, target, int(w.width))
	if cpu < 0 {
		w.idleCores.flag.Store(0)
		w.coreWrites++
	}
	return cpu, probes
}

// SMTMask is cpu_smt_mask(): CPUs 2k and 2k+1 (the last CPU of an odd
// LLC alone).
func (w *worker) SMTMask(cpu int) (first, last int) {
	return cpu &^ 1, min(cpu|1, int(w.width)-1)
}

// smtSibling is select_idle_smt() (ksim.SelectIdleSMT, smt=2) after
// select_idle_cpu() found nothing: an idle thread of the target's core.
func (w *worker) smtSibling(target int) int {
	if !w.smt {
		return -1
	}
	cpu, probes := ksim.SelectIdleSMT(w, target)
	w.probes += int64(probes)
	return cpu
}
