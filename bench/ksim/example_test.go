package ksim_test

import (
	"fmt"

	"github.com/contend/contend/bench/ksim"
)

// A model on the shared package: 4.13's periodic balance of every domain
// of an 8-CPU machine (two LLCs of four) for 1 s at HZ=1000, all CPUs
// busy, on the driver. Each CPU's body is the kernel's control flow on
// that CPU; the one thing CPUs share here, a counter of balance passes per
// level, is served by the driver in kernel-time order, so no lock is
// needed and the run is the same on every machine.
func Example() {
	m, err := ksim.Grid{CPUs: 8, LLC: 4}.Machine()
	if err != nil {
		panic(err)
	}
	ds, err := m.Build()
	if err != nil {
		panic(err)
	}
	const hz = ksim.HZ(1000)
	k := ksim.Linux413
	maxInterval := ksim.MaxLoadBalanceInterval(hz, len(m.CPUs))
	idle := func(int) bool { return false } // every CPU busy
	passes := map[string]int{}

	d := ksim.Driver{Serve: func(p *ksim.Proc, e ksim.Event) {
		if e.Kind == ksim.Softirq {
			passes[ds.CPU[p.CPU][e.Arg].Name]++
		}
	}}
	d.Run(len(m.CPUs), func(p *ksim.Proc) {
		doms := ds.CPU[p.CPU] // this CPU's copy: its Balance is its own
		p.Ticks(hz, hz.Ticks(1e9), func(j int64) bool {
			for i := range doms {
				b := &doms[i].Balance
				if !b.Due(j, k.BalanceInterval(b.Interval, true, hz, maxInterval)) {
					continue
				}
				if ds.ShouldWeBalance(k, p.CPU, i, idle) &&
					!p.Do(ksim.Event{T: p.Now, Kind: ksim.Softirq, Arg: int64(i)}) {
					return false
				}
				b.LastBalance = j
				b.OutBalanced() // nothing to move: the interval doubles, up to 2·weight ms
			}
			return true
		})
	})
	fmt.Println("levels of cpu 0:", ds.CPU[0][0].Name, ds.CPU[0][0].Weight(), ds.CPU[0][1].Name, ds.CPU[0][1].Weight())
	fmt.Println("MC passes:", passes["MC"], "PKG passes:", passes["PKG"])
	// By hand: MC's groups are single CPUs, so all 8 balance it, first at
	// 4 ms × busy_factor 32 = 128 jiffies, then every 8 × 32 = 256 (the
	// interval doubled once, to max_interval): at 128, 384, 640 and 896,
	// 32 passes. PKG's groups are the LLCs, balanced by their first CPU
	// (0 and 4), at 256 and then 512 later, 768: 4 passes.
	fmt.Println("kernel", k.Name)

	// Output:
	// levels of cpu 0: MC 4 PKG 8
	// MC passes: 32 PKG passes: 4
	// kernel 4.13
}
