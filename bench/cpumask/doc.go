// Package cpumask is K Prateek Nayak's user-space test of root_domain's
// cpupri masks, registered as the scenario "cpumask", and the cpupri_vec
// layouts Pan Deng's series proposes around it.
//
// # The kernel
//
// kernel/sched/cpupri.c keeps, per RT priority, a struct cpupri_vec
// { atomic_t count; cpumask_var_t mask; } in root_domain's cpupri.
// cpupri_set() moves a cpu between vectors whenever its highest RT
// priority changes (every RT task switch): cpumask_set_cpu(cpu, vec->mask)
// and atomic_inc(&vec->count) on the new vector, atomic_dec and
// cpumask_clear_cpu on the old one, each a LOCK-prefixed read-modify-write
// on x86. __cpupri_find() (every RT push and pull) reads the count and, if
// it is not zero, searches the mask. With one root domain over a 2-socket,
// 480-thread machine, every cpu writes the same lines; Pan Deng (Intel,
// "sched/rt: optimize cpupri_vec layout", 2025-06-12; v1 2025-07-06
// https://lkml.iu.edu/2507.0/08584.html, not merged as of 2026-04) found
// perf c2c cycles per load of 2.2K–8.7K on cpupri_vec's mask and proposed
// putting the mask on a line of its own (26 → 203 lines for struct cpupri)
// and then splitting the mask per NUMA node (v1 4/4).
//
// In review (https://lkml.iu.edu/2604.1/02171.html, 2026-04-09, quoted in
// https://lkml.iu.edu/2604.1/03890.html) K Prateek Nayak measured the
// worst case in user space on a 2-socket Zen 3 (64 cores, 128 threads and
// 8 LLCs per socket): two threads pinned on every cpu yield to each other,
// one setting the cpu's bit of a cpumask at each switch and the other
// clearing it. Cycles in the mask operations, relative to one global mask:
// one mask per NUMA node 32.9 %, one per LLC 1.30 %, one per LLC written
// with a plain byte per cpu (no LOCK prefix) 0.49 %.
//
// # What runs
//
// One worker per cpu stands for the cpu's two threads: they run one after
// the other, so the cpu's writes to the mask alternate set, clear, set, …,
// which is what a worker does, one write per operation. The yield between
// them is left out, as his cycle count leaves it out (he counted the
// cycles of the mask operations); work= adds local work between writes
// instead, to dilute the contention as a real switch would.
//
//   - split=global: one mask for every worker (root_domain's cpupri_vec
//     mask as merged).
//   - split=node: one mask per node of the workers (Pan Deng's v1 4/4).
//   - split=llc: one mask per last-level cache of the workers.
//   - store=lock: the bit is set with a locked OR and cleared with a locked
//     AND (Go's atomic.OrUint64/AndUint64: LOCK ORQ/ANDQ on amd64, the
//     kernel's set_bit/clear_bit are LOCK ORB/ANDB or BTS/BTR; LDSET/LDCLR
//     or an LL/SC loop on arm64). store=byte: each cpu owns a byte of its
//     mask's line and writes 1 or 0 with a plain store (WRITE_ONCE of a u8:
//     a MOV), which a reader would turn into bits with a shift, as he
//     proposed.
//   - vec=off: the bare mask, his experiment. vec=shared: the mask is
//     cpupri_vec's, with its count on the mask's first line as in
//     cpupri.h before the series (CONFIG_CPUMASK_OFFSTACK=n lays the bits
//     right after the count); each set also increments the count and each
//     clear decrements it (cpupri_set()), and each operation then runs
//     __cpupri_find(): it reads the count and, when it is not zero,
//     searches the masks, the worker's own first, for a set bit of another
//     worker. vec=padded: the count on a line of its own (the one-patch
//     version's ____cacheline_aligned mask); with split=node it is v1 4/4,
//     the count padded and the mask per node. vec needs store=lock, and
//     vec=shared one mask (split=global): the count shares a line with the
//     only mask there is.
//
// Each mask (and the count) starts a block of bench.LinePad bytes of its
// own, so masks of different groups never share a line or its prefetched
// pair. All of them are one allocation, made by Start before any worker
// runs, as root_domain's cpupri is one allocation: the per-node masks are
// not bound to their nodes, so on a real 2-node machine a node's workers
// may write a remote node's memory; what the split removes here is the
// sharing of the line between nodes, not the distance to its home. A worker's bit is its rank in its group rather than its cpu id:
// the same line sharing as the kernel's, where the cpus of a node or an
// LLC are contiguous ids, and a mask of 512 or fewer members is one line.
// On a machine with one node and one LLC, as the 2-vCPU machine contend was
// developed on, split=global, node and llc are the same single mask: the
// splits can only be told apart with two nodes (or -fake-nodes 2, which
// splits the line without the interconnect) or several LLCs.
//
// # Metrics
//
// line-writers is the number of workers writing each worker's mask line,
// averaged over workers, and cross-node-% the share of workers whose mask
// line another node's worker also writes: both follow from the split and
// the placement, and are what the lab's 2-node guest checks (counts, not
// times). find-lines/op is the mask lines a __cpupri_find() read, per
// operation (0 with vec=off). Finish checks every worker's bit (or byte)
// against the parity of the writes it made, and with a vec the count
// against the set bits: a lost or torn write fails the run.
package cpumask
