package bench

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Disturbance: pinning proves where a worker ran, not that it had the CPU
// to itself. Another task on its CPU (taskset -c 1 yes), the hypervisor
// running another guest on the physical core, or the Go runtime parking the
// thread all take time out of a worker's interval, during which the other
// workers run uncontended and the result describes neither situation. Each
// worker's thread therefore reads what the kernel accounted to it at the
// start and end of its interval (disturb_linux.go), and a result says how
// much of its time each worker lost, and why.

// DisturbedPct is the share of its measured interval a worker may lose
// before its run is called disturbed, in per cent. An idle machine costs a
// pinned spinning worker well under 0.5 % (timer ticks, the Go runtime's
// own preemption every 10 ms), so 2 % is something else taking the CPU: on
// a contended line, the other workers then run that long without this one,
// and the figure moves by up to as much. It is tight enough that a run
// whose ns/op a disturbance moved beyond benchstat's usual few-per-cent
// noise is flagged, and loose enough that an undisturbed run on a shared
// 2-vCPU guest is not.
const DisturbedPct = 2.0

// minLost is the least loss that counts as a disturbance, whatever the
// share: a reading at each end of the interval is a system call, whose
// jitter (under a microsecond) is a large share of the tiny intervals
// testing.B's first runs (b.N = 1, 100) last, and no result is taken from
// those.
const minLost = 10 * time.Microsecond

// IsDisturbed is the rule: a worker that lost more than DisturbedPct of an
// interval of wall time wall, and more than 10 µs, was disturbed.
func IsDisturbed(lostPct float64, wall time.Duration) bool {
	return lostPct > DisturbedPct && lostPct/100*float64(wall) > float64(minLost)
}

// userHZ is the unit of /proc/stat: USER_HZ, 100 on every architecture
// Linux runs this on (the ABI fixes it; CONFIG_HZ does not change it), so
// tick, the resolution of its steal time, is 10 ms.
const (
	userHZ = 100
	tick   = time.Second / userHZ
)

// WorkerStats is what one worker saw during its measured interval: from
// the moment it saw the release to the moment it stopped, read on its own
// thread outside the timed batches.
type WorkerStats struct {
	Index int
	CPU   int
	Node  int
	Ops   int64 // operations it completed
	// Wall is the worker's measured interval; Run the CPU time its thread
	// got in it (CLOCK_THREAD_CPUTIME_ID, which excludes hypervisor steal
	// on kernels built with CONFIG_PARAVIRT_TIME_ACCOUNTING).
	Wall, Run time.Duration
	// Wait is run-queue wait: the time the thread was runnable on its CPU
	// while another task ran there (schedstat run_delay).
	Wait time.Duration
	// Steal is hypervisor steal time on the worker's CPU over the run
	// (/proc/stat: 10 ms resolution), and Irq the CPU's interrupt time
	// (tick-sampled unless CONFIG_IRQ_TIME_ACCOUNTING).
	Steal, Irq time.Duration
	// Preempted and Slept count involuntary and voluntary context
	// switches (getrusage RUSAGE_THREAD); Slices the times the thread was
	// put on its CPU (schedstat pcount).
	Preempted, Slept, Slices int64
	// Latency holds the worker's sampled operation latencies, and
	// ClockCost what was subtracted from each sample: the median time of
	// an empty timed call on this thread.
	Latency   *Latency
	ClockCost time.Duration
	// Accounted says whether the kernel's per-thread accounting could be
	// read (Run, Preempted, Slept); Scheduled whether schedstat could
	// (Wait, Slices); CPUTicks whether /proc/stat could (Steal, Irq).
	Accounted, Scheduled, CPUTicks bool
}

// workerStats builds a worker's stats from its thread's readings at the
// start (a) and end (b) of its interval, and its CPU's /proc/stat ticks
// before the release (ca) and after the run (cb).
func workerStats(info WorkerInfo, ops int64, a, b threadTimes, ca, cb map[int]cpuTicks) WorkerStats {
	w := WorkerStats{Index: info.Index, CPU: info.CPU, Node: info.Node, Ops: ops,
		Wall:      time.Duration(b.wall - a.wall),
		Accounted: a.ok && b.ok, Scheduled: a.sched && b.sched}
	if w.Accounted {
		w.Run = time.Duration(b.run - a.run)
		w.Preempted, w.Slept = b.nivcsw-a.nivcsw, b.nvcsw-a.nvcsw
	}
	if w.Scheduled {
		w.Wait = time.Duration(b.wait - a.wait)
		w.Slices = b.slices - a.slices
	}
	x, okA := ca[info.CPU]
	y, okB := cb[info.CPU]
	if w.CPUTicks = okA && okB; w.CPUTicks {
		w.Steal = time.Duration(y.steal-x.steal) * tick
		w.Irq = time.Duration(y.irq-x.irq) * tick
	}
	return w
}

// Lost is the time the worker was not running on its CPU during its
// interval: wall time less run time, which holds run-queue waits, sleeps
// and (where the kernel accounts it apart) hypervisor steal. Where steal
// counts as run time, the CPU's steal from /proc/stat less one tick (its
// resolution) stands in for it, so that a kernel without paravirtual steal
// accounting still shows a stolen CPU.
func (w *WorkerStats) Lost() time.Duration {
	if !w.Accounted || w.Wall <= 0 {
		return 0
	}
	lost := w.Wall - w.Run
	if s := w.Steal - tick; s > 0 && w.Wait+s > lost {
		lost = w.Wait + s
	}
	return min(max(lost, 0), w.Wall)
}

// pct is d as a share of the worker's interval, in per cent.
func (w *WorkerStats) pct(d time.Duration) float64 {
	if w.Wall <= 0 {
		return 0
	}
	return 100 * float64(d) / float64(w.Wall)
}

// LostPct is Lost as a share of the interval, in per cent.
func (w *WorkerStats) LostPct() float64 { return w.pct(w.Lost()) }

// WaitPct is Wait as a share of the interval, in per cent.
func (w *WorkerStats) WaitPct() float64 { return w.pct(w.Wait) }

// StealPct is Steal as a share of the interval, in per cent (to 10 ms).
func (w *WorkerStats) StealPct() float64 { return min(w.pct(w.Steal), 100) }

// Disturbed reports whether the worker lost more than DisturbedPct of its
// interval (and over 10 µs, see IsDisturbed).
func (w *WorkerStats) Disturbed() bool { return IsDisturbed(w.LostPct(), w.Wall) }

// Cause says why the worker lost its time, largest share first: another
// task on its CPU (run-queue wait), the hypervisor (steal), or neither,
// which leaves sleeps of its own thread (the Go runtime parking it, page
// faults) or interrupts.
func (w *WorkerStats) Cause() string {
	lost := w.Lost()
	wait := min(w.Wait, lost)
	steal := min(max(w.Steal-tick, 0), lost-wait) // beyond /proc/stat's resolution
	rest := lost - wait - steal
	type part struct {
		d    time.Duration
		text string
	}
	parts := []part{
		{wait, fmt.Sprintf("another task ran on cpu %d (run-queue wait %.1f%%, %d preemptions)", w.CPU, w.pct(wait), w.Preempted)},
		{steal, fmt.Sprintf("hypervisor steal on cpu %d (%.1f%%, /proc/stat)", w.CPU, w.pct(w.Steal))},
		{rest, fmt.Sprintf("off cpu %.1f%% with no run-queue wait or steal to show for it (%d voluntary context switches: Go's preemption handoff, page faults; or interrupts)", w.pct(rest), w.Slept)},
	}
	// Largest first; a part under a tenth of the loss is not a cause.
	slices.SortStableFunc(parts, func(a, b part) int { return cmp.Compare(b.d, a.d) })
	var out []string
	for _, p := range parts {
		if p.d <= 0 || (len(out) > 0 && p.d < lost/10) {
			break
		}
		out = append(out, p.text)
	}
	if len(out) == 0 {
		return "nothing lost"
	}
	return strings.Join(out, "; ")
}

// Warning is the one-line warning for a disturbed worker.
func (w *WorkerStats) Warning() string {
	return fmt.Sprintf("worker %d on cpu %d lost %.1f%% of its %v: %s",
		w.Index, w.CPU, w.LostPct(), roundDuration(w.Wall), w.Cause())
}

// roundDuration rounds d for people: to the millisecond above a second, to
// the microsecond below.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}
