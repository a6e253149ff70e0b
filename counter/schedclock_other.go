//go:build !amd64 && !386 && !arm64

package counter

import "time"

var clockStart = time.Now()

// schedClockCycles is the monotonic clock where contend has no cycle
// counter read of its own: a vDSO call, dearer than the kernel's.
func schedClockCycles() uint64 { return uint64(time.Since(clockStart)) }
