package reproduce

import (
	"strings"
	"testing"
)

// Each kind of claim at its edges, on made-up runs (see runs).
func TestClaimJudge(t *testing.T) {
	tight := func(m float64) []float64 { return runs(m, 6, 1) }
	zeros := []float64{0, 0, 0, 0, 0, 0}
	for _, tt := range []struct {
		name          string
		kind          Kind
		min           float64
		before, after []float64
		ok            bool
		na, short     string // substrings of outcome.na, outcome.short
	}{
		{"lower at the size", Lower, 1.2, tight(120), tight(100), true, "", ""},
		{"lower under the size", Lower, 1.2, tight(119.875), tight(100), false, "", "1.199× lower, needs ≥1.2×"},
		{"lower the wrong way", Lower, 1.2, tight(100), tight(120), false, "", "1.20× higher, not lower"},
		{"lower but noise", Lower, 1.2, runs(200, 6, 400), runs(100, 6, 400), false, "", "not significant"},
		{"lower to zero", Lower, 100, tight(1), zeros, true, "", ""},
		{"lower from zero", Lower, 1.2, zeros, zeros, false, "", "no change"},
		{"lower, too few runs", Lower, 1.2, tight(200)[:3], tight(100)[:3], false, "too few runs", ""},
		{"lower, 4+4 is enough", Lower, 1.2, runs(200, 4, 1), runs(100, 4, 1), true, "", ""},
		{"higher at the size", Higher, 2, tight(50), tight(100), true, "", ""},
		{"higher the wrong way", Higher, 2, tight(100), tight(50), false, "", "not higher"},
		{"higher from zero", Higher, 2, zeros, tight(1), true, "", ""},
		{"same: copies", Same, 0.05, tight(100), tight(100), true, "", ""},
		{"same: 20% apart", Same, 0.05, tight(100), tight(120), false, "", "reaches beyond ±5%"},
		{"same: noise", Same, 0.05, runs(100, 6, 100), runs(100, 6, 100), false, "", "reaches beyond"},
		{"same: zero before", Same, 0.05, zeros, zeros, false, "", "before-median is 0"},
		{"same: too few runs", Same, 0.05, tight(100)[:2], tight(100)[:2], false, "too few runs", ""},
		{"agree at the tolerance", Agree, 0.10, tight(10), tight(11), true, "", ""},
		{"agree beyond it", Agree, 0.10, tight(10), tight(11.125), false, "", "more than ±10% apart"},
		{"agree: apart, but noise", Agree, 0.10, runs(10, 6, 40), runs(12, 6, 40), true, "", ""},
		{"at least: CI on the floor", AtLeast, 2, nil, tight(2.375), true, "", ""},
		{"at least: CI under it", AtLeast, 2, nil, tight(2.25), false, "", "below 2"},
		{"at least: too few runs", AtLeast, 2, nil, tight(10)[:5], false, "too few runs", ""},
		{"not above: at the factor", NotAbove, 1.1, tight(80), tight(88), true, "", ""},
		{"not above: past it", NotAbove, 1.1, tight(80), tight(88.125), false, "", "allows ≤110%"},
		{"not above: lower", NotAbove, 1.1, tight(80), tight(40), true, "", ""},
		{"no results", Lower, 1.2, nil, tight(100), false, "no results", ""},
	} {
		c := Claim{What: "x", Kind: tt.kind, Min: tt.min}
		o := c.judge(tt.before, tt.after)
		switch {
		case tt.na != "":
			if !strings.Contains(o.na, tt.na) {
				t.Errorf("%s: na = %q, want %q", tt.name, o.na, tt.na)
			}
		case o.na != "":
			t.Errorf("%s: na = %q, want a judgement", tt.name, o.na)
		case o.ok != tt.ok || !strings.Contains(o.short, tt.short):
			t.Errorf("%s: ok = %v (%s; short %q), want %v (short %q)", tt.name, o.ok, o.text, o.short, tt.ok, tt.short)
		}
	}
}

func TestCriterionWords(t *testing.T) {
	for _, tt := range []struct {
		c    Claim
		want string
	}{
		{Claim{What: "ns per event", Kind: Lower, Min: 1.2}, "ns per event ≥1.2× lower"},
		{Claim{What: "found", Kind: Higher, Min: 2}, "found ≥2× higher"},
		{Claim{What: "ns", Kind: Same, Min: 0.05}, "ns within ±5%"},
		{Claim{What: "balances", Kind: Agree, Min: 0.1}, "balances agree within ±10%"},
		{Claim{What: "share", Kind: AtLeast, Min: 2}, "share ≥2"},
		{Claim{What: "wait", Kind: NotAbove, Min: 1.1, Before: Measure{X: Experiment{Label: "no mask"}}}, "wait ≤110% of no mask's"},
		{Claim{What: "x", Kind: Lower, Min: 13.75 / 2}, "x ≥6.875× lower"},
	} {
		if got := tt.c.criterion(); got != tt.want {
			t.Errorf("criterion = %q, want %q", got, tt.want)
		}
	}
}
