// Package affinity tells contend what machine it runs on and puts each worker
// exactly where it was asked to be.
//
// Cache-line contention is a property of the machine's shape: two CPUs that
// share a core, a last-level cache, a die or only a socket interconnect see
// the same shared counter at very different costs. Every scenario therefore
// starts from a [Topology], read from sysfs the way the kernel itself exposes
// it under /sys/devices/system/{node,cpu}: possible, online and CPU-bearing
// NUMA nodes, nr_node_ids (the highest possible node id plus one, which bounds
// the kernel's nodemask loops and is not the node count when ids are sparse),
// the node distance matrix, and per CPU its package, die, core, SMT siblings
// and last-level-cache group.
//
// The sysfs root is injected ([Load] takes a directory, [LoadFS] an fs.FS) so
// the reader is tested on real machines' trees kept in testdata/sysfs, one
// directory per machine. [Host] reads the running machine and adds what sysfs
// does not say: the CPUs this process may use (its affinity mask at start,
// which taskset and cgroup cpusets shrink), the kernel release and the CPUID
// facts of [Machine]. Linux's NUMA node numbering comes from sysfs only:
// CPUID knows packages and caches, not how the kernel numbered its nodes.
//
// arm64 has no CPUID. There the core is named by its MIDR_EL1, which sysfs
// shows per cpu (regs/identification/midr_el1, so a tree names its cores
// too), and the line size is CTR_EL0's CWG, read by Host; nothing says
// whether a hypervisor is in between, and String says so. A last-level
// cache group is only ever a cache of level 2 or above: an arm64 guest whose
// kernel lists only L1s has none, and String says that sysfs reports no
// shared cache rather than making a group of every cpu.
//
// The cache line is one fact with one owner: [LineSize] and [PairStride]
// here are what counter lays its stores out by, what bench pads by, and
// what results files record as their cacheline.
//
// Trees differ by kernel and by system. Older kernels wrote some sets only
// as hex maps (nodeN/cpumap before nodeN/cpulist, thread_siblings,
// shared_cpu_map) and lacked the cpu and node lists; containers and odd
// systems leave a file empty or unreadable. Malformed contents are errors,
// but an empty or unreadable file never costs the whole machine: the reader
// falls back to the authoritative file (cpu/online rather than each
// cpuN/online), the hex map, or a default, and records what it did in
// [Topology.Notes], which contend topo prints.
//
// Most development machines have a single node, which would leave every
// multi-node code path untested. [Topology.Fake] splits the allowed CPUs into
// K contiguous made-up nodes so those paths run anyway. A fake topology is
// never mistaken for the real one: its [Topology.Label] is "fake-K", its
// String starts by saying so in capitals, its JSON carries the label, and it
// keeps the real topology it was made from in [Topology.Real].
package affinity
