package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Reading what the kernel accounted to a worker's thread and to its CPU.
//
// Per thread, on the thread itself (each a system call of about a
// microsecond, made right after the release and right after the worker
// stops, never inside the timed batches):
//
//   - CLOCK_THREAD_CPUTIME_ID: the thread's run time, exact to the
//     nanosecond because the kernel brings the running thread's
//     sum_exec_runtime up to date before answering (the first field of
//     /proc/thread-self/schedstat can be a whole tick stale). With
//     CONFIG_PARAVIRT_TIME_ACCOUNTING it excludes hypervisor steal.
//   - /proc/thread-self/schedstat: run_delay, the nanoseconds the thread
//     spent runnable on a run queue while something else ran (up to date
//     whenever the thread itself reads it: waits end when it runs), and
//     pcount, the times it was put on a CPU. Needs CONFIG_SCHED_INFO.
//   - getrusage(RUSAGE_THREAD): involuntary and voluntary context switches.
//
// Per CPU, from /proc/stat, read by the coordinator before the release and
// after the last worker stops: hypervisor steal and the CPU's interrupt
// time. /proc/stat counts in USER_HZ ticks of 10 ms, so these are
// coarse: a share below one tick over the run's length means nothing.

// threadTimes is one reading of a thread's accounting.
type threadTimes struct {
	wall   int64 // Now()
	run    int64 // CLOCK_THREAD_CPUTIME_ID, ns
	wait   int64 // schedstat run_delay, ns
	slices int64 // schedstat pcount
	nvcsw  int64 // voluntary context switches
	nivcsw int64 // involuntary context switches
	ok     bool  // run time and context switches were read
	sched  bool  // schedstat was read
}

// A threadProbe reads the accounting of the thread that opened it: the
// schedstat file is opened on that thread (/proc/thread-self resolves when
// opened) and read with pread, so a reading allocates nothing.
type threadProbe struct {
	fd  int // -1 without schedstat
	buf [128]byte
}

// openThreadProbe opens a probe of the calling thread, which must stay
// locked to it.
func openThreadProbe() *threadProbe {
	fd, err := unix.Open("/proc/thread-self/schedstat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		fd = -1
	}
	return &threadProbe{fd: fd}
}

func (p *threadProbe) close() {
	if p.fd >= 0 {
		unix.Close(p.fd)
		p.fd = -1
	}
}

// start reads the thread's accounting at the start of its interval, and
// end at its end. The run time is read between two clock reads and the
// wall time taken as their middle, so that the reading's own system call
// counts half in and half out at each end: an undisturbed thread's run time
// then equals its wall time to within a fraction of a microsecond, even
// over the few microseconds of a one-operation run.
func (p *threadProbe) start() threadTimes {
	var t threadTimes
	p.counters(&t)
	wall, run, ok := p.cpu()
	t.wall, t.run, t.ok = wall, run, ok && t.ok
	return t
}

func (p *threadProbe) end() threadTimes {
	var t threadTimes
	wall, run, ok := p.cpu()
	p.counters(&t)
	t.wall, t.run, t.ok = wall, run, ok && t.ok
	return t
}

// cpu reads the thread's CPU time and the wall clock at the same instant.
func (p *threadProbe) cpu() (wall, run int64, ok bool) {
	var ts unix.Timespec
	w0 := Now()
	err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	w1 := Now()
	return w0 + (w1-w0)/2, ts.Nano(), err == nil
}

// counters reads the context switches and schedstat.
func (p *threadProbe) counters(t *threadTimes) {
	var ru unix.Rusage
	t.ok = unix.Getrusage(unix.RUSAGE_THREAD, &ru) == nil
	t.nvcsw, t.nivcsw = int64(ru.Nvcsw), int64(ru.Nivcsw) // int32 on 32-bit linux
	if p.fd < 0 {
		return
	}
	n, err := unix.Pread(p.fd, p.buf[:], 0)
	if err != nil || n <= 0 {
		return
	}
	_, t.wait, t.slices, t.sched = parseSchedstat(p.buf[:n])
}

// parseSchedstat parses /proc/<pid>/task/<tid>/schedstat: "run wait
// pcount\n" (sum_exec_runtime and run_delay in ns, then the count of
// timeslices), without allocating.
func parseSchedstat(b []byte) (run, wait, slices int64, ok bool) {
	var f [3]int64
	i := 0
	for k := range f {
		for i < len(b) && b[i] == ' ' {
			i++
		}
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			f[k] = f[k]*10 + int64(b[i]-'0')
			i++
		}
		if i == start {
			return 0, 0, 0, false
		}
	}
	return f[0], f[1], f[2], true
}

// cpuTicks is one CPU's line of /proc/stat, in USER_HZ ticks: what
// workerStats reports of it.
type cpuTicks struct {
	irq   int64 // irq, softirq
	steal int64
}

// readCPUTicks reads every CPU's ticks from /proc/stat; nil if it cannot.
func readCPUTicks() map[int]cpuTicks {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	m, err := parseProcStat(b)
	if err != nil {
		return nil
	}
	return m
}

// parseProcStat parses the per-CPU lines of /proc/stat:
// "cpuN user nice system idle iowait irq softirq steal guest guest_nice".
// Kernels before 2.6.11 had no steal column; it then reads as 0.
func parseProcStat(b []byte) (map[int]cpuTicks, error) {
	m := map[int]cpuTicks{}
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) < 8 || !bytes.HasPrefix(f[0], []byte("cpu")) || len(f[0]) == 3 {
			continue // the "cpu" total, intr, ctxt, ...
		}
		cpu, err := strconv.Atoi(string(f[0][3:]))
		if err != nil || cpu < 0 {
			return nil, fmt.Errorf("/proc/stat: bad cpu line %q", bytes.TrimSpace(line))
		}
		var v [8]int64
		for i := range v {
			if 1+i >= len(f) {
				break
			}
			if v[i], err = strconv.ParseInt(string(f[1+i]), 10, 64); err != nil {
				return nil, fmt.Errorf("/proc/stat: bad cpu line %q", bytes.TrimSpace(line))
			}
		}
		irq, softirq, steal := v[5], v[6], v[7]
		m[cpu] = cpuTicks{irq: irq + softirq, steal: steal}
	}
	if len(m) == 0 {
		return nil, errors.New("/proc/stat: no per-cpu lines")
	}
	return m, nil
}
