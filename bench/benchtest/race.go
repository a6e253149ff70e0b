//go:build race

package benchtest

// Race reports whether the race detector is built in. The test command
// (go test -race -bench=. -benchtime=1x ./...) runs every benchmark once as
// a smoke test, where the detector slows a simulation ten times or more: a
// benchmark sized for timing (a seed's machine over seconds of kernel time)
// runs a shorter kernel time under it, the same machine and code paths.
const Race = true
