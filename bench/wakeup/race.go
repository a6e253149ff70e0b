//go:build race

package wakeup

// pinnedWarmup is the pinned run's simulation warm-up under the race
// detector: the test command's smoke run of every benchmark, where the
// default 3 s of kernel time per configuration cost half a second each;
// 300 ms reaches every code path.
const pinnedWarmup = 300e6
