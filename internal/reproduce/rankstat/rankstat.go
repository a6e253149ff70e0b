// Package rankstat holds the statistics reproduce's claims are decided by, split out of
// internal/reproduce. Three questions, three tools:
//
//   - Did it change? The two-sided Mann-Whitney U test, exactly as benchstat
//     decides "~" (benchmath.AssumeNothing), at Alpha = 0.05.
//   - By how much? The ratio of the two medians, the figure the table shows.
//     A claim of an effect holds only when that ratio reaches the claim's
//     minimum size and the U test rejects: significance alone admits a 1%
//     change, size alone admits noise.
//   - Is it the same? A claim of no effect holds when the confidence interval
//     of the difference lies inside ±margin of the before-median: an
//     equivalence test, because "the U test did not reject" is absence of
//     evidence, and a noisier run would pass it more easily.
//
// The interval is the Hodges-Lehmann one (Moses 1953; Hollander & Wolfe,
// Nonparametric Statistical Methods, §4.3): the shift Δ between two samples
// is estimated by the median of all n1·n2 pairwise differences after−before,
// and its interval runs from the k-th smallest to the k-th largest of them,
// with k read off the null distribution of the same U statistic. We use it,
// rather than a bootstrap, because
//
//   - it is distribution-free and exact under the shift model at any sample
//     size, where a bootstrap of a median from 6 runs takes one of 6 values
//     and undercovers;
//   - it is the U test inverted, so it cannot disagree with the significance
//     test beside it (without ties, the 95% interval excludes 0 exactly when
//     the U test rejects at 0.05);
//   - it is deterministic: the same file judged twice gives the same verdict,
//     with no seed to fix or report.
//
// The equivalence interval is the 90% one: two one-sided tests at 0.05
// (Schuirmann's TOST), the usual level for showing two things are the same.
package rankstat

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Alpha is the U test's significance level, benchstat's default.
const Alpha = 0.05

// EquivLevel is the confidence level of an equivalence claim's interval.
const EquivLevel = 0.90

// Median returns the median of xs, which must be sorted and non-empty.
func Median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// UTest returns the p-value of the two-sided U test of before against after,
// computed as benchstat computes it; 1 when the samples cannot be told apart
// at all (every value equal).
func UTest(before, after []float64) float64 {
	th := benchmath.DefaultThresholds
	a := benchmath.NewSample(slices.Clone(before), &th)
	b := benchmath.NewSample(slices.Clone(after), &th)
	return benchmath.AssumeNothing.Compare(a, b).P
}

// CanReject reports whether samples of n1 and n2 runs can reach p < Alpha
// under the two-sided U test at all: the smallest p two fully separated
// samples get is 2/C(n1+n2, n1). 4+4 is the least that can (p = 0.029).
func CanReject(n1, n2 int) bool {
	if n1 == 0 || n2 == 0 {
		return false
	}
	return 2/choose(n1+n2, n1) < Alpha
}

func choose(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// ShiftCI returns the Hodges-Lehmann estimate of the shift after−before and
// its distribution-free confidence interval at level conf. ok is false when
// the samples are too small for any finite interval at that level.
func ShiftCI(before, after []float64, conf float64) (est, lo, hi float64, ok bool) {
	n1, n2 := len(before), len(after)
	if n1 == 0 || n2 == 0 {
		return 0, 0, 0, false
	}
	d := make([]float64, 0, n1*n2)
	for _, y := range after {
		for _, x := range before {
			d = append(d, y-x)
		}
	}
	slices.Sort(d)
	est = Median(d)
	k := CIOrder(n1, n2, conf)
	if k < 1 {
		return est, math.Inf(-1), math.Inf(1), false
	}
	return est, d[k-1], d[len(d)-k], true
}

// CIOrder returns the largest k such that [D(k), D(n1·n2+1−k)] of the sorted
// pairwise differences covers the shift with probability at least conf:
// the coverage is 1 − 2·P(U ≤ k−1) under the null distribution of U. 0 when
// even the full range falls short.
func CIOrder(n1, n2 int, conf float64) int {
	dist := stats.UDist{N1: n1, N2: n2}
	k := 0
	// The slack absorbs 1−0.9 rounding below 0.1, so that 3+3 runs, whose
	// widest interval covers exactly 90%, get it.
	for k < n1*n2/2 && 2*dist.CDF(float64(k)) <= 1-conf+1e-12 {
		k++
	}
	return k
}
