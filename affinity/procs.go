package affinity

import (
	"os"
	"runtime"
)

// procsAtStart is GOMAXPROCS as the runtime chose it, before anyone set it.
var procsAtStart = runtime.GOMAXPROCS(0)

// ProcsAtStart returns GOMAXPROCS as the runtime chose it at start, before
// any run raised it: the -N suffix go test puts on benchmark names, which
// contend's own results copy so that both name a configuration alike.
func ProcsAtStart() int { return procsAtStart }

// EnsureProcs sets GOMAXPROCS to at least n, explicitly, and returns a func
// that undoes it. Spinning pinned workers must each have a P of their own (n
// is workers+1: the coordinator needs one too), or two of them time-share a
// P and the result measures Go's scheduler.
//
// Setting it explicitly also matters when it is already large enough: since
// Go 1.25 the runtime re-reads the CPU affinity mask about once a second and
// lowers a default GOMAXPROCS to fit it, and the thread it asks may be one of
// our pinned workers. After a run every worker thread is unpinned again, so
// handing control back to the runtime's default is then safe.
func EnsureProcs(n int) (restore func()) {
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(max(prev, n))
	return func() {
		if os.Getenv("GOMAXPROCS") == "" && prev == procsAtStart {
			runtime.SetDefaultGOMAXPROCS()
			return
		}
		runtime.GOMAXPROCS(prev)
	}
}
