package wakeup

import "github.com/contend/contend/bench/ksim"

// PELT for the wakeup model is ksim's float form (ksim.Decay, ksim.PeltSet):
// per-task load averages decayed in continuous time and per-cpu sums of
// them. nice0Load is scale_load_down(NICE_0_LOAD), a nice-0 task's weight
// as PELT sees it, and SCHED_CAPACITY_SCALE: the balancer's arithmetic
// below uses it as both.
const nice0Load = ksim.Nice0LoadDown
