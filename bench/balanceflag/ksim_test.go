package balanceflag

import (
	"testing"

	"github.com/contend/contend/bench/ksim"
)

// shouldWeBalanceOver, ksim's should_we_balance() over the scenario's levels
// (each local group a run of consecutive CPUs, cores runs of smt), answers
// as ksim's over the domains it builds (ksim.Domains.ShouldWeBalance) at
// every level of every CPU, on machines with and without SNC and SMT and
// over idle patterns from all busy to all idle: the levels' groups and
// cores are the kernel's.
func TestShouldWeBalanceIsKsim(t *testing.T) {
	for _, topo := range []topology{
		{cpus: 32, smt: 2, group: 8, snc: 2},
		{cpus: 48, smt: 2, group: 12, snc: 1},
		{cpus: 16, smt: 1, group: 4, snc: 2},
	} {
		m, err := ksim.Grid{CPUs: topo.cpus, SMT: topo.smt, LLC: topo.group, Node: topo.group, Socket: topo.group * topo.snc}.Machine()
		if err != nil {
			t.Fatal(err)
		}
		ds, err := m.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, busy := range []int{1, 50, 90, 100} {
			for j := int64(1); j <= 20; j++ {
				in := func(cpu int) bool { return idleAt(7, busy, cpu, j) }
				for cpu := range topo.cpus {
					ls := topo.levels(cpu)
					if len(ls) != len(ds.CPU[cpu]) {
						t.Fatalf("%+v cpu %d: %d levels, ksim builds %d", topo, cpu, len(ls), len(ds.CPU[cpu]))
					}
					for i := range ls {
						want := ds.ShouldWeBalance(ksim.Mainline, cpu, i, in)
						if got := shouldWeBalanceOver(topo, in, cpu, &ls[i]); got != want {
							t.Errorf("%+v busy=%d tick %d cpu %d %s: shouldWeBalanceOver %v, ksim %v", topo, busy, j, cpu, kindNames[ls[i].kind], got, want)
						}
					}
				}
			}
		}
	}
}
