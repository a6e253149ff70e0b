package bench

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// quiesce collects garbage and then switches the collector off, memory limit
// included, until the returned function restores both. Run calls it before
// the first worker starts, so that no collection has to stop the world while
// pinned workers spin: a stop-the-world waits for every running goroutine to
// reach a point the runtime may stop it at, and a spinning worker may never
// offer one (see safePoint). The workers' own allocations, made after it,
// are simply not collected until the run ends.
func quiesce() (restore func()) {
	runtime.GC()
	gc := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(gc)
	}
}

// awaitRelease spins until f is set, at a safe point on every turn.
func awaitRelease(f *atomic.Bool) {
	for !f.Load() {
		safePoint()
	}
}

// safePoint is a call at which the Go runtime can stop the calling goroutine
// without a signal: a function with a stack-bound check in its prologue (it
// calls another, so the compiler does not make it a frameless NOSPLIT leaf),
// which fails when the runtime asks the goroutine to stop (stackguard0 =
// stackPreempt) and so enters the scheduler. The runner calls it in every
// loop that can spin for long: the release barrier on each turn, the batch
// loop after each batch, so that a stop-the-world — a collection someone
// forced, GOMAXPROCS, ReadMemStats, a goroutine profile — waits at most one
// batch for a worker.
//
// Without it a spinning loop is stopped only asynchronously: a SIGURG must
// land on an instruction the compiler marked async-safe. On arm64 the
// barrier's loop head was a nil check, a load into REGTMP (R27), which the
// assembler marks unsafe; an emulator that delivers signals only at a
// translated block's first instruction (QEMU TCG, system or user mode) lands
// every one there, and the world never stopped. GODEBUG=asyncpreemptoff=1
// does the same on any machine.
//
//go:noinline
func safePoint() { safePointCallee() }

//go:noinline
func safePointCallee() {}
