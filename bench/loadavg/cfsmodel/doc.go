// Package cfsmodel is the loadavg scenario's per-CPU model of the kernel's
// task-group load tracking: each CPU's cfs_rq path of the group (a
// counter.CfsRq and its parents), its clock in kernel time, its queued and
// sleeping tasks, and the wakeups that move a sleeping task's load from one
// CPU's cfs_rq to another's (remove_entity_load_avg(), then attach), with
// the checks that a stopped group conserved every unit of that load.
//
// It is its own package because two users drive the same model and must
// not drift apart: the pinned scenario (bench/loadavg's workers, one
// goroutine per CPU, whose hot loop runs CPU.Event on real shared lines)
// and the single-threaded simulation of the same group in kernel time
// (`contend simulate loadavg`, and its pairs workload, which drives the
// CPUs' cfs_rqs and task lists from its own event queue). Whatever the
// simulation reports about a variant is therefore what the pinned run
// executes, and StoresConserved holds both to the same exact accounting.
//
// A CPU belongs to one goroutine; only its away list (a SleeperQueue,
// behind a counted lock) is shared. Event never allocates: Init sizes
// every list for all the group's tasks.
package cfsmodel
