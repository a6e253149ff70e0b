//go:build !race

package benchtest

// Race reports whether the race detector is built in (race.go).
const Race = false
