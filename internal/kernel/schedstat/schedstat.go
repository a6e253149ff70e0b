// Package schedstat reads the scheduler's statistics as procfs prints
// them: a task's /proc/PID/task/TID/sched (proc_sched_show_task(), 5.x's
// "se.statistics."-prefixed names and 6.1's bare ones alike) and the
// machine's /proc/schedstat (show_schedstat(), versions 15 to 17), summed
// over the cpus per domain level. It only parses: turning schedstats on
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

// Stats is /proc/schedstat, summed over the cpus: per domain level
// (domain0 lowest), the load balancer's and the wakeup path's counters.
// Documentation/scheduler/sched-stats.rst: version 15 (v4.20 to v6.5);
// 16 swapped CPU_IDLE's and __CPU_NOT_IDLE's columns (enum cpu_idle_type
// reordered); 17 (v6.16) split lb_imbalance into load, util, task and
// misfit and put the domain's name before its mask. Stats keeps version
// 15's order whichever it read.
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

// domainLayout is where a version's domain line keeps what Domain reads:
// the line's fields before the counters (domainN and the mask; 17 adds
// the name), the counters per idle type and in all, the idle types'
// column order as Domain's indices, and the scalars' positions.
type domainLayout struct {
	head, perType, fields int
	types                 [3]int // column t holds Domain index types[t]
	gained                int    // within an idle type's counters
	albPushed, wakeRemote int
}

var domainLayouts = map[int]domainLayout{
	// 8 per idle type (count, balanced, failed, imbalance, gained,
	// hot_gained, nobusyq, nobusyg) × 3, alb 3, sbe 3, sbf 3, ttwu 3.
	15: {head: 2, perType: 8, fields: 36, types: [3]int{0, 1, 2}, gained: 4, albPushed: 26, wakeRemote: 33},
	// __CPU_NOT_IDLE's column first, then CPU_IDLE's.
	16: {head: 2, perType: 8, fields: 36, types: [3]int{1, 0, 2}, gained: 4, albPushed: 26, wakeRemote: 33},
	// imbalance split in four: 11 per idle type; the name before the mask.
	17: {head: 3, perType: 11, fields: 45, types: [3]int{1, 0, 2}, gained: 7, albPushed: 35, wakeRemote: 42},
}

// Parse reads /proc/schedstat, versions 15 to 17. Another version is an
// error: its domain lines are positional, and would be misread.
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
			if _, ok := domainLayouts[v]; !ok {
				return nil, fmt.Errorf("schedstat version %d: only 15 to 17 are read", v)
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
			dl := domainLayouts[s.Version]
			if len(f) != dl.head+dl.fields {
				return nil, fmt.Errorf("%s: %d fields, want %d for version %d", f[0], len(f), dl.head+dl.fields, s.Version)
			}
			n, err := uints(f[dl.head:])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f[0], err)
			}
			span, err := maskWeight(f[dl.head-1])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f[0], err)
			}
			for len(s.Domains) <= lvl {
				s.Domains = append(s.Domains, Domain{Level: len(s.Domains)})
			}
			d := &s.Domains[lvl]
			d.Span = max(d.Span, span)
			for col, t := range dl.types {
				d.LBCount[t] += n[dl.perType*col]
				d.LBFailed[t] += n[dl.perType*col+2]
				d.LBGained[t] += n[dl.perType*col+dl.gained]
			}
			d.ALBPushed += n[dl.albPushed]
			d.TTWUWakeRemote += n[dl.wakeRemote]
			d.TTWUMoveAffine += n[dl.wakeRemote+1]
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
