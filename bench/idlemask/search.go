package idlemask

import (
	"math/bits"
)

// The wakeup side of the idlemask scenario: select_idle_cpu() searching the
// idle mask, or every CPU of the LLC as the kernel did before the mask.

// wakeup is select_idle_cpu() called for a task woken on CPU target: build
// the candidate mask, scan it, and keep the score.
func (w *imWorker) wakeup(target int) {
	w.wakeups++
	// cpumask_and(cpus, sds_idle_cpus(sd->shared), p->cpus_ptr);
	// or, before the patch,
	// cpumask_and(cpus, sched_domain_span(sd), p->cpus_ptr);
	if w.scanMask {
		for i := range w.scratch {
			w.scratch[i] = w.mask[i].Load() & w.allowed[i]
		}
	} else {
		for i := range w.scratch {
			w.scratch[i] = w.span[i] & w.allowed[i]
		}
	}
	// select_idle_sibling() already looked at the target.
	w.scratch[target/64] &^= 1 << (target % 64)
	cpu, probes := selectIdleCPU(w.scratch, w.rqs, target)
	w.probes += int64(probes)
	if cpu >= 0 {
		w.found++
	}
	if !w.scanMask {
		return
	}
	if cpu < 0 {
		w.fails++
		if probes > 0 {
			w.staleWakeups++ // every candidate it offered was busy
		}
		if w.fails%w.auditEvery == 0 {
			w.audits++
			if probes == 0 && w.missedIdle(target) {
				w.missed++
			}
		}
		return
	}
	if probes > 1 {
		w.staleWakeups++ // the mask offered busy CPUs before this one
	}
}

// missedIdle is the audit of a mask search that offered no candidate, outside
// the search's probe count: is an allowed CPU other than target idle while
// its mask bit is clear? Reading the bit again, rather than trusting the
// search's snapshot, keeps a CPU that went idle (and set its bit) after the
// search from counting as the mask's mistake.
func (w *imWorker) missedIdle(target int) bool {
	for c, rq := range w.rqs {
		if c == target || w.allowed[c/64]>>(c%64)&1 == 0 || rq.idle.Load() == 0 {
			continue
		}
		if w.mask[c/64].Load()>>(c%64)&1 == 0 {
			return true
		}
	}
	return false
}

// selectIdleCPU is the loop of select_idle_cpu(),
//
//	for_each_cpu_wrap(cpu, cpus, target) {
//		if (available_idle_cpu(cpu) || sched_idle_cpu(cpu))
//			break;
//	}
//
// over the candidate words cpus: the set bits from target up, then from 0 up
// to target, word at a time. It returns the first candidate whose runqueue is
// idle, or -1, and how many runqueues it probed.
//
//go:noinline
func selectIdleCPU(cpus []uint64, rqs []*imCPU, target int) (cpu, probes int) {
	tw, tb := target/64, uint(target%64)
	for i := tw; i < len(cpus); i++ {
		word := cpus[i]
		if i == tw {
			word &= ^uint64(0) << tb
		}
		for ; word != 0; word &= word - 1 {
			c := i*64 + bits.TrailingZeros64(word)
			probes++
			if rqs[c].idle.Load() != 0 {
				return c, probes
			}
		}
	}
	for i := 0; i <= tw && i < len(cpus); i++ {
		word := cpus[i]
		if i == tw {
			word &= 1<<tb - 1
		}
		for ; word != 0; word &= word - 1 {
			c := i*64 + bits.TrailingZeros64(word)
			probes++
			if rqs[c].idle.Load() != 0 {
				return c, probes
			}
		}
	}
	return -1, probes
}
