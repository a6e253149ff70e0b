package affinity

import "github.com/contend/contend/nodemask"

// SchedLLC returns the CPUs the scheduler takes as cpu's last-level cache:
// what sd_llc spans, the MC sched domain, cpu_coregroup_mask(). Where sysfs
// reports the cpu's LLC, that group. Where it reports none (an arm64 QEMU
// guest whose device tree has no cache nodes lists only L1s), derived is
// true and the set is what arm64's and riscv's cpu_coregroup_mask()
// (drivers/base/arch_topology.c) makes without an LLC to narrow it: the
// cpu's node, or its package where the package lies within the node; then
// its cluster where the cluster holds that (for "no shared cpu-side LLC
// but clusters", under CONFIG_SCHED_CLUSTER, default y since 7bd291abe2da
// in v6.18; arm64's own option before it had no default). Taking every CPU
// for one cache instead would put both packages of a 2-socket guest in one
// sd_llc. Only online CPUs count, as update_siblings_masks() builds the
// sibling masks from them. A cpu the topology does not have, or an offline
// one, gets the empty set.
//
// x86 has a cpu_coregroup_mask() of its own (cpu_llc_shared_mask), but its
// kernels always report their LLC, which is then what is returned.
func (t *Topology) SchedLLC(cpu int) (cpus nodemask.Bitmap, derived bool) {
	if cpu < 0 || cpu >= len(t.CPUs) || !t.OnlineCPUs.Test(cpu) {
		return cpus, false
	}
	c := t.CPUs[cpu]
	if c.LLC >= 0 && c.LLC < len(t.LLCs) {
		return t.LLCs[c.LLC].CPUs.Clone(), false
	}
	mask := t.OnlineCPUs.Clone() // cpumask_of_node(NUMA_NO_NODE)
	if n := t.NodeByID(c.Node); n != nil {
		mask = n.CPUs.And(t.OnlineCPUs)
	}
	if pkg := t.onlineWith(func(o CPU) bool { return o.Package == c.Package }); pkg.Subset(mask) {
		mask = pkg // no NUMA in the package: the package siblings
	}
	if c.Cluster >= 0 {
		if cl := t.onlineWith(func(o CPU) bool { return o.Package == c.Package && o.Cluster == c.Cluster }); mask.Subset(cl) {
			mask = cl
		}
	}
	return mask, true
}

// onlineWith is the set of online CPUs for which same is true.
func (t *Topology) onlineWith(same func(CPU) bool) nodemask.Bitmap {
	var b nodemask.Bitmap
	for cpu := range t.OnlineCPUs.All() {
		if cpu < len(t.CPUs) && same(t.CPUs[cpu]) {
			b.Set(cpu)
		}
	}
	return b
}
