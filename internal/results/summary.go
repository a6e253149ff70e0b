package results

import "golang.org/x/perf/benchmath"

// A Summary is benchstat's summary of one configuration's samples of one
// unit: the median and a confidence interval for it, distribution-free
// unless the unit's metadata says otherwise (assume=exact). Every reader
// of results — compare and table, plot's points, reproduce's findings —
// summarizes with it, so the same samples never get two different medians.
type Summary struct {
	// Sample is the samples, sorted, with benchmath's outlier warnings.
	Sample *benchmath.Sample
	benchmath.Summary
}

// Summarize summarizes values under assumption a with thresholds th (nil:
// benchmath.DefaultThresholds) at the given confidence level (0.95 for a
// 95% interval).
func Summarize(values []float64, a benchmath.Assumption, th *benchmath.Thresholds, confidence float64) *Summary {
	if th == nil {
		th = &benchmath.DefaultThresholds
	}
	if a == nil {
		a = benchmath.AssumeNothing
	}
	s := benchmath.NewSample(values, th)
	return &Summary{Sample: s, Summary: a.Summary(s, confidence)}
}

// Compare compares base with s by the U-test (or what a says), as benchstat
// decides whether a change is "~".
func (s *Summary) Compare(a benchmath.Assumption, base *Summary) benchmath.Comparison {
	if a == nil {
		a = benchmath.AssumeNothing
	}
	return a.Compare(base.Sample, s.Sample)
}
