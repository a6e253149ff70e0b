// Package kernel holds the running kernel up as the oracle for contend's
// models: it finds the instructions that write the contended words in the
// kernel's own text, and counts how often they run under a real workload.
//
// # Finding the sites
//
// Open reads three files under a root ("/" live, a fixture directory in
// tests): the kernel's BTF, for the offsets of the members the sites'
// instructions address (Layout: task_group.load_avg, cfs_rq.tg,
// sched_domain.shared, fair.c's anonymous nohz struct, ...); kallsyms, for
// the hosts' addresses and sizes (up to the next symbol) and the static
// words' (sched_balance_running, balancing, nohz); and kcore, an ELF core
// whose segments map the kernel's virtual addresses, for the text as it
// runs (after alternatives and static keys are patched). Find then
// disassembles each host with x/arch's x86asm and matches instructions by
// what they address, not by byte patterns: a lock add to [reg+load_avg]
// counts only when reg was loaded from [X+cfs_rq.tg] (origin follows the
// straight-line code back, and jumps back to their sources, since GCC moves
// cold branches out of line); a cmpxchg must name sched_balance_running's
// address; a bts must hit the mask nohz points to. So a kernel whose
// layout moved a member is matched at its own offsets, and a pattern that
// merely looks alike is not a site (TestFindRejects moves each offset and
// address and checks the site vanishes).
//
// The package is internal: it is the machinery of one root-only command,
// reads the kernel's files directly, and none of bench/, counter/,
// nodemask/ or affinity/ needs it.
//
// # Counting
//
// Count runs a workload (Shapes) as a process of its own, started inside a
// cgroup-v2 hierarchy, once bare and once counted: hardware execute
// breakpoints (perf_event_open, PERF_TYPE_BREAKPOINT) on up to four
// tg->load_avg sites, kprobes at the same addresses where tracefs accepts
// them, and kprobes on enqueue_task_fair and select_task_rq_fair for the
// denominators. Every change to the machine is made through
// internal/kernel/machine, pushed on its Undo as it is made (Sysctl,
// Tracefs.AddKprobe, Cgroups.MakeHierarchy, Breakpoint.Open) and undone
// before Count returns; what a killed run leaves carries contend's names,
// so the next run removes it (RemoveStale, StaleSysctls). One count (or
// kernel wakeups) at a time: each holds machine.TakeLock's flock from
// before its first change to after its last is undone, so what carries
// contend's names is a dead run's, and a second run is refused in one
// line naming the first.
package kernel
