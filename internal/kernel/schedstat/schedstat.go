// Package schedstat reads the scheduler's statistics as procfs prints
// them: a task's /proc/PID/task/TID/sched (proc_sched_show_task(), 5.x's
// "se.statistics."-prefixed names and 6.1's bare ones alike) and the
// machine's /proc/schedstat (show_schedstat(), version 15), summed over
// the cpus per domain level. It only parses: turning schedstats on
// (kernel.sched_schedstats) and choosing which threads to read is the
// caller's (internal/kernel/wakeups).
package schedstat

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Task is one /proc/PID/task/TID/sched file: each "name : value"
// line, keyed by the name's last dotted part, so that 6.1's
// "nr_wakeups_affine" and 5.x's "se.statistics.nr_wakeups_affine" read
// alike, as do "se.nr_migrations" and "se.sum_exec_runtime". Times
// (sum_exec_runtime, wait_sum) are printed in ms with six decimals and are
// kept as ms. The schedstat counters appear only while
// kernel.sched_schedstats is 1.
type Task map[string]float64

// ParseTask reads a task's sched file. Lines that are not
// "name : number" (the header, numa_faults) are skipped; a file with no
// such line at all is an error.
func ParseTask(r io.Reader) (Task, error) {
	ts := Task{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if i := strings.LastIndexByte(k, '.'); i >= 0 {
			k = k[i+1:]
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		ts[k] = f
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("no \"name : value\" line")
	}
	return ts, nil
}

// TaskCounters are the sched file's fields the wakeup check reads, in
// the order they are reported.
var TaskCounters = []string{
	"nr_migrations", "nr_wakeups", "nr_wakeups_sync", "nr_wakeups_migrate", "nr_wakeups_local",
	"nr_wakeups_remote", "nr_wakeups_affine", "nr_wakeups_affine_attempts", "nr_wakeups_passive",
	"nr_wakeups_idle", "nr_voluntary_switches", "nr_involuntary_switches", "sum_exec_runtime", "wait_sum",
}

// Stats is /proc/schedstat (version 15, v4.20 to v6.5), summed over
// the cpus: per domain level (domain0 lowest), the load balancer's and
// the wakeup path's counters.
type Stats struct {
	Version int `json:"version"`
	// TTWU and TTWULocal are the runqueues' ttwu_count and ttwu_local.
	TTWU      uint64   `json:"ttwu_count"`
	TTWULocal uint64   `json:"ttwu_local"`
	Domains   []Domain `json:"domains"`
}

// Domain is one domain level's counters summed over the cpus. The
// three per-idle-type arrays are indexed by enum cpu_idle_type: CPU_IDLE,
// CPU_NOT_IDLE, CPU_NEWLY_IDLE.
type Domain struct {
	Level int `json:"level"`
	// Span is the largest span any cpu's domain of this level has, in cpus.
	Span     int       `json:"span"`
	LBCount  [3]uint64 `json:"lb_count"`
	LBFailed [3]uint64 `json:"lb_failed"`
	LBGained [3]uint64 `json:"lb_gained"` // tasks moved by load_balance()
	// ALBPushed is the tasks active balancing pushed.
	ALBPushed uint64 `json:"alb_pushed"`
	// TTWUWakeRemote counts wakeups whose waking cpu was in this domain of
	// the task's last cpu; TTWUMoveAffine those wake_affine() pulled.
	TTWUWakeRemote uint64 `json:"ttwu_wake_remote"`
	TTWUMoveAffine uint64 `json:"ttwu_move_affine"`
}

// domainFields is a version-15 domain line's counters after its mask:
// 8 per idle type × 3, alb 3, sbe 3, sbf 3, ttwu 3.
const domainFields = 36

// Parse reads /proc/schedstat. Only version 15 is read: its
// domain lines are positional, and another version's would be misread.
func Parse(r io.Reader) (*Stats, error) {
	s := &Stats{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "version":
			if len(f) != 2 {
				return nil, fmt.Errorf("version line %q", sc.Text())
			}
			v, err := strconv.Atoi(f[1])
			if err != nil {
				return nil, fmt.Errorf("version %q: %w", f[1], err)
			}
			if v != 15 {
				return nil, fmt.Errorf("schedstat version %d: only 15 (v4.20 to v6.5) is read", v)
			}
			s.Version = v
		case strings.HasPrefix(f[0], "cpu"):
			if s.Version == 0 {
				return nil, fmt.Errorf("%s before the version line", f[0])
			}
			if len(f) < 7 {
				return nil, fmt.Errorf("%s: %d fields, want at least 7", f[0], len(f))
			}
			n, err := uints(f[5:7])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f[0], err)
			}
			s.TTWU += n[0]
			s.TTWULocal += n[1]
		case strings.HasPrefix(f[0], "domain"):
			if s.Version == 0 {
				return nil, fmt.Errorf("%s before the version line", f[0])
			}
			lvl, err := strconv.Atoi(f[0][len("domain"):])
			if err != nil || lvl < 0 || lvl > 16 {
				return nil, fmt.Errorf("domain line %q: bad level", f[0])
			}
			if len(f) != 2+domainFields {
				return nil, fmt.Errorf("%s: %d counters, want %d", f[0], len(f)-2, domainFields)
			}
			n, err := uints(f[2:])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f[0], err)
			}
			span, err := maskWeight(f[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f[0], err)
			}
			for len(s.Domains) <= lvl {
				s.Domains = append(s.Domains, Domain{Level: len(s.Domains)})
			}
			d := &s.Domains[lvl]
			d.Span = max(d.Span, span)
			for t := range 3 {
				d.LBCount[t] += n[8*t]
				d.LBFailed[t] += n[8*t+2]
				d.LBGained[t] += n[8*t+4]
			}
			d.ALBPushed += n[26]
			d.TTWUWakeRemote += n[33]
			d.TTWUMoveAffine += n[34]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if s.Version == 0 {
		return nil, fmt.Errorf("no version line")
	}
	return s, nil
}

// Sub returns s − o, counter by counter (o an earlier read of the same
// machine); levels o lacks count from zero.
func (s *Stats) Sub(o *Stats) *Stats {
	d := &Stats{Version: s.Version, TTWU: s.TTWU - o.TTWU, TTWULocal: s.TTWULocal - o.TTWULocal}
	for i, a := range s.Domains {
		if i < len(o.Domains) {
			b := o.Domains[i]
			for t := range 3 {
				a.LBCount[t] -= b.LBCount[t]
				a.LBFailed[t] -= b.LBFailed[t]
				a.LBGained[t] -= b.LBGained[t]
			}
			a.ALBPushed -= b.ALBPushed
			a.TTWUWakeRemote -= b.TTWUWakeRemote
			a.TTWUMoveAffine -= b.TTWUMoveAffine
		}
		d.Domains = append(d.Domains, a)
	}
	return d
}

func uints(f []string) ([]uint64, error) {
	n := make([]uint64, len(f))
	for i, s := range f {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("field %d %q is not a count", i+1, s)
		}
		n[i] = v
	}
	return n, nil
}

// maskWeight counts the cpus in a cpumask as the kernel prints it (%*pb:
// hex words of 32 bits, comma-separated, most significant first).
func maskWeight(m string) (int, error) {
	n := 0
	for _, w := range strings.Split(m, ",") {
		v, err := strconv.ParseUint(w, 16, 32)
		if err != nil {
			return 0, fmt.Errorf("cpumask %q: %q is not a hex word", m, w)
		}
		for ; v != 0; v &= v - 1 {
			n++
		}
	}
	return n, nil
}
