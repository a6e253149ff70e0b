package balanceflag

import (
	"github.com/contend/contend/bench"
)

// The figures per second of kernel time, the machine's and each serialized
// level's: what a reader compares with the simulation (sim) and with a
// kernel's own counts, whatever the worker count or the pace.
var (
	CASPerSec = bench.Unit{Name: "cas/kernel-sec", Better: bench.Lower,
		Doc: "cmpxchg attempts on sched_balance_running per second of kernel time, the workers together"}
	CASFailsPerSec = bench.Unit{Name: "cas-fails/kernel-sec", Better: bench.Lower,
		Doc: "cmpxchg attempts that found the flag taken, per second of kernel time, the workers together"}
	SocketCASPerSec = bench.Unit{Name: "cas-socket/kernel-sec", Better: bench.Lower,
		Doc: "cmpxchg attempts for the socket's NUMA level (snc above 1: the socket's other clusters) per second of kernel time"}
	SocketCASFailsPerSec = bench.Unit{Name: "cas-fails-socket/kernel-sec", Better: bench.Lower,
		Doc: "failed cmpxchg attempts for the socket's NUMA level per second of kernel time"}
	SocketFlagShare = bench.Unit{Name: "flag-socket-%", Better: bench.Lower,
		Doc: "share of the workers' time on the flag for the socket's NUMA level, per cent"}
	AllCASPerSec = bench.Unit{Name: "cas-all/kernel-sec", Better: bench.Lower,
		Doc: "cmpxchg attempts for the NUMA level spanning every node per second of kernel time"}
	AllCASFailsPerSec = bench.Unit{Name: "cas-fails-all/kernel-sec", Better: bench.Lower,
		Doc: "failed cmpxchg attempts for the NUMA level spanning every node per second of kernel time"}
	AllFlagShare = bench.Unit{Name: "flag-all-%", Better: bench.Lower,
		Doc: "share of the workers' time on the flag for the NUMA level spanning every node, per cent"}
)

// kernelSecUnits are the units above, in the order results carry them.
var kernelSecUnits = []bench.Unit{CASPerSec, CASFailsPerSec,
	SocketCASPerSec, SocketCASFailsPerSec, SocketFlagShare,
	AllCASPerSec, AllCASFailsPerSec, AllFlagShare}

// levelUnits are each serialized level's cmpxchg, fails and flag share
// units, indexed by levelKind.
var levelUnits = map[levelKind][3]bench.Unit{
	kindSocket: {SocketCASPerSec, SocketCASFailsPerSec, SocketFlagShare},
	kindAll:    {AllCASPerSec, AllCASFailsPerSec, AllFlagShare},
}

// idleSeed is the seed of ksim.TickIdle for every run: the idle pattern is
// part of the variant, the same in every run and both orders.
const idleSeed = 0x5eed0023

// A levelSum is one kind of level summed over CPUs.
type levelSum struct {
	cas, fails, passes, newidlePasses, flagNs int64
}

// sumLevels sums each kind of level over cpus.
func sumLevels(cpus []*cpuState) map[levelKind]*levelSum {
	sums := map[levelKind]*levelSum{}
	for _, c := range cpus {
		for i := range c.levels {
			l := &c.levels[i]
			s := sums[l.kind]
			if s == nil {
				s = &levelSum{}
				sums[l.kind] = s
			}
			s.cas += l.cas
			s.fails += l.casFails
			s.passes += l.passes
			s.newidlePasses += l.newidlePasses
			s.flagNs += l.flagNs
		}
	}
	return sums
}

// levelMetrics adds the per-kernel-second figures from the workers' ticks,
// cmpxchg and failures (summed by Finish). The workers' kernel time is
// their ticks over HZ, each worker's own: the workers together ran
// ticks/workers seconds of kernel time each. A level the machine does not
// have (the socket's, without SNC) reports nothing.
func (s *balanceFlag) levelMetrics(res *bench.Result, ticks, cas, fails int64) {
	var cpus []*cpuState
	var wall int64
	for _, w := range s.workers {
		cpus = append(cpus, &w.cpuState)
		wall += w.wallNs
	}
	if ticks == 0 || len(s.workers) == 0 {
		return
	}
	kernelSec := float64(ticks) / float64(len(s.workers)) / float64(s.hz)
	res.AddMetric(CASPerSec, float64(cas)/kernelSec)
	res.AddMetric(CASFailsPerSec, float64(fails)/kernelSec)
	for kind, sum := range sumLevels(cpus) {
		u, ok := levelUnits[kind]
		if !ok {
			continue
		}
		res.AddMetric(u[0], float64(sum.cas)/kernelSec)
		res.AddMetric(u[1], float64(sum.fails)/kernelSec)
		if wall > 0 {
			res.AddMetric(u[2], 100*float64(sum.flagNs)/float64(wall))
		}
	}
}
