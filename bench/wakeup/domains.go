package wakeup

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contend/contend/bench/ksim"
)

// The guest topologies the model runs, and their sched domains: ksim builds
// them; this adds the per-version sd_init() constants ksim does not carry
// and sd_llc_shared's LLC statistics, the pre-patch kernel's own.

// A topo is a guest topology preset.
type topo struct {
	name string
	// llc is the cpus per last-level cache, consecutive ids sharing one;
	// 1 is the s390x KVM guest without the topology facility.
	llc int
	// s390 is an s390 machine (HZ 100, floating I/O interrupts), with
	// or without the topology facility.
	s390 bool
}

// parseTopo reads a preset: "s390" (every vCPU its own core: KVM gave an
// s390x guest the topology facility only with KVM_CAP_S390_CPU_TOPOLOGY,
// Linux 6.0, so a 2017 guest's MC, BOOK and DRAWER levels each span one
// cpu and degenerate, DIE alone is left, and sd_llc is NULL with
// sd_llc_size 1), or "llcN" (an x86 guest of sockets of N cpus each, one
// LLC per socket, no SMT, one node: MC over the socket, DIE over all), or
// "s390llcN" (s390 with the topology facility, as the host LPAR has it and
// a guest from Linux 6.0 on: arch/s390's cpu_coregroup_mask() is the chip's
// cores, so MC spans a chip of N cpus and carries
// SD_SHARE_PKG_RESOURCES, the chip's shared L3, making it sd_llc with an
// sd_llc_shared; BOOK and DRAWER over all the guest's cpus are one level
// here, the model's DIE. A z13 chip has 8 cores, a z14's 10; no SMT).
func parseTopo(s string) (topo, error) {
	if s == "s390" {
		return topo{name: s, llc: 1, s390: true}, nil
	}
	rest, s390 := strings.CutPrefix(s, "s390")
	if n, ok := strings.CutPrefix(rest, "llc"); ok {
		v, err := strconv.Atoi(n)
		if err == nil && v >= 2 && v <= 64 && strconv.Itoa(v) == n {
			return topo{name: s, llc: v, s390: s390}, nil
		}
	}
	return topo{}, fmt.Errorf("topology %q: want s390, s390llcN or llcN with N in [2, 64] (cpus per LLC)", s)
}

// kver is the kernel whose code a policy runs: its sd_init() constants and
// its balancer's find_busiest_group() differ.
type kver int8

const (
	v413 kver = iota // 4.13/4.14 (the pre-patch kernel and the patched next-20170926)
	v61              // 6.1 (the lab's Debian kernel)
)

// A domain is one cpu's sched_domain at one level: ksim's (span, groups
// with the local one first, flags, balance interval state) and what the
// wakeup model adds.
type domain struct {
	*ksim.Domain
	llc bool // SD_SHARE_PKG_RESOURCES: the level sd_llc points to
	top bool // no parent: where rd->overload is recomputed
	// sd_init() constants ksim does not hold yet: imbalance_pct and
	// cache_nice_tries (see sdInit).
	imbalancePct, cacheNiceTries int
	// shared is sd->shared, the LLC level's sched_domain_shared: the
	// pre-patch kernel's LLC statistics, which update_sd_lb_stats()
	// writes at each balance of this level (90001d67be2f).
	shared *llcShared
}

// An llcShared is the part of struct sched_domain_shared that
// 90001d67be2f added for wake_affine_llc(): "some variables from the most
// recent sd_lb_stats for this domain". Zero until the first balance, as
// kzalloc_node() left it.
type llcShared struct {
	nrRunning int64
	load      int64
	capacity  int64
	// nrIdleScan is v6.0's nr_idle_scan (SIS_UTIL): the CPUs
	// select_idle_cpu() may scan, as the last periodic or idle balance of
	// the LLC level left it (fair.go's updateIdleCPUScan); 0 until then.
	nrIdleScan int
}

// sdInit is sd_init()'s imbalance_pct and cache_nice_tries, which ksim's
// Domain does not carry (its Balance has the intervals, its Kernel the
// busy_factor):
//
//   - 4.13: imbalance_pct 125, 117 on an SD_SHARE_PKG_RESOURCES level;
//     cache_nice_tries 1 on MC and on DIE (the "else" branch).
//   - 6.1: imbalance_pct 117 on every level without SMT (the default went
//     from 125 to 117 in v5.10, Vincent Guittot's "sched/fair: Reduce
//     minimal imbalance threshold", lkml 20200921072424.14813-3, in the
//     series that also halved busy_factor); cache_nice_tries 1 on MC and
//     DIE. 6.1's sd_init() also sets SD_PREFER_SIBLING on every level but
//     NUMA, which find_busiest_group() reads from the child level
//     (balance.go).
func sdInit(v kver, llc bool) (imbalancePct, cacheNiceTries int) {
	if llc || v == v61 {
		return 117, 1
	}
	return 125, 1
}

// buildDomains gives each of n cpus its domains, bottom up, as ksim builds
// them for the preset (ksim.Grid: cpus in LLCs of t.llc, one package, one
// node; no SMT): an MC level over each LLC of two cpus or more, and a
// package level over all cpus (the DIE of 4.13 and 6.1) unless it spans no
// more than MC does. It returns each cpu's sd_llc_id and sd_llc_size too.
func buildDomains(v kver, t topo, n int) (sds [][]*domain, llcID, llcSize []int, err error) {
	m, err := ksim.Grid{CPUs: n, LLC: min(t.llc, n)}.Machine()
	if err != nil {
		return nil, nil, nil, err
	}
	ds, err := m.Build()
	if err != nil {
		return nil, nil, nil, err
	}
	sds = make([][]*domain, n)
	llcID, llcSize = make([]int, n), make([]int, n)
	shared := make([]*llcShared, ds.SharedLLCs())
	for i := range shared {
		shared[i] = new(llcShared)
	}
	for c := range n {
		l := ds.LLC(c)
		llcID[c], llcSize[c] = l.ID, l.Size
		for i := range ds.CPU[c] {
			kd := &ds.CPU[c][i]
			d := &domain{Domain: kd, llc: i == l.Level}
			d.imbalancePct, d.cacheNiceTries = sdInit(v, d.llc)
			if d.llc {
				d.shared = shared[l.Shared]
			}
			sds[c] = append(sds[c], d)
		}
		if len(sds[c]) == 0 {
			return nil, nil, nil, fmt.Errorf("%d cpus: no sched domain to balance", n)
		}
		sds[c][len(sds[c])-1].top = true
	}
	return sds, llcID, llcSize, nil
}
