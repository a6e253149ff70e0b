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
// # Every version
//
// The words and their code have moved between the kernels contend holds up
// (Debian's 6.1, 6.12 and 6.16 … 7.3 are read: fixtures of 6.1, 6.12, 7.2
// and 7.3 in testdata, cut from their images, and of 6.16 from a lab
// guest; the rest in the lab's guests): the balancer's
// spinlock became the flag sched_balance_running (v6.9), whose cmpxchg
// moved from sched_balance_domains, before the interval test, into
// sched_balance_rq after it and should_we_balance() (3324b2180c17, in
// Debian's 6.18.15 as a stable backport), where newidle passes take it too
// (522fb20fbdbe dropped 3324b2180c17's "idle != CPU_NEWLY_IDLE": the form
// line says which, from the tests guarding the cmpxchg); nohz lost nr_cpus (5d86d542f68f,
// Debian 7.0) and renamed has_blocked has_blocked_load; task_group gained
// runnable_avg beside load_avg (7.3); sched_domain_shared gained the LLC's
// util_avg (cache-aware scheduling, 7.2); and GCC inlines update_load_avg
// into its callers from 7.0, so those are hosts too. So every BTF member
// is optional: a struct or member a kernel lacks leaves the sites that
// need it "not in this kernel", saying what replaced it, and Find fails
// only when it cannot read the text at all. Report.Forms names each
// word's shape in this kernel from its text and BTF (where the flag is
// taken; nohz's counter and mask, or the mask's weight alone; which words
// share a line), which contend kernel history compares kernel to kernel.
//
// Report.Idle reads one form that is no word's: the idle loop's without a
// cpuidle driver (idle.go), which decides how often an idle cpu stops
// its tick and so enters nohz's mask. From do_idle's call of
// cpuidle_not_available (cpuidle_idle_call is inlined there in every
// Debian kernel read) the walk follows the side taken on true, both ways
// at each conditional jump, to default_idle_call: a call of
// tick_nohz_idle_retain_tick on the way is f4c31b07b136's form (6.1.0-57
// and 6.12.117 have its stable backport; 6.16.12 has not: testdata's
// debian-6.16 is a lab guest's text, written by contend kernel sites
// -save), tick_nohz_idle_stop_tick alone the form before it. Count
// records the reading (Counted.Idle), and counts both functions' calls
// among the balancer's causes (idle-stop-asks, idle-retains).
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
