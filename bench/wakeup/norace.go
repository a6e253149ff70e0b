//go:build !race

package wakeup

// pinnedWarmup is the pinned run's simulation warm-up: 0, the
// simulation's default (race.go has the race detector's).
const pinnedWarmup = 0
