// Package machine is what contend kernel touches on the running machine,
// and how it puts it back: the sysctls it sets (Sysctl), the tracefs
// kprobes it adds (Tracefs), the cgroup-v2 hierarchy its workload runs in
// (Cgroups), the file systems it mounts where a minimal guest has none
// (Mount), and the hardware breakpoints it opens with perf_event_open
// (Breakpoint). Each change is pushed on an Undo the moment it is made,
// before the next can fail, and Undo.Run takes them all back, newest
// first. What a killed run could not take back carries contend's names
// (ProbeGroup, the cgroups' prefix, the sysctls' saved values under
// /run/contend-kernel), so the next run finds and removes it
// (Tracefs.RemoveStale, Cgroups.RemoveStale, StaleSysctls).
//
// One run at a time: every run that changes the machine first takes an
// exclusive flock on /run/contend-kernel/lock (TakeLock), which names its
// holder (pid, start, command), and holds it until its last change is
// undone. A second run is refused in one line naming the first. The
// kernel drops a flock when its holder dies, however it died, so the lock
// held means every change under contend's names is a dead run's: stale is
// removed only when its owner is gone. (Without it, two counts in a 6.12
// guest each took the other's kprobes for leftovers and the kernel
// Oopsed at a probed entry, 2 boots of 2.)
//
// It also reads /proc/stat's cpu line (ReadCPUTimes), the one file a
// count reads about the machine as a whole rather than the kernel's text
// or the workload's threads.
//
// The package knows nothing of sites or workloads: internal/kernel (the
// count) and internal/kernel/wakeups use it, and it imports neither.
package machine
