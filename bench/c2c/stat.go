package c2c

import (
	"fmt"
	"strconv"
)

// A Stat is the statistic of a pair's samples that Result.NS, the matrix
// and the class summary show. Both are always recorded; the benchmark
// format's ns/op is the median whatever the Stat.
type Stat string

const (
	// Median is the middle sample: the default, robust to the interrupt
	// that spoils one sample.
	Median Stat = "median"
	// Min is the fastest sample: the floor the hardware allows.
	Min Stat = "min"
)

// ParseStat reads a statistic's name, as -stat gives it.
func ParseStat(s string) (Stat, error) {
	switch st := Stat(s); st {
	case Median, Min:
		return st, nil
	}
	return "", fmt.Errorf("unknown statistic %q (want median, min)", s)
}

// String returns the statistic's name; the zero Stat is the default,
// Median.
func (s Stat) String() string {
	if s == "" {
		return string(Median)
	}
	return string(s)
}

// Set reads a statistic's name into s, so that a flag holds a Stat.
func (s *Stat) Set(v string) error {
	st, err := ParseStat(v)
	if err == nil {
		*s = st
	}
	return err
}

// A Warmup is how many samples a measurement runs and drops before the
// measured ones, so that the line, the branch predictors and the clock
// have settled. The command line's -warmup and Config.Warmup read the same
// values: auto (the zero Warmup) is Samples/10, at least 1; none (or 0)
// runs none; a positive count runs that many. (They used to disagree: the
// flag's -1 was the default and its 0 none, the library's 0 the default
// and its -1 none.)
type Warmup int

const (
	// AutoWarmup, the zero Warmup, runs Samples/10 warm-up samples, at
	// least 1: WithDefaults sets the count.
	AutoWarmup Warmup = 0
	// NoWarmup runs none. Any negative Warmup is NoWarmup.
	NoWarmup Warmup = -1
)

// ParseWarmup reads a warm-up: auto, none, or a count of samples (0 is
// none).
func ParseWarmup(s string) (Warmup, error) {
	switch s {
	case "auto":
		return AutoWarmup, nil
	case "none", "0":
		return NoWarmup, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return AutoWarmup, fmt.Errorf("warm-up %q: want auto (samples/10), none (0) or a count of samples", s)
	}
	return Warmup(n), nil
}

// String returns the warm-up as ParseWarmup reads it.
func (w Warmup) String() string {
	switch {
	case w == AutoWarmup:
		return "auto"
	case w < 0:
		return "none"
	}
	return strconv.Itoa(int(w))
}

// Set reads a warm-up into w, so that a flag holds a Warmup.
func (w *Warmup) Set(s string) error {
	v, err := ParseWarmup(s)
	if err == nil {
		*w = v
	}
	return err
}

// Samples returns how many warm-up samples run: the count, 0 for
// NoWarmup. AutoWarmup has no count until WithDefaults gives it one.
func (w Warmup) Samples() int { return max(int(w), 0) }
